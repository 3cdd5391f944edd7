package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// ChangeTwin is the twin as an engineering change uses it: the impact
// walk, the atomic commit, the change's history, and the evidence that
// replaced a stale one.
type ChangeTwin interface {
	AnalyzeChange(ctx context.Context, projectID string, patch []twin.PatchOp) (twin.ChangeImpact, error)
	// RebasePatch re-points a patch at its items' current heads.
	RebasePatch(ctx context.Context, projectID string, patch []twin.PatchOp) ([]twin.PatchOp, error)
	CommitChange(ctx context.Context, c twin.ChangeCommit) (twin.CommittedChange, error)
	RecordChangeEvent(ctx context.Context, e twin.ChangeEvent) error
	SupersededBy(ctx context.Context, evidenceID string) ([]twin.Node, error)
}

// errNoChangeTwin is a worker that serves no twin.
var errNoChangeTwin = errors.New("this worker serves no twin, so an engineering change cannot run here: run it with the twin's tools registered")

// Changes are the EngineeringChange workflow's activities.
type Changes struct {
	Twin ChangeTwin
	// Steps prepares a replay's call like a flow's step.
	Steps *DesignFlows
}

// AnalyzeChange walks the patch's impact (on the current heads, when
// asked to rebase) and turns it into the change's revalidation plan.
func (c *Changes) AnalyzeChange(ctx context.Context, req workflows.AnalyzeChangeRequest) (workflows.ChangeAnalysis, error) {
	if c.Twin == nil {
		return workflows.ChangeAnalysis{}, errNoChangeTwin
	}
	patch := toTwinPatch(req.Patch)
	if req.Rebase {
		var err error
		if patch, err = c.Twin.RebasePatch(ctx, req.ProjectID, patch); err != nil {
			return workflows.ChangeAnalysis{}, finalIfRefusal(err)
		}
	}
	im, err := c.Twin.AnalyzeChange(ctx, req.ProjectID, patch)
	if err != nil {
		return workflows.ChangeAnalysis{}, finalIfRefusal(err)
	}
	raw, err := json.Marshal(im)
	if err != nil {
		return workflows.ChangeAnalysis{}, err
	}
	return workflows.ChangeAnalysis{Patch: fromTwinPatch(patch), Patched: im.Patched, Stale: planEntries(im.Stale),
		Replay: planEntries(im.Plan.Replay), ManualReviewNeeded: planEntries(im.Plan.ManualReviewNeeded),
		ApprovalLevel: im.ApprovalLevel, ApprovalReason: im.ApprovalReason, Impact: raw}, nil
}

// CommitChange applies the patch whole; revisions that moved are an
// answer (the commit aborted, nothing written), not a failure to retry.
func (c *Changes) CommitChange(ctx context.Context, req workflows.CommitChangeRequest) (workflows.CommitChangeResult, error) {
	if c.Twin == nil {
		return workflows.CommitChangeResult{}, errNoChangeTwin
	}
	done, err := c.Twin.CommitChange(ctx, twin.ChangeCommit{ProjectID: req.ProjectID, ChangeID: req.ChangeID, Reason: req.Reason,
		Author: req.Author, ApprovedBy: req.ApprovedBy, Patch: toTwinPatch(req.Patch), IdempotencyKey: req.IdempotencyKey})
	var conflict *twin.ChangeConflictError
	if errors.As(err, &conflict) {
		res := workflows.CommitChangeResult{}
		for _, m := range conflict.Moved {
			res.Moved = append(res.Moved, workflows.MovedRef{From: m.Pinned, To: m.Head})
		}
		return res, nil
	}
	if err != nil {
		return workflows.CommitChangeResult{}, finalIfRefusal(err)
	}
	if len(done.Revisions) != len(req.Patch) {
		return workflows.CommitChangeResult{}, fmt.Errorf("the commit wrote %d revisions for %d patched items", len(done.Revisions), len(req.Patch))
	}
	res := workflows.CommitChangeResult{Committed: true}
	for i, op := range req.Patch {
		res.Revisions = append(res.Revisions, workflows.MovedRef{From: op.Ref, To: done.Revisions[i]})
	}
	return res, nil
}

// RecordChangeEvent records one step of the change in the twin, once.
func (c *Changes) RecordChangeEvent(ctx context.Context, e workflows.ChangeEvent) error {
	if c.Twin == nil {
		return errNoChangeTwin
	}
	return c.Twin.RecordChangeEvent(ctx, twin.ChangeEvent{ProjectID: e.ProjectID, ChangeID: e.ChangeID, Seq: e.Seq, State: e.State,
		Actor: e.Actor, Note: e.Note, Data: e.Data})
}

// PrepareReplayCall turns a stale evidence's recipe into the child call
// that re-runs it on the committed revisions, superseding the stale one.
func (c *Changes) PrepareReplayCall(ctx context.Context, req workflows.ReplayCallRequest) (workflows.ToolCallInput, error) {
	moved := map[string]string{}
	for _, m := range req.Moved {
		moved[m.From] = m.To
	}
	r := twin.RebaseReplay(twin.Replay{ToolID: req.Entry.ToolID, Args: req.Entry.Args}, moved, req.Entry.EvidenceID)
	args, err := json.Marshal(r.Args)
	if err != nil {
		return workflows.ToolCallInput{}, temporal.NewNonRetryableApplicationError("the replay recipe's args cannot be encoded: "+err.Error(), "bad_recipe", nil)
	}
	return c.Steps.PrepareStepCall(ctx, workflows.PrepareStepCallRequest{CallID: workflows.ReplayCallID(req.ChangeID, req.Entry.EvidenceID),
		ToolID: r.ToolID, Arguments: args, ProjectID: req.ProjectID})
}

// ConfirmRevalidation finds the fresh evidence that supersedes the stale
// one: a replay that recorded none did not revalidate it.
func (c *Changes) ConfirmRevalidation(ctx context.Context, req workflows.ConfirmRevalidationRequest) (string, error) {
	if c.Twin == nil {
		return "", errNoChangeTwin
	}
	by, err := c.Twin.SupersededBy(ctx, req.StaleEvidenceID)
	if err != nil {
		return "", err
	}
	if len(by) == 0 {
		return "", temporal.NewNonRetryableApplicationError(fmt.Sprintf("the replay ran but recorded no evidence superseding %s", req.StaleEvidenceID), "not_superseded", nil)
	}
	return by[len(by)-1].ID, nil
}

func toTwinPatch(p []workflows.ChangePatchOp) []twin.PatchOp {
	out := make([]twin.PatchOp, 0, len(p))
	for _, op := range p {
		out = append(out, twin.PatchOp{Ref: op.Ref, Set: op.Set, Unset: op.Unset, Name: op.Name})
	}
	return out
}

func fromTwinPatch(p []twin.PatchOp) []workflows.ChangePatchOp {
	out := make([]workflows.ChangePatchOp, 0, len(p))
	for _, op := range p {
		out = append(out, workflows.ChangePatchOp{Ref: op.Ref, Set: op.Set, Unset: op.Unset, Name: op.Name})
	}
	return out
}

func planEntries(es []twin.PlanEntry) []workflows.ChangePlanEntry {
	out := make([]workflows.ChangePlanEntry, 0, len(es))
	for _, e := range es {
		pe := workflows.ChangePlanEntry{EvidenceID: e.EvidenceID, Name: e.Name, Metric: e.Metric, PinnedTo: e.PinnedTo, Reason: e.Reason}
		if e.Replay != nil {
			pe.ToolID, pe.Args = e.Replay.ToolID, e.Replay.Args
		}
		out = append(out, pe)
	}
	return out
}
