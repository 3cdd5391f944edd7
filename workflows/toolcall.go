package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/protocol"
)

// ToolCallInput is one tools/call, as the MCP server resolved it: which tool,
// on which adapter, with what arguments, and the manifest's execution policy.
type ToolCallInput struct {
	CallID         string          `json:"call_id"`
	ToolID         string          `json:"tool_id"`
	AdapterID      string          `json:"adapter_id"`
	Arguments      json.RawMessage `json:"arguments"`
	TimeoutSeconds int             `json:"timeout_seconds"`
	Idempotent     bool            `json:"idempotent"`
	Retries        int             `json:"retries"`
	Caller         string          `json:"caller"`
	Client         string          `json:"client,omitempty"`
	// Requester is the verified identity that asked for the call (a
	// bearer token's subject); "" when the caller proved none. A held
	// call cannot be approved by its requester.
	Requester string `json:"requester,omitempty"`
	// SessionID is the MCP session the call came from (Mcp-Session-Id,
	// or METAFORGE_SESSION_ID over stdio); "" when it has none.
	SessionID string `json:"session_id,omitempty"`
	// Hold, when set, makes the call wait for a person's decision first.
	Hold *Hold `json:"hold,omitempty"`
	// Local lets the tool run as a local activity on the worker that runs
	// this workflow (adapters.Registry.RunsLocal): one workflow task
	// instead of two plus an activity dispatched to the adapter's queue.
	// A worker without the tool in its own process says so, and the call
	// runs on the adapter's queue as any other.
	Local bool `json:"local,omitempty"`
}

// ToolCallResult is how a call ended: the tool's data, or the error that
// stopped it. A tool that ran and refused is a result, not a failed workflow.
type ToolCallResult struct {
	CallID      string          `json:"call_id"`
	ToolID      string          `json:"tool_id"`
	Status      string          `json:"status"` // "success" or "error"
	Data        json.RawMessage `json:"data,omitempty"`
	DurationMs  float64         `json:"duration_ms"`
	OutputFiles []string        `json:"output_files,omitempty"`
	Attempts    int32           `json:"attempts"`
	Error       *CallError      `json:"error,omitempty"`
	// Approval is how a hold ended; nil for a call never held.
	Approval *Approval `json:"approval,omitempty"`
}

// CallError is a failed call's taxonomy code and what to do about it.
type CallError struct {
	Code    int    `json:"code"`
	Type    string `json:"error_type"`
	Details string `json:"details"`
}

// Result statuses.
const (
	StatusSuccess = "success"
	StatusError   = "error"
)

// HeartbeatTimeout is how long a running tool may go without a heartbeat
// before Temporal decides its worker is gone and (for an idempotent tool)
// runs it again elsewhere. The InvokeTool activity beats well inside it.
const HeartbeatTimeout = 10 * time.Second

// ApprovalRequired is the error type of a held call nobody approved.
const ApprovalRequired = "approval_required"

// ToolCall runs one tool call durably: first, if it is held, the wait for a
// person's decision; then the InvokeTool activity on the adapter's queue
// (a short tool compiled into the worker runs as a local activity),
// retried only where the manifest says the tool is idempotent, bounded by
// the tool's timeout.
func ToolCall(ctx workflow.Context, in ToolCallInput) (ToolCallResult, error) {
	var approval *Approval
	if in.Hold != nil && workflow.GetVersion(ctx, holdChange, workflow.DefaultVersion, 1) == 1 {
		a, err := awaitDecision(ctx, *in.Hold, in.Requester)
		if err != nil {
			return ToolCallResult{}, err
		}
		approval = &a
		if err := workflow.UpsertTypedSearchAttributes(ctx, AttrHold.ValueSet(a.Outcome)); err != nil {
			return ToolCallResult{}, err
		}
		if a.Outcome != OutcomeApproved {
			return notApproved(in, a), nil
		}
	}
	res, process := invokeTool(ctx, in, approval)
	if process != nil {
		res = runProcess(ctx, in, *process, res)
	}
	res.Approval = approval
	return res, nil
}

// notApproved is a held call's result when nobody approved it: it never ran.
func notApproved(in ToolCallInput, a Approval) ToolCallResult {
	details := fmt.Sprintf("%s was held for approval %s and not run: %s", in.ToolID, a.ApprovalID, a.Outcome)
	if a.Reason != "" {
		details += " (" + a.Reason + ")"
	}
	return ToolCallResult{
		CallID: in.CallID, ToolID: in.ToolID, Status: StatusError, Approval: &a,
		Error: &CallError{Code: int(protocol.ToolExecutionError), Type: ApprovalRequired, Details: details},
	}
}

// invokeTool runs the tool's activity and reports how it ended, with the
// durable process the tool prepared, if its work is one.
func invokeTool(ctx workflow.Context, in ToolCallInput, approval *Approval) (ToolCallResult, *ChildProcess) {
	req := InvokeToolRequest{
		CallID:         in.CallID,
		ToolID:         in.ToolID,
		Arguments:      in.Arguments,
		TimeoutSeconds: in.TimeoutSeconds,
		SessionID:      in.SessionID,
		Caller:         in.Caller,
		Client:         in.Client,
		Requester:      in.Requester,
		Approval:       approval,
	}
	var out InvokeToolResponse
	var err error
	ranLocally := false
	// The version keeps a call that a worker without this step began on
	// the adapter's queue there when a newer worker replays it.
	if in.Local && workflow.GetVersion(ctx, localActivityChange, workflow.DefaultVersion, 1) == 1 {
		err = workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, localActivityOptions(in)),
			InvokeToolLocalActivity, req).Get(ctx, &out)
		ranLocally = !isNotLocal(err)
	}
	if !ranLocally {
		err = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, activityOptions(in)),
			InvokeToolActivity, req).Get(ctx, &out)
	}
	if err != nil {
		return failedCall(in, err), nil
	}
	return ToolCallResult{
		CallID:      in.CallID,
		ToolID:      in.ToolID,
		Status:      StatusSuccess,
		Data:        out.Data,
		DurationMs:  out.DurationMs,
		OutputFiles: out.OutputFiles,
		Attempts:    out.Attempt,
	}, out.Process
}

// retryPolicy is the tool's: an idempotent tool is tried 1+Retries times,
// any other once.
func retryPolicy(in ToolCallInput) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval:    200 * time.Millisecond,
		BackoffCoefficient: 2,
		MaximumInterval:    retryMaxInterval,
		MaximumAttempts:    attemptsAllowed(in),
	}
}

// retryMaxInterval is the longest wait between two attempts.
const retryMaxInterval = 5 * time.Second

// activityOptions run the tool on its adapter's queue, each attempt
// bounded by the tool's timeout, a long one heartbeating.
func activityOptions(in ToolCallInput) workflow.ActivityOptions {
	timeout := time.Duration(in.TimeoutSeconds) * time.Second
	opts := workflow.ActivityOptions{
		TaskQueue:           AdapterTaskQueue(in.AdapterID),
		StartToCloseTimeout: timeout,
		RetryPolicy:         retryPolicy(in),
	}
	if timeout > HeartbeatTimeout {
		opts.HeartbeatTimeout = HeartbeatTimeout
	}
	return opts
}

// localActivityOptions bound each attempt by the tool's timeout, as on
// the adapter's queue. A local activity's schedule-to-close defaults to one
// attempt's timeout, which would leave no time to retry: it is every
// attempt's timeout plus the longest wait before each.
func localActivityOptions(in ToolCallInput) workflow.LocalActivityOptions {
	timeout := time.Duration(in.TimeoutSeconds) * time.Second
	attempts := time.Duration(attemptsAllowed(in))
	return workflow.LocalActivityOptions{
		StartToCloseTimeout:    timeout,
		ScheduleToCloseTimeout: attempts * (timeout + retryMaxInterval),
		RetryPolicy:            retryPolicy(in),
	}
}

// failedCall turns the activity's final error into the call's error result.
func failedCall(in ToolCallInput, err error) ToolCallResult {
	res := ToolCallResult{CallID: in.CallID, ToolID: in.ToolID, Status: StatusError}
	var timeoutErr *temporal.TimeoutError
	var appErr *temporal.ApplicationError
	switch {
	case errors.As(err, &timeoutErr) && timeoutErr.TimeoutType() == enumspb.TIMEOUT_TYPE_HEARTBEAT:
		res.Attempts = attemptsAllowed(in)
		res.Error = &CallError{Code: int(protocol.ToolExecutionError), Type: protocol.ToolExecutionError.Name(),
			Details: fmt.Sprintf("the worker running %s stopped responding (no heartbeat for %s)%s", in.ToolID, HeartbeatTimeout, notRetriedNote(in))}
	case errors.As(err, &timeoutErr) || errors.Is(err, context.DeadlineExceeded):
		// A local activity that returns its context's error just as its
		// deadline passes reaches the workflow as that error, not as the
		// SDK's timeout (the SDK takes a result that is ready over the
		// deadline): it is the same timeout.
		res.Attempts = attemptsAllowed(in)
		res.DurationMs = float64(in.TimeoutSeconds) * 1000
		res.Error = &CallError{Code: int(protocol.ToolTimeout), Type: protocol.ToolTimeout.Name(),
			Details: fmt.Sprintf("%s exceeded its timeout of %ds%s; pass a larger timeout_seconds (up to 3600) or a smaller problem", in.ToolID, in.TimeoutSeconds, notRetriedNote(in))}
	case errors.As(err, &appErr):
		code, ok := protocol.CodeByName(appErr.Type())
		if !ok {
			code = protocol.ToolExecutionError
		}
		var detail InvokeToolFailure
		if appErr.HasDetails() {
			_ = appErr.Details(&detail)
		}
		res.DurationMs = detail.DurationMs
		res.Attempts = detail.Attempt
		res.Error = &CallError{Code: int(code), Type: code.Name(), Details: appErr.Message()}
	default:
		res.Error = &CallError{Code: int(protocol.ToolExecutionError), Type: protocol.ToolExecutionError.Name(), Details: err.Error()}
	}
	return res
}

// attemptsAllowed is how many times the policy lets a tool run: every one
// of them was used when the last attempt timed out.
func attemptsAllowed(in ToolCallInput) int32 {
	if in.Idempotent {
		return int32(1 + in.Retries)
	}
	return 1
}

func notRetriedNote(in ToolCallInput) string {
	if in.Idempotent {
		return fmt.Sprintf(" after %d attempts", 1+in.Retries)
	}
	return "; it is not idempotent, so it was not run again"
}
