package digitaltwin

// recordTools is the decision, document, engineering entity (and their
// approval) and claim writes: decisions.go, documents.go, entities.go,
// approvals.go and claims.go.
func recordTools() []tool {
	return []tool{recordDecisionTool(), recordDocumentTool(), recordEngineeringEntityTool(), approveEngineeringEntityTool(), recordClaimTool()}
}
