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
// input ForEach (one argument object each, e.g. one FEA per load case),
// recording each result's fields as evidence.
type Step struct {
	Name    string `json:"name"`
	ToolID  string `json:"tool_id"`
	ForEach string `json:"for_each"`
	// Records maps result fields to evidence metrics.
	Records []EvidenceField `json:"records,omitempty"`
}

// EvidenceField is one result field recorded as evidence: the value at
// Field (a top-level number in the tool's result) as Metric in Unit.
type EvidenceField struct {
	Field  string `json:"field"`
	Metric string `json:"metric"`
	Unit   string `json:"unit"`
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
}

// GateResult is a gate's criteria judged: pass only when every criterion
// passes or is waived.
type GateResult struct {
	Gate     string            `json:"gate"`
	Phase    string            `json:"phase"`
	Status   string            `json:"status"`
	Criteria []CriterionResult `json:"criteria"`
}
