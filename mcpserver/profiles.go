package mcpserver

import (
	"fmt"
	"slices"
	"strings"
)

// Profile is a named subset of the tools, served to a client that caps how
// many tools it carries. A client that drops the
// overflow behaves as though the capability did not exist, so a profile is
// sized to fit rather than trimmed at runtime.
type Profile struct {
	Name string
	// For says what the profile is for, in a phrase.
	For   string
	Tools []string
	// Lacks is what this build does not have yet of what the profile is
	// for. A profile with fewer than MinProfileTools tools is withheld, and
	// Lacks is the reason given.
	Lacks string
}

// A served profile holds between MinProfileTools and MaxProfileTools tools,
// enforced by a test: outgrowing the ceiling is a decision about what to
// drop, and a profile below the floor is too thin to work in.
const (
	MinProfileTools = 20
	MaxProfileTools = 40
)

// profiles is the one definition of every tool profile. Each names only
// tools this build has (a test checks against the real catalogue) and each
// has health.check, so the doctor works on a capped connection.
var profiles = []Profile{
	{
		Name: "core",
		For:  "Projects, sessions, twin reads, the records that are not domain-specific, and the design-flow lifecycle",
		Tools: []string{
			"health.check", "call.get_result",
			"project.create", "project.list", "project.get", "project.open", "project.update", "session.start",
			"session.log_event", "session.complete", "twin.get_node", "twin.item_history", "twin.thread_for", "twin.what_verifies", "twin.where_used",
			"twin.find_by_property", "twin.constraint_violations", "twin.query_cypher", "twin.get_design_loop",
			"twin.record_decision", "twin.record_document", "twin.record_engineering_entity",
			"twin.record_constraint_set", "twin.record_evidence", "twin.record_claim", "constraint.validate",
			"flow.list", "flow.compile_intent", "flow.capabilities", "flow.propose", "flow.start_run", "flow.status",
			"flow.lifecycle", "flow.await_gate", "flow.propose_gate_decision", "flow.verify_completion",
			"phase.list_tasks", "phase.claim", "phase.submit", "run.get_status",
		},
	},
	{
		Name: "mechanical",
		For:  "CAD authoring on either kernel (cad.* picks the healthy one), supplier files, geometry commit and the closed-form design searches on it",
		Tools: []string{
			"health.check", "call.get_result", "project.get", "project.open", "session.start",
			"cad.create_parametric", "cad.boolean_operation", "cad.get_properties", "cad.export_geometry", "cad.generate_mesh",
			"cadquery.create_parametric", "cadquery.boolean_operation", "cadquery.execute_script",
			"cadquery.create_assembly", "cadquery.get_properties", "cadquery.export_geometry",
			"freecad.create_parametric", "freecad.boolean_operation", "freecad.get_properties", "freecad.export_geometry",
			"freecad.describe_step_file", "freecad.import_step", "freecad.measure", "freecad.transform_object",
			"twin.commit_geometry", "twin.import_work_product", "twin.stage_work_product_file",
			"twin.evaluate_metric", "twin.optimize_parameter", "twin.rank_sensitivity",
			"twin.start_design_loop", "twin.get_design_loop", "twin.get_node", "twin.item_history",
			"twin.record_decision", "twin.record_constraint_set", "twin.constraint_violations",
			"twin.evaluate_overhang_metric", "twin.commit_design_sketch", "twin.commit_technical_drawing",
		},
	},
	{
		Name: "simulation",
		For:  "FEA, circuit simulation, meshes and the evidence they produce, including twin.record_load_case and twin.record_document for a simulation_result",
		Tools: []string{
			"health.check", "call.get_result", "project.get", "project.open", "session.start",
			"cadquery.get_properties", "cadquery.export_geometry", "gmsh.generate_mesh", "gmsh.list_named_faces",
			"calculix.validate_mesh", "calculix.run_fea", "calculix.run_thermal", "calculix.extract_results",
			"calculix.check_mesh_convergence", "calculix.cross_check_cantilever_beam",
			"calculix.cross_check_cantilever_frequency", "calculix.cross_check_thermal_steady_state",
			"calculix.compute_joint_loads", "spice.run_simulation",
			"twin.evaluate_metric", "twin.evaluate_thermal_metric",
			"twin.record_document", "twin.record_load_case", "twin.record_evidence", "twin.record_claim", "twin.what_verifies",
			"twin.get_node", "twin.item_history", "twin.where_used", "twin.constraint_violations",
			"twin.record_measurement",
		},
	},
	{
		Name: "electronics",
		For: "Schematics generated and checked, boards auto-routed and checked, datasheets ingested and searched, parts found by " +
			"their figures and chosen, the per-rail power budget and circuit simulation. web.fetch and web.search are served " +
			"beside it only where the deployment enables them (METAFORGE_WEB_FETCH, BRAVE_API_KEY)",
		Tools: []string{
			"health.check", "call.get_result", "project.list", "project.get", "project.open", "session.start",
			"kicad.generate_schematic", "kicad.auto_route", "kicad.run_erc", "kicad.run_drc", "kicad.export_netlist", "kicad.get_pin_mapping", "kicad.export_bom",
			"kicad.export_gerber", "power.check_budget", "spice.run_simulation",
			"knowledge.ingest", "knowledge.search", "knowledge.extract", "knowledge.populate_bom",
			"component.search_parametric", "component.search_intent", "component.index_catalog", "component.accept_figures",
			"twin.get_node", "twin.item_history", "twin.where_used",
			"twin.record_decision", "twin.record_document", "twin.record_constraint_set", "constraint.validate",
			"twin.constraint_violations", "twin.record_evidence", "twin.what_verifies",
			"twin.select_component", "twin.commit_system_architecture", "twin.get_harness_estimate",
			"twin.commit_procurement_record",
		},
	},
	{
		Name: "robotics",
		For:  "Assemblies, URDF/SDF/USD export, simulators",
		Tools: []string{
			"health.check", "call.get_result", "project.create", "project.get", "project.open", "session.start",
			"cadquery.create_parametric", "cadquery.create_assembly", "cadquery.get_properties", "cadquery.export_geometry",
			"cadquery.export_urdf", "cadquery.export_urdf_assembly", "cadquery.export_sdf", "cadquery.export_sdf_assembly",
			"cadquery.export_usd", "cadquery.export_usd_assembly", "cadquery.generate_ros2_launch", "cadquery.validate_physics_stability",
			"physics.run_simulation", "gazebo.validate_world",
			"omniverse_usd.validate_usd_minimum", "omniverse_usd.describe_stage", "omniverse_usd.convert_glb_to_usd",
			"calculix.compute_joint_loads", "twin.import_urdf", "twin.commit_system_architecture", "twin.commit_geometry",
			"twin.get_node", "twin.where_used", "twin.record_evidence", "twin.record_hierarchy_node", "twin.compute_hierarchy_rollup",
			"twin.create_bringup_checklist", "twin.create_firmware_scaffold", "twin.get_harness_estimate",
		},
	},
	{
		Name: "mechanical_product",
		For: "A mechanical product end to end: FreeCAD editing sessions (open, sketch, pad and pocket, fillet, export, close), " +
			"supplier files, geometry commit, the product hierarchy and its roll-up, choosing concepts and components. " +
			"No promotion tool: promotion is a human authority",
		Tools: []string{
			"health.check", "call.get_result", "project.create", "project.list", "project.get", "project.open", "session.start",
			"freecad.open_session", "freecad.create_sketch", "freecad.pad_sketch", "freecad.pocket_sketch", "freecad.revolve_sketch",
			"freecad.loft_sketches", "freecad.fillet", "freecad.chamfer", "freecad.linear_pattern", "freecad.polar_pattern",
			"freecad.describe_model", "freecad.export_model", "freecad.close_session",
			"freecad.import_step", "freecad.describe_step_file", "freecad.measure",
			"twin.commit_geometry", "twin.stage_work_product_file",
			"twin.record_hierarchy_node", "twin.realize_hierarchy_node", "twin.compute_hierarchy_rollup",
			"twin.select_concept", "twin.select_component", "twin.get_node", "twin.item_history",
			"twin.record_decision", "twin.record_evidence", "twin.record_constraint_set", "twin.constraint_violations",
		},
	},
}

// Profiles lists every profile this build defines, served or withheld.
func Profiles() []Profile {
	out := make([]Profile, len(profiles))
	for i, p := range profiles {
		p.Tools = slices.Clone(p.Tools)
		out[i] = p
	}
	return out
}

// Withheld says why a profile is not served: it is too thin to work in
// until the tools it is for exist. Empty when it is served.
func (p Profile) Withheld() string {
	if len(p.Tools) >= MinProfileTools {
		return ""
	}
	return fmt.Sprintf("it has %d of the %d tools a profile needs: %s", len(p.Tools), MinProfileTools, p.Lacks)
}

// Has says whether the profile serves a tool.
func (p Profile) Has(toolID string) bool { return slices.Contains(p.Tools, toolID) }

// servedProfileNames are the profiles a connection may choose, sorted.
func servedProfileNames() []string {
	var names []string
	for _, p := range profiles {
		if p.Withheld() == "" {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	return names
}

// lookupProfile is the served profile called name. An unknown name is an
// error naming the profiles that exist, never "serve everything": a client
// that asked for 30 tools and got every one has the problem profiles exist
// to prevent.
func lookupProfile(name string) (Profile, error) {
	i := slices.IndexFunc(profiles, func(p Profile) bool { return p.Name == name })
	if i < 0 {
		return Profile{}, fmt.Errorf("unknown tool profile %q; the profiles are %s", name, strings.Join(servedProfileNames(), ", "))
	}
	p := profiles[i]
	if why := p.Withheld(); why != "" {
		return Profile{}, fmt.Errorf("tool profile %q is withheld: %s; the profiles served are %s", name, why, strings.Join(servedProfileNames(), ", "))
	}
	return p, nil
}

// ValidateProfile checks a deployment's --profile: empty (every tool) or a
// served profile. The error lists the profiles there are.
func ValidateProfile(name string) error {
	if name == "" {
		return nil
	}
	_, err := lookupProfile(name)
	return err
}

// profilesWith are the served profiles that have a tool, for telling a
// client where to find one its profile lacks.
func profilesWith(toolID string) []string {
	var names []string
	for _, p := range profiles {
		if p.Withheld() == "" && p.Has(toolID) {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	return names
}
