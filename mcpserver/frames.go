package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/metaforge/metaforge/protocol"
)

// Limits on what a client may send: the server treats its input as
// hostile, answers what breaks a limit, and keeps serving. The SDK would
// close a stdio connection on one unreadable frame, so frames are screened
// before they reach it.
const (
	MaxFrameBytes = 16 << 20 // one message line or HTTP body
	MaxJSONDepth  = 128      // nesting of arrays and objects
	MaxBatch      = 100      // messages in one JSON-RPC batch
)

// verdict is what to do with one frame.
type verdict struct {
	// reply, when set, is the answer to send instead of dispatching.
	reply []byte
	// status is the HTTP status for reply.
	status int
	// legacy is a request in the tool/list, tool/call, health/check
	// dialect, which MetaForge answers itself.
	legacy *legacyRequest
	// ignore is a notification nobody handles: never answered, not
	// passed on (HTTP 202).
	ignore bool
	// frame, when set, is what goes on to the SDK in place of the frame
	// received (a task-augmented tools/call, carryTaskParam).
	frame []byte
}

// forward is the frame to pass on to the SDK.
func (v verdict) forward(received []byte) []byte {
	if v.frame != nil {
		return v.frame
	}
	return received
}

// legacyRequest is one JSON-RPC request of the legacy dialect.
type legacyRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

var legacyMethods = map[string]bool{"tool/list": true, "tool/call": true, "health/check": true}

// screen checks one frame against the limits and routes the legacy dialect.
// A frame with no verdict goes on to the SDK, which must then be able to
// decode it: anything it would choke on is answered here. batches says
// whether the connection's MCP revision has JSON-RPC batches (2025-03-26
// and before).
func screen(frame []byte, batches bool) verdict {
	if len(frame) > MaxFrameBytes {
		return errorVerdict(nil, protocol.InvalidRequest, fmt.Sprintf("request too large: %d bytes, the limit is %d (16 MiB); send large data as a file path", len(frame), MaxFrameBytes), 413)
	}
	if d := nestingDepth(frame); d > MaxJSONDepth {
		return errorVerdict(nil, protocol.ParseError, fmt.Sprintf("parse error: JSON nested %d levels deep, the limit is %d", d, MaxJSONDepth), 400)
	}
	if !json.Valid(frame) {
		return errorVerdict(nil, protocol.ParseError, "parse error: the message is not valid JSON", 400)
	}
	trimmed := bytes.TrimLeft(frame, " \t\r\n")
	switch trimmed[0] {
	case '[':
		var batch []json.RawMessage
		if err := json.Unmarshal(trimmed, &batch); err != nil {
			return errorVerdict(nil, protocol.InvalidRequest, "invalid request: "+err.Error(), 400)
		}
		switch {
		case len(batch) == 0:
			return errorVerdict(nil, protocol.InvalidRequest, "invalid request: an empty batch", 400)
		case len(batch) > MaxBatch:
			return errorVerdict(nil, protocol.InvalidRequest, fmt.Sprintf("invalid request: a batch of %d messages, the limit is %d", len(batch), MaxBatch), 400)
		case !batches:
			return errorVerdict(nil, protocol.InvalidRequest, "invalid request: JSON-RPC batches are not part of MCP 2025-06-18 and later (nor before initialize); send the messages one by one", 400)
		}
		ids := map[string]bool{}
		for i, m := range batch {
			if bad := badID(m); bad != "" {
				return errorVerdict(nil, protocol.InvalidRequest, fmt.Sprintf("invalid request: batch message %d: %s", i, bad), 400)
			}
			msg, err := jsonrpc.DecodeMessage(m)
			if err != nil {
				return errorVerdict(nil, protocol.InvalidRequest, fmt.Sprintf("invalid request: batch message %d: %v", i, err), 400)
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
				id := fmt.Sprint(req.ID.Raw())
				if ids[id] {
					return errorVerdict(nil, protocol.InvalidRequest, fmt.Sprintf("invalid request: id %s appears twice in one batch", id), 400)
				}
				ids[id] = true
			}
		}
	case '{':
		if bad := badID(trimmed); bad != "" {
			return errorVerdict(nil, protocol.InvalidRequest, "invalid request: "+bad, 400)
		}
		if req := legacyOf(trimmed); req != nil {
			return verdict{legacy: req}
		}
		if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
			return errorVerdict(idOf(trimmed), protocol.InvalidRequest, "invalid request: not a JSON-RPC 2.0 message: "+err.Error(), 400)
		}
	default:
		return errorVerdict(nil, protocol.InvalidRequest, "invalid request: a JSON-RPC message is an object or a batch (array)", 400)
	}
	return verdict{}
}

// legacyOf is frame as a legacy request when its method is one of the
// dialect's, else nil. Keys match exactly, as JSON-RPC spells them. jsonrpc
// may be left out (the dialect's schema defaults it to "2.0") but not name
// another version, and the id must be a string, a number or absent: an id
// the answer cannot echo makes the frame an invalid request instead.
func legacyOf(frame []byte) *legacyRequest {
	var m map[string]json.RawMessage
	if json.Unmarshal(frame, &m) != nil {
		return nil
	}
	var method, version string
	if json.Unmarshal(m["method"], &method) != nil || !legacyMethods[method] {
		return nil
	}
	if v, ok := m["jsonrpc"]; ok && (json.Unmarshal(v, &version) != nil || version != "2.0") {
		return nil
	}
	id := m["id"]
	if len(id) > 0 && string(id) != "null" && idOf(frame) == nil {
		return nil
	}
	return &legacyRequest{ID: id, Method: method, Params: m["params"]}
}

// idOf is a message's id when it is a valid one (a string, or an integer
// that fits in 64 bits), so an error can answer it; otherwise nil,
// answered as id null.
func idOf(msg []byte) json.RawMessage {
	id := rawID(msg)
	if !validID(id) {
		return nil
	}
	return id
}

func rawID(msg []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return nil
	}
	return m.ID
}

// validID says whether an id can be answered as it was sent. The SDK reads
// every number as an int64, so 1.5 would be answered as 1 and 2^70 as
// -2^63: an id that is neither a string nor such an integer is refused
// rather than rewritten.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	if id[0] == '"' {
		return true
	}
	_, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil
}

// badID says what is wrong with a message's id, or "" when it has a valid
// one, none, or null (which JSON-RPC reads as none).
func badID(msg []byte) string {
	id := rawID(msg)
	if len(id) == 0 || string(id) == "null" || validID(id) {
		return ""
	}
	if len(id) > 0 && (id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) {
		return fmt.Sprintf("id %s is not an integer that fits in 64 bits; an id is a string or such an integer", id)
	}
	return "an id is a string or an integer"
}

// batchesAllowed says whether an MCP revision has JSON-RPC batches.
func batchesAllowed(protocolVersion string) bool {
	return protocolVersion == "2024-11-05" || protocolVersion == "2025-03-26"
}

func errorVerdict(id json.RawMessage, code protocol.Code, msg string, status int) verdict {
	return verdict{reply: errorResponse(id, code, msg, nil), status: status}
}

// errorResponse is a JSON-RPC error response; id null when unknown.
func errorResponse(id json.RawMessage, code protocol.Code, msg string, data json.RawMessage) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body := map[string]any{"code": int(code), "message": msg}
	if len(data) > 0 {
		body["data"] = data
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": body})
	return b
}

// resultResponse is a JSON-RPC success response.
func resultResponse(id json.RawMessage, result any) ([]byte, error) {
	return json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// nestingDepth is the deepest nesting of arrays and objects in b, counting
// only brackets outside strings. It stops counting once past the limit.
func nestingDepth(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > MaxJSONDepth {
					return deepest
				}
			}
		case ']', '}':
			depth--
		}
	}
	return deepest
}
