package twin

// twinTools is every twin.* tool, by area.
func twinTools() []tool {
	var out []tool
	for _, area := range [][]tool{
		{commitGeometryTool(), recordConstraintSetTool(), recordEvidenceTool()},
		{getNodeTool(), itemHistoryTool()},
		recordTools(),    // decisions, documents, engineering entities, claims
		threadTools(),    // thread_for, what_verifies, where_used, find_by_property
		selectionTools(), // component selections against the requirements
		checkTools(),     // constraint_violations
		queryTools(),     // query_cypher
		loopTools(),      // design loops: start (wall, height), get, approve
		changeTools(),    // engineering changes: propose, analyse, review, commit, revalidate, roll back
		{evaluateMetricTool(), evaluateThermalMetricTool()},
		releaseTools(), // baselines, maturity gates, release packages, promotion
		// trade studies and requirement-driven component choices, recorded as decisions
		choosingTools(),
		// compliance checklists, design sketches, hazard analyses, procurement records, technical drawings
		typedDocumentTools(),
	} {
		out = append(out, area...)
	}
	return out
}
