package workflows_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/metaforge/metaforge/workflows"
)

func heldInput(window int, humanAuthority bool) workflows.ToolCallInput {
	in := input("fixture.write", 30, false, 0)
	in.Hold = &workflows.Hold{ApprovalID: in.CallID, Route: workflows.RouteDashboard, WindowSeconds: window,
		Reason: "writes; held for approval (untrusted caller)", HumanAuthority: humanAuthority}
	return in
}

// updateRecorder captures how one Update ended.
type updateRecorder struct {
	rejected error
	result   workflows.HoldState
	done     bool
}

func (u *updateRecorder) callbacks() *testsuite.TestUpdateCallback {
	return &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { u.rejected, u.done = err, true },
		OnComplete: func(v any, err error) {
			u.done = true
			if s, ok := v.(workflows.HoldState); ok {
				u.result = s
			}
			if err != nil {
				u.rejected = err
			}
		},
	}
}

func decideAfter(h *harness, d time.Duration, dec workflows.Decision, rec *updateRecorder) {
	h.env.RegisterDelayedCallback(func() {
		h.env.UpdateWorkflow(workflows.DecideUpdate, "", rec.callbacks(), dec)
	}, d)
}

func okActivity(context.Context, workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
	return workflows.InvokeToolResponse{Data: []byte(`{"ok":true}`), Attempt: 1}, nil
}

func TestHeldCallRunsOnlyAfterApproval(t *testing.T) {
	h := newHarness(t, okActivity)
	var rec updateRecorder
	decideAfter(h, 30*time.Second, workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: "Fidel", Route: workflows.RouteDashboard}, &rec)
	res := h.run(t, heldInput(100, false))
	if res.Status != workflows.StatusSuccess || string(res.Data) != `{"ok":true}` {
		t.Fatalf("result %+v, want the tool's success", res)
	}
	a := res.Approval
	if a == nil || a.Outcome != workflows.OutcomeApproved || a.ApprovedBy != "Fidel" || a.ApproverVerified || !a.Held ||
		a.HeldSeconds != 30 || a.WindowSeconds != 100 || a.Route != workflows.RouteDashboard {
		t.Errorf("approval = %+v", a)
	}
	if rec.rejected != nil || rec.result.Pending || rec.result.Decision.Outcome != workflows.OutcomeApproved {
		t.Errorf("the update ended %+v / %v", rec.result, rec.rejected)
	}
	calls := h.calls()
	if len(calls) != 1 || calls[0].req.Approval == nil || calls[0].req.Approval.ApprovedBy != "Fidel" {
		t.Fatalf("the activity ran %d times with %+v; want once, told who approved", len(calls), calls)
	}
}

func TestHeldCallTimesOutWithoutRunning(t *testing.T) {
	h := newHarness(t, okActivity)
	var late updateRecorder
	decideAfter(h, 101*time.Second, workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: "late", Route: workflows.RouteDashboard}, &late)
	res := h.run(t, heldInput(100, false))
	wantError(t, res, -32001, workflows.ApprovalRequired, "fixture.write was held for approval 00c0ffee00c0ffee and not run: timed_out")
	if res.Approval == nil || res.Approval.Outcome != workflows.OutcomeTimedOut || res.Approval.HeldSeconds != 100 {
		t.Errorf("approval = %+v", res.Approval)
	}
	if n := len(h.calls()); n != 0 {
		t.Errorf("the tool ran %d times; a call nobody approved must never run", n)
	}
}

func TestHeldCallRejected(t *testing.T) {
	h := newHarness(t, okActivity)
	var rec updateRecorder
	decideAfter(h, time.Second, workflows.Decision{Outcome: workflows.OutcomeRejected, Approver: "Fidel", Route: workflows.RouteDashboard, Comment: "wrong part"}, &rec)
	res := h.run(t, heldInput(100, false))
	if res.Approval == nil || res.Approval.Outcome != workflows.OutcomeRejected || res.Approval.Comment != "wrong part" {
		t.Errorf("approval = %+v", res.Approval)
	}
	if res.Error == nil || res.Error.Type != workflows.ApprovalRequired || len(h.calls()) != 0 {
		t.Errorf("result %+v after %d runs; want approval_required and no run", res, len(h.calls()))
	}
}

// An invalid decision is refused by the validator without ending the hold,
// and the first valid decision stands. (A second decision against a live
// server is refused as already decided: approvals/queue_test.go.)
func TestHoldValidatorRefusesInvalidAndSecondDecisions(t *testing.T) {
	h := newHarness(t, okActivity)
	var bad, first, second updateRecorder
	decideAfter(h, time.Second, workflows.Decision{Outcome: "maybe", Approver: "x", Route: workflows.RouteDashboard}, &bad)
	decideAfter(h, 2*time.Second, workflows.Decision{Outcome: workflows.OutcomeApproved, Route: workflows.RouteDashboard}, &bad)
	decideAfter(h, 3*time.Second, workflows.Decision{Outcome: workflows.OutcomeRejected, Approver: "A", Route: workflows.RouteDashboard}, &first)
	decideAfter(h, 3*time.Second+time.Millisecond, workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: "B", Route: workflows.RouteDashboard}, &second)
	res := h.run(t, heldInput(100, false))
	if bad.rejected == nil {
		t.Errorf("an invalid decision was accepted")
	}
	if first.rejected != nil || (second.done && second.rejected == nil) {
		t.Errorf("first %v, second %+v; want the first accepted and the second not applied", first.rejected, second)
	}
	if res.Approval == nil || res.Approval.Outcome != workflows.OutcomeRejected {
		t.Errorf("approval = %+v, want the first decision (rejected)", res.Approval)
	}
}

// A human-authority tool records who decided; an elicitation answer names
// nobody, so it cannot approve one.
func TestHumanAuthorityIsNotApprovedInline(t *testing.T) {
	h := newHarness(t, okActivity)
	var rec updateRecorder
	decideAfter(h, time.Second, workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: "the user of claude-code", Route: workflows.RouteElicitation}, &rec)
	res := h.run(t, heldInput(100, true))
	if res.Approval == nil || res.Approval.Outcome != workflows.OutcomeRejected ||
		!strings.Contains(res.Approval.Reason, "did not identify who granted it") {
		t.Errorf("approval = %+v", res.Approval)
	}
	if len(h.calls()) != 0 {
		t.Errorf("a human-authority tool ran on an inline approval")
	}
}

func TestUnheldCallReportsNoApproval(t *testing.T) {
	h := newHarness(t, okActivity)
	res := h.run(t, input("fixture.write", 30, false, 0))
	if res.Approval != nil {
		t.Errorf("a call never held carries approval %+v", res.Approval)
	}
}
