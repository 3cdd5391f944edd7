package remote

import (
	"bytes"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// The JSON-RPC 2.0 envelope of the adapter protocol (spec 000 sections 3-4).
// adapters/stdio_server.go defines it but does not export it, so this is a
// copy of the least of it: what the client encodes and decodes, and what the
// handler writes for the failures it answers before the protocol sees the
// request. Every field here must keep the name and type it has there.

const (
	methodToolList    = "tool/list"
	methodToolCall    = "tool/call"
	methodHealthCheck = "health/check"
)

type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int           `json:"code"`
	Message string        `json:"message"`
	Data    *rpcErrorData `json:"data,omitempty"`
}

type rpcErrorData struct {
	ErrorType  string  `json:"error_type"`
	ToolID     string  `json:"tool_id,omitempty"`
	Details    string  `json:"details"`
	DurationMS float64 `json:"duration_ms"`
	Retryable  bool    `json:"retryable,omitempty"`
}

type toolListResult struct {
	Tools []adapters.Manifest `json:"tools"`
}

type toolCallParams struct {
	ToolID         string          `json:"tool_id"`
	Arguments      json.RawMessage `json:"arguments"`
	TimeoutSeconds int             `json:"timeout_seconds,omitempty"`
}

type toolCallResult struct {
	Status      string          `json:"status"`
	Data        json.RawMessage `json:"data"`
	OutputFiles []string        `json:"output_files"`
}

// newRPCError is the envelope of a failure with its taxonomy code.
func newRPCError(code protocol.Code, details string) *rpcError {
	return &rpcError{Code: int(code), Message: code.Message(),
		Data: &rpcErrorData{ErrorType: code.Name(), Details: details}}
}

// protocolError is the *protocol.Error the adapter returned, rebuilt from
// its JSON-RPC form with its code, details and retryability, as the stdio
// client rebuilds it.
func (e *rpcError) protocolError(toolID string) *protocol.Error {
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

// isAbsent reports a missing or null JSON value.
func isAbsent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}
