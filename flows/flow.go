// Package flows holds the design-flow templates (hardware_v1, mech_v1,
// design_v1) as data, the invariants every flow keeps, and the pure
// functions around them: compiling a goal into a structured intent,
// applying a patch, and judging a gate's criteria against facts read from
// the twin. It also holds a run's data model (run.go): its input, its state,
// and the claims, submissions, decisions and patches sent to it, which the
// DesignFlow workflow keeps and the tools, REST routes and CLI read.
// Nothing here does I/O, so the DesignFlow workflow can call it.
package flows

// Flow is a design flow: its phases in order, each closed by a gate.
type Flow struct {
	// ID names the template it came from: hardware_v1, mech_v1, design_v1.
	ID          string  `json:"id"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Phases      []Phase `json:"phases"`
}

// Phase is one stage of a flow. Its work is done by the connected client
// (claim, then submit) unless it names steps the server runs itself.
type Phase struct {
	Name string `json:"name"`
	// Brief is what the client is told to do when it claims the phase.
	Brief string `json:"brief"`
	// Deliverables are the twin node types the phase must leave in the
	// project (constraint_set, cad_model, evidence, decision...).
	Deliverables []string `json:"deliverables"`
	// Tools are the tools that do this phase's work, for flow.capabilities.
	Tools []string `json:"tools"`
	// Steps the server runs itself, as child ToolCall workflows, when the
	// run has the input they read; otherwise the client does the phase.
	Steps []Step `json:"steps,omitempty"`
	Gate  Gate   `json:"gate"`
}

// Step is a tool call the server runs in a phase: once per entry of the run
// input its phase's first step names in ForEach (one argument object each,
// e.g. one FEA per load case), recording each result's fields as evidence.
// A later step runs once per entry too, after the steps before it, and may
// take arguments from their results for the same entry (From): ERC on the
// schematic the step before wrote.
type Step struct {
	// Name is unique in the phase and has no dot: From names steps by it.
	Name   string `json:"name"`
	ToolID string `json:"tool_id"`
	// ForEach is the run input whose entries are the tool's arguments. A
	// later step leaves it empty when its arguments all come From earlier
	// steps, or names the first step's input to start from the same entry.
	ForEach string `json:"for_each,omitempty"`
	// From are the arguments it takes from earlier steps' results for the
	// same entry, set over the entry's arguments.
	From []FromField `json:"from,omitempty"`
	// Records maps result fields to evidence metrics.
	Records []EvidenceField `json:"records,omitempty"`
	// EvidenceKind is the kind of evidence it records (twin.record_evidence's
	// kind); "" is simulation.
	EvidenceKind string `json:"evidence_kind,omitempty"`
}

// FromField is one argument a step takes from an earlier step's result.
type FromField struct {
	Argument string `json:"argument"`
	// Field is "step.field": the step's name, then the field's dotted
	// path in its result (generate_schematic.schematic_file).
	Field string `json:"field"`
}

// EvidenceField is one result field recorded as evidence: the value at
// Field (a number in the tool's result; a dotted path reads into objects,
// connections.unrouted) as Metric in Unit.
type EvidenceField struct {
	Field  string `json:"field"`
	Metric string `json:"metric"`
	Unit   string `json:"unit"`
	// Findings names the result field (a dotted path to a list) that says
	// what the value counts, such as a checker's violations: kept with the
	// evidence, so a gate judging it can name them.
	Findings string `json:"findings,omitempty"`
}

// Gate closes a phase: its criteria are judged against the twin, then a
// person decides.
type Gate struct {
	Name     string      `json:"name"`
	Criteria []Criterion `json:"criteria"`
	// WindowSeconds is how long the gate waits for a decision before the
	// run is rejected; 0 means DefaultGateWindowSeconds.
	WindowSeconds int `json:"window_seconds,omitempty"`
	// HumanDecision must be true: an invariant of every flow.
	HumanDecision bool `json:"human_decision"`
}

// DefaultGateWindowSeconds is a gate's window unless it sets one: 24 h.
const DefaultGateWindowSeconds = 24 * 60 * 60

// Window is the gate's decision window in seconds.
func (g Gate) Window() int {
	if g.WindowSeconds > 0 {
		return g.WindowSeconds
	}
	return DefaultGateWindowSeconds
}

// Criterion kinds: what a gate checks.
const (
	// CriterionDeliverables: every deliverable type of the phase is in the twin.
	CriterionDeliverables = "deliverables_recorded"
	// CriterionRequirementsRecorded: a constraint set holds typed requirements.
	CriterionRequirementsRecorded = "requirements_recorded"
	// CriterionGeometry: envelope, thickness, mass and material requirements
	// hold against the committed cad_model.
	CriterionGeometry = "geometry_meets_requirements"
	// CriterionSimulation: deflection, stress, safety-factor and frequency
	// requirements hold against current simulation evidence.
	CriterionSimulation = "simulation_meets_requirements"
	// CriterionNoStaleEvidence: no requirement is judged on stale evidence.
	CriterionNoStaleEvidence = "no_stale_evidence"
	// CriterionAllRequirements: every requirement passes with current evidence.
	CriterionAllRequirements = "all_requirements_pass"
	// CriterionERCClean: the latest erc_errors evidence, about the current
	// revision, is 0.
	CriterionERCClean = "erc_clean"
	// CriterionDRCClean: the latest drc_errors evidence, about the current
	// revision, is 0.
	CriterionDRCClean = "drc_clean"
	// CriterionRoutingComplete: the latest unrouted_connections evidence,
	// about the current revision, is 0.
	CriterionRoutingComplete = "routing_complete"
)

// Criterion is one check a gate makes.
type Criterion struct {
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"`
}

// Statuses of a criterion and of a gate. No data is not a pass.
const (
	StatusPass   = "pass"
	StatusFail   = "fail"
	StatusNoData = "no_data"
)

// Facts are what a gate's criteria are judged against, read from the twin
// by an activity.
type Facts struct {
	// NodeTypes counts the project's nodes by type, sorted by type.
	NodeTypes []TypeCount `json:"node_types"`
	// Requirements are the rows of twin.constraint_violations.
	Requirements []Requirement `json:"requirements"`
	// Waivers are the project's waivers a person approved.
	Waivers []Waiver `json:"waivers"`
	// Checks are the latest evidence of each metric a check criterion
	// reads (CheckMetrics), sorted by metric; a metric never recorded is
	// absent.
	Checks []CheckEvidence `json:"checks,omitempty"`
}

// CheckEvidence is the latest evidence of one checked metric (erc_errors,
// drc_errors, unrouted_connections) and what it found.
type CheckEvidence struct {
	Metric     string `json:"metric"`
	EvidenceID string `json:"evidence_id"`
	Name       string `json:"name,omitempty"`
	// Value is nil when the evidence holds no number.
	Value *float64 `json:"value,omitempty"`
	Unit  string   `json:"unit,omitempty"`
	// Stale evidence is about an older revision of what it is pinned to;
	// StaleAgainst says which (KEY@n, now KEY@m).
	Stale        bool     `json:"stale,omitempty"`
	StaleAgainst []string `json:"stale_against,omitempty"`
	// ToolID and CallID are the call whose result it records, when a step
	// recorded it.
	ToolID string `json:"tool_id,omitempty"`
	CallID string `json:"call_id,omitempty"`
	// Findings describe what the value counts (DescribeFindings), errors
	// first; FindingsTotal is how many the check found in all.
	Findings      []string `json:"findings,omitempty"`
	FindingsTotal int      `json:"findings_total,omitempty"`
}

// TypeCount is how many nodes of one type the project holds.
type TypeCount struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// Requirement is one requirement's live status (pass, fail, stale, no_data).
type Requirement struct {
	Name          string   `json:"name"`
	ConstraintSet string   `json:"constraint_set"`
	Metric        string   `json:"metric"`
	Operator      string   `json:"operator,omitempty"`
	Limit         *float64 `json:"limit,omitempty"`
	Unit          string   `json:"unit,omitempty"`
	Value         *float64 `json:"value,omitempty"`
	Status        string   `json:"status"`
	Missing       []string `json:"missing,omitempty"`
	// SourceKind is what the deciding value came from: evidence,
	// component_selection or cad_model.
	SourceKind string `json:"source_kind,omitempty"`
}

// Waiver is an approved waiver: it excuses the criteria kinds and the
// requirement names it lists.
type Waiver struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Waives     []string `json:"waives"`
	ApprovedBy string   `json:"approved_by"`
}

// CriterionResult is one criterion judged.
type CriterionResult struct {
	Kind   string `json:"kind"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	// Missing says what would give a no_data criterion something to judge.
	Missing []string `json:"missing,omitempty"`
	// Failing names the requirements that failed it.
	Failing []string `json:"failing,omitempty"`
	// WaivedBy names the approved waiver that excuses a failure.
	WaivedBy string `json:"waived_by,omitempty"`
	// Findings say what a check criterion's evidence found: the
	// violations that fail it.
	Findings []string `json:"findings,omitempty"`
}

// GateResult is a gate's criteria judged: pass only when every criterion
// passes or is waived.
type GateResult struct {
	Gate     string            `json:"gate"`
	Phase    string            `json:"phase"`
	Status   string            `json:"status"`
	Criteria []CriterionResult `json:"criteria"`
}
