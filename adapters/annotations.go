package adapters

import "sort"

// Annotations are the MCP tool hints a client is shown and the approval hold
// reads. They are declared here, per tool, by a person; never derived from
// a tool's name.
type Annotations struct {
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
	// WritesWithTwinMutations marks a read-only tool that writes when the
	// server runs with --allow-twin-mutations (twin.query_cypher).
	WritesWithTwinMutations bool
	// HumanAuthority marks a tool that records who decided (gate
	// approvals, promotions, change approvals): it is always held, and an
	// answer that identifies nobody (an elicitation) cannot approve it.
	HumanAuthority bool
	// Proposes marks a write that only records a proposal (a flow
	// version, a gate decision) which takes effect when a person approves
	// that proposal through its own decision. The call is not held: the
	// proposal is itself the question put to a person, and holding it too
	// would ask twice for one decision.
	Proposes bool
}

// Approval classes: what the hold does with a tool's calls, as the client
// is shown it in the tool's _meta (ApprovalMetaKey).
const (
	ApprovalNone           = "none"            // read-only: never held
	ApprovalProposal       = "proposal"        // records a proposal a person decides elsewhere: not held
	ApprovalWrite          = "write"           // held for a remote or untrusted caller
	ApprovalHumanAuthority = "human_authority" // always held, for an identified person
)

// ApprovalMetaKey is the tools/list _meta key that carries a tool's
// approval class, so a client sees the rule the server applies.
const ApprovalMetaKey = "io.metaforge/approval"

// Approval is the tool's approval class: the one rule the hold reads.
func (a Annotations) Approval() string {
	switch {
	case a.HumanAuthority:
		return ApprovalHumanAuthority
	case a.ReadOnly:
		return ApprovalNone
	case a.Proposes:
		return ApprovalProposal
	}
	return ApprovalWrite
}

// Given is the annotation in force on a server whose twin mutation flag is
// as given: the hint must match what the server will enforce.
func (a Annotations) Given(allowTwinMutations bool) Annotations {
	if a.WritesWithTwinMutations && allowTwinMutations {
		a.ReadOnly, a.Destructive, a.Idempotent = false, true, false
	}
	return a
}

// Unclassified is what a tool nobody classified gets: MCP's own defaults (not
// read-only, destructive), so a new tool is over-guarded rather than waved
// through.
var Unclassified = Annotations{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true}

// annotationTable is the one classification of every tool MetaForge serves.
var annotationTable = map[string]Annotations{
	"health.check":         {ReadOnly: true, Idempotent: true},
	"call.get_result":      {ReadOnly: true, Idempotent: true},
	"power.check_budget":   {ReadOnly: true, Idempotent: true},
	"spice.run_simulation": {ReadOnly: true, Idempotent: true},
	// The public web (adapters/web): reads that reach beyond MetaForge,
	// listed only where the deployment enabled them.
	"web.fetch":  {ReadOnly: true, Idempotent: true, OpenWorld: true},
	"web.search": {ReadOnly: true, Idempotent: true, OpenWorld: true},

	// cad.* forward a call to a CAD kernel's tool (adapters/cad), so they
	// are classified as those tools are, below.
	"cad.create_parametric": {ReadOnly: true, Idempotent: true},
	"cad.boolean_operation": {ReadOnly: true, Idempotent: true},
	"cad.get_properties":    {ReadOnly: true, Idempotent: true},
	"cad.export_geometry":   {ReadOnly: true, Idempotent: true},
	"cad.generate_mesh":     {ReadOnly: true, Idempotent: true},

	// Mechanical engineering. Each writes only its own call folder under
	// the data dir (its outputs) and changes nothing that exists, so they
	// are reads; the solvers are deterministic, so they are idempotent.
	// cadquery.execute_script runs agent code in a sandbox that can write
	// only its own folder; it may not be deterministic, so it runs once.
	"cadquery.create_parametric": {ReadOnly: true, Idempotent: true},
	"cadquery.boolean_operation": {ReadOnly: true, Idempotent: true},
	"cadquery.get_properties":    {ReadOnly: true, Idempotent: true},
	"cadquery.export_geometry":   {ReadOnly: true, Idempotent: true},
	"cadquery.execute_script":    {ReadOnly: true},
	"cadquery.create_assembly":   {ReadOnly: true, Idempotent: true},
	"gmsh.generate_mesh":         {ReadOnly: true, Idempotent: true},
	"gmsh.list_named_faces":      {ReadOnly: true, Idempotent: true},

	// Robot descriptions: each writes only its own call folder.
	"cadquery.export_urdf":          {ReadOnly: true, Idempotent: true},
	"cadquery.export_urdf_assembly": {ReadOnly: true, Idempotent: true},
	"cadquery.generate_ros2_launch": {ReadOnly: true, Idempotent: true},
	"cadquery.export_usd":           {ReadOnly: true, Idempotent: true},
	"cadquery.export_usd_assembly":  {ReadOnly: true, Idempotent: true},
	"cadquery.export_sdf":           {ReadOnly: true, Idempotent: true},
	"cadquery.export_sdf_assembly":  {ReadOnly: true, Idempotent: true},

	// PyBullet simulations of a URDF: they write nothing, and a fixed time
	// step with nothing random gives the same answer every time.
	"cadquery.validate_physics_stability": {ReadOnly: true, Idempotent: true},
	"physics.run_simulation":              {ReadOnly: true, Idempotent: true},

	// freecad's file-based tools: like cadquery's, each writes only its
	// own call folder and FreeCAD is deterministic.
	"freecad.create_parametric":  {ReadOnly: true, Idempotent: true},
	"freecad.boolean_operation":  {ReadOnly: true, Idempotent: true},
	"freecad.get_properties":     {ReadOnly: true, Idempotent: true},
	"freecad.export_geometry":    {ReadOnly: true, Idempotent: true},
	"freecad.describe_step_file": {ReadOnly: true, Idempotent: true},
	"freecad.import_step":        {ReadOnly: true, Idempotent: true},
	"freecad.measure":            {ReadOnly: true, Idempotent: true},
	"freecad.transform_object":   {ReadOnly: true, Idempotent: true},
	"freecad.generate_mesh":      {ReadOnly: true, Idempotent: true},
	"freecad.list_named_faces":   {ReadOnly: true, Idempotent: true},
	// freecad's editing sessions. Opening one and editing its document
	// change only the session's scratch document, which nothing else
	// reads until close_session records it, so they are reads, as
	// session.start is; an edit is not idempotent (a second pad is a
	// second feature). Closing records a cad_model revision: a write.
	// execute_code runs any Python in the document process: destructive.
	"freecad.open_session":                      {ReadOnly: true},
	"freecad.create_body":                       {ReadOnly: true},
	"freecad.create_sketch":                     {ReadOnly: true},
	"freecad.pad_sketch":                        {ReadOnly: true},
	"freecad.pocket_sketch":                     {ReadOnly: true},
	"freecad.revolve_sketch":                    {ReadOnly: true},
	"freecad.loft_sketches":                     {ReadOnly: true},
	"freecad.sweep_sketch":                      {ReadOnly: true},
	"freecad.shell_solid":                       {ReadOnly: true},
	"freecad.fillet":                            {ReadOnly: true},
	"freecad.chamfer":                           {ReadOnly: true},
	"freecad.linear_pattern":                    {ReadOnly: true},
	"freecad.polar_pattern":                     {ReadOnly: true},
	"freecad.describe_model":                    {ReadOnly: true, Idempotent: true},
	"freecad.export_model":                      {ReadOnly: true, Idempotent: true},
	"freecad.execute_code":                      {Destructive: true},
	"freecad.close_session":                     {},
	"calculix.run_fea":                          {ReadOnly: true, Idempotent: true},
	"calculix.run_thermal":                      {ReadOnly: true, Idempotent: true},
	"calculix.validate_mesh":                    {ReadOnly: true, Idempotent: true},
	"calculix.extract_results":                  {ReadOnly: true, Idempotent: true},
	"calculix.cross_check_cantilever_beam":      {ReadOnly: true, Idempotent: true},
	"calculix.cross_check_cantilever_frequency": {ReadOnly: true, Idempotent: true},
	"calculix.cross_check_thermal_steady_state": {ReadOnly: true, Idempotent: true},
	"calculix.check_mesh_convergence":           {ReadOnly: true, Idempotent: true},
	"calculix.compute_joint_loads":              {ReadOnly: true, Idempotent: true},

	// KiCad. Each writes only its own call folder; the same files give the
	// same answer.
	"kicad.run_drc":         {ReadOnly: true, Idempotent: true},
	"kicad.run_erc":         {ReadOnly: true, Idempotent: true},
	"kicad.export_gerber":   {ReadOnly: true, Idempotent: true},
	"kicad.export_bom":      {ReadOnly: true, Idempotent: true},
	"kicad.export_netlist":  {ReadOnly: true, Idempotent: true},
	"kicad.get_pin_mapping": {ReadOnly: true, Idempotent: true},
	// Writes only its call folder; a route stopped by its time depends on
	// the machine's speed, so it is not idempotent.
	"kicad.auto_route": {ReadOnly: true},

	// Draws a new schematic, but only in its own call folder; the same
	// request gives the same file.
	"kicad.generate_schematic": {ReadOnly: true, Idempotent: true},

	// OpenUSD through usd-core. The two readers write nothing; the
	// converter writes only its own call folder, the same GLB giving the
	// same stage.
	"omniverse_usd.validate_usd_minimum": {ReadOnly: true, Idempotent: true},
	"omniverse_usd.describe_stage":       {ReadOnly: true, Idempotent: true},
	"omniverse_usd.convert_glb_to_usd":   {ReadOnly: true, Idempotent: true},
	// Gazebo: libsdformat reads the file and writes nothing.
	"gazebo.validate_world": {ReadOnly: true, Idempotent: true},

	// The typed component catalogue (adapters/component). The searches
	// read only; index_catalog writes catalogue rows (the same catalogue
	// again changes nothing); accept_figures makes a datasheet's figures
	// catalogue facts, which a person must accept.
	"component.search_parametric": {ReadOnly: true, Idempotent: true},
	"component.search_intent":     {ReadOnly: true, Idempotent: true},
	"component.index_catalog":     {Idempotent: true},
	"component.accept_figures":    {HumanAuthority: true, Idempotent: true},

	// Projects and sessions. Opening a project or starting a session only
	// changes this session's own view, so they are read-only: holding them
	// for approval would block the one step that scopes later writes.
	"project.create": {},
	"project.list":   {ReadOnly: true, Idempotent: true},
	"project.get":    {ReadOnly: true, Idempotent: true},
	"project.update": {Idempotent: true},
	"project.delete": {Destructive: true, Idempotent: true},
	"project.open":   {ReadOnly: true, Idempotent: true},
	"session.start":  {ReadOnly: true, Idempotent: true},

	// A session's narrative is a write others read (the ledger, or the
	// twin): logging an event adds one; completing adds the ending and
	// cannot be undone (the session takes no more events), so it is
	// destructive, though a repeat adds nothing.
	"session.log_event": {},
	"session.complete":  {Destructive: true, Idempotent: true},

	// The twin. Each definition write is a new revision, so repeating one
	// is not idempotent, though a retried activity never writes twice.
	"twin.commit_geometry":            {},
	"twin.record_constraint_set":      {},
	"twin.record_evidence":            {},
	"twin.get_node":                   {ReadOnly: true, Idempotent: true},
	"twin.item_history":               {ReadOnly: true, Idempotent: true},
	"twin.record_decision":            {},
	"twin.record_document":            {},
	"twin.record_load_case":           {},
	"twin.record_engineering_entity":  {},
	"twin.approve_engineering_entity": {HumanAuthority: true, Idempotent: true},
	"twin.record_claim":               {},
	// Change control: a baseline and a promotion record who decided; a
	// release package is a write G8 gates.
	"twin.create_baseline":        {HumanAuthority: true, Idempotent: true},
	"twin.list_maturity_gates":    {ReadOnly: true, Idempotent: true},
	"twin.create_release_package": {Idempotent: true},
	"twin.attempt_promotion":      {HumanAuthority: true, Idempotent: true},
	// Derived from an assembly's joints: a checklist and the firmware
	// documents are additive records (the scaffold revises its two
	// documents); the harness estimate writes nothing.
	"twin.create_bringup_checklist": {},
	"twin.create_firmware_scaffold": {},
	"twin.get_harness_estimate":     {ReadOnly: true, Idempotent: true},
	// Closed-form searches on a committed tube that record what they found
	// (evidence, and a decision for a converged winner): writes.
	"twin.optimize_parameter":         {},
	"twin.rank_sensitivity":           {},
	"twin.thread_for":                 {ReadOnly: true, Idempotent: true},
	"twin.what_verifies":              {ReadOnly: true, Idempotent: true},
	"twin.where_used":                 {ReadOnly: true, Idempotent: true},
	"twin.find_by_property":           {ReadOnly: true, Idempotent: true},
	"twin.record_component_selection": {},
	"twin.constraint_violations":      {ReadOnly: true, Idempotent: true},
	// The product hierarchy: recording a position adds to it; realising
	// one replaces the model or BOM item it is realised by (the history
	// keeps the old link, but the position's state is replaced).
	"twin.record_hierarchy_node":    {},
	"twin.realize_hierarchy_node":   {Destructive: true},
	"twin.compute_hierarchy_rollup": {ReadOnly: true, Idempotent: true},

	// Choosing: each records a decision (and a BOM item revision) beside
	// what exists, replacing nothing.
	"twin.select_concept":   {},
	"twin.select_component": {},
	// Typed documents: each call is the next revision of a document item.
	"twin.commit_compliance_checklist": {},
	"twin.commit_design_sketch":        {},
	"twin.commit_hazard_analysis":      {},
	"twin.commit_procurement_record":   {},
	"twin.commit_technical_drawing":    {},
	// Design loops: starting one writes its iterations; approving records
	// who decided.
	"twin.start_design_loop":             {Idempotent: true},
	"twin.start_tube_height_design_loop": {Idempotent: true},
	"twin.get_design_loop":               {ReadOnly: true, Idempotent: true},
	"twin.approve_design_loop":           {HumanAuthority: true, Idempotent: true},
	// Engineering changes: every step a held write; a review records
	// who decided.
	"twin.propose_engineering_change":          {Idempotent: true},
	"twin.propose_change":                      {Idempotent: true},
	"twin.analyze_engineering_change":          {Idempotent: true},
	"twin.approve_engineering_change":          {HumanAuthority: true, Idempotent: true},
	"twin.reject_engineering_change":           {HumanAuthority: true, Idempotent: true},
	"twin.commit_engineering_change":           {Idempotent: true},
	"twin.execute_revalidation_plan":           {Idempotent: true},
	"twin.mark_engineering_change_rolled_back": {Idempotent: true},
	"twin.get_engineering_change":              {ReadOnly: true, Idempotent: true},
	"twin.evaluate_metric":                     {Idempotent: true},
	"twin.evaluate_thermal_metric":             {Idempotent: true},
	"constraint.validate":                      {ReadOnly: true, Idempotent: true},
	"twin.query_cypher":                        {ReadOnly: true, Idempotent: true, WritesWithTwinMutations: true},
	// The knowledge base. An ingest adds a source; the same bytes again
	// add nothing (the answer says so), so it is an idempotent write. A
	// search reads.
	"knowledge.ingest": {Idempotent: true},
	"knowledge.search": {ReadOnly: true, Idempotent: true},
	// extract and populate_bom read the knowledge base and write nothing.
	"knowledge.extract":      {ReadOnly: true, Idempotent: true},
	"knowledge.populate_bom": {ReadOnly: true, Idempotent: true},

	// Work products and files. An import is a definition write (a new
	// revision each time, as twin.commit_geometry); an overhang check adds
	// evidence each time, as twin.record_evidence does: additive writes,
	// not idempotent. Staging writes a file, not the twin: like the
	// solvers' outputs, only a new file in its call's folder or a write
	// root, and it never replaces one (a file with other bytes is refused,
	// one with the same bytes kept), so it changes nothing that exists: a
	// read, and the same bytes each time.
	"twin.import_work_product":      {},
	"twin.stage_work_product_file":  {ReadOnly: true, Idempotent: true},
	"twin.evaluate_overhang_metric": {},

	// Verification and the built unit: each adds (an architecture
	// revision, planned cases, a unit, a measurement) and replaces
	// nothing. Planning again adds nothing already planned, and a serial
	// registered again is refused: those two repeat without effect.
	"twin.commit_system_architecture": {},
	"twin.import_urdf":                {},
	"twin.generate_test_plan":         {Idempotent: true},
	"twin.register_device_instance":   {Idempotent: true},
	"twin.record_measurement":         {},

	// The test-fixture adapter (internal/adaptertest) serves only tests.
	// Its tools that change nothing are reads; write stands for any write,
	// and sign_off for the human-authority tools later issues add (gate
	// approvals, promotions). fixture.flaky is left out on purpose: it is
	// the tests' unclassified tool, which is treated as a write.
	"fixture.echo":       {ReadOnly: true, Idempotent: true},
	"fixture.refuse":     {ReadOnly: true, Idempotent: true},
	"fixture.sleep":      {ReadOnly: true, Idempotent: true},
	"fixture.sleep_once": {ReadOnly: true},
	"fixture.timeout":    {ReadOnly: true, Idempotent: true},
	"fixture.write":      {},
	"fixture.sign_off":   {HumanAuthority: true},
	// Design flows. A proposal (a flow version, a gate decision from the
	// chat) is decided by a person through its own approval; starting a
	// run is a write like any other; a patch records who approved it.
	"flow.list":              {ReadOnly: true, Idempotent: true},
	"flow.compile_intent":    {ReadOnly: true, Idempotent: true},
	"flow.capabilities":      {ReadOnly: true, Idempotent: true},
	"flow.status":            {ReadOnly: true, Idempotent: true},
	"flow.lifecycle":         {ReadOnly: true, Idempotent: true},
	"flow.verify_completion": {ReadOnly: true, Idempotent: true},
	"flow.await_gate":        {ReadOnly: true, Idempotent: true},
	"flow.propose":           {Idempotent: true, Proposes: true},
	"flow.start_run":         {Idempotent: true},
	"run.start_design_flow":  {Idempotent: true},
	"run.get_status":         {ReadOnly: true, Idempotent: true},
	"flow.patch":             {HumanAuthority: true, Idempotent: true},
	// A chat answer recorded as a proposal: a person confirms it on the
	// run's gate.
	"flow.propose_gate_decision": {Idempotent: true, Proposes: true},
	"phase.list_tasks":           {ReadOnly: true, Idempotent: true},
	"phase.claim":                {Idempotent: true},
	"phase.submit":               {Idempotent: true},
}

// AnnotationsFor returns a tool's declared annotations, and whether anyone
// declared them.
func AnnotationsFor(toolID string) (Annotations, bool) {
	a, ok := annotationTable[toolID]
	if !ok {
		return Unclassified, false
	}
	return a, true
}

// ClassifiedTools lists every tool the table classifies, sorted.
func ClassifiedTools() []string {
	ids := make([]string, 0, len(annotationTable))
	for id := range annotationTable {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
