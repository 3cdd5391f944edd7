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
		hierarchyTools(), // product hierarchy: record, realise, roll up
		checkTools(),     // constraint_violations
		queryTools(),     // query_cypher
		loopTools(),      // design loops: start (wall, height), get, approve
		changeTools(),    // engineering changes: propose, analyse, review, commit, revalidate, roll back
		{evaluateMetricTool(), evaluateThermalMetricTool()},
		releaseTools(),       // baselines, maturity gates, release packages, promotion
		verificationTools(),  // system architecture, test plan, built units and their measurements
		assemblyTools(),      // from an assembly's joints: bring-up order, firmware scaffold, harness
		fileTools(),          // work products from files, files from work products, the overhang check
		choosingTools(),      // trade studies and requirement-driven component choices, recorded as decisions
		typedDocumentTools(), // compliance checklists, design sketches, hazard analyses, procurement records, drawings
	} {
		out = append(out, area...)
	}
	return out
}
