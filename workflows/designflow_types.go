package workflows

import (
	"encoding/json"

	"github.com/metaforge/metaforge/flows"
)

// DesignFlowWorkflowID is a run's workflow ID: one workflow per run.
func DesignFlowWorkflowID(runID string) string { return "design-flow-" + runID }

// The DesignFlow workflow's handlers.
const (
	// RunStateQuery answers the run's RunState.
	RunStateQuery = "run_state"
	// ClaimUpdate takes the phase waiting for a client.
	ClaimUpdate = "claim_phase"
	// SubmitUpdate hands a claimed phase back.
	SubmitUpdate = "submit_phase"
	// EvaluateGateUpdate judges the waiting gate's criteria again, against
	// what the twin holds now.
	EvaluateGateUpdate = "evaluate_gate"
	// DecideGateUpdate carries a person's decision on the waiting gate.
	DecideGateUpdate = "decide_gate"
	// PatchUpdate applies an approved patch at a gate.
	PatchUpdate = "patch_flow"
	// ProposeDecisionUpdate records an answer given in the client's chat:
	// a proposal an identified person confirms, never a decision.
	ProposeDecisionUpdate = "propose_decision"
)

// Activities the DesignFlow workflow runs; named, so workflows/ need not
// import the activities package.
const (
	// EvaluateGateActivity reads the twin and judges a phase's gate.
	EvaluateGateActivity = "EvaluateGate"
	// VerifyCompletionActivity gives the run's completion verdict.
	VerifyCompletionActivity = "VerifyCompletion"
	// PrepareStepCallActivity turns a step's tool and arguments into a
	// ToolCallInput, checking the arguments against the tool's schema.
	PrepareStepCallActivity = "PrepareStepCall"
	// PrepareStepEvidenceActivity turns a step's result into the
	// twin.record_evidence calls that record the fields the step names.
	PrepareStepEvidenceActivity = "PrepareStepEvidence"
	// PlanLoadCasesActivity resolves the project's recorded load cases
	// against the parts' current revisions, with each one's mesh call.
	PlanLoadCasesActivity = "PlanLoadCases"
	// BuildLoadCaseStepActivity picks a load case's faces on its mesh and
	// gives the calculix.run_fea step that solves it.
	BuildLoadCaseStepActivity = "BuildLoadCaseStep"
)

// PlanLoadCasesRequest asks for the project's load cases as they stand.
type PlanLoadCasesRequest struct {
	RunID     string `json:"run_id"`
	ProjectID string `json:"project_id"`
}

// LoadCasePlans are the load cases an analysis solves now, and those it
// skips with the reason.
type LoadCasePlans struct {
	Plans   []LoadCasePlan `json:"plans"`
	Skipped []string       `json:"skipped,omitempty"`
}

// LoadCasePlan is one recorded load case resolved against its part's
// current revision: the mesh call for that revision's geometry (named by
// its content, so a revision already meshed is not meshed again) and what
// the step that solves it needs.
type LoadCasePlan struct {
	Name     string `json:"name"`
	LoadCase string `json:"load_case"` // KEY@n
	PartRef  string `json:"part_ref"`  // KEY@n, the revision solved
	// Mesh is the gmsh.generate_mesh call; MeshFile is set instead when
	// that call's mesh is already in the workspace.
	Mesh     ToolCallInput `json:"mesh"`
	MeshFile string        `json:"mesh_file,omitempty"`
	// Target is the resolved load case, for BuildLoadCaseStep.
	Target json.RawMessage `json:"target"`
}

// BuildLoadCaseStepRequest is a planned load case and its mesh: the mesh
// call's result, or the plan's MeshFile when it was already meshed.
type BuildLoadCaseStepRequest struct {
	Plan LoadCasePlan    `json:"plan"`
	Mesh json.RawMessage `json:"mesh,omitempty"`
}

// LoadCaseStep is a load case ready to solve: the step's case (run_fea's
// arguments, the revisions it is valid against) and what its evidence
// records of how it was solved (load case, faces picked, mesh).
type LoadCaseStep struct {
	Case     flows.StepCase `json:"case"`
	Evidence map[string]any `json:"evidence"`
}

// PrepareStepEvidenceRequest is a step's result to record as evidence.
type PrepareStepEvidenceRequest struct {
	RunID     string          `json:"run_id"`
	ProjectID string          `json:"project_id"`
	Step      flows.Step      `json:"step"`
	Case      flows.StepCase  `json:"case"`
	CaseName  string          `json:"case_name"`
	FromCall  string          `json:"from_call"`
	Result    json.RawMessage `json:"result"`
	// CallIDPrefix seeds the evidence calls' ids, so a retried activity
	// names the same calls.
	CallIDPrefix string `json:"call_id_prefix"`
	// CaseData is what the evidence records of how a recorded load case
	// was solved; nil for a run input's case.
	CaseData map[string]any `json:"case_data,omitempty"`
}

// StepEvidenceCalls are the evidence calls to run, and the fields the
// result lacked.
type StepEvidenceCalls struct {
	Calls   []ToolCallInput `json:"calls"`
	Missing []string        `json:"missing,omitempty"`
}

// EvaluateGateRequest is the gate activity's input.
type EvaluateGateRequest struct {
	ProjectID string      `json:"project_id"`
	Phase     flows.Phase `json:"phase"`
}

// VerifyCompletionRequest is the verdict activity's input.
type VerifyCompletionRequest struct {
	ProjectID string `json:"project_id"`
}

// PrepareStepCallRequest is one step call to prepare.
type PrepareStepCallRequest struct {
	CallID    string          `json:"call_id"`
	ToolID    string          `json:"tool_id"`
	Arguments json.RawMessage `json:"arguments"`
	ProjectID string          `json:"project_id"`
	// From sets arguments from fields of Earlier, the results the steps
	// before gave for the same entry (flows.StepArguments), over Arguments.
	From    []flows.FromField  `json:"from,omitempty"`
	Earlier []flows.StepResult `json:"earlier,omitempty"`
}

// DesignFlowResult is how a run ended.
type DesignFlowResult struct {
	State flows.RunState `json:"state"`
}
