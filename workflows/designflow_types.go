package workflows

import (
	"encoding/json"
	"time"

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

// Run statuses.
const (
	RunRunning             = "running"
	RunWaitingForClient    = "waiting_for_client"
	RunRunningSteps        = "running_steps"
	RunAtGate              = "at_gate"
	RunCompletedVerified   = flows.CompletedVerified
	RunCompletedUnverified = flows.CompletedUnverified
	RunRejected            = "rejected"
)

// Phase statuses.
const (
	PhasePending          = "pending"
	PhaseWaitingForClient = "waiting_for_client"
	PhaseClaimed          = "claimed"
	PhaseRunningSteps     = "running_steps"
	PhaseAtGate           = "at_gate"
	PhaseApproved         = "approved"
	PhaseRejected         = "rejected"
	PhaseReworked         = "reworked"
)

// MfGate values.
const (
	GateNone     = "none"
	GateWaiting  = "waiting"
	GateApproved = "approved"
	GateRejected = "rejected"
)

// Gate decisions.
const (
	DecisionApprove = "approve"
	DecisionReject  = "reject"
	DecisionRework  = "rework"
)

// DesignFlowInput starts a run, or continues one after a patch (Resume).
type DesignFlowInput struct {
	RunID         string     `json:"run_id"`
	ProjectID     string     `json:"project_id"`
	Goal          string     `json:"goal"`
	FlowVersionID string     `json:"flow_version_id"`
	Flow          flows.Flow `json:"flow"`
	StartedBy     string     `json:"started_by,omitempty"`
	// Inputs are named run inputs steps read (load_cases: one FEA each).
	Inputs map[string][]StepCase `json:"inputs,omitempty"`
	// Resume is the state a continued run carries over.
	Resume *RunState `json:"resume,omitempty"`
}

// RunState is where a run stands: what RunStateQuery answers and what the
// run carries across continue-as-new.
type RunState struct {
	RunID         string         `json:"run_id"`
	ProjectID     string         `json:"project_id"`
	Goal          string         `json:"goal"`
	FlowID        string         `json:"flow_id"`
	FlowVersionID string         `json:"flow_version_id"`
	Status        string         `json:"status"`
	PhaseIndex    int            `json:"phase_index"`
	Phase         string         `json:"phase"`
	Phases        []PhaseState   `json:"phases"`
	Patches       []AppliedPatch `json:"patches,omitempty"`
	Verdict       *Verdict       `json:"verdict,omitempty"`
	// Reason says why a rejected run stopped.
	Reason string `json:"reason,omitempty"`
}

// PhaseState is one phase's progress.
type PhaseState struct {
	Name         string      `json:"name"`
	Status       string      `json:"status"`
	Attempt      int         `json:"attempt"`
	ClaimedBy    string      `json:"claimed_by,omitempty"`
	ClaimedAt    *time.Time  `json:"claimed_at,omitempty"`
	Submission   *Submission `json:"submission,omitempty"`
	Steps        []StepRun   `json:"steps,omitempty"`
	Gate         GateState   `json:"gate"`
	ClaimableAt  *time.Time  `json:"claimable_at,omitempty"`
	CompletedAt  *time.Time  `json:"completed_at,omitempty"`
	StepsSkipped string      `json:"steps_skipped,omitempty"`
}

// GateState is a gate's criteria and decision.
type GateState struct {
	Name          string            `json:"name"`
	Status        string            `json:"status"` // none, waiting, approved, rejected
	WindowSeconds int               `json:"window_seconds"`
	WaitingSince  *time.Time        `json:"waiting_since,omitempty"`
	Result        *flows.GateResult `json:"result,omitempty"`
	EvaluatedAt   *time.Time        `json:"evaluated_at,omitempty"`
	Decision      *GateDecision     `json:"decision,omitempty"`
	// Allowed are the decisions the gate accepts now.
	Allowed []string `json:"allowed,omitempty"`
	// Proposed is the decision last proposed in a client's chat, waiting
	// for an identified person to confirm it.
	Proposed *ProposedDecision `json:"proposed,omitempty"`
}

// ProposedDecision is a decision proposed in a client's chat (elicitation):
// it names nobody who can be held to it, so it only informs the person who
// decides.
type ProposedDecision struct {
	Gate       string    `json:"gate"`
	Decision   string    `json:"decision"`
	ReworkTo   string    `json:"rework_to,omitempty"`
	Comment    string    `json:"comment,omitempty"`
	Client     string    `json:"client,omitempty"`
	SessionID  string    `json:"session_id,omitempty"`
	ProposedAt time.Time `json:"proposed_at,omitempty"`
}

// ClaimRequest takes the phase waiting for a client.
type ClaimRequest struct {
	Phase     string `json:"phase"`
	ClaimedBy string `json:"claimed_by"`
}

// PhaseBrief is what a claim returns: what to do and what the gate checks.
type PhaseBrief struct {
	RunID        string            `json:"run_id"`
	ProjectID    string            `json:"project_id"`
	Goal         string            `json:"goal"`
	Phase        string            `json:"phase"`
	Attempt      int               `json:"attempt"`
	Brief        string            `json:"brief"`
	Deliverables []string          `json:"deliverables"`
	Tools        []string          `json:"tools"`
	Gate         string            `json:"gate"`
	Criteria     []flows.Criterion `json:"criteria"`
	// LastGate is the gate's last judgement, when the phase is being
	// reworked: what failed before.
	LastGate *flows.GateResult `json:"last_gate,omitempty"`
}

// Submission hands a claimed phase back.
type Submission struct {
	Phase       string    `json:"phase"`
	Summary     string    `json:"summary"`
	RecordedIDs []string  `json:"recorded_ids,omitempty"`
	SubmittedBy string    `json:"submitted_by"`
	SubmittedAt time.Time `json:"submitted_at"`
}

// StepRun is one server-run tool call of a phase.
type StepRun struct {
	Name   string `json:"name"`
	ToolID string `json:"tool_id"`
	CallID string `json:"call_id"`
	Status string `json:"status"`
	// EvidenceCalls are the twin.record_evidence calls that recorded its
	// result (call.get_result names each evidence node).
	EvidenceCalls []string `json:"evidence_calls,omitempty"`
	Error         string   `json:"error,omitempty"`
}

// StepCase is one entry of a step's input: the tool's arguments, and the
// revisions the result is computed against (its evidence is pinned to them).
type StepCase struct {
	Name         string          `json:"name"`
	Arguments    json.RawMessage `json:"arguments"`
	ValidAgainst []string        `json:"valid_against"`
}

// PrepareStepEvidenceRequest is a step's result to record as evidence.
type PrepareStepEvidenceRequest struct {
	RunID     string          `json:"run_id"`
	ProjectID string          `json:"project_id"`
	Step      flows.Step      `json:"step"`
	Case      StepCase        `json:"case"`
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

// GateDecision is a person's decision on a gate.
type GateDecision struct {
	Gate            string    `json:"gate"`
	Decision        string    `json:"decision"` // approve, reject, rework
	ReworkTo        string    `json:"rework_to,omitempty"`
	Comment         string    `json:"comment,omitempty"`
	Decider         string    `json:"decider"`
	DeciderVerified bool      `json:"decider_verified"`
	Route           string    `json:"route"`
	DecidedAt       time.Time `json:"decided_at,omitempty"`
}

// PatchRequest applies a patch a person approved.
type PatchRequest struct {
	Patch      flows.Patch `json:"patch"`
	ApprovedBy string      `json:"approved_by"`
}

// AppliedPatch is a patch the run took.
type AppliedPatch struct {
	Patch      flows.Patch `json:"patch"`
	ApprovedBy string      `json:"approved_by"`
	AtPhase    string      `json:"at_phase"`
	ResumeAt   string      `json:"resume_at"`
	AppliedAt  time.Time   `json:"applied_at"`
}

// EvaluateGateRequest is the gate activity's input.
type EvaluateGateRequest struct {
	ProjectID string      `json:"project_id"`
	Phase     flows.Phase `json:"phase"`
}

// Verdict is a run's completion verdict: COMPLETED_VERIFIED only when
// every requirement passes with current evidence.
type Verdict struct {
	Verdict      string              `json:"verdict"`
	Requirements []flows.Requirement `json:"requirements"`
	Blocking     []string            `json:"blocking,omitempty"`
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
	State RunState `json:"state"`
}
