package twin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// ChangeEngine reaches engineering changes, which are durable processes
// (the EngineeringChange workflow); the change tools know nothing of
// Temporal.
type ChangeEngine interface {
	// ChangeProcess describes a new change as the detached process that
	// carries it; the proposing call's workflow starts it.
	ChangeProcess(s ChangeStart) (adapters.Process, error)
	// ChangeState is the change as it stands, and whether its process
	// still runs.
	ChangeState(ctx context.Context, changeID string) (state json.RawMessage, running bool, err error)
	// ChangeStep asks the change to take a step and answers with the
	// state the step left; a step the change refuses is ErrChangeRefused.
	ChangeStep(ctx context.Context, changeID string, s ChangeStep) (json.RawMessage, error)
}

// ChangeStart is a change to propose.
type ChangeStart struct {
	ChangeID, ProjectID, Title, Reason, CreatedBy string
	Patch                                         []twin.PatchOp
	// AnalyzeNow analyses the change at once (twin.propose_change).
	AnalyzeNow bool
}

// Change steps, as ChangeStep names them.
const (
	StepAnalyze    = "analyze"
	StepApprove    = "approve"
	StepReject     = "reject"
	StepCommit     = "commit"
	StepRevalidate = "revalidate"
	StepRollBack   = "roll_back"
)

// ChangeStep is one step asked of a change, and who asks.
type ChangeStep struct {
	Name     string
	By       string
	Verified bool
	Comment  string
	Reason   string
}

// Change engine errors.
var (
	ErrNoChange      = errors.New("no such engineering change")
	ErrChangeRefused = errors.New("refused")
)

func changeTools() []tool {
	return []tool{proposeChangeTool("twin.propose_engineering_change", false), proposeChangeTool("twin.propose_change", true),
		changeStepTool("twin.analyze_engineering_change", StepAnalyze, "Analyse an engineering change",
			"Walk the digital thread from a PROPOSED change's patched revisions for its transitive impact (every item, requirement, "+
				"evidence and claim it reaches), list the evidence that goes stale, set the approval level the impact needs, and store "+
				"the revalidation plan on the change: it moves to READY_FOR_REVIEW."),
		changeStepTool("twin.approve_engineering_change", StepApprove, "Approve an engineering change",
			"Approve a change that is READY_FOR_REVIEW. The reviewer is the verified person who approves this held call; the change's "+
				"creator cannot approve it (self-approval is refused, saying so)."),
		changeStepTool("twin.reject_engineering_change", StepReject, "Reject an engineering change",
			"Reject a change that is READY_FOR_REVIEW, with a comment saying why. The reviewer is the verified person who approves this "+
				"held call, never the change's creator; a rejected change ends."),
		changeStepTool("twin.commit_engineering_change", StepCommit, "Commit an engineering change",
			"Apply an APPROVED change's patch atomically against the revisions it was analysed on. If any of them moved meanwhile, "+
				"nothing is applied: the change is analysed again on the current revisions and goes back to READY_FOR_REVIEW."),
		changeStepTool("twin.execute_revalidation_plan", StepRevalidate, "Execute an engineering change's revalidation plan",
			"For a COMMITTED change, re-run every stale evidence that carries a replay recipe {tool_id, args} as a child ToolCall on the "+
				"committed revisions, recording fresh evidence that SUPERSEDES the stale one; everything else is listed "+
				"manual_review_needed, never guessed. Answers once the run is under way; twin.get_engineering_change follows it."),
		changeStepTool("twin.mark_engineering_change_rolled_back", StepRollBack, "Label an engineering change rolled back",
			"Label a COMMITTED change ROLLED_BACK with who and why (reason). A label only: nothing is undone; propose a change that "+
				"restores what is wanted."),
		getChangeTool()}
}

// patchOpArgs is one op of a patch, as a caller writes it.
type patchOpArgs struct {
	Ref   string         `json:"ref" jsonschema:"the item revision the change is written against, KEY@n (the item's head)"`
	Set   map[string]any `json:"set,omitempty" jsonschema:"properties to set on the next revision, merged over the current ones"`
	Unset []string       `json:"unset,omitempty" jsonschema:"properties to remove"`
	Name  string         `json:"name,omitempty" jsonschema:"a new name for the item"`
}

type proposeChangeArgs struct {
	project.Scope
	Title  string        `json:"title"`
	Reason string        `json:"reason" jsonschema:"why the change is wanted"`
	Patch  []patchOpArgs `json:"patch"`
}

func proposeChangeTool(id string, analyzeNow bool) tool {
	name, desc := "Propose an engineering change",
		"Propose an engineering change: a patch against named item revisions (KEY@n, each its item's head), a title and a reason. "+
			"It starts a durable EngineeringChange workflow (engineering-change-<change_id>, MfChange its state) in PROPOSED; "+
			"twin.analyze_engineering_change walks its impact. The proposer (the calling identity) cannot approve it."
	if analyzeNow {
		name, desc = "Propose and analyse a change",
			"The short form of twin.propose_engineering_change and twin.analyze_engineering_change in one call: the change is proposed "+
				"and analysed, and the answer is the change READY_FOR_REVIEW with its impact, the evidence that goes stale, its "+
				"revalidation plan and the approval level it needs."
	}
	return adapters.Declare(adapters.Manifest{ToolID: id, Name: name, Capability: "twin_write", Description: desc, Idempotent: true,
		TimeoutSeconds: 120}, func(ctx context.Context, b *Backend, a proposeChangeArgs) (any, error) {
		return proposeChange(ctx, b, a, analyzeNow)
	},
		adapters.At("title", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("reason", adapters.MinLength(1), adapters.MaxLength(4000)),
		adapters.At("patch", adapters.MinItems(1), adapters.MaxItems(100)),
		adapters.At("patch[].ref", adapters.Pattern(`^[^@\s]+@[0-9]+$`)))
}

// changeIDRule is a change id as the propose tools return it.
var changeIDRule = adapters.At("change_id", adapters.Pattern("^[0-9a-f]{16}$"))

type changeArgs struct {
	project.Scope
	ChangeID string `json:"change_id"`
}

type changeStepArgs struct {
	changeArgs
	Comment string `json:"comment,omitempty" jsonschema:"the reviewer's rationale"`
	Reason  string `json:"reason,omitempty" jsonschema:"why the change is labelled rolled back (required for that tool)"`
}

func changeStepTool(id, step, name, desc string) tool {
	return adapters.Declare(adapters.Manifest{ToolID: id, Name: name, Capability: "twin_write", Description: desc, Idempotent: true,
		Short: true, TimeoutSeconds: 60}, func(ctx context.Context, b *Backend, a changeStepArgs) (any, error) {
		return stepChange(ctx, b, a, step)
	}, changeIDRule, adapters.At("comment", adapters.MaxLength(2000)), adapters.At("reason", adapters.MaxLength(2000)))
}

func getChangeTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.get_engineering_change", Name: "Get an engineering change",
		Capability: "twin_read", Description: "An engineering change as it stands: its state, patch, impact analysis and revalidation " +
			"plan, review, commit (or the conflicts that aborted one), revalidation results and its history. Reads only.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, getChange, changeIDRule)
}

func (b *Backend) changes() (ChangeEngine, error) {
	if b.Changes == nil {
		return nil, protocol.Unavailable("engineering changes need Temporal, which this server is not connected to")
	}
	return b.Changes, nil
}

// proposer is who proposes a change: the verified identity that asked,
// else the caller as it named itself.
func proposer(ctx context.Context) string {
	ci := adapters.CallInfoFrom(ctx)
	if ci.Requester != "" {
		return ci.Requester
	}
	return author(ctx)
}

func proposeChange(ctx context.Context, b *Backend, a proposeChangeArgs, analyzeNow bool) (any, error) {
	engine, err := b.changes()
	if err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	patch := make([]twin.PatchOp, 0, len(a.Patch))
	for _, op := range a.Patch {
		patch = append(patch, twin.PatchOp{Ref: op.Ref, Set: op.Set, Unset: op.Unset, Name: op.Name})
	}
	if _, err := twin.CheckPatch(ctx, b.Store, p.ID, patch); err != nil {
		return nil, classify(err)
	}
	s := ChangeStart{ChangeID: callID(ctx), ProjectID: p.ID, Title: a.Title, Reason: a.Reason, CreatedBy: proposer(ctx), Patch: patch,
		AnalyzeNow: analyzeNow}
	proc, err := engine.ChangeProcess(s)
	if err != nil {
		return nil, err
	}
	proc.Answer, err = json.Marshal(map[string]any{"change_id": s.ChangeID, "workflow_id": "engineering-change-" + s.ChangeID,
		"created_by": s.CreatedBy, "analyze": analyzeNow})
	if err != nil {
		return nil, err
	}
	proc.Follow, proc.FollowSeconds = true, 60
	return &adapters.Result{Process: &proc}, nil
}

// followChange answers a proposal with the change as it stands: settled
// once it is proposed (and, for propose_change, analysed).
func followChange(ctx context.Context, b *Backend, p adapters.Process, s adapters.ProcessStart) (json.RawMessage, bool, error) {
	engine, err := b.changes()
	if err != nil {
		return nil, false, err
	}
	var answer map[string]any
	if err := json.Unmarshal(p.Answer, &answer); err != nil {
		return nil, false, fmt.Errorf("the change's start answer cannot be read: %w", err)
	}
	id, _ := answer["change_id"].(string)
	analyze, _ := answer["analyze"].(bool)
	delete(answer, "analyze")
	state, _, err := engine.ChangeState(ctx, id)
	if err != nil {
		return nil, false, err
	}
	var st struct {
		Status  string            `json:"status"`
		Busy    string            `json:"busy"`
		History []json.RawMessage `json:"history"`
	}
	_ = json.Unmarshal(state, &st)
	// Busy: the analysis's last event is still being recorded, and a
	// review sent now would be told to ask again.
	settled := len(st.History) > 0 && st.Busy == "" && (!analyze || (st.Status != "PROPOSED" && st.Status != "ANALYZING"))
	answer["duplicate"], answer["state"] = s.Duplicate, state
	out, err := json.Marshal(answer)
	return out, settled, err
}

func stepChange(ctx context.Context, b *Backend, a changeStepArgs, step string) (any, error) {
	engine, err := b.changes()
	if err != nil {
		return nil, err
	}
	if _, err := changeInProject(ctx, b, engine, a.changeArgs); err != nil {
		return nil, err
	}
	ci := adapters.CallInfoFrom(ctx)
	s := ChangeStep{Name: step, By: proposer(ctx), Comment: a.Comment, Reason: a.Reason}
	switch step {
	case StepApprove, StepReject:
		if ci.ApprovedBy == "" {
			return nil, protocol.Refusal("no one approved this call: an engineering change's review records who decided, so an identified person (not its creator) decides it through the approvals queue, the dashboard or `metaforge change approve|reject`")
		}
		if step == StepReject && strings.TrimSpace(a.Comment) == "" {
			return nil, protocol.Invalid("a rejection needs a comment saying why, so the proposer can act on it")
		}
		s.By, s.Verified = ci.ApprovedBy, ci.ApproverVerified
	case StepRollBack:
		if strings.TrimSpace(a.Reason) == "" {
			return nil, protocol.Invalid("a roll-back label needs a reason: it records who labelled the change and why")
		}
		if ci.ApprovedBy != "" {
			s.By = ci.ApprovedBy
		}
	}
	out, err := engine.ChangeStep(ctx, a.ChangeID, s)
	if errors.Is(err, ErrChangeRefused) || errors.Is(err, ErrNoChange) {
		return nil, protocol.Refusal("%s", err.Error())
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"change_id": a.ChangeID, "step": step, "by": s.By, "state": json.RawMessage(out)}, nil
}

// changeInProject reads a change, refusing one of another project than
// the call's.
func changeInProject(ctx context.Context, b *Backend, engine ChangeEngine, a changeArgs) (map[string]any, error) {
	state, _, err := engine.ChangeState(ctx, a.ChangeID)
	if errors.Is(err, ErrNoChange) {
		return nil, protocol.Refusal("%v; twin.propose_engineering_change returns a change_id", err)
	}
	if err != nil {
		return nil, err
	}
	var st map[string]any
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, err
	}
	if a.ProjectID != "" || adapters.CallInfoFrom(ctx).SessionID != "" {
		p, err := projectFor(ctx, b, a.ProjectID)
		if err != nil {
			return nil, err
		}
		if st["project_id"] != p.ID {
			return nil, protocol.Refusal("engineering change %s belongs to another project than %s", a.ChangeID, p.Name)
		}
	}
	return st, nil
}

func getChange(ctx context.Context, b *Backend, a changeArgs) (any, error) {
	engine, err := b.changes()
	if err != nil {
		return nil, err
	}
	return changeInProject(ctx, b, engine, a)
}
