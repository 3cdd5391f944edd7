// Package approvals is the queue of held calls a person decides: the
// dashboard's REST API and page, the CLI, and the MCP server's inline
// answers all decide a hold through it. The holds themselves live in the
// ToolCall workflows (package workflows); this package finds them through
// Temporal's visibility (search attribute MfHold) and decides them by
// Update, so nothing here is lost when a process restarts.
package approvals

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/metaforge/metaforge/workflows"
)

// MemoKey is the ToolCall memo field that carries a held call's Ask.
const MemoKey = "hold"

// Ask is what a reviewer is shown about a held call. The MCP server writes
// it into the workflow's memo when it starts the call.
type Ask struct {
	ToolID    string `json:"tool_id"`
	AdapterID string `json:"adapter_id"`
	// Summary is the arguments, redacted and clipped (Summarize).
	Summary string `json:"summary"`
	Reason  string `json:"reason"`
	Caller  string `json:"caller"`
	Client  string `json:"client,omitempty"`
	// Requester is the verified identity that asked ("" when none proved
	// one); it cannot approve its own call.
	Requester     string `json:"requester,omitempty"`
	ProjectID     string `json:"project_id,omitempty"`
	Route         string `json:"route"`
	WindowSeconds int    `json:"window_seconds"`
}

// HeldCall is one pending hold, as the dashboard lists it.
type HeldCall struct {
	ApprovalID string `json:"approval_id"`
	CallID     string `json:"call_id"`
	WorkflowID string `json:"workflow_id"`
	Ask
	HeldSince time.Time `json:"held_since"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Filter narrows the pending holds; empty fields match everything.
type Filter struct {
	ProjectID string
	ToolID    string
}

// Queue finds and decides holds on a Temporal namespace.
type Queue struct {
	Client client.Client
	// Namespace is the client's namespace ("default" when empty).
	Namespace string
}

// idPattern is what a tool, project or approval id may hold, so a filter
// value is never spliced into a visibility query as anything but a literal.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9_.:\-]{1,128}$`)

// ErrBadFilter is a filter value that is not an id.
var ErrBadFilter = errors.New("not a valid id")

// check refuses a filter value that is not an id, so none is ever spliced
// into a visibility query as anything but a literal.
func (f Filter) check() error {
	for _, c := range []struct{ value, what string }{{f.ProjectID, "project"}, {f.ToolID, "tool"}} {
		if c.value != "" && !idPattern.MatchString(c.value) {
			return fmt.Errorf("%s %q: %w (letters, digits, '_', '.', ':', '-')", c.what, c.value, ErrBadFilter)
		}
	}
	return nil
}

// matches says whether a hold passes the filter.
func (f Filter) matches(h HeldCall) bool {
	return (f.ProjectID == "" || h.ProjectID == f.ProjectID) && (f.ToolID == "" || h.ToolID == f.ToolID)
}

// List returns the pending holds waiting in the queue (not those put to a
// client inline), oldest first.
func (q Queue) List(ctx context.Context, f Filter) ([]HeldCall, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	return q.list(ctx, f, time.Time{})
}

// list is List of the holds started at or after since (all when zero).
func (q Queue) list(ctx context.Context, f Filter, since time.Time) ([]HeldCall, error) {
	query := fmt.Sprintf("WorkflowType = 'ToolCall' AND ExecutionStatus = 'Running' AND %s = '%s'",
		workflows.AttrHold.GetName(), workflows.HoldPending)
	if !since.IsZero() {
		query += fmt.Sprintf(" AND StartTime >= '%s'", since.UTC().Format(time.RFC3339Nano))
	}
	if f.ProjectID != "" {
		query += fmt.Sprintf(" AND %s = '%s'", workflows.AttrProject.GetName(), f.ProjectID)
	}
	if f.ToolID != "" {
		query += fmt.Sprintf(" AND %s = '%s'", workflows.AttrTool.GetName(), f.ToolID)
	}
	var out []HeldCall
	var token []byte
	for {
		resp, err := q.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: q.namespace(), Query: query, NextPageToken: token, PageSize: 1000,
		})
		if err != nil {
			return nil, fmt.Errorf("list held calls: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			// A question put to the client inline is not also put to the
			// queue: asking a second person would discard the first answer.
			if h := heldCallFrom(e); h.Route != workflows.RouteElicitation {
				out = append(out, h)
			}
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 {
			break
		}
	}
	sortHeld(out)
	return out, nil
}

func heldCallFrom(e *workflowpb.WorkflowExecutionInfo) HeldCall {
	var ask Ask
	if p, ok := e.GetMemo().GetFields()[MemoKey]; ok {
		_ = converter.GetDefaultDataConverter().FromPayload(p, &ask)
	}
	return newHeldCall(strings.TrimPrefix(e.GetExecution().GetWorkflowId(), "call-"), ask, e.GetStartTime().AsTime())
}

// newHeldCall is call callID held since the given time, as a reviewer is
// shown it.
func newHeldCall(callID string, ask Ask, since time.Time) HeldCall {
	return HeldCall{ApprovalID: callID, CallID: callID, WorkflowID: workflows.CallWorkflowID(callID), Ask: ask,
		HeldSince: since, ExpiresAt: since.Add(time.Duration(ask.WindowSeconds) * time.Second)}
}

// Decision errors, so callers can answer with the right status.
var (
	ErrNoSuchHold = errors.New("no such held call")
	ErrNotPending = errors.New("not pending")
	// ErrSelfApproval is the requester approving her own call.
	ErrSelfApproval = errors.New("refused")
)

// Decide applies a decision to hold approvalID and returns the hold's
// state after it. A hold already decided, expired, or a call that was
// never held is ErrNotPending; an unknown id is ErrNoSuchHold.
func (q Queue) Decide(ctx context.Context, approvalID string, d workflows.Decision) (workflows.HoldState, error) {
	if !idPattern.MatchString(approvalID) {
		return workflows.HoldState{}, fmt.Errorf("approval id %q: %w", approvalID, ErrNoSuchHold)
	}
	if err := workflows.ValidateDecision(d); err != nil {
		return workflows.HoldState{}, err
	}
	handle, err := q.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   workflows.CallWorkflowID(approvalID),
		UpdateName:   workflows.DecideUpdate,
		Args:         []any{d},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return workflows.HoldState{}, decideError(approvalID, err)
	}
	var state workflows.HoldState
	if err := handle.Get(ctx, &state); err != nil {
		return workflows.HoldState{}, decideError(approvalID, err)
	}
	return state, nil
}

// Result waits for a decided call's result: for a client outside any
// workflow (a REST request that asked for a write and decided it at once),
// never for activity code.
func (q Queue) Result(ctx context.Context, callID string) (workflows.ToolCallResult, error) {
	var res workflows.ToolCallResult
	err := q.Client.GetWorkflow(ctx, workflows.CallWorkflowID(callID), "").Get(ctx, &res)
	return res, err
}

func decideError(approvalID string, err error) error {
	var notFound *serviceerror.NotFound
	switch {
	case errors.As(err, &notFound) && strings.Contains(err.Error(), "workflow"):
		if strings.Contains(err.Error(), "completed") {
			return fmt.Errorf("approval %s: the call has already ended: %w", approvalID, ErrNotPending)
		}
		return fmt.Errorf("approval %s: %w", approvalID, ErrNoSuchHold)
	case strings.Contains(err.Error(), "unknown update") || strings.Contains(err.Error(), "not registered"):
		return fmt.Errorf("approval %s: that call is not held for approval: %w", approvalID, ErrNotPending)
	case strings.Contains(err.Error(), workflows.SelfApproval):
		return fmt.Errorf("%s: %w", selfApprovalText(err), ErrSelfApproval)
	case strings.Contains(err.Error(), "already decided") || strings.Contains(err.Error(), "no longer pending"):
		return fmt.Errorf("%s: %w", rejectionText(err), ErrNotPending)
	case strings.Contains(err.Error(), "already completed") || strings.Contains(err.Error(), "workflow execution already completed"):
		return fmt.Errorf("approval %s: the call has already ended: %w", approvalID, ErrNotPending)
	}
	return fmt.Errorf("approval %s: %w", approvalID, err)
}

// rejectionText is the validator's own sentence, without the SDK's wrapping.
func rejectionText(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "approval "); i >= 0 {
		msg = msg[i:]
	}
	if i := strings.Index(msg, " (type:"); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// selfApprovalText is the validator's sentence about a requester's own
// approval, without the SDK's wrapping.
func selfApprovalText(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, workflows.SelfApproval); i >= 0 {
		msg = msg[i:]
	}
	if i := strings.Index(msg, " (type:"); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

func (q Queue) namespace() string {
	if q.Namespace == "" {
		return "default"
	}
	return q.Namespace
}
