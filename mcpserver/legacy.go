package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// legacyClient names callers of the legacy dialect, which has no handshake.
const legacyClient = "legacy-jsonrpc"

// legacyProgressEvery is how often a legacy tool/call still running reports
// itself with a tool/result notification (request_id, progress, message).
// A variable so tests need not wait it out.
var legacyProgressEvery = 10 * time.Second

// answerLegacy serves the legacy dialect (tool/list, tool/call, health/check:
// the JSON-RPC the stdio adapters speak too) where the transport has no channel
// for tool/result progress (a plain HTTP POST). It needs no initialize, like
// the adapters that speak it. A request without an id is a notification and
// gets no answer.
func (s *Server) answerLegacy(ctx context.Context, req *legacyRequest) []byte {
	return s.answerLegacyStreaming(ctx, req, nil)
}

// answerLegacyStreaming is answerLegacy for a transport that can send
// notifications (stdio): send, unless nil, writes one tool/result line
// while a tool/call runs, and must not interleave with other lines. Every
// send is over before this returns, so progress never follows its answer.
func (s *Server) answerLegacyStreaming(ctx context.Context, req *legacyRequest, send func(line []byte)) []byte {
	notification := len(req.ID) == 0 || string(req.ID) == "null"
	if notification {
		send = nil // tool/result names a request_id; a notification has none
	}
	result, rpcErr := s.dispatchLegacy(ctx, req, send)
	if notification {
		return nil
	}
	if rpcErr != nil {
		return errorResponse(req.ID, protocol.Code(rpcErr.Code), rpcErr.Message, rpcErr.Data)
	}
	b, err := resultResponse(req.ID, result)
	if err != nil {
		return errorResponse(req.ID, protocol.InternalError, "could not encode the result: "+err.Error(), nil)
	}
	return b
}

func (s *Server) dispatchLegacy(ctx context.Context, req *legacyRequest, send func([]byte)) (any, *jsonrpc.Error) {
	switch req.Method {
	case "tool/list":
		return s.legacyToolList(req.Params)
	case "tool/call":
		return s.observeLegacyCall(ctx, req, send)
	case "health/check":
		auth, client := s.connectionReport()
		return struct {
			health.Report
			Auth   map[string]any `json:"auth"`
			Client map[string]any `json:"client"`
		}{s.opts.Health.Check(ctx), auth, client}, nil
	}
	return nil, rpcError(protocol.MethodNotFound, fmt.Sprintf("method %q not found", req.Method), nil)
}

// legacyManifest is a manifest exactly as the legacy dialect lists it. The
// registry's own fields (idempotent, retries, timeout_seconds) are how
// MetaForge runs a tool, not part of the dialect.
type legacyManifest struct {
	ToolID         string                  `json:"tool_id"`
	AdapterID      string                  `json:"adapter_id"`
	Name           string                  `json:"name"`
	Description    string                  `json:"description"`
	Capability     string                  `json:"capability"`
	InputSchema    json.RawMessage         `json:"input_schema"`
	OutputSchema   json.RawMessage         `json:"output_schema"`
	Phase          int                     `json:"phase"`
	ResourceLimits adapters.ResourceLimits `json:"resource_limits"`
}

func (s *Server) legacyToolList(params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		Capability string `json:"capability"`
		AdapterID  string `json:"adapter_id"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	tools := []legacyManifest{}
	for _, m := range s.opts.Registry.Manifests() {
		if (p.Capability != "" && m.Capability != p.Capability) || (p.AdapterID != "" && m.AdapterID != p.AdapterID) {
			continue
		}
		lm := legacyManifest{ToolID: m.ToolID, AdapterID: m.AdapterID, Name: m.Name, Description: m.Description, Capability: m.Capability,
			InputSchema: m.InputSchema, OutputSchema: m.OutputSchema, Phase: m.Phase, ResourceLimits: m.ResourceLimits}
		// Both schemas are dicts in the dialect, {} when a tool has none.
		if len(lm.InputSchema) == 0 {
			lm.InputSchema = json.RawMessage("{}")
		}
		if len(lm.OutputSchema) == 0 {
			lm.OutputSchema = json.RawMessage("{}")
		}
		tools = append(tools, lm)
	}
	return map[string]any{"tools": tools}, nil
}

// observeLegacyCall runs a tool/call and tells every observer how it
// ended, once: the legacy dialect's counterpart of observeCalls. A request
// too malformed to name a tool is not a call and is not recorded.
func (s *Server) observeLegacyCall(ctx context.Context, req *legacyRequest, send func([]byte)) (any, *jsonrpc.Error) {
	if len(s.opts.Observers) == 0 {
		return s.legacyToolCall(ctx, req, send)
	}
	c := &callRecord{
		party:   callParty{caller: s.opts.Caller, actor: s.opts.Caller, clientName: legacyClient, sessionID: s.opts.SessionID},
		started: time.Now(),
	}
	out, rpcErr := s.legacyToolCall(withCallRecord(ctx, c), req, send)
	if c.toolID != "" {
		if rpcErr != nil {
			c.err = rpcErr
		}
		s.observe(ctx, c)
	}
	return out, rpcErr
}

func (s *Server) legacyToolCall(ctx context.Context, req *legacyRequest, send func([]byte)) (any, *jsonrpc.Error) {
	started := time.Now()
	var p struct {
		ToolID         string          `json:"tool_id"`
		Arguments      json.RawMessage `json:"arguments"`
		TimeoutSeconds int             `json:"timeout_seconds"`
		TraceID        *string         `json:"trace_id"` // decoded only to check its type
	}
	if err := decodeParams(req.Params, &p); err != nil {
		return nil, legacyCallError(err, "", started)
	}
	if p.ToolID == "" {
		return nil, legacyCallError(rpcError(protocol.InvalidParams, "tool/call needs params.tool_id, such as \"power.check_budget\"", nil), "", started)
	}
	record := recordOf(ctx)
	record.toolID, record.args = p.ToolID, p.Arguments
	in, rpcErr := s.prepareCall(p.ToolID, p.Arguments, p.TimeoutSeconds, legacyClient, s.opts.SessionID)
	if rpcErr != nil {
		if _, _, known := s.opts.Registry.Tool(p.ToolID); !known {
			// The legacy dialect reports an unknown tool_id as an
			// unknown method, did-you-mean and all.
			rpcErr = rpcError(protocol.MethodNotFound, rpcErr.Message, nil)
		}
		return nil, legacyCallError(rpcErr, p.ToolID, started)
	}
	in.Caller, in.Requester = s.callerFrom(auth.TokenInfoFromContext(ctx)), requesterIn(ctx)
	record.in = &in
	stop := reportLegacyProgress(req.ID, in, send)
	res, rpcErr := s.dispatch(ctx, nil, in)
	stop()
	if rpcErr != nil {
		return nil, legacyCallError(rpcErr, in.ToolID, started)
	}
	record.res = &res
	out, rpcErr := s.legacyResult(res)
	if rpcErr != nil {
		if protocol.Code(rpcErr.Code) == protocol.ToolTimeout {
			// The dialect names the limit in the message.
			rpcErr.Message = fmt.Sprintf("Tool exceeded timeout of %ds", in.TimeoutSeconds)
		}
		return nil, legacyCallError(rpcErr, in.ToolID, started)
	}
	return out, nil
}

// legacyCallError gives a tool/call error the data every caller of the
// dialect reads (its McpErrorData: error_type, tool_id, details,
// duration_ms), keeping what else the error carries. An id named
// callId elsewhere is call_id here, like the rest of the dialect.
func legacyCallError(e *jsonrpc.Error, toolID string, started time.Time) *jsonrpc.Error {
	data := map[string]any{}
	if len(e.Data) > 0 {
		_ = json.Unmarshal(e.Data, &data)
	}
	if id, ok := data["callId"]; ok {
		delete(data, "callId")
		data["call_id"] = id
	}
	if _, ok := data["error_type"].(string); !ok {
		data["error_type"] = protocol.Code(e.Code).Name()
	}
	if _, ok := data["tool_id"].(string); !ok {
		data["tool_id"] = toolID
	}
	if _, ok := data["details"].(string); !ok {
		data["details"] = e.Message
	}
	if _, ok := data["duration_ms"].(float64); !ok {
		data["duration_ms"] = float64(time.Since(started).Microseconds()) / 1000
	}
	out := *e
	if b, err := json.Marshal(data); err == nil {
		out.Data = b
	}
	return &out
}

// reportLegacyProgress sends a tool/result notification every
// legacyProgressEvery while a call runs, so a long call is not silent
// until it ends. There is no measure of how far a tool has got, so
// progress is the share of the call's timeout used, held below 1 (a call
// can outlast it on retries or a hold), and the message says exactly
// that. The returned stop ends the reports and waits out one being sent.
func reportLegacyProgress(id json.RawMessage, in workflows.ToolCallInput, send func([]byte)) (stop func()) {
	if send == nil {
		return func() {}
	}
	requestID := legacyRequestID(id)
	started := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(legacyProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			elapsed := time.Since(started)
			share := min(elapsed.Seconds()/float64(in.TimeoutSeconds), 0.99)
			line, err := json.Marshal(map[string]any{
				"jsonrpc": "2.0",
				"method":  "tool/result",
				"params": map[string]any{
					"request_id": requestID,
					"progress":   math.Round(share*100) / 100,
					"message": fmt.Sprintf("%s (callId %s, Temporal workflow %s) is still running after %ds of its %ds timeout",
						in.ToolID, in.CallID, workflows.CallWorkflowID(in.CallID), int(elapsed.Seconds()), in.TimeoutSeconds),
				},
			})
			if err == nil {
				send(line)
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// legacyRequestID is a request's id as tool/result's request_id, a string
// in the dialect: a string id as itself, a number as it was written.
func legacyRequestID(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s
	}
	return string(id)
}

func decodeParams(raw json.RawMessage, into any) *jsonrpc.Error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return rpcError(protocol.InvalidParams, "invalid params: "+err.Error(), nil)
	}
	return nil
}
