package digitaltwin

// checkTools is not built yet.
func checkTools() []tool { return nil }
