package digitaltwin

// recordTools is the decision, document, engineering entity and claim
// writes: decisions.go, documents.go, entities.go and claims.go.
func recordTools() []tool {
	return []tool{recordDecisionTool(), recordDocumentTool(), recordEngineeringEntityTool(), recordClaimTool()}
}
