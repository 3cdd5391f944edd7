package workflows

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// engineeringChangeVersion versions the EngineeringChange workflow's steps.
const engineeringChangeVersion = "engineering-change"

// changeActivityTimeout bounds one attempt of a change's activity (an
// impact walk or an atomic commit): short, so a dead worker is noticed
// and the step retried on another.
const changeActivityTimeout = 30 * time.Second

// EngineeringChange carries one change from its proposal to its commit and
// revalidation: PROPOSED -> ANALYZING (an activity walks the impact) ->
// READY_FOR_REVIEW (a verified person who is not the creator decides, an
// Update) -> APPROVED or REJECTED -> COMMITTED (the patch applied whole
// against the revisions it was analysed on; if one moved, the commit
// aborts and the change is analysed again) -> revalidation (each stale
// evidence's recipe re-run as a child ToolCall) -> optionally ROLLED_BACK,
// a label with who and why. Each step is an Update, so the caller gets the
// state the step left; each transition is recorded in the twin and sets
// MfChange.
func EngineeringChange(ctx workflow.Context, in EngineeringChangeInput) (ChangeState, error) {
	workflow.GetVersion(ctx, engineeringChangeVersion, workflow.DefaultVersion, 1)
	c := &changeRun{in: in, st: ChangeState{ChangeID: in.ChangeID, ProjectID: in.ProjectID, Title: in.Title, Reason: in.Reason,
		CreatedBy: in.CreatedBy, Status: ChangeProposed, Patch: in.Patch, History: []ChangeEvent{}}}
	c.actx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: changeActivityTimeout,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 10},
		Summary:     "engineering change " + in.ChangeID})
	if err := c.handle(ctx); err != nil {
		return c.st, err
	}
	if err := c.transition(ctx, ChangeProposed, in.CreatedBy, "proposed: "+in.Reason, nil); err != nil {
		return c.st, err
	}
	c.analyzeAsked = in.AnalyzeNow
	window := time.Duration(in.RollbackWindowSeconds) * time.Second
	if window <= 0 {
		window = DefaultRollbackWindow
	}
	for {
		var err error
		switch c.st.Status {
		case ChangeProposed:
			if err = workflow.Await(ctx, func() bool { return c.analyzeAsked }); err == nil {
				err = c.analyze(ctx, false)
			}
		case ChangeReadyForReview:
			err = workflow.Await(ctx, func() bool { return c.st.Status != ChangeReadyForReview })
		case ChangeApproved:
			if err = workflow.Await(ctx, func() bool { return c.commitAsked != nil }); err == nil {
				err = c.commit(ctx)
			}
		case ChangeCommitted:
			var ok bool
			ok, err = workflow.AwaitWithOptions(ctx, workflow.AwaitOptions{Timeout: window,
				TimerOptions: workflow.TimerOptions{Summary: fmt.Sprintf("change %s open to revalidation or a roll-back label (%s)", in.ChangeID, window)}},
				func() bool { return c.revalidateAsked != nil || c.rollBackAsked != nil })
			switch {
			case err != nil:
			case !ok:
				return c.finish(ctx)
			case c.rollBackAsked != nil:
				err = c.rollBack(ctx)
			default:
				err = c.revalidate(ctx)
			}
		default: // REJECTED, ROLLED_BACK
			return c.finish(ctx)
		}
		if err != nil {
			return c.st, err
		}
	}
}

// changeRun is one change's workflow state: what it holds and what the
// Updates have asked of it.
type changeRun struct {
	in   EngineeringChangeInput
	st   ChangeState
	actx workflow.Context
	// Steps asked for by Updates, done by the main loop.
	analyzeAsked    bool
	commitAsked     *ChangeAction
	revalidateAsked *ChangeAction
	rollBackAsked   *ChangeAction
}

// finish waits for Update handlers still answering, then ends the run.
func (c *changeRun) finish(ctx workflow.Context) (ChangeState, error) {
	err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	return c.st, err
}

// transition moves the change to a state, sets MfChange and records the
// step in the twin (once: the event's seq is its key).
func (c *changeRun) transition(ctx workflow.Context, status, actor, note string, data map[string]any) error {
	c.st.Status = status
	ev := ChangeEvent{ChangeID: c.in.ChangeID, ProjectID: c.in.ProjectID, Seq: len(c.st.History) + 1, State: status, Actor: actor,
		Note: note, At: workflow.Now(ctx), Data: data}
	c.st.History = append(c.st.History, ev)
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrChange.ValueSet([]string{status})); err != nil {
		return err
	}
	rctx := workflow.WithActivityOptions(c.actx, workflow.ActivityOptions{StartToCloseTimeout: changeActivityTimeout,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 10},
		Summary:     fmt.Sprintf("record %s of change %s", status, c.in.ChangeID)})
	return workflow.ExecuteActivity(rctx, RecordChangeEventActivity, ev).Get(ctx, nil)
}

// analyze walks the patch's impact; rebase first re-points the patch at
// the current heads (after a commit found them moved).
func (c *changeRun) analyze(ctx workflow.Context, rebase bool) error {
	c.st.Busy = "analysing"
	defer func() { c.st.Busy = "" }()
	if err := c.transition(ctx, ChangeAnalyzing, c.in.CreatedBy, "walking the digital thread for the patch's impact", nil); err != nil {
		return err
	}
	var a ChangeAnalysis
	req := AnalyzeChangeRequest{ChangeID: c.in.ChangeID, ProjectID: c.in.ProjectID, Patch: c.st.Patch, Rebase: rebase}
	if err := workflow.ExecuteActivity(c.actx, AnalyzeChangeActivity, req).Get(ctx, &a); err != nil {
		return err
	}
	c.st.Analysis, c.st.Patch, c.st.Review = &a, a.Patch, nil
	note := fmt.Sprintf("%d evidence go stale (%d replayable, %d for manual review); approval level %s: %s",
		len(a.Stale), len(a.Replay), len(a.ManualReviewNeeded), a.ApprovalLevel, a.ApprovalReason)
	return c.transition(ctx, ChangeReadyForReview, c.in.CreatedBy, note, map[string]any{"approval_level": a.ApprovalLevel,
		"patched": a.Patched, "stale": len(a.Stale)})
}

// commit applies the patch whole; a moved revision aborts it, and the
// change is analysed again on the current heads and goes back to review.
func (c *changeRun) commit(ctx workflow.Context) error {
	by := c.commitAsked.By
	c.commitAsked = nil
	c.st.Busy = "committing"
	defer func() { c.st.Busy = "" }()
	req := CommitChangeRequest{ChangeID: c.in.ChangeID, ProjectID: c.in.ProjectID, Patch: c.st.Patch, Reason: c.in.Reason,
		Author: c.in.CreatedBy, ApprovedBy: c.st.Review.By,
		IdempotencyKey: fmt.Sprintf("change-%s-commit-%d", c.in.ChangeID, len(c.st.Conflicts)+1)}
	var res CommitChangeResult
	if err := workflow.ExecuteActivity(c.actx, CommitChangeActivity, req).Get(ctx, &res); err != nil {
		return err
	}
	if !res.Committed {
		c.st.Conflicts = append(c.st.Conflicts, ChangeConflict{Moved: res.Moved, At: workflow.Now(ctx)})
		moved := make([]string, 0, len(res.Moved))
		for _, m := range res.Moved {
			moved = append(moved, m.From+" is now "+m.To)
		}
		note := "commit aborted whole, nothing applied: " + strings.Join(moved, ", ") + "; analysing again on the current revisions"
		if err := c.transition(ctx, ChangeAnalyzing, by, note, map[string]any{"moved": moved}); err != nil {
			return err
		}
		return c.analyze(ctx, true)
	}
	c.st.Commit = &res
	revs := make([]string, 0, len(res.Revisions))
	for _, r := range res.Revisions {
		revs = append(revs, r.From+" -> "+r.To)
	}
	return c.transition(ctx, ChangeCommitted, by, "committed: "+strings.Join(revs, ", "), map[string]any{"revisions": revs})
}

// revalidate re-runs each stale evidence's recipe as a child ToolCall on
// the committed design and lists the rest for a person.
func (c *changeRun) revalidate(ctx workflow.Context) error {
	by := c.revalidateAsked.By
	c.revalidateAsked = nil
	c.st.Busy = "revalidating"
	defer func() { c.st.Busy = "" }()
	a := c.st.Analysis
	rv := &Revalidation{Status: "running", By: by, Replayed: []RevalidatedEntry{}, ManualReviewNeeded: a.ManualReviewNeeded}
	if rv.ManualReviewNeeded == nil {
		rv.ManualReviewNeeded = []ChangePlanEntry{}
	}
	c.st.Revalidation = rv
	failed := 0
	for _, e := range a.Replay {
		got := c.replay(ctx, e)
		if got.Status != "revalidated" {
			failed++
		}
		rv.Replayed = append(rv.Replayed, got)
	}
	rv.Status = "done"
	if failed > 0 {
		rv.Status = "partial"
	}
	note := fmt.Sprintf("revalidation %s: %d re-run (%d failed), %d need manual review", rv.Status, len(rv.Replayed), failed,
		len(rv.ManualReviewNeeded))
	return c.transition(ctx, ChangeCommitted, by, note, map[string]any{"revalidation": rv.Status})
}

// replay re-runs one recipe; a failure is reported on the entry, never
// taken for a pass.
func (c *changeRun) replay(ctx workflow.Context, e ChangePlanEntry) RevalidatedEntry {
	out := RevalidatedEntry{EvidenceID: e.EvidenceID, Name: e.Name, Status: "failed"}
	var call ToolCallInput
	req := ReplayCallRequest{ChangeID: c.in.ChangeID, ProjectID: c.in.ProjectID, Entry: e, Moved: c.st.Commit.Revisions}
	if err := workflow.ExecuteActivity(c.actx, PrepareReplayCallActivity, req).Get(ctx, &call); err != nil {
		out.Detail = "the replay could not be prepared: " + err.Error()
		return out
	}
	out.CallID = call.CallID
	res, err := childToolCall(ctx, c.in.ProjectID, call, fmt.Sprintf("revalidate %s (%s) for change %s", e.Name, e.ToolID, c.in.ChangeID))
	if err != nil {
		out.Detail = err.Error()
		return out
	}
	if res.Status != StatusSuccess {
		out.Detail = res.Error.Details
		return out
	}
	var fresh string
	cr := ConfirmRevalidationRequest{ProjectID: c.in.ProjectID, StaleEvidenceID: e.EvidenceID}
	if err := workflow.ExecuteActivity(c.actx, ConfirmRevalidationActivity, cr).Get(ctx, &fresh); err != nil {
		out.Detail = err.Error()
		return out
	}
	out.Status, out.FreshEvidenceID = "revalidated", fresh
	return out
}

// rollBack labels the change rolled back: who and why, nothing undone.
func (c *changeRun) rollBack(ctx workflow.Context) error {
	a := c.rollBackAsked
	c.st.RollBack = a
	err := c.transition(ctx, ChangeRolledBack, a.By, "labelled rolled back: "+a.Reason+" (a label only: nothing is undone; "+
		"propose a change that restores what is wanted)", nil)
	c.rollBackAsked = nil
	return err
}

// ReplayCallID is the child call that replays one stale evidence for a
// change: derived from both, so a retried step finds the same call.
func ReplayCallID(changeID, evidenceID string) string {
	sum := sha256.Sum256([]byte(changeID + "/" + evidenceID))
	return hex.EncodeToString(sum[:8])
}
