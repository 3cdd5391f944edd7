package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// taskKey carries the id of the task a message belongs to, so progress
// and questions about it carry related-task metadata.
type taskKey struct{}

func withTask(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, taskKey{}, id)
}

// taskMeta is the _meta of a message about ctx's task; nil outside one.
func taskMeta(ctx context.Context) mcp.Meta {
	id, _ := ctx.Value(taskKey{}).(string)
	if id == "" {
		return nil
	}
	return mcp.Meta{relatedTaskKey: relatedTask(id)}
}

// taskCalls is the middleware that serves a task-augmented tools/call as
// a task, and refuses a plain call of a tool whose manifest requires one.
// Both only for a session on 2025-11-25 or later: an older one calls as
// before, its task field ignored.
func (s *Server) taskCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		r, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || r.Params == nil || !speaksTasks(r.Session) {
			return next(ctx, method, req)
		}
		t, asked := taskRequested(r.Params)
		switch {
		case asked:
			return s.startTask(ctx, r, t)
		case s.taskSupport(r.Params.Name) == adapters.TaskRequired:
			// -32600, which the specification's error handling names
			// for a request that must be task-augmented: its other
			// choice, -32601, the SDK rewrites to a bare "method not
			// found" with neither this message nor its data.
			return nil, rpcError(protocol.InvalidRequest,
				fmt.Sprintf("%s must be called as a task, since its work routinely outlives a request: add \"task\": {\"ttl\": <milliseconds>} "+
					"to the tools/call params, then poll tasks/get and fetch the outcome with tasks/result (TypeScript SDK: "+
					"client.experimental.tasks.callToolStream). A client on MCP before 2025-11-25 calls it as usual and fetches a lost "+
					"result with call.get_result", r.Params.Name),
				map[string]any{"error_type": protocol.InvalidRequest.Name(), "tool_id": r.Params.Name, "taskSupport": adapters.TaskRequired})
		}
		return next(ctx, method, req)
	}
}

// taskOwner is the auth context a request belongs to: the subject its
// token proved, else its session, else (stdio without METAFORGE_SESSION_ID)
// its transport's caller class.
func (s *Server) taskOwner(extra *mcp.RequestExtra, ss *mcp.ServerSession) string {
	if extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
		return "subject:" + extra.TokenInfo.UserID
	}
	if id := s.sessionID(ss); id != "" {
		return "session:" + id
	}
	return "caller:" + s.opts.Caller
}

// taskTTL is the lifetime granted: what the client asked, within the
// deployment's maximum, and the maximum when it asked none.
func (s *Server) taskTTL(t taskRequest) time.Duration {
	if t.TTL == nil {
		return s.opts.TaskMaxTTL
	}
	asked := time.Duration(*t.TTL * float64(time.Millisecond))
	return min(max(asked, time.Second), s.opts.TaskMaxTTL)
}

// startTask starts a call as plain tools/call does (the same checks, hold
// rule, admission and ToolCall workflow) and answers CreateTaskResult as
// soon as the workflow is durable. The call is followed to its end in the
// background, where its running slot is released and it is observed.
func (s *Server) startTask(ctx context.Context, req *mcp.CallToolRequest, t taskRequest) (mcp.Result, error) {
	in, rpcErr := s.mcpCallInput(ctx, req)
	if rpcErr != nil {
		return nil, rpcErr
	}
	record := recordOf(ctx)
	if rpcErr := s.checkRate(ctx, in); rpcErr != nil {
		return nil, rpcErr
	}
	terms := TaskStart{Owner: ownerAttr(s.taskOwner(req.Extra, req.Session)), TTL: s.taskTTL(t), PollInterval: s.opts.TaskPollInterval}
	r := s.rule(req, in)
	release := func() {}
	var ask *approvals.Ask
	switch {
	case r.held && r.route == workflows.OutcomeNotConfigured:
		// Nobody could decide it: refused at once, as a plain call is,
		// and no task is made.
		res := s.heldNowhere(in)
		record.res = &res
		out, err := s.toolResult(res)
		if err != nil {
			return nil, err
		}
		return out, nil
	case r.held:
		var a approvals.Ask
		in, a = s.withHold(in, r)
		ask = &a
	default:
		if release, rpcErr = s.takeSlot(ctx, in); rpcErr != nil {
			return nil, rpcErr
		}
	}
	created := time.Now()
	runID, err := s.opts.Engine.StartTask(ctx, in, ask, terms)
	if err != nil {
		release()
		return nil, s.startError(in, err)
	}
	record.deferred = true
	s.opts.Logger.Info("mcp_task_created", "tool", in.ToolID, "taskId", in.CallID, "caller", in.Caller, "held", r.held,
		"ttl_ms", terms.TTL.Milliseconds())
	announceCall(withTask(ctx, in.CallID), req, in)
	go s.followTask(req, in, ask, runID, release, record)
	tk := task{TaskID: in.CallID, Status: taskWorking, CreatedAt: timestamp(created), LastUpdatedAt: timestamp(created),
		TTL: terms.TTL.Milliseconds(), PollInterval: terms.PollInterval.Milliseconds(),
		StatusMessage: fmt.Sprintf("%s is running as Temporal workflow %s", in.ToolID, workflows.CallWorkflowID(in.CallID))}
	if ask != nil {
		tk.StatusMessage = s.heldMessage(in.CallID, in.ToolID, *ask)
	}
	// Like every answer to a tools/call, it names the callId; and it says
	// in a sentence a host may hand its model while the task works.
	sentence := fmt.Sprintf("%s started as task %s (Temporal workflow %s); its result comes from tasks/result, or call.get_result with call_id %s.",
		in.ToolID, in.CallID, workflows.CallWorkflowID(in.CallID), in.CallID)
	if ask != nil {
		sentence += " " + tk.StatusMessage + "."
	}
	meta := mcp.Meta{"callId": in.CallID, immediateResponseKey: sentence}
	return &createTaskResult{ResultBase: mcp.ResultBase{Meta: meta}, Task: tk}, nil
}

// followTask waits out a task's call in this process, as a plain call's
// dispatch would: a held call's progress, then its slot released and the
// call observed. After a restart nobody follows it here; the workflow
// runs on, and tasks/result still finds its result.
func (s *Server) followTask(req *mcp.CallToolRequest, in workflows.ToolCallInput, ask *approvals.Ask, runID string, release func(), record *callRecord) {
	ctx := withTask(context.Background(), in.CallID)
	var res workflows.ToolCallResult
	var rpcErr *jsonrpc.Error
	if ask != nil {
		watch, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { s.reportHold(watch, req, in, *ask); close(done) }()
		res, rpcErr = s.awaitHeld(ctx, in, runID, stop)
		stop()
		<-done
	} else {
		res, rpcErr = s.awaitCall(ctx, in, runID)
		release()
	}
	if rpcErr != nil {
		record.err = rpcErr
	} else {
		record.res = &res
	}
	s.observe(ctx, record)
}

// heldMessage is a held task's statusMessage: its approval and where to
// decide it.
func (s *Server) heldMessage(callID, toolID string, ask approvals.Ask) string {
	if ask.Route == workflows.RouteElicitation {
		return fmt.Sprintf("%s is held for approval %s (%s); call tasks/result to be asked the question in your client",
			toolID, callID, ask.Reason)
	}
	return fmt.Sprintf("%s is held for approval %s (%s); decide it at %s", toolID, callID, ask.Reason, s.where(ask.Route, callID))
}
