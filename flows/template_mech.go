package flows

// mechV1 is the mechanical-part flow: a part is modelled, its geometry
// checked against the envelope and mass requirements, then analysed by FEA
// per load case before it is verified and released.
func mechV1() Flow {
	return Flow{
		ID:    "mech_v1",
		Title: "Mechanical part",
		Description: "A mechanical part from requirements to release: concept, parametric CAD, FEA per load case, " +
			"verification against every requirement, release package.",
		Phases: []Phase{
			requirementsPhase("envelope_x, envelope_y, envelope_z, wall_thickness (mm) and mass (kg), held against the " +
				"cad_model; max_displacement (mm), max_von_mises (MPa), safety_factor (unit 1) and natural_frequency (Hz), " +
				"held against simulation evidence. Note the loads, the material and the manufacturing route in the descriptions " +
				"of the requirements they bear on"),
			{
				Name: "concept",
				Brief: "Propose two or three concepts that could meet the requirements (different topology, section or " +
					"manufacturing approach). Size each roughly, by hand or with cadquery.create_parametric and " +
					"cadquery.get_properties, and record each with twin.record_engineering_entity (entity_type concept_option) " +
					"with its main dimensions, estimated mass and risks. Choose one and record the choice with " +
					"twin.record_decision: the chosen concept, the alternatives and why.",
				Deliverables: []string{"decision"},
				Tools: []string{"cadquery.create_parametric", "cadquery.get_properties", "twin.record_engineering_entity",
					"twin.record_decision"},
				Gate: gate(2, "concept", CriterionDeliverables),
			},
			{
				Name: "design",
				Brief: "Model the chosen concept with cadquery.create_parametric, its main dimensions as parameters (mm), inside " +
					"the envelope requirements and respecting the minimum wall thickness and the manufacturing route. Measure it " +
					"with cadquery.get_properties, export STEP with cadquery.export_geometry, and record it with " +
					"twin.commit_geometry as a cad_model with its material and the properties bounding_box, mass_kg and " +
					"volume_mm3. Call twin.constraint_violations: the envelope, thickness, mass and material requirements are " +
					"checked against that cad_model; change the parameters and commit a new revision until none fails.",
				Deliverables: []string{"cad_model"},
				Tools: []string{"cadquery.create_parametric", "cadquery.get_properties", "cadquery.export_geometry",
					"twin.commit_geometry", "twin.constraint_violations"},
				Gate: gate(3, "design", CriterionDeliverables, CriterionGeometry),
			},
			{
				Name: "analysis",
				Brief: "Check the committed cad_model against the structural requirements by FEA. Mesh its STEP with " +
					"gmsh.generate_mesh and find the fixed and loaded faces with gmsh.list_named_faces. Run calculix.run_fea " +
					"(static_stress) once per load case with the cad_model's material, and confirm the mesh is fine enough with " +
					"calculix.check_mesh_convergence. Record each result with twin.record_evidence, linked to the cad_model " +
					"revision analysed: metrics max_von_mises (MPa), max_displacement (mm) and safety_factor (unit 1). When the " +
					"run input has load_cases the server runs calculix.run_fea per case itself and records these metrics. Call " +
					"twin.constraint_violations: the deflection, stress and safety-factor requirements must pass on current " +
					"evidence; if one fails, change the design, commit a new cad_model revision and analyse it again.",
				Deliverables: []string{"evidence"},
				Tools: []string{"gmsh.generate_mesh", "gmsh.list_named_faces", "calculix.run_fea",
					"calculix.check_mesh_convergence", "twin.record_evidence", "twin.constraint_violations"},
				Steps: []Step{{
					Name:    "fea per load case",
					ToolID:  "calculix.run_fea",
					ForEach: "load_cases",
					Records: []EvidenceField{
						{Field: "max_von_mises_mpa", Metric: "max_von_mises", Unit: "MPa"},
						{Field: "max_displacement_mm", Metric: "max_displacement", Unit: "mm"},
						{Field: "safety_factor", Metric: "safety_factor", Unit: "1"},
					},
				}},
				Gate: gate(4, "analysis", CriterionDeliverables, CriterionSimulation, CriterionNoStaleEvidence),
			},
			{
				Name: "verification",
				Brief: "Verify every requirement against the current cad_model revision. Confirm the FEA results with " +
					"calculix.check_mesh_convergence where that was not done, and re-measure the released geometry with " +
					"cadquery.get_properties if it changed since it was committed. " + verifyRows,
				Deliverables: []string{"evidence"},
				Tools: []string{"twin.constraint_violations", "twin.record_evidence", "calculix.check_mesh_convergence",
					"cadquery.get_properties", "twin.record_engineering_entity"},
				Gate: gate(5, "verification", CriterionDeliverables, CriterionAllRequirements, CriterionNoStaleEvidence),
			},
			{
				Name: "release",
				Brief: releaseBrief("Export the released cad_model revision with cadquery.export_geometry (STEP, and STL if " +
					"it is printed)."),
				Deliverables: []string{"release_package"},
				Tools: []string{"cadquery.export_geometry", "twin.constraint_violations", "twin.record_engineering_entity",
					"twin.record_decision", "twin.list_maturity_gates", "twin.create_baseline",
					"twin.approve_engineering_entity", "twin.create_release_package"},
				Gate: gate(6, "release", CriterionDeliverables, CriterionAllRequirements),
			},
		},
	}
}
