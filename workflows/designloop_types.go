package workflows

import "time"

// DesignLoopWorkflowID is a loop's workflow ID: the hash of its inputs, so
// starting the same loop twice finds the first.
func DesignLoopWorkflowID(loopID string) string { return "design-loop-" + loopID }

// The DesignLoop workflow's handlers and activities.
const (
	// LoopStateQuery answers the loop's LoopState.
	LoopStateQuery = "loop_state"
	// ApproveLoopUpdate records a person's approval of the converged winner.
	ApproveLoopUpdate = "approve_loop"
	// EvaluateLoopCandidateActivity judges one candidate value.
	EvaluateLoopCandidateActivity = "EvaluateLoopCandidate"
	// RecordLoopActivity records the loop and its constraints in the twin.
	RecordLoopActivity = "RecordLoop"
	// RecordLoopIterationActivity persists one iteration in the twin.
	RecordLoopIterationActivity = "RecordLoopIteration"
	// RecordLoopOutcomeActivity records how the loop ended and, once a
	// person approved it, the approval.
	RecordLoopOutcomeActivity = "RecordLoopOutcome"
)

// Loop statuses. A loop ends converged, infeasible (proven: the most
// generous value fails) or out of budget; a converged loop then waits for a
// person's approval.
const (
	LoopRunning     = "running"
	LoopConverged   = "converged"
	LoopInfeasible  = "infeasible"
	LoopOutOfBudget = "out_of_budget"
	LoopApproved    = "approved"
)

// DesignLoopInput is a loop: the parameter searched over a work product's
// recorded geometry, the constraints, the range and the budget.
type DesignLoopInput struct {
	LoopID        string  `json:"loop_id"`
	ProjectID     string  `json:"project_id"`
	WorkProductID string  `json:"work_product_id"`
	Parameter     string  `json:"parameter"` // wall_thickness_mm or height_mm
	LoadN         float64 `json:"load_n"`
	DeflectionMM  float64 `json:"deflection_limit_mm"`
	SFLimit       float64 `json:"sf_limit"`
	MinMM         float64 `json:"min_mm"`
	MaxMM         float64 `json:"max_mm"`
	ToleranceMM   float64 `json:"tolerance_mm"`
	MaxIterations int     `json:"max_iterations"`
	// ApprovalWindowSeconds is how long a converged loop waits for a
	// person's approval.
	ApprovalWindowSeconds int `json:"approval_window_seconds"`
}

// LoopCandidateRequest is one candidate to judge.
type LoopCandidateRequest struct {
	Loop  DesignLoopInput `json:"loop"`
	Value float64         `json:"value"`
}

// LoopIteration is one candidate judged and persisted.
type LoopIteration struct {
	Index        int     `json:"index"`
	Parameter    string  `json:"parameter_name"`
	Value        float64 `json:"value"`
	Objective    float64 `json:"objective_mass_kg"`
	DeflectionMM float64 `json:"tip_deflection_mm"`
	StressMPa    float64 `json:"max_bending_stress_mpa"`
	SafetyFactor float64 `json:"safety_factor"`
	Feasible     bool    `json:"feasible"`
	// Status is what the iteration did to the search: the bound it moved.
	Status string `json:"status"`
	NodeID string `json:"node_id,omitempty"`
}

// RecordLoopRequest records the loop node.
type RecordLoopRequest struct {
	Loop DesignLoopInput `json:"loop"`
}

// RecordLoopIterationRequest persists one iteration, after the previous.
type RecordLoopIterationRequest struct {
	Loop       DesignLoopInput `json:"loop"`
	LoopNodeID string          `json:"loop_node_id"`
	Iteration  LoopIteration   `json:"iteration"`
	PreviousID string          `json:"previous_id,omitempty"`
}

// LoopApproval is a person's approval of a converged loop's winner.
type LoopApproval struct {
	Approver         string    `json:"approver"`
	ApproverVerified bool      `json:"approver_verified"`
	Comment          string    `json:"comment,omitempty"`
	ApprovedAt       time.Time `json:"approved_at,omitempty"`
	DecisionID       string    `json:"decision_id,omitempty"`
}

// RecordLoopOutcomeRequest records how a loop ended.
type RecordLoopOutcomeRequest struct {
	Loop       DesignLoopInput `json:"loop"`
	LoopNodeID string          `json:"loop_node_id"`
	State      LoopState       `json:"state"`
}

// LoopState is where a loop stands: what LoopStateQuery answers.
type LoopState struct {
	LoopID        string          `json:"loop_id"`
	ProjectID     string          `json:"project_id"`
	WorkProductID string          `json:"work_product_id"`
	Parameter     string          `json:"parameter_name"`
	Status        string          `json:"status"`
	Iterations    []LoopIteration `json:"iterations"`
	MaxIterations int             `json:"max_iterations"`
	Winner        *LoopIteration  `json:"winner,omitempty"`
	Reason        string          `json:"reason,omitempty"`
	LoopNodeID    string          `json:"loop_node_id,omitempty"`
	Approval      *LoopApproval   `json:"approval,omitempty"`
}
