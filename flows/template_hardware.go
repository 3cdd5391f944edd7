package flows

// hardwareV1 is the electronics-board flow: architecture, schematic with
// selected components and simulations, layout with DRC, then verification
// of every requirement and release. Electrical requirements are checked
// against component selections and evidence, so its gates judge them all
// together at verification rather than by geometry or FEA class.
func hardwareV1() Flow {
	return Flow{
		ID:    "hardware_v1",
		Title: "Electronics board",
		Description: "An electronics board from requirements to release: architecture, schematic with component " +
			"selections and simulation, layout with ERC and DRC, verification against every requirement, release package.",
		Phases: []Phase{
			requirementsPhase("supply_voltage (V), supply_current and quiescent_current (mA, uA), power (W), envelope_x and " +
				"envelope_y for the board outline (mm), max_temperature (°C), cost (USD)"),
			{
				Name: "architecture",
				Brief: "Choose the board's architecture: power entry and regulation, processing, sensing, interfaces. Record " +
					"each credible option with twin.record_engineering_entity (entity_type concept_option) and the main risks as " +
					"entity_type risk. Estimate each option's power budget with power.check_budget against the supply and " +
					"current requirements. Record the chosen architecture with twin.record_decision: the option, the " +
					"alternatives and why.",
				Deliverables: []string{"decision"},
				Tools:        []string{"power.check_budget", "twin.record_engineering_entity", "twin.record_decision"},
				Gate:         gate(2, "architecture", CriterionDeliverables),
			},
			{
				Name: "schematic",
				Brief: "Draw the schematic. Select the key parts (regulators, processor, sensors, connectors) and record each " +
					"with twin.record_component_selection with its datasheet specs, so requirements such as quiescent current are " +
					"checked against them. Simulate the critical circuits (regulation, filters, protection) with " +
					"spice.run_simulation and record the results with twin.record_evidence. Check the power budget with " +
					"power.check_budget, run kicad.run_erc and fix every error, and export the BOM with kicad.export_bom.",
				Deliverables: []string{"component_selection"},
				Tools: []string{"twin.record_component_selection", "spice.run_simulation", "power.check_budget",
					"kicad.run_erc", "kicad.export_bom", "twin.record_evidence"},
				Gate: gate(3, "schematic", CriterionDeliverables),
			},
			{
				Name: "layout",
				Brief: "Lay the board out inside the outline requirements. Run kicad.run_drc and kicad.run_erc until both are " +
					"clean, and record the DRC result with twin.record_evidence (metric drc_errors, unit 1, the error count). " +
					"Export the final BOM with kicad.export_bom. Call twin.constraint_violations: evidence recorded before a " +
					"change of the schematic or selections is stale and must be recorded again.",
				Deliverables: []string{"evidence"},
				Tools: []string{"kicad.run_drc", "kicad.run_erc", "kicad.export_bom", "twin.record_evidence",
					"twin.constraint_violations"},
				Gate: gate(4, "layout", CriterionDeliverables, CriterionNoStaleEvidence),
			},
			{
				Name: "verification",
				Brief: "Verify every requirement against the current schematic, selections and layout: re-run " +
					"spice.run_simulation and power.check_budget for the electrical requirements and record the results with " +
					"twin.record_evidence. " + verifyRows,
				Deliverables: []string{"evidence"},
				Tools: []string{"twin.constraint_violations", "spice.run_simulation", "power.check_budget",
					"twin.record_evidence", "twin.record_engineering_entity"},
				Gate: gate(5, "verification", CriterionDeliverables, CriterionAllRequirements, CriterionNoStaleEvidence),
			},
			{
				Name: "release",
				Brief: releaseBrief("Run kicad.run_erc and kicad.run_drc on the released revision and export its BOM with " +
					"kicad.export_bom."),
				Deliverables: []string{"release_package"},
				Tools: []string{"kicad.run_erc", "kicad.run_drc", "kicad.export_bom", "twin.constraint_violations",
					"twin.record_engineering_entity", "twin.record_decision", "twin.list_maturity_gates", "twin.create_baseline",
					"twin.approve_engineering_entity", "twin.create_release_package"},
				Gate: gate(6, "release", CriterionDeliverables, CriterionAllRequirements),
			},
		},
	}
}
