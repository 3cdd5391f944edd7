package digitaltwin

// threadTools is not built yet.
func threadTools() []tool { return nil }
