package flows

// hardwareV1 is the electronics-board flow: architecture, schematic with
// selected components and simulations, layout with DRC, then verification
// of every requirement and release. Electrical requirements are checked
// against component selections and evidence, so its gates judge them all
// together at verification rather than by geometry or FEA class; the
// schematic and layout gates judge what ERC and DRC last found. Given the
// run inputs schematic and board, the server generates the schematic,
// routes the board and runs both checks itself.
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
					"power.check_budget and export the BOM with kicad.export_bom. Write the schematic with " +
					"kicad.generate_schematic from its components (reference, library symbol Lib:Name, value, footprint) and nets " +
					"(REF.pin lists), or draw it in KiCad; run kicad.run_erc on it and fix every error. " + ercEvidence + " When the " +
					"run input has schematic (kicad.generate_schematic arguments, valid_against the revisions the schematic is " +
					"drawn from), the server generates it, runs kicad.run_erc on the file written and records erc_errors and " +
					"erc_warnings itself; the gate then says which violations fail it.",
				Deliverables: []string{"component_selection"},
				Tools: []string{"twin.record_component_selection", "spice.run_simulation", "power.check_budget",
					"kicad.generate_schematic", "kicad.run_erc", "kicad.export_bom", "twin.record_evidence"},
				Steps: []Step{
					{Name: "generate_schematic", ToolID: "kicad.generate_schematic", ForEach: "schematic"},
					{Name: "run_erc", ToolID: "kicad.run_erc", From: []FromField{{Argument: "schematic_file", Field: "generate_schematic.schematic_file"}},
						EvidenceKind: "analysis", Records: []EvidenceField{
							{Field: "error_count", Metric: "erc_errors", Unit: "1", Findings: "violations"},
							{Field: "warning_count", Metric: "erc_warnings", Unit: "1"},
						}},
				},
				Gate: gate(3, "schematic", CriterionDeliverables, CriterionERCClean),
			},
			{
				Name: "layout",
				Brief: "Lay the board out inside the outline requirements and route it, by hand or with kicad.auto_route. Run " +
					"kicad.run_drc and kicad.run_erc until both are clean, and record the DRC result with twin.record_evidence: " +
					"metric drc_errors (its error_count) and metric unrouted_connections (its unconnected_items count), unit 1, " +
					"valid_against the revisions the board is laid out from. " + ercEvidence + " When the run input has board " +
					"(kicad.auto_route arguments: board_file, max_seconds), the server routes the board, runs kicad.run_drc on the " +
					"routed copy and records drc_errors, drc_warnings and unrouted_connections itself. Export the final BOM with " +
					"kicad.export_bom. Call twin.constraint_violations: evidence recorded before a change of the schematic or " +
					"selections is stale and must be recorded again.",
				Deliverables: []string{"evidence"},
				Tools: []string{"kicad.auto_route", "kicad.run_drc", "kicad.run_erc", "kicad.export_bom", "twin.record_evidence",
					"twin.constraint_violations"},
				Steps: []Step{
					{Name: "auto_route", ToolID: "kicad.auto_route", ForEach: "board", EvidenceKind: "analysis", Records: []EvidenceField{
						{Field: "connections.routed", Metric: "routed_connections", Unit: "1"},
					}},
					{Name: "run_drc", ToolID: "kicad.run_drc", From: []FromField{{Argument: "board_file", Field: "auto_route.board_file"}},
						EvidenceKind: "analysis", Records: []EvidenceField{
							{Field: "error_count", Metric: "drc_errors", Unit: "1", Findings: "violations"},
							{Field: "warning_count", Metric: "drc_warnings", Unit: "1"},
							{Field: "unconnected_items.count", Metric: "unrouted_connections", Unit: "1", Findings: "unconnected_items.items"},
						}},
				},
				Gate: gate(4, "layout", CriterionDeliverables, CriterionERCClean, CriterionDRCClean, CriterionRoutingComplete,
					CriterionNoStaleEvidence),
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

// ercEvidence tells a client how ERC results reach the gates that judge them.
const ercEvidence = "Record the ERC result with twin.record_evidence (metric erc_errors, unit 1, the error count, valid_against the " +
	"revisions the schematic is drawn from): the gate judges the latest erc_errors evidence, which must be 0 and current."
