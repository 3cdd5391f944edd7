package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/protocol"
)

// processChange versions the ToolCall workflow for tools whose work is a
// durable process: version 1 runs it as a child workflow of the call.
// Before it, the tool's activity started the process and waited on it.
const processChange = "tool-process-child"

// FollowProcessActivity asks a tool's adapter, on the adapter's queue, for
// the answer a detached process gives as it stands.
const FollowProcessActivity = "FollowProcess"

// ChildProcess is the durable process a tool prepared (adapters.Process,
// as the workflow carries it): what to run, under which ID, with what.
type ChildProcess struct {
	Kind             string                     `json:"kind"`
	ID               string                     `json:"id"`
	Input            json.RawMessage            `json:"input"`
	Summary          string                     `json:"summary,omitempty"`
	SearchAttributes map[string]string          `json:"search_attributes,omitempty"`
	Memo             map[string]json.RawMessage `json:"memo,omitempty"`
	Detached         bool                       `json:"detached,omitempty"`
	Answer           json.RawMessage            `json:"answer,omitempty"`
	Follow           bool                       `json:"follow,omitempty"`
	FollowSeconds    int                        `json:"follow_seconds,omitempty"`
}

// FollowProcessRequest asks for a detached process's answer.
type FollowProcessRequest struct {
	CallID    string       `json:"call_id"`
	ToolID    string       `json:"tool_id"`
	Process   ChildProcess `json:"process"`
	Duplicate bool         `json:"duplicate"`
}

// FollowProcessResponse is the answer as it stands, and whether it is
// final.
type FollowProcessResponse struct {
	Data    json.RawMessage `json:"data"`
	Settled bool            `json:"settled"`
}

// Following a detached process: the first look soon after the start, then
// less often, never waiting more than the last interval past its settling.
const (
	followFirst = 200 * time.Millisecond
	followMax   = 2 * time.Second
)

// runProcess runs a tool's process as the call's child and turns how it
// went into the call's result. started is the tool's own result (its
// activity's duration and attempt); the call's duration grows by the time
// the process took, as it did when the activity waited on it.
func runProcess(ctx workflow.Context, in ToolCallInput, p ChildProcess, started ToolCallResult) ToolCallResult {
	begin := workflow.Now(ctx)
	res := runChild(ctx, in, p, started)
	if res.Error == nil || res.Error.Code != int(protocol.ToolTimeout) {
		res.DurationMs = started.DurationMs + float64(workflow.Now(ctx).Sub(begin).Milliseconds())
	}
	return res
}

// runChild starts, awaits or follows the process, as its kind says.
func runChild(ctx workflow.Context, in ToolCallInput, p ChildProcess, started ToolCallResult) ToolCallResult {
	if workflow.GetVersion(ctx, processChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return callFailed(in, started, protocol.ToolExecutionError,
			fmt.Sprintf("%s prepared a durable process, which this call's workflow predates; call the tool again", in.ToolID))
	}
	if p.Kind == "" {
		// Nothing to start: the tool answers from a process already
		// running (a flow run reaching its gate).
		return followProcess(ctx, in, p, false, started)
	}
	opts := workflow.ChildWorkflowOptions{
		WorkflowID:            p.ID,
		TaskQueue:             TaskQueue,
		StaticSummary:         p.Summary,
		TypedSearchAttributes: processAttributes(p),
		Memo:                  processMemo(p),
	}
	if p.Detached {
		opts.ParentClosePolicy = enumspb.PARENT_CLOSE_POLICY_ABANDON
		opts.WorkflowIDReusePolicy = enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
	} else if in.TimeoutSeconds > 0 {
		opts.WorkflowExecutionTimeout = time.Duration(in.TimeoutSeconds) * time.Second
	}
	child := workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, opts), p.Kind, JSONValue(p.Input))
	if !p.Detached {
		var out json.RawMessage
		if err := child.Get(ctx, &out); err != nil {
			return processFailed(in, started, p, err)
		}
		started.Data = out
		return started
	}
	duplicate := false
	if err := child.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		var already *temporal.ChildWorkflowExecutionAlreadyStartedError
		if !errors.As(err, &already) {
			return processFailed(in, started, p, err)
		}
		duplicate = true
	}
	if !p.Follow {
		started.Data = p.Answer
		return started
	}
	return followProcess(ctx, in, p, duplicate, started)
}

// followProcess asks the adapter for the process's answer until it says
// the answer is settled or the follow time is up, sleeping on durable
// timers between looks: no worker slot waits meanwhile.
func followProcess(ctx workflow.Context, in ToolCallInput, p ChildProcess, duplicate bool, started ToolCallResult) ToolCallResult {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           AdapterTaskQueue(in.AdapterID),
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, MaximumInterval: 5 * time.Second, MaximumAttempts: 5},
		Summary:             "read " + p.ID + " as it stands",
	})
	deadline := workflow.Now(ctx).Add(time.Duration(p.FollowSeconds) * time.Second)
	wait := followFirst
	for {
		var out FollowProcessResponse
		err := workflow.ExecuteActivity(actx, FollowProcessActivity,
			FollowProcessRequest{CallID: in.CallID, ToolID: in.ToolID, Process: p, Duplicate: duplicate}).Get(ctx, &out)
		if err != nil {
			return processFailed(in, started, p, err)
		}
		left := deadline.Sub(workflow.Now(ctx))
		if out.Settled || left <= 0 {
			started.Data = out.Data
			return started
		}
		if err := workflow.Sleep(ctx, min(wait, left)); err != nil {
			started.Data = out.Data
			return started
		}
		wait = min(2*wait, followMax)
	}
}

// processFailed is the call's error for a process that failed, timed out
// or could not start, in the taxonomy's words.
func processFailed(in ToolCallInput, started ToolCallResult, p ChildProcess, err error) ToolCallResult {
	var timeoutErr *temporal.TimeoutError
	var appErr *temporal.ApplicationError
	switch {
	case errors.As(err, &timeoutErr):
		started.DurationMs = float64(in.TimeoutSeconds) * 1000
		return callFailed(in, started, protocol.ToolTimeout,
			fmt.Sprintf("%s exceeded its timeout of %ds; pass a larger timeout_seconds (up to 3600) or a smaller problem", in.ToolID, in.TimeoutSeconds))
	case errors.As(err, &appErr):
		code, ok := protocol.CodeByName(appErr.Type())
		if !ok {
			code = protocol.ToolExecutionError
		}
		return callFailed(in, started, code, appErr.Message())
	}
	return callFailed(in, started, protocol.ToolExecutionError, fmt.Sprintf("%s (%s): %v", p.ID, p.Kind, err))
}

func callFailed(in ToolCallInput, started ToolCallResult, code protocol.Code, details string) ToolCallResult {
	started.Status, started.Data = StatusError, nil
	started.Error = &CallError{Code: int(code), Type: code.Name(), Details: details}
	return started
}

// JSONValue hands JSON to a workflow (an input, a memo field) as the JSON
// it is, so the reader decodes it into its own type; a bare
// json.RawMessage would travel as binary.
func JSONValue(raw json.RawMessage) converter.RawValue {
	return converter.NewRawValue(jsonPayload(raw))
}

func jsonPayload(raw json.RawMessage) *commonpb.Payload {
	return &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte(converter.MetadataEncodingJSON)}, Data: raw}
}

// processAttributes are the process's keyword search attributes, in name
// order so the command is the same on every replay.
func processAttributes(p ChildProcess) temporal.SearchAttributes {
	names := make([]string, 0, len(p.SearchAttributes))
	// The names are sorted before use, so the map's order decides nothing.
	//workflowcheck:ignore
	for name := range p.SearchAttributes {
		names = append(names, name)
	}
	slices.Sort(names)
	updates := make([]temporal.SearchAttributeUpdate, 0, len(names))
	for _, name := range names {
		updates = append(updates, temporal.NewSearchAttributeKeyKeyword(name).ValueSet(p.SearchAttributes[name]))
	}
	return temporal.NewSearchAttributes(updates...)
}

// processMemo is the process's memo, each value the JSON it is.
func processMemo(p ChildProcess) map[string]any {
	if len(p.Memo) == 0 {
		return nil
	}
	memo := make(map[string]any, len(p.Memo))
	// Building a map from a map decides no order.
	//workflowcheck:ignore
	for k, v := range p.Memo {
		memo[k] = JSONValue(v)
	}
	return memo
}
