package digitaltwin

// queryTools is not built yet.
func queryTools() []tool { return nil }
