package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/workflows"
)

// Engine is all the MCP server asks of Temporal. It is small so the server's
// tests can run it against the real embedded server with nothing mocked.
type Engine interface {
	// StartCall starts the ToolCall workflow for a call. Once it returns
	// nil the call is durable: it runs to its end whatever the client does.
	// A held call (in.Hold set) also carries what its reviewer is shown.
	// It returns the workflow's run id.
	StartCall(ctx context.Context, in workflows.ToolCallInput, ask *approvals.Ask) (runID string, err error)
	// AwaitCall waits for a started call's result. If ctx ends first (the
	// client went away) the workflow runs on, and its result stays
	// available by callId. runID "" means the latest run.
	AwaitCall(ctx context.Context, callID, runID string) (workflows.ToolCallResult, error)
	// CallEnded says, without waiting, whether a call's workflow has closed:
	// a cheap check for a call that may wait minutes (a held call).
	CallEnded(ctx context.Context, callID, runID string) (bool, error)

	// StartTask is StartCall for a task-augmented call: the workflow also
	// records its owner (for tasks/list and the owner check) and the
	// task's ttl and poll interval.
	StartTask(ctx context.Context, in workflows.ToolCallInput, ask *approvals.Ask, t TaskStart) (runID string, err error)
	// DescribeCall is a call's workflow as a task sees it; ErrCallNotFound
	// when there is none.
	DescribeCall(ctx context.Context, callID string) (CallState, error)
	// ListTasks is one page of an owner's tasks (owner an MfOwner value,
	// ownerAttr), newest first, after the
	// cursor (nil for the first page); next is nil on the last page.
	ListTasks(ctx context.Context, owner string, after *TaskCursor, limit int) (page []CallState, next *TaskCursor, err error)
	// CancelCall asks a call's workflow to cancel: its running tool is
	// stopped, and the request stays on its history.
	CancelCall(ctx context.Context, callID string) error
}

// startTimeout bounds starting a workflow. The start is detached from the
// client's cancellation, so a call is either started whole or not at all.
const startTimeout = 30 * time.Second

// TemporalEngine runs calls as ToolCall workflows.
type TemporalEngine struct {
	Client client.Client
	// Eager asks the server to hand the first workflow task straight back
	// to a worker on this same client, saving a round trip. Only valid when
	// this process runs the "metaforge" queue's worker.
	Eager bool
}

// StartCall starts workflow call-<callId> with its search attributes.
func (e TemporalEngine) StartCall(ctx context.Context, in workflows.ToolCallInput, ask *approvals.Ask) (string, error) {
	return e.start(ctx, in, ask, nil)
}

// StartTask starts workflow call-<callId> as StartCall does, with the
// task's owner (MfOwner) and its terms in the memo.
func (e TemporalEngine) StartTask(ctx context.Context, in workflows.ToolCallInput, ask *approvals.Ask, t TaskStart) (string, error) {
	return e.start(ctx, in, ask, &t)
}

func (e TemporalEngine) start(ctx context.Context, in workflows.ToolCallInput, ask *approvals.Ask, t *TaskStart) (string, error) {
	hold := workflows.HoldNone
	memo := map[string]any{}
	if in.Hold != nil {
		hold = workflows.HoldPending
		if ask != nil {
			// The reviewer sees who asked, taken from the input itself.
			ask.Requester = in.Requester
			memo[approvals.MemoKey] = ask
		}
	}
	if t != nil {
		memo[taskMemoKey] = taskMemo{TTLMs: t.TTL.Milliseconds(), PollMs: t.PollInterval.Milliseconds()}
	}
	if len(memo) == 0 {
		memo = nil
	}
	attrs := []temporal.SearchAttributeUpdate{
		workflows.AttrTool.ValueSet(in.ToolID),
		workflows.AttrAdapter.ValueSet(in.AdapterID),
		workflows.AttrCaller.ValueSet(in.Caller),
		workflows.AttrHold.ValueSet(hold),
	}
	if in.Client != "" {
		attrs = append(attrs, workflows.AttrClient.ValueSet(in.Client))
	}
	if ask != nil && ask.ProjectID != "" {
		attrs = append(attrs, workflows.AttrProject.ValueSet(ask.ProjectID))
	}
	if t != nil {
		attrs = append(attrs, workflows.AttrOwner.ValueSet(t.Owner))
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), startTimeout)
	defer cancel()
	run, err := e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    workflows.CallWorkflowID(in.CallID),
		TaskQueue:             workflows.TaskQueue,
		TypedSearchAttributes: temporal.NewSearchAttributes(attrs...),
		Memo:                  memo,
		EnableEagerStart:      e.Eager,
	}, "ToolCall", in)
	if err != nil && isDeadline(err) {
		// The start may have gone through after the RPC gave up (the SDK
		// caps one RPC at 10 s). The id is the call's, so ask: telling the
		// client "not started" about a call that runs would invite a
		// second, duplicate write.
		if runID, ok := e.startedRun(in.CallID); ok {
			return runID, nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("start workflow %s: %w", workflows.CallWorkflowID(in.CallID), err)
	}
	return run.GetRunID(), nil
}

// startedRun finds the run of a call whose start timed out, if it exists.
func (e TemporalEngine) startedRun(callID string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	d, err := e.Client.DescribeWorkflowExecution(ctx, workflows.CallWorkflowID(callID), "")
	if err != nil {
		return "", false
	}
	return d.GetWorkflowExecutionInfo().GetExecution().GetRunId(), true
}

// awaitRound bounds one wait for a result. A Temporal server can drop the
// wake-up of a waiting long poll (then it waits out its whole expiration,
// 20 s by default), so a wait is renewed every round: a lost wake-up costs
// at most one round, on any cluster. Rounds lengthen to maxAwaitRound for
// a call that waits long (a held call waits minutes for a person), so a
// thousand held calls do not renew five hundred polls a second.
const (
	awaitRound    = 2 * time.Second
	maxAwaitRound = 10 * time.Second
)

// isDeadline tells a wait that ran out (the SDK may report it before the
// round's own context does) from a real failure.
func isDeadline(err error) bool {
	var de *serviceerror.DeadlineExceeded
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &de)
}

// AwaitCall waits for workflow call-<callId> to return its result. Each
// round is ended by a timer, not a deadline: with a deadline the history
// service cuts its long poll short a second early and the SDK re-polls at
// once, which turned every waiting call into a busy loop. Naming the run
// spares the SDK a DescribeWorkflowExecution per round.
func (e TemporalEngine) AwaitCall(ctx context.Context, callID, runID string) (workflows.ToolCallResult, error) {
	id := workflows.CallWorkflowID(callID)
	wait := awaitRound
	for {
		var res workflows.ToolCallResult
		round, cancel := context.WithCancel(ctx)
		timer := time.AfterFunc(wait, cancel)
		err := e.Client.GetWorkflow(round, id, runID).Get(round, &res)
		roundOver := !timer.Stop() || isDeadline(err)
		cancel()
		wait = min(wait*2, maxAwaitRound)
		switch {
		case err == nil:
			return res, nil
		case ctx.Err() != nil:
			return workflows.ToolCallResult{}, fmt.Errorf("workflow %s: %w", id, ctx.Err())
		case !roundOver:
			return workflows.ToolCallResult{}, fmt.Errorf("workflow %s: %w", id, err)
		}
	}
}

// CallEnded reads only the workflow's close event, without waiting.
func (e TemporalEngine) CallEnded(ctx context.Context, callID, runID string) (bool, error) {
	it := e.Client.GetWorkflowHistory(ctx, workflows.CallWorkflowID(callID), runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	if !it.HasNext() {
		return false, nil
	}
	if _, err := it.Next(); err != nil {
		return false, err
	}
	return true, nil
}
