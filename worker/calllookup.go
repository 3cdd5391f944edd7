package worker

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/metaforge/metaforge/adapters/call"
	"github.com/metaforge/metaforge/workflows"
)

// CallLookup answers call.get_result from the ToolCall workflows in Temporal.
type CallLookup struct {
	Client client.Client
}

// CallOutcome describes workflow call-<callID>, waiting up to wait for it to
// close if it is still running.
func (l CallLookup) CallOutcome(ctx context.Context, callID string, wait time.Duration) (call.Outcome, error) {
	id := workflows.CallWorkflowID(callID)
	out := call.Outcome{CallID: callID, WorkflowID: id}
	if wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		var res workflows.ToolCallResult
		err := l.Client.GetWorkflow(wctx, id, "").Get(wctx, &res)
		cancel()
		var notFound *serviceerror.NotFound
		if errors.As(err, &notFound) {
			return out, call.ErrNotFound
		}
	}
	desc, err := l.Client.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		var notFound *serviceerror.NotFound
		if errors.As(err, &notFound) {
			return out, call.ErrNotFound
		}
		return out, err
	}
	info := desc.GetWorkflowExecutionInfo()
	if t := info.GetStartTime(); t != nil {
		st := t.AsTime()
		out.StartedAt = &st
	}
	if t := info.GetCloseTime(); t != nil && info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		ct := t.AsTime()
		out.ClosedAt = &ct
	}
	if sa := info.GetSearchAttributes(); sa != nil {
		if p, ok := sa.GetIndexedFields()[workflows.AttrTool.GetName()]; ok {
			var tool string
			if json.Unmarshal(p.GetData(), &tool) == nil {
				out.ToolID = tool
			}
		}
	}
	status := info.GetStatus()
	out.State = strings.ToLower(strings.TrimPrefix(status.String(), "WorkflowExecutionStatus"))
	switch status {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		out.State = "running"
		out.Detail = "the call is still running; ask again, or pass wait_seconds"
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		out.State = "completed"
		var res workflows.ToolCallResult
		if err := l.Client.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil {
			return out, err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return out, err
		}
		out.Result = b
	default:
		out.State = strings.ToLower(strings.TrimPrefix(status.String(), "WORKFLOW_EXECUTION_STATUS_"))
		out.Detail = "the call's workflow ended " + out.State + " without a result"
	}
	return out, nil
}
