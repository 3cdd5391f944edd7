package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"
)

// Approval hold: the MCP server decides a call is held; the hold lives
// here, in the ToolCall workflow, as a durable window timer and a decision
// Update, so a restart of the server loses nothing.
const (
	// DecideUpdate is the Update that carries a person's decision.
	DecideUpdate = "decide"
	// HoldQuery answers a hold's state while it is pending and after.
	HoldQuery = "hold"
	// holdChange versions the hold step (workflow.GetVersion).
	holdChange = "approval-hold"
)

// Hold outcomes. Everything but approved stops the call.
const (
	OutcomeApproved      = "approved"
	OutcomeRejected      = "rejected"
	OutcomeTimedOut      = "timed_out"
	OutcomeCancelled     = "cancelled"
	OutcomeNotConfigured = "not_configured"
	// HoldPending is MfHold while nobody has decided; HoldNone a call
	// never held.
	HoldPending = "pending"
	HoldNone    = "none"
)

// Routes: where the question was put.
const (
	RouteElicitation = "elicitation"
	RouteDashboard   = "dashboard"
)

// Hold is the MCP server's ruling that a call waits for a person.
type Hold struct {
	ApprovalID    string `json:"approval_id"`
	Route         string `json:"route"`
	WindowSeconds int    `json:"window_seconds"`
	// Reason says why, in the words the reviewer is shown ("writes; held
	// for approval (untrusted caller)").
	Reason string `json:"reason"`
	// HumanAuthority tools record who decided, so an answer that
	// identifies nobody (an elicitation) cannot approve them.
	HumanAuthority bool `json:"human_authority,omitempty"`
	// BackstopSeconds extends the workflow's own timer past the window
	// when the server that asked inline ends the hold itself (it withdraws
	// its question at the window, then decides timed_out); the timer then
	// only ends a hold whose server is gone.
	BackstopSeconds int `json:"backstop_seconds,omitempty"`
}

// Decision is what a person (or the server on their behalf: a withdrawn
// question, a client that hung up) decided about a hold.
type Decision struct {
	Outcome          string `json:"outcome"`
	Approver         string `json:"approver,omitempty"`
	ApproverVerified bool   `json:"approver_verified"`
	Route            string `json:"route"`
	Comment          string `json:"comment,omitempty"`
}

// Approval is how a hold ended, reported on the call's result.
type Approval struct {
	Held             bool    `json:"held"`
	Outcome          string  `json:"outcome"`
	Route            string  `json:"route"`
	HeldSeconds      float64 `json:"held_seconds"`
	WindowSeconds    int     `json:"window_seconds"`
	ApprovalID       string  `json:"approval_id"`
	ApprovedBy       string  `json:"approved_by,omitempty"`
	ApproverVerified bool    `json:"approver_verified"`
	Comment          string  `json:"comment,omitempty"`
	// Reason explains an outcome the decision alone does not (a human-
	// authority tool approved by an answer that identifies nobody).
	Reason string `json:"reason,omitempty"`
}

// HoldState is what HoldQuery answers.
type HoldState struct {
	ApprovalID    string   `json:"approval_id"`
	Pending       bool     `json:"pending"`
	WindowSeconds int      `json:"window_seconds"`
	Route         string   `json:"route"`
	Decision      Decision `json:"decision"`
}

// SelfApproval starts the refusal of an approval by the person who asked
// for the call; callers match on it to answer 403.
const SelfApproval = "approver != requester"

// validateApprover refuses the requester's own approval: where the
// deployment identifies people, a held write needs a second person. A
// rejection by the requester stands (she withdraws her own request), and an
// unverified name proves nothing either way, so it is not compared.
func validateApprover(approvalID, requester string, d Decision) error {
	if requester != "" && d.Outcome == OutcomeApproved && d.ApproverVerified && d.Approver == requester {
		return fmt.Errorf("%s: approval %s: %s asked for this call and cannot approve it; another identified person decides (the requester may still reject it)",
			SelfApproval, approvalID, requester)
	}
	return nil
}

// ValidateDecision is the Update's validator: a decision must name a known
// outcome, and an approval must name who approved.
func ValidateDecision(d Decision) error {
	switch d.Outcome {
	case OutcomeApproved:
		if d.Approver == "" {
			return fmt.Errorf("an approval must name the approver")
		}
	case OutcomeRejected, OutcomeTimedOut, OutcomeCancelled:
	default:
		return fmt.Errorf("outcome %q is not one of approved, rejected, timed_out, cancelled", d.Outcome)
	}
	switch d.Route {
	case RouteDashboard, RouteElicitation:
	default:
		return fmt.Errorf("route %q is not one of dashboard, elicitation", d.Route)
	}
	return nil
}

// awaitDecision holds the call until a valid decision arrives or the
// window ends, and reports how it ended. A decision after the window, or a
// second one, is refused by the validator: the first word stands. So is
// the requester's own approval (validateApprover).
func awaitDecision(ctx workflow.Context, h Hold, requester string) (Approval, error) {
	start := workflow.Now(ctx)
	var decision *Decision
	expired := false
	state := func() HoldState {
		s := HoldState{ApprovalID: h.ApprovalID, Pending: decision == nil && !expired, WindowSeconds: h.WindowSeconds, Route: h.Route}
		if decision != nil {
			s.Decision = *decision
		}
		if expired && decision == nil {
			s.Decision = Decision{Outcome: OutcomeTimedOut, Route: h.Route}
		}
		return s
	}
	if err := workflow.SetQueryHandler(ctx, HoldQuery, func() (HoldState, error) { return state(), nil }); err != nil {
		return Approval{}, err
	}
	err := workflow.SetUpdateHandlerWithOptions(ctx, DecideUpdate,
		func(ctx workflow.Context, d Decision) (HoldState, error) {
			decision = &d
			return state(), nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, d Decision) error {
			if decision != nil {
				return fmt.Errorf("approval %s was already decided: %s", h.ApprovalID, decision.Outcome)
			}
			if expired {
				return fmt.Errorf("approval %s is no longer pending: its %ds window ended (timed_out)", h.ApprovalID, h.WindowSeconds)
			}
			if err := ValidateDecision(d); err != nil {
				return err
			}
			return validateApprover(h.ApprovalID, requester, d)
		}})
	if err != nil {
		return Approval{}, err
	}
	window := time.Duration(h.WindowSeconds+h.BackstopSeconds) * time.Second
	decided, err := workflow.AwaitWithTimeout(ctx, window, func() bool { return decision != nil })
	if err != nil {
		return Approval{}, err
	}
	a := Approval{Held: true, Route: h.Route, WindowSeconds: h.WindowSeconds, ApprovalID: h.ApprovalID,
		HeldSeconds: roundTenths(workflow.Now(ctx).Sub(start).Seconds())}
	if !decided {
		expired = true
		a.Outcome = OutcomeTimedOut
		return a, nil
	}
	a.Outcome, a.Route, a.Comment = decision.Outcome, decision.Route, decision.Comment
	if decision.Outcome == OutcomeApproved {
		a.ApprovedBy, a.ApproverVerified = decision.Approver, decision.ApproverVerified
		if h.HumanAuthority && decision.Route == RouteElicitation {
			a.Outcome = OutcomeRejected
			a.Reason = "the approval was granted but the gate did not identify who granted it; " +
				"this tool records who decided, so approve it on the dashboard or with metaforge approve"
		}
	}
	return a, nil
}

func roundTenths(s float64) float64 { return float64(int64(s*10+0.5)) / 10 }
