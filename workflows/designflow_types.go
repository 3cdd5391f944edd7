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
)

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
}

// DesignFlowResult is how a run ended.
type DesignFlowResult struct {
	State flows.RunState `json:"state"`
}
