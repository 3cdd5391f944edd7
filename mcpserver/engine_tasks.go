package mcpserver

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/workflows"
)

// TaskStart is what a task-augmented call's workflow records beside the
// call: whose task it is, and its terms.
type TaskStart struct {
	// Owner is the MfOwner value of the auth context the task belongs
	// to: ownerAttr(taskOwner).
	Owner        string
	TTL          time.Duration
	PollInterval time.Duration
}

// CallState is a call's workflow as tasks/get shows it.
type CallState struct {
	CallID string
	ToolID string
	RunID  string
	// Owner is the MfOwner the workflow carries: "" for a call that was
	// not made as a task.
	Owner   string
	Created time.Time
	// Closed is when the workflow closed; zero while it runs.
	Closed time.Time
	Status enumspb.WorkflowExecutionStatus
	// CancelRequested stays true once anyone asked the workflow to cancel.
	CancelRequested bool
	// Hold is the MfHold attribute; Ask what the held call's reviewer is
	// shown (nil for a call never held).
	Hold string
	Ask  *approvals.Ask
	TTL  time.Duration
	Poll time.Duration
	// Result is the workflow's result once it completed.
	Result *workflows.ToolCallResult
}

// Running says whether the workflow is still open.
func (c CallState) Running() bool {
	return c.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// TaskCursor is where one tasks/list page ended.
type TaskCursor struct {
	Created time.Time `json:"c"`
	CallID  string    `json:"i"`
}

// ErrCallNotFound is a callId with no workflow (or none that is a task).
var ErrCallNotFound = errors.New("no such call")

// taskMemoKey is the memo field with a task's terms.
const taskMemoKey = "task"

type taskMemo struct {
	TTLMs  int64 `json:"ttl_ms"`
	PollMs int64 `json:"poll_ms"`
}

// ownerAttr is the MfOwner value of an owner: a digest, so a subject
// that is an e-mail address is not spread across visibility, and any
// subject is safe inside a visibility query.
func ownerAttr(owner string) string {
	sum := sha256.Sum256([]byte(owner))
	return hex.EncodeToString(sum[:16])
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil && s != ""
}

// maxListedTasks bounds how many of one owner's tasks tasks/list sorts:
// SQLite visibility has no ORDER BY, so the newest come first by sorting
// here.
const maxListedTasks = 5000

// DescribeCall reads the workflow, its attributes and memo, and, once it
// completed, its result.
func (e TemporalEngine) DescribeCall(ctx context.Context, callID string) (CallState, error) {
	d, err := e.Client.DescribeWorkflowExecution(ctx, workflows.CallWorkflowID(callID), "")
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return CallState{}, ErrCallNotFound
		}
		return CallState{}, fmt.Errorf("describe workflow %s: %w", workflows.CallWorkflowID(callID), err)
	}
	st := stateOf(d.GetWorkflowExecutionInfo())
	st.CancelRequested = d.GetWorkflowExtendedInfo().GetCancelRequested()
	if st.Status == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		var res workflows.ToolCallResult
		if err := e.Client.GetWorkflow(ctx, workflows.CallWorkflowID(callID), st.RunID).Get(ctx, &res); err != nil {
			return CallState{}, fmt.Errorf("read the result of workflow %s: %w", workflows.CallWorkflowID(callID), err)
		}
		st.Result = &res
	}
	return st, nil
}

// stateOf reads what a workflow's info carries.
func stateOf(info *workflowpb.WorkflowExecutionInfo) CallState {
	dc := converter.GetDefaultDataConverter()
	st := CallState{
		CallID:  strings.TrimPrefix(info.GetExecution().GetWorkflowId(), "call-"),
		RunID:   info.GetExecution().GetRunId(),
		Created: info.GetStartTime().AsTime(),
		Status:  info.GetStatus(),
	}
	if info.GetCloseTime() != nil {
		st.Closed = info.GetCloseTime().AsTime()
	}
	attrs := info.GetSearchAttributes().GetIndexedFields()
	keyword := func(name string) string {
		var v string
		if p, ok := attrs[name]; ok {
			_ = dc.FromPayload(p, &v)
		}
		return v
	}
	st.ToolID = keyword(workflows.AttrTool.GetName())
	st.Owner = keyword(workflows.AttrOwner.GetName())
	st.Hold = keyword(workflows.AttrHold.GetName())
	memo := info.GetMemo().GetFields()
	if p, ok := memo[approvals.MemoKey]; ok {
		var ask approvals.Ask
		if dc.FromPayload(p, &ask) == nil {
			st.Ask = &ask
		}
	}
	if p, ok := memo[taskMemoKey]; ok {
		var m taskMemo
		if dc.FromPayload(p, &m) == nil {
			st.TTL, st.Poll = time.Duration(m.TTLMs)*time.Millisecond, time.Duration(m.PollMs)*time.Millisecond
		}
	}
	return st
}

// ListTasks finds the owner's (an MfOwner value) tasks in visibility, sorts them newest
// first and describes one page of them.
func (e TemporalEngine) ListTasks(ctx context.Context, owner string, after *TaskCursor, limit int) ([]CallState, *TaskCursor, error) {
	if !isHex(owner) {
		return nil, nil, fmt.Errorf("owner %q is not an MfOwner value (ownerAttr)", owner)
	}
	query := fmt.Sprintf("%s = '%s'", workflows.AttrOwner.GetName(), owner)
	var found []CallState
	var token []byte
	for {
		resp, err := e.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, PageSize: 1000, NextPageToken: token})
		if err != nil {
			return nil, nil, fmt.Errorf("list tasks in Temporal visibility: %w", err)
		}
		for _, info := range resp.GetExecutions() {
			found = append(found, stateOf(info))
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 || len(found) >= maxListedTasks {
			break
		}
	}
	slices.SortFunc(found, func(a, b CallState) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.CallID, b.CallID)
	})
	start := 0
	if after != nil {
		start = len(found)
		for i, c := range found {
			if c.Created.Before(after.Created) || (c.Created.Equal(after.Created) && c.CallID > after.CallID) {
				start = i
				break
			}
		}
	}
	end := min(start+limit, len(found))
	page := make([]CallState, 0, end-start)
	for _, c := range found[start:end] {
		st, err := e.DescribeCall(ctx, c.CallID)
		if errors.Is(err, ErrCallNotFound) {
			continue // gone since it was listed
		}
		if err != nil {
			return nil, nil, err
		}
		page = append(page, st)
	}
	var next *TaskCursor
	if end < len(found) {
		last := found[end-1]
		next = &TaskCursor{Created: last.Created, CallID: last.CallID}
	}
	return page, next, nil
}

// CancelCall requests cancellation of workflow call-<callId>.
func (e TemporalEngine) CancelCall(ctx context.Context, callID string) error {
	err := e.Client.CancelWorkflow(ctx, workflows.CallWorkflowID(callID), "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return ErrCallNotFound
	}
	return err
}
