package twin

// recordTools is the decision, document, engineering entity (and their
// approval) and claim writes: decisions.go, documents.go, entities.go,
// approvals.go and claims.go; and the tube tools that record evidence and
// decisions from a committed tube (tube.go: optimize.go, sensitivity.go).
func recordTools() []tool {
	out := []tool{recordDecisionTool(), recordDocumentTool(), recordLoadCaseTool(), recordEngineeringEntityTool(), approveEngineeringEntityTool(), recordClaimTool()}
	return append(out, tubeTools()...)
}
