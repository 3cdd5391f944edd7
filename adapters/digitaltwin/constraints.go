package digitaltwin

// constraintTools is not built yet.
func constraintTools() []tool { return nil }
