package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// rejectUnknownTools answers a tools/call for a tool nobody registered with
// -32602 and the closest tool ids, before the SDK's plain "unknown tool".
func (s *Server) rejectUnknownTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				if _, _, known := s.opts.Registry.Tool(r.Params.Name); !known {
					return nil, s.unknownToolError(r.Params.Name)
				}
			}
		}
		return next(ctx, method, req)
	}
}

func (s *Server) unknownToolError(name string) *jsonrpc.Error {
	if why, ok := s.opts.Registry.UnservedReason(name); ok {
		return rpcError(protocol.InvalidParams, fmt.Sprintf("tool %q is not served by this build: %s", name, why),
			map[string]any{"error_type": protocol.InvalidParams.Name(), "tool_id": name, "unserved": true})
	}
	msg := fmt.Sprintf("unknown tool %q", name)
	if near := s.opts.Registry.Suggest(name); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	} else {
		msg += "; tools/list shows the tools this server has"
	}
	return rpcError(protocol.InvalidParams, msg, map[string]any{"error_type": protocol.InvalidParams.Name(), "tool_id": name})
}

// prepareCall resolves and validates a call; the returned input is ready for
// the ToolCall workflow. Invalid arguments never start a workflow.
func (s *Server) prepareCall(toolID string, args json.RawMessage, timeoutSeconds int, client, sessionID string) (workflows.ToolCallInput, *jsonrpc.Error) {
	m, _, ok := s.opts.Registry.Tool(toolID)
	if !ok {
		return workflows.ToolCallInput{}, s.unknownToolError(toolID)
	}
	args = adapters.ArgumentsOrEmpty(args)
	if err := s.opts.Registry.ValidateArguments(toolID, args); err != nil {
		var perr *protocol.Error
		details := err.Error()
		if errors.As(err, &perr) {
			details = perr.Details
		}
		return workflows.ToolCallInput{}, rpcError(protocol.InvalidParams, fmt.Sprintf("%s: %s", toolID, details),
			map[string]any{"error_type": protocol.InvalidParams.Name(), "tool_id": toolID, "details": details})
	}
	if timeoutSeconds == 0 {
		timeoutSeconds = m.TimeoutSeconds
	}
	if timeoutSeconds < adapters.MinTimeoutSeconds || timeoutSeconds > adapters.MaxTimeoutSeconds {
		return workflows.ToolCallInput{}, rpcError(protocol.InvalidParams,
			fmt.Sprintf("timeout_seconds %d is outside %d..%d", timeoutSeconds, adapters.MinTimeoutSeconds, adapters.MaxTimeoutSeconds), nil)
	}
	return workflows.ToolCallInput{
		CallID:         NewCallID(),
		ToolID:         toolID,
		AdapterID:      m.AdapterID,
		Arguments:      args,
		TimeoutSeconds: timeoutSeconds,
		Idempotent:     m.Idempotent,
		Retries:        m.Retries,
		Local:          s.opts.Registry.RunsLocal(toolID),
		Caller:         s.opts.Caller,
		Client:         client,
		SessionID:      sessionID,
	}, nil
}

// mcpCallInput is an MCP tools/call as the ToolCall workflow takes it, with
// who asked, noted on the call's record: what a plain call and a task
// both start from.
func (s *Server) mcpCallInput(ctx context.Context, req *mcp.CallToolRequest) (workflows.ToolCallInput, *jsonrpc.Error) {
	record := recordOf(ctx)
	record.args = req.Params.Arguments
	in, rpcErr := s.prepareCall(req.Params.Name, req.Params.Arguments, 0, clientName(req.Session), s.sessionID(req.Session))
	if rpcErr != nil {
		return in, rpcErr
	}
	in.Caller = s.callerOf(req.Extra)
	in.Requester = requesterOf(req.Extra)
	record.in = &in
	return in, nil
}

// callTool is the MCP tools/call handler: validate, rule on a hold, run
// the workflow, relay.
func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	in, rpcErr := s.mcpCallInput(ctx, req)
	if rpcErr != nil {
		return nil, rpcErr
	}
	if req.Extra != nil {
		// The SDK does not end a handler when its POST's connection
		// closes; this server does, so a client that hangs up stops the
		// wait (and withdraws any question). The call itself runs on.
		if post := s.posts.get(req.Extra.Header.Get(postHeader)); post != nil {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(post, cancel)()
		}
	}
	res, rpcErr := s.dispatch(ctx, req, in)
	if rpcErr != nil {
		return nil, rpcErr
	}
	if in.ToolID == healthToolID {
		res = s.withConnectionReport(ctx, req, res)
	}
	res = s.askPerson(ctx, req, in, res)
	recordOf(ctx).res = &res
	return s.toolResult(res)
}

// dispatch runs a prepared call, held or not. req is nil for the legacy
// dialect, which has no way to ask its client anything.
// Every call passes its caller's rate first; one that is not held then
// waits its fair turn for a running slot (a held call waits for a person
// and takes none).
func (s *Server) dispatch(ctx context.Context, req *mcp.CallToolRequest, in workflows.ToolCallInput) (workflows.ToolCallResult, *jsonrpc.Error) {
	if rpcErr := s.checkRate(ctx, in); rpcErr != nil {
		return workflows.ToolCallResult{}, rpcErr
	}
	if r := s.rule(req, in); r.held {
		return s.runHeld(ctx, req, in, r)
	}
	release, rpcErr := s.takeSlot(ctx, in)
	if rpcErr != nil {
		return workflows.ToolCallResult{}, rpcErr
	}
	defer release()
	runID, err := s.opts.Engine.StartCall(ctx, in, nil)
	if err != nil {
		return workflows.ToolCallResult{}, s.startError(in, err)
	}
	if req != nil {
		announceCall(ctx, req, in)
	}
	return s.awaitCall(ctx, in, runID)
}

func (s *Server) startError(in workflows.ToolCallInput, err error) *jsonrpc.Error {
	s.opts.Logger.Error("tools/call could not start through Temporal", "tool", in.ToolID, "callId", in.CallID, "error", err)
	return rpcError(protocol.ToolUnavailable,
		fmt.Sprintf("%s could not be started through Temporal: %v; check health.check", in.ToolID, err),
		map[string]any{"error_type": protocol.ToolUnavailable.Name(), "tool_id": in.ToolID, "details": err.Error()})
}

// awaitCall waits for a started call's result.
func (s *Server) awaitCall(ctx context.Context, in workflows.ToolCallInput, runID string) (workflows.ToolCallResult, *jsonrpc.Error) {
	res, err := s.opts.Engine.AwaitCall(ctx, in.CallID, runID)
	if err != nil {
		if ctx.Err() != nil {
			return res, rpcError(protocol.InternalError,
				fmt.Sprintf("stopped waiting for %s (callId %s): %v; the call runs on, fetch its outcome with call.get_result", in.ToolID, in.CallID, ctx.Err()),
				map[string]any{"callId": in.CallID, "tool_id": in.ToolID})
		}
		return res, rpcError(protocol.ToolUnavailable,
			fmt.Sprintf("lost track of %s (callId %s): %v; fetch its outcome with call.get_result", in.ToolID, in.CallID, err),
			map[string]any{"error_type": protocol.ToolUnavailable.Name(), "callId": in.CallID, "tool_id": in.ToolID, "details": err.Error()})
	}
	return res, nil
}

// announceCall tells a client that asked for progress which callId its call
// has, before it runs: a client that then loses its connection can still
// fetch the outcome with call.get_result.
func announceCall(ctx context.Context, req *mcp.CallToolRequest, in workflows.ToolCallInput) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return
	}
	_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		Meta:          taskMeta(ctx),
		ProgressToken: token,
		Progress:      0,
		Message:       fmt.Sprintf("callId %s: %s is running as Temporal workflow %s", in.CallID, in.ToolID, workflows.CallWorkflowID(in.CallID)),
	})
}

// sessionID is the call's session identity: the Mcp-Session-Id over
// Streamable HTTP, or the process's own (METAFORGE_SESSION_ID) over stdio.
func (s *Server) sessionID(ss *mcp.ServerSession) string {
	if ss != nil && ss.ID() != "" {
		return ss.ID()
	}
	return s.opts.SessionID
}

func clientName(ss *mcp.ServerSession) string {
	if ss == nil {
		return ""
	}
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		return p.ClientInfo.Name
	}
	return ""
}

func rpcError(code protocol.Code, msg string, data map[string]any) *jsonrpc.Error {
	e := &jsonrpc.Error{Code: int64(code), Message: msg}
	if data != nil {
		if b, err := json.Marshal(data); err == nil {
			e.Data = b
		}
	}
	return e
}
