package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// registerTasks serves tasks/get, tasks/result, tasks/list and
// tasks/cancel on srv. Each reads the workflow of the task's call: the
// task store is Temporal, so a task outlives this process.
func (s *Server) registerTasks(srv *mcp.Server) {
	_ = mcp.AddReceivingCustomMethod(srv, "tasks/get", s.getTask)
	_ = mcp.AddReceivingCustomMethod(srv, "tasks/result", s.taskPayload)
	_ = mcp.AddReceivingCustomMethod(srv, "tasks/list", s.listTasks)
	_ = mcp.AddReceivingCustomMethod(srv, "tasks/cancel", s.cancelTask)
}

// extraKey carries a tasks/* request's transport extras (its verified
// token) to its handler, which the SDK gives only the session and params.
type extraKey struct{}

// carryExtra is the middleware that puts each tasks/* request's extras in
// its context.
func carryExtra(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "tasks/") {
			ctx = context.WithValue(ctx, extraKey{}, req.GetExtra())
		}
		return next(ctx, method, req)
	}
}

func extraOf(ctx context.Context) *mcp.RequestExtra {
	e, _ := ctx.Value(extraKey{}).(*mcp.RequestExtra)
	return e
}

// ownTask is the task id names, when it belongs to the requester's auth
// context; anyone else's task, a call made without a task and an unknown
// id are all the same "not found".
func (s *Server) ownTask(ctx context.Context, ss *mcp.ServerSession, id string) (CallState, error) {
	if !speaksTasks(ss) {
		return CallState{}, rpcError(protocol.MethodNotFound, "tasks are part of MCP 2025-11-25 and later; this session negotiated an older revision", nil)
	}
	notFound := rpcError(protocol.InvalidParams, fmt.Sprintf("task %q not found: no task of yours has that id (tasks/list shows yours)", id),
		map[string]any{"error_type": protocol.InvalidParams.Name(), "taskId": id})
	if !isCallID(id) {
		return CallState{}, notFound
	}
	st, err := s.opts.Engine.DescribeCall(ctx, id)
	switch {
	case errors.Is(err, ErrCallNotFound):
		return CallState{}, notFound
	case err != nil:
		return CallState{}, rpcError(protocol.InternalError, fmt.Sprintf("could not read task %s from Temporal: %v; check health.check", id, err), nil)
	case st.Owner == "" || st.Owner != ownerAttr(s.taskOwner(extraOf(ctx), ss)):
		return CallState{}, notFound
	}
	return st, nil
}

// isCallID says whether id has a callId's form (16 hex digits).
func isCallID(id string) bool {
	if len(id) != 16 {
		return false
	}
	for _, c := range id {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// taskOf is the Task a call's workflow shows: cancelled once anyone
// cancelled it (sticky, whatever the workflow did after); while it runs,
// input_required if it waits on a question for its client, else working
// (a held call says where its approval is decided); once ended,
// completed, or failed with why.
func (s *Server) taskOf(st CallState) task {
	t := task{TaskID: st.CallID, CreatedAt: timestamp(st.Created), LastUpdatedAt: timestamp(st.Created),
		TTL: st.TTL.Milliseconds(), PollInterval: st.Poll.Milliseconds()}
	if !st.Closed.IsZero() {
		t.LastUpdatedAt = timestamp(st.Closed)
	}
	switch {
	case st.CancelRequested || st.Status == enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		t.Status, t.StatusMessage = taskCancelled, fmt.Sprintf("%s was cancelled by tasks/cancel; its run was stopped", st.ToolID)
	case st.Running() && st.Hold == workflows.HoldPending && st.Ask != nil:
		t.Status, t.StatusMessage = taskWorking, s.heldMessage(st.CallID, st.ToolID, *st.Ask)
		if st.Ask.Route == workflows.RouteElicitation {
			t.Status = taskInputRequired
		}
	case st.Running():
		t.Status, t.StatusMessage = taskWorking, fmt.Sprintf("%s is running as Temporal workflow %s", st.ToolID, workflows.CallWorkflowID(st.CallID))
	case st.Result != nil:
		t.Status = taskCompleted
		out, err := s.toolResult(*st.Result)
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr):
			t.Status, t.StatusMessage = taskFailed, rpcErr.Message
		case err != nil:
			t.Status, t.StatusMessage = taskFailed, err.Error()
		case out.IsError:
			t.Status = taskFailed
			if len(out.Content) > 0 {
				if text, ok := out.Content[0].(*mcp.TextContent); ok {
					t.StatusMessage = text.Text
				}
			}
		}
	default:
		t.Status, t.StatusMessage = taskFailed, fmt.Sprintf("the workflow of %s ended %s without a result", st.ToolID, workflowStatus(st.Status))
	}
	return t
}

func workflowStatus(s enumspb.WorkflowExecutionStatus) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "WORKFLOW_EXECUTION_STATUS_"))
}

func (s *Server) getTask(ctx context.Context, ss *mcp.ServerSession, p *taskIDParams) (*taskResult, error) {
	st, err := s.ownTask(ctx, ss, p.TaskID)
	if err != nil {
		return nil, err
	}
	return &taskResult{task: s.taskOf(st)}, nil
}

// taskPayload is tasks/result: it waits for the call to end, first putting
// its question to this client if it waits on one, and answers what a plain
// tools/call would have answered, with related-task metadata.
func (s *Server) taskPayload(ctx context.Context, ss *mcp.ServerSession, p *taskIDParams) (*mcp.CallToolResult, error) {
	st, err := s.ownTask(ctx, ss, p.TaskID)
	if err != nil {
		return nil, err
	}
	ctx = withTask(ctx, st.CallID)
	req := &mcp.CallToolRequest{Session: ss, Extra: extraOf(ctx), Params: &mcp.CallToolParamsRaw{Name: st.ToolID}}
	if st.Running() && !st.CancelRequested {
		if t := s.taskOf(st); t.Status == taskInputRequired {
			s.askForTask(ctx, req, st)
		}
		if _, err := s.opts.Engine.AwaitCall(ctx, st.CallID, st.RunID); err != nil && ctx.Err() != nil {
			return nil, rpcError(protocol.InternalError,
				fmt.Sprintf("stopped waiting for task %s: %v; it runs on, call tasks/result again", st.CallID, ctx.Err()), nil)
		}
		if st, err = s.ownTask(ctx, ss, p.TaskID); err != nil {
			return nil, err
		}
	}
	if t := s.taskOf(st); t.Status == taskCancelled {
		return nil, rpcError(protocol.ToolExecutionError, fmt.Sprintf("%s (task %s) was cancelled by tasks/cancel: its run was stopped "+
			"and its call folder kept; nothing more will come of it. Call the tool again to run it anew", st.ToolID, st.CallID),
			map[string]any{"error_type": "cancelled", "tool_id": st.ToolID, "callId": st.CallID, "taskId": st.CallID})
	}
	if st.Result == nil {
		return nil, rpcError(protocol.ToolUnavailable,
			fmt.Sprintf("lost track of %s (callId %s): its workflow ended %s without a result", st.ToolID, st.CallID, workflowStatus(st.Status)),
			map[string]any{"error_type": protocol.ToolUnavailable.Name(), "callId": st.CallID, "tool_id": st.ToolID})
	}
	res := *st.Result
	if res.ToolID == healthToolID {
		res = s.withConnectionReport(ctx, req, res)
	}
	in := workflows.ToolCallInput{CallID: st.CallID, ToolID: st.ToolID, Caller: s.callerOf(req.Extra), Client: clientName(ss), SessionID: s.sessionID(ss)}
	res = s.askPerson(ctx, req, in, res)
	out, err := s.toolResult(res)
	if err != nil {
		return nil, err
	}
	out.Meta[relatedTaskKey] = relatedTask(st.CallID)
	return out, nil
}

// askForTask puts a held task's question to this client, once at a time
// per task in this process, with what is left of its window. A client that
// cannot be asked is not: the hold waits for another that can, or its
// window ends it.
func (s *Server) askForTask(ctx context.Context, req *mcp.CallToolRequest, st CallState) {
	p := req.Session.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil || s.holds.Decider == nil {
		return
	}
	if !s.taskAsks.begin(st.CallID) {
		return
	}
	defer s.taskAsks.end(st.CallID)
	ask := *st.Ask
	left := time.Duration(ask.WindowSeconds)*time.Second - time.Since(st.Created)
	if left < time.Second {
		return // the workflow's own timer ends the hold
	}
	ask.WindowSeconds = int(left / time.Second)
	in := workflows.ToolCallInput{CallID: st.CallID, ToolID: st.ToolID, Client: ask.Client}
	s.askInline(ctx, req, in, ask)
}

// asking are the tasks whose question this process is putting.
type asking struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (a *asking) begin(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ids[id] {
		return false
	}
	if a.ids == nil {
		a.ids = map[string]bool{}
	}
	a.ids[id] = true
	return true
}

func (a *asking) end(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.ids, id)
}

// cancelTask is tasks/cancel: it cancels the call's workflow, which stops
// its running tool (the solver's process tree is killed, its call folder
// kept). A task already ended, or already cancelled, is refused as the
// specification says: -32602, nothing changed.
func (s *Server) cancelTask(ctx context.Context, ss *mcp.ServerSession, p *taskIDParams) (*taskResult, error) {
	st, err := s.ownTask(ctx, ss, p.TaskID)
	if err != nil {
		return nil, err
	}
	if t := s.taskOf(st); t.Status != taskWorking && t.Status != taskInputRequired {
		return nil, rpcError(protocol.InvalidParams, fmt.Sprintf("cannot cancel task %s: already in terminal status '%s'", st.CallID, t.Status),
			map[string]any{"error_type": protocol.InvalidParams.Name(), "taskId": st.CallID, "status": t.Status})
	}
	if err := s.opts.Engine.CancelCall(ctx, st.CallID); err != nil {
		return nil, rpcError(protocol.InternalError, fmt.Sprintf("could not cancel task %s through Temporal: %v; check health.check", st.CallID, err), nil)
	}
	s.opts.Logger.Info("mcp_task_cancelled", "taskId", st.CallID, "tool", st.ToolID)
	if s.held != nil && st.Hold == workflows.HoldPending {
		s.held.Ended(st.CallID)
	}
	s.decided.wake(st.CallID)
	if st, err = s.ownTask(ctx, ss, p.TaskID); err != nil {
		return nil, err
	}
	return &taskResult{task: s.taskOf(st)}, nil
}

// listTasks is tasks/list: the requester's own tasks, newest first, a
// page at a time.
func (s *Server) listTasks(ctx context.Context, ss *mcp.ServerSession, p *taskListParams) (*listTasksResult, error) {
	if !speaksTasks(ss) {
		return nil, rpcError(protocol.MethodNotFound, "tasks are part of MCP 2025-11-25 and later; this session negotiated an older revision", nil)
	}
	var after *TaskCursor
	if p != nil && p.Cursor != "" {
		c, err := decodeTaskCursor(p.Cursor)
		if err != nil {
			return nil, rpcError(protocol.InvalidParams, "invalid cursor: pass the nextCursor of the previous tasks/list unchanged, or none for the first page", nil)
		}
		after = &c
	}
	page, next, err := s.opts.Engine.ListTasks(ctx, ownerAttr(s.taskOwner(extraOf(ctx), ss)), after, taskPageSize)
	if err != nil {
		return nil, rpcError(protocol.InternalError, fmt.Sprintf("could not list tasks: %v; check health.check", err), nil)
	}
	out := &listTasksResult{Tasks: make([]task, 0, len(page))}
	for _, st := range page {
		out.Tasks = append(out.Tasks, s.taskOf(st))
	}
	if next != nil {
		out.NextCursor = encodeTaskCursor(*next)
	}
	return out, nil
}

func encodeTaskCursor(c TaskCursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeTaskCursor(s string) (TaskCursor, error) {
	var c TaskCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, err
	}
	if c.Created.IsZero() || !isCallID(c.CallID) {
		return c, errors.New("not a cursor")
	}
	return c, nil
}
