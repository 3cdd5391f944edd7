package adapters

import (
	"encoding/json"

	"github.com/metaforge/metaforge/protocol"
)

// The JSON-RPC 2.0 envelope of the adapter protocol (tool/list, tool/call,
// health/check), the same over stdio (ServeStdio, StartStdio) and HTTP
// (HTTPHandler, DialHTTP).
type RPCRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type RPCResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

type RPCError struct {
	Code    int           `json:"code"`
	Message string        `json:"message"`
	Data    *RPCErrorData `json:"data,omitempty"`
}

// RPCErrorData is the legacy dialect's error data (error_type, tool_id,
// details, duration_ms) plus retryable, which tells the
// caller whether an idempotent tool may be tried again.
type RPCErrorData struct {
	ErrorType  string  `json:"error_type"`
	ToolID     string  `json:"tool_id,omitempty"`
	Details    string  `json:"details"`
	DurationMS float64 `json:"duration_ms"`
	Retryable  bool    `json:"retryable,omitempty"`
}

type ToolListParams struct {
	Capability string `json:"capability,omitempty"`
}

type ToolListResult struct {
	Tools []Manifest `json:"tools"`
}

type ToolCallParams struct {
	ToolID         string          `json:"tool_id"`
	Arguments      json.RawMessage `json:"arguments,omitempty"`
	TimeoutSeconds int             `json:"timeout_seconds,omitempty"`
	TraceID        string          `json:"trace_id,omitempty"`
}

type ToolCallResult struct {
	ToolID      string          `json:"tool_id"`
	Status      string          `json:"status"`
	Data        json.RawMessage `json:"data"`
	DurationMS  float64         `json:"duration_ms"`
	OutputFiles []string        `json:"output_files"`
}

// CancelledParams is MCP's notifications/cancelled: the client stopped
// waiting for a request, so the call's context is cancelled.
type CancelledParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason,omitempty"`
}

const (
	MethodToolList    = "tool/list"
	MethodToolCall    = "tool/call"
	MethodHealthCheck = "health/check"
	MethodCancelled   = "notifications/cancelled"
)

// NewRPCError is the envelope of a failure with its taxonomy code.
func NewRPCError(code protocol.Code, details string) *RPCError {
	return &RPCError{Code: int(code), Message: code.Message(), Data: &RPCErrorData{ErrorType: code.Name(), Details: details}}
}

// ProtocolError turns a JSON-RPC error from an adapter back into the
// *protocol.Error it stood for, keeping its code, details and
// retryability.
func (e *RPCError) ProtocolError(toolID string) *protocol.Error {
	pe := &protocol.Error{Code: protocol.Code(e.Code), ToolID: toolID, Details: e.Message}
	if e.Data != nil {
		if e.Data.Details != "" {
			pe.Details = e.Data.Details
		}
		if e.Data.ToolID != "" {
			pe.ToolID = e.Data.ToolID
		}
		pe.Retryable = e.Data.Retryable
	}
	return pe
}
