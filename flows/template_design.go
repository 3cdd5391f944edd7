package flows

// designV1 is the generic flow for a goal that is neither clearly a
// mechanical part nor a board: fewer phases, no separate analysis. The
// design gate holds the model to its geometry requirements; everything
// else (structural, electrical, cost) is judged together at verification,
// since a generic goal's requirements may be of any class.
func designV1() Flow {
	return Flow{
		ID:    "design_v1",
		Title: "Generic design",
		Description: "A design from requirements to release: concept, design model, verification against every " +
			"requirement, release package.",
		Phases: []Phase{
			requirementsPhase("envelope_x, envelope_y, envelope_z (mm) and mass (kg) for the model; max_displacement (mm), " +
				"max_von_mises (MPa), safety_factor (unit 1) for structural checks; supply_voltage (V), supply_current (mA) " +
				"for electrical ones; cost (USD)"),
			{
				Name: "concept",
				Brief: "Propose two or three concepts that could meet the requirements and record each with " +
					"twin.record_engineering_entity (entity_type concept_option), with its main dimensions, estimates and " +
					"risks (entity_type risk for the notable ones). Choose one and record the choice with twin.record_decision: " +
					"the chosen concept, the alternatives and why.",
				Deliverables: []string{"decision"},
				Tools:        []string{"twin.record_engineering_entity", "twin.record_decision"},
				Gate:         gate(2, "concept", CriterionDeliverables),
			},
			{
				Name: "design",
				Brief: "Model the chosen concept with cadquery.create_parametric (mm, main dimensions as parameters), measure " +
					"it with cadquery.get_properties, export STEP with cadquery.export_geometry and record it with " +
					"twin.commit_geometry as a cad_model with its material and the properties bounding_box, mass_kg and " +
					"volume_mm3. Call twin.constraint_violations and revise the model until no geometry requirement fails.",
				Deliverables: []string{"cad_model"},
				Tools: []string{"cadquery.create_parametric", "cadquery.get_properties", "cadquery.export_geometry",
					"twin.commit_geometry", "twin.constraint_violations"},
				Gate: gate(3, "design", CriterionDeliverables, CriterionGeometry),
			},
			{
				Name: "verification",
				Brief: "Verify every requirement against the current cad_model revision. For structural requirements mesh it " +
					"with gmsh.generate_mesh (faces from gmsh.list_named_faces), run calculix.run_fea per load case, and record " +
					"max_von_mises (MPa), max_displacement (mm) and safety_factor (unit 1) with twin.record_evidence linked to " +
					"that revision; for electrical ones use spice.run_simulation or power.check_budget. " + verifyRows,
				Deliverables: []string{"evidence"},
				Tools: []string{"twin.constraint_violations", "twin.record_evidence", "gmsh.generate_mesh",
					"gmsh.list_named_faces", "calculix.run_fea", "spice.run_simulation", "power.check_budget",
					"twin.record_engineering_entity"},
				Gate: gate(4, "verification", CriterionDeliverables, CriterionAllRequirements, CriterionNoStaleEvidence),
			},
			{
				Name:         "release",
				Brief:        releaseBrief("Export the released cad_model revision with cadquery.export_geometry."),
				Deliverables: []string{"release_package"},
				Tools: []string{"cadquery.export_geometry", "twin.constraint_violations", "twin.record_engineering_entity",
					"twin.record_decision", "twin.list_maturity_gates", "twin.create_baseline",
					"twin.approve_engineering_entity", "twin.create_release_package"},
				Gate: gate(5, "release", CriterionDeliverables, CriterionAllRequirements),
			},
		},
	}
}
