package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// designLoopChange versions the DesignLoop workflow's steps.
const designLoopChange = "design-loop"

// loopActivityTimeout bounds one loop activity's attempt.
const loopActivityTimeout = 10 * time.Second

// DefaultLoopApprovalWindow is how long a converged loop waits for a
// person's approval unless the input says otherwise.
const DefaultLoopApprovalWindow = 7 * 24 * time.Hour

// DesignLoop searches one parameter of a work product for its lightest
// feasible value: propose a candidate, evaluate it (an activity), persist
// it as a DesignLoopIteration, revise the bounds, until the interval is
// within the tolerance (converged), the most generous value fails
// (infeasible, proven) or the budget runs out. Mass grows and both
// constraints loosen as the parameter grows, so bisection is exact. A
// converged loop then waits for a person's approval (an Update).
func DesignLoop(ctx workflow.Context, in DesignLoopInput) (LoopState, error) {
	workflow.GetVersion(ctx, designLoopChange, workflow.DefaultVersion, 1)
	st := LoopState{LoopID: in.LoopID, ProjectID: in.ProjectID, WorkProductID: in.WorkProductID, Parameter: in.Parameter,
		Status: LoopRunning, Iterations: []LoopIteration{}, MaxIterations: in.MaxIterations}
	if err := workflow.SetQueryHandler(ctx, LoopStateQuery, func() (LoopState, error) { return st, nil }); err != nil {
		return st, err
	}
	// The loop's activities are a closed-form evaluation and twin writes:
	// seconds at most, so a short timeout lets a worker's death be noticed
	// (and the activity retried elsewhere) quickly.
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: loopActivityTimeout,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 10},
		Summary:             fmt.Sprintf("record design loop %s over %s", in.LoopID, in.Parameter),
	})
	if err := workflow.ExecuteActivity(actx, RecordLoopActivity, RecordLoopRequest{Loop: in}).Get(ctx, &st.LoopNodeID); err != nil {
		return st, err
	}
	previous := ""
	try := func(value float64) (LoopIteration, error) {
		it := LoopIteration{Index: len(st.Iterations) + 1, Parameter: in.Parameter, Value: value}
		summary := fmt.Sprintf("iteration %d: %s = %.4g mm", it.Index, in.Parameter, value)
		ectx := workflow.WithActivityOptions(actx, workflow.ActivityOptions{StartToCloseTimeout: loopActivityTimeout,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 10},
			Summary:     "evaluate " + summary})
		if err := workflow.ExecuteActivity(ectx, EvaluateLoopCandidateActivity, LoopCandidateRequest{Loop: in, Value: value}).Get(ctx, &it); err != nil {
			return it, err
		}
		it.Index, it.Parameter, it.Value = len(st.Iterations)+1, in.Parameter, value
		it.Status = "infeasible: raises the lower bound"
		if it.Feasible {
			it.Status = "feasible: lowers the upper bound"
		}
		rctx := workflow.WithActivityOptions(actx, workflow.ActivityOptions{StartToCloseTimeout: loopActivityTimeout,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 10},
			Summary:     "persist " + summary})
		req := RecordLoopIterationRequest{Loop: in, LoopNodeID: st.LoopNodeID, Iteration: it, PreviousID: previous}
		if err := workflow.ExecuteActivity(rctx, RecordLoopIterationActivity, req).Get(ctx, &it.NodeID); err != nil {
			return it, err
		}
		previous = it.NodeID
		st.Iterations = append(st.Iterations, it)
		return it, nil
	}
	if err := search(in, &st, try); err != nil {
		return st, err
	}
	if err := recordOutcome(actx, in, st); err != nil {
		return st, err
	}
	if st.Status != LoopConverged {
		return st, nil
	}
	return awaitLoopApproval(ctx, actx, in, st)
}

// search bisects for the lightest feasible value, recording how it ends.
func search(in DesignLoopInput, st *LoopState, try func(float64) (LoopIteration, error)) error {
	hi, err := try(in.MaxMM)
	if err != nil {
		return err
	}
	if !hi.Feasible {
		st.Status = LoopInfeasible
		st.Reason = fmt.Sprintf("even the most generous %s, %g mm, fails (tip deflection %.4g mm against %g, safety factor %.3g against %g), so no value in the range can pass",
			in.Parameter, in.MaxMM, hi.DeflectionMM, in.DeflectionMM, hi.SafetyFactor, in.SFLimit)
		return nil
	}
	best := hi
	lo, err := try(in.MinMM)
	if err != nil {
		return err
	}
	if lo.Feasible {
		st.Status, st.Winner = LoopConverged, &lo
		st.Reason = "the smallest value allowed already passes"
		return nil
	}
	low, high := in.MinMM, in.MaxMM
	halvings := 0
	for high-low > in.ToleranceMM {
		if in.MaxIterations > 0 && halvings >= in.MaxIterations {
			st.Status, st.Winner = LoopOutOfBudget, &best
			st.Reason = fmt.Sprintf("the budget of %d iterations ran out with the optimum between %g and %g mm", in.MaxIterations, low, high)
			return nil
		}
		halvings++
		c, err := try((low + high) / 2)
		if err != nil {
			return err
		}
		if c.Feasible {
			high, best = c.Value, c
		} else {
			low = c.Value
		}
	}
	st.Status, st.Winner = LoopConverged, &best
	st.Reason = fmt.Sprintf("converged in %d halvings to within %g mm", halvings, in.ToleranceMM)
	return nil
}

// recordOutcome records how the search ended on the loop node.
func recordOutcome(actx workflow.Context, in DesignLoopInput, st LoopState) error {
	return workflow.ExecuteActivity(actx, RecordLoopOutcomeActivity, RecordLoopOutcomeRequest{Loop: in, LoopNodeID: st.LoopNodeID, State: st}).Get(actx, nil)
}

// awaitLoopApproval waits for a person to approve the converged winner,
// then records the approval; a window ending leaves it converged and
// unapproved.
func awaitLoopApproval(ctx, actx workflow.Context, in DesignLoopInput, st LoopState) (LoopState, error) {
	var approval *LoopApproval
	err := workflow.SetUpdateHandlerWithOptions(ctx, ApproveLoopUpdate,
		func(ctx workflow.Context, a LoopApproval) (LoopState, error) {
			a.ApprovedAt = workflow.Now(ctx)
			approval = &a
			return st, nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, a LoopApproval) error {
			switch {
			case approval != nil:
				return fmt.Errorf("design loop %s was already approved by %s", in.LoopID, approval.Approver)
			case strings.TrimSpace(a.Approver) == "":
				return fmt.Errorf("an approval must name the approver: an identified person approves a design loop")
			}
			return nil
		}})
	if err != nil {
		return st, err
	}
	window := time.Duration(in.ApprovalWindowSeconds) * time.Second
	if window <= 0 {
		window = DefaultLoopApprovalWindow
	}
	ok, err := workflow.AwaitWithOptions(ctx, workflow.AwaitOptions{Timeout: window,
		TimerOptions: workflow.TimerOptions{Summary: fmt.Sprintf("design loop %s waits for approval (%s)", in.LoopID, window)}},
		func() bool { return approval != nil })
	if err != nil || !ok {
		return st, err
	}
	st.Status, st.Approval = LoopApproved, approval
	if err := recordOutcome(actx, in, st); err != nil {
		return st, err
	}
	return st, nil
}
