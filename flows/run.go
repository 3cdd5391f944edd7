package flows

import (
	"encoding/json"
	"time"
)

// A design-flow run's data: what starts it, where it stands, and what a
// client or a person sends it. The DesignFlow workflow keeps it; the flow
// tools, the REST routes and the CLI read and send it. Plain data, so the
// tools need not know the workflow that runs it.

// DesignFlowInput starts a run, or continues one after a patch (Resume).
type DesignFlowInput struct {
	RunID         string `json:"run_id"`
	ProjectID     string `json:"project_id"`
	Goal          string `json:"goal"`
	FlowVersionID string `json:"flow_version_id"`
	Flow          Flow   `json:"flow"`
	StartedBy     string `json:"started_by,omitempty"`
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
	Name          string        `json:"name"`
	Status        string        `json:"status"` // none, waiting, approved, rejected
	WindowSeconds int           `json:"window_seconds"`
	WaitingSince  *time.Time    `json:"waiting_since,omitempty"`
	Result        *GateResult   `json:"result,omitempty"`
	EvaluatedAt   *time.Time    `json:"evaluated_at,omitempty"`
	Decision      *GateDecision `json:"decision,omitempty"`
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
	RunID        string      `json:"run_id"`
	ProjectID    string      `json:"project_id"`
	Goal         string      `json:"goal"`
	Phase        string      `json:"phase"`
	Attempt      int         `json:"attempt"`
	Brief        string      `json:"brief"`
	Deliverables []string    `json:"deliverables"`
	Tools        []string    `json:"tools"`
	Gate         string      `json:"gate"`
	Criteria     []Criterion `json:"criteria"`
	// LastGate is the gate's last judgement, when the phase is being
	// reworked: what failed before.
	LastGate *GateResult `json:"last_gate,omitempty"`
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
	Patch      Patch  `json:"patch"`
	ApprovedBy string `json:"approved_by"`
}

// AppliedPatch is a patch the run took.
type AppliedPatch struct {
	Patch      Patch     `json:"patch"`
	ApprovedBy string    `json:"approved_by"`
	AtPhase    string    `json:"at_phase"`
	ResumeAt   string    `json:"resume_at"`
	AppliedAt  time.Time `json:"applied_at"`
}

// Verdict is a run's completion verdict: COMPLETED_VERIFIED only when
// every requirement passes with current evidence.
type Verdict struct {
	Verdict      string        `json:"verdict"`
	Requirements []Requirement `json:"requirements"`
	Blocking     []string      `json:"blocking,omitempty"`
}

// Run statuses.
const (
	RunRunning             = "running"
	RunWaitingForClient    = "waiting_for_client"
	RunRunningSteps        = "running_steps"
	RunAtGate              = "at_gate"
	RunCompletedVerified   = CompletedVerified
	RunCompletedUnverified = CompletedUnverified
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
