package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/protocol"
)

// legacyClient names callers of the legacy dialect, which has no handshake.
const legacyClient = "legacy-jsonrpc"

// answerLegacy serves the dialect of spec 000 section 4 (tool/list,
// tool/call, health/check). It needs no initialize, like the adapters that
// speak it. A request without an id is a notification and gets no answer.
func (s *Server) answerLegacy(ctx context.Context, req *legacyRequest) []byte {
	result, rpcErr := s.dispatchLegacy(ctx, req)
	if len(req.ID) == 0 || string(req.ID) == "null" {
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

func (s *Server) dispatchLegacy(ctx context.Context, req *legacyRequest) (any, *jsonrpc.Error) {
	switch req.Method {
	case "tool/list":
		var p struct {
			Capability string `json:"capability"`
			AdapterID  string `json:"adapter_id"`
		}
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		tools := []adapters.Manifest{}
		for _, m := range s.opts.Registry.Manifests() {
			if (p.Capability == "" || m.Capability == p.Capability) && (p.AdapterID == "" || m.AdapterID == p.AdapterID) {
				tools = append(tools, m)
			}
		}
		return map[string]any{"tools": tools}, nil
	case "tool/call":
		var p struct {
			ToolID         string          `json:"tool_id"`
			Arguments      json.RawMessage `json:"arguments"`
			TimeoutSeconds int             `json:"timeout_seconds"`
			TraceID        string          `json:"trace_id"`
		}
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if p.ToolID == "" {
			return nil, rpcError(protocol.InvalidParams, "tool/call needs params.tool_id, such as \"power.check_budget\"", nil)
		}
		started := time.Now()
		party := callParty{caller: s.opts.Caller, actor: s.opts.Caller, clientName: legacyClient, sessionID: s.opts.SessionID}
		in, rpcErr := s.prepareCall(p.ToolID, p.Arguments, p.TimeoutSeconds, legacyClient, s.opts.SessionID)
		if rpcErr != nil {
			if _, _, known := s.opts.Registry.Tool(p.ToolID); !known {
				// The legacy dialect reports an unknown tool_id as an unknown method.
				rpcErr.Code = int64(protocol.MethodNotFound)
			}
			s.observe(ctx, party, p.ToolID, nil, p.Arguments, nil, rpcErr, started)
			return nil, rpcErr
		}
		res, rpcErr := s.dispatch(ctx, nil, in)
		s.observe(ctx, party, in.ToolID, &in, in.Arguments, resultOrNil(res, rpcErr), rpcErr, started)
		if rpcErr != nil {
			return nil, rpcErr
		}
		return s.legacyResult(res)
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

func decodeParams(raw json.RawMessage, into any) *jsonrpc.Error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return rpcError(protocol.InvalidParams, "invalid params: "+err.Error(), nil)
	}
	return nil
}
