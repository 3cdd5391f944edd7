package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// toolResult turns a ToolCall workflow's result into MCP's answer. A tool
// that ran and failed (refused, crashed, timed out) is an isError result
// whose text says why, so the model reads the reason (a client shows a
// JSON-RPC error as its constant message); a call that could not run at all
// (no adapter) is a JSON-RPC error. Every answer names its callId; a
// success also links to the dashboard view of what it touched, where there
// is one.
func (s *Server) toolResult(res workflows.ToolCallResult) (*mcp.CallToolResult, error) {
	if a := res.Approval; a != nil && a.Outcome != workflows.OutcomeApproved {
		return nil, s.approvalError(res)
	}
	if res.Status == workflows.StatusSuccess {
		out := &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: string(res.Data)}},
			Meta:    mcp.Meta{"callId": res.CallID},
		}
		if isJSONObject(res.Data) {
			out.StructuredContent = res.Data
		}
		if links := s.linksFor(res.ToolID, res.CallID, res.Data); links != nil {
			out.Meta["links"] = links
		}
		withApproval(out, res.Approval)
		return out, nil
	}
	e := res.Error
	if e == nil {
		e = &workflows.CallError{Code: int(protocol.ToolExecutionError), Type: protocol.ToolExecutionError.Name(), Details: "the call ended without a result or an error"}
	}
	switch protocol.Code(e.Code) {
	case protocol.ToolUnavailable, protocol.InvalidParams:
		return nil, rpcError(protocol.Code(e.Code), fmt.Sprintf("%s: %s", res.ToolID, e.Details), map[string]any{
			"error_type": e.Type, "tool_id": res.ToolID, "details": e.Details, "duration_ms": res.DurationMs, "callId": res.CallID,
		})
	}
	out := &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s failed: %s", res.ToolID, e.Details)}},
		Meta: mcp.Meta{
			"callId": res.CallID,
			"error": map[string]any{
				"toolId":     res.ToolID,
				"details":    e.Details,
				"durationMs": res.DurationMs,
				"code":       e.Code,
				"errorType":  e.Type,
			},
		},
	}
	withApproval(out, res.Approval)
	return out, nil
}

// legacyResult is the same result in the legacy tool/call dialect:
// a result envelope, or a JSON-RPC error carrying data.details.
func (s *Server) legacyResult(res workflows.ToolCallResult) (any, *jsonrpc.Error) {
	if a := res.Approval; a != nil && a.Outcome != workflows.OutcomeApproved {
		return nil, s.approvalError(res)
	}
	if res.Status == workflows.StatusSuccess {
		files := res.OutputFiles
		if files == nil {
			files = []string{}
		}
		return map[string]any{
			"tool_id":      res.ToolID,
			"status":       "success",
			"data":         json.RawMessage(res.Data),
			"duration_ms":  res.DurationMs,
			"output_files": files,
			"call_id":      res.CallID,
		}, nil
	}
	e := res.Error
	if e == nil {
		e = &workflows.CallError{Code: int(protocol.ToolExecutionError), Type: protocol.ToolExecutionError.Name(), Details: "the call ended without a result or an error"}
	}
	return nil, rpcError(protocol.Code(e.Code), protocol.Code(e.Code).Message(), map[string]any{
		"error_type":  e.Type,
		"tool_id":     res.ToolID,
		"details":     e.Details,
		"duration_ms": res.DurationMs,
		"call_id":     res.CallID,
	})
}

func isJSONObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		default:
			return false
		}
	}
	return false
}
