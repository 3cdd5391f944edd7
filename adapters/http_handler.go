// The HTTP adapter transport: HTTPHandler serves an adapter over HTTP and
// DialHTTP reaches one served so, for an adapter that runs on another
// machine than the main server (the host that has the solver installed).
//
// POST /mcp takes one JSON-RPC 2.0 request of the stdio adapter protocol
// (tool/list, tool/call, health/check) and answers with its envelopes;
// GET /health answers health/check as plain HTTP, for probes and load
// balancers. HTTPAdapter is the other end: an Adapter whose errors are
// those the adapter returned in process, so the ToolCall workflow's retry
// policy cannot tell the two forms apart.

package adapters

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/protocol"
)

// Handler serves a over HTTP. POST /mcp answers one JSON-RPC 2.0 request of
// the stdio adapter protocol; GET /health answers a's health check, 200 with
// its status or 503 with the error saying why not. Other methods on those
// paths are 405. A call's context ends with its HTTP request, so a client
// that gives up or goes away stops the work nobody waits for.
func HTTPHandler(a Adapter) http.Handler {
	h := &httpHandler{adapter: withHTTPLifetime(a)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /mcp", h.mcp)
	mux.HandleFunc("GET /health", h.health)
	return mux
}

type httpHandler struct {
	adapter Adapter
}

// httpHealthCheck is the request GET /health stands for.
var httpHealthCheck = []byte(`{"jsonrpc":"2.0","id":0,"method":"health/check"}`)

// mcp answers one JSON-RPC message: 200 with the answer, 202 with none for
// a notification. A body over a stdio line's bound is 413 and one that is
// not JSON 400, each with a JSON-RPC error.
func (h *httpHandler) mcp(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxStdioLineBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		writeHTTPFailure(w, http.StatusRequestEntityTooLarge, protocol.InvalidRequest, fmt.Sprintf(
			"the request body exceeds the %d MiB limit; pass large inputs as files and send their paths",
			MaxStdioLineBytes>>20))
		return
	}
	if err != nil {
		return // the client stopped sending; nobody waits for an answer
	}
	// One line, as the stdio transport frames a message.
	var line bytes.Buffer
	if err := json.Compact(&line, body); err != nil {
		writeHTTPFailure(w, http.StatusBadRequest, protocol.ParseError, "the body is not valid JSON: "+err.Error())
		return
	}
	answer, err := h.answer(r.Context(), line.Bytes())
	if err != nil {
		return // the request's context ended: the client is gone
	}
	if len(answer) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeHTTPJSON(w, http.StatusOK, answer)
}

// health answers health/check for probes that speak no JSON-RPC.
func (h *httpHandler) health(w http.ResponseWriter, r *http.Request) {
	answer, err := h.answer(r.Context(), httpHealthCheck)
	if err != nil {
		return
	}
	var resp RPCResponse
	switch {
	case json.Unmarshal(answer, &resp) != nil:
		writeHTTPFailure(w, http.StatusInternalServerError, protocol.InternalError, "health/check gave no JSON-RPC answer")
	case resp.Error != nil:
		raw, _ := json.Marshal(resp.Error)
		writeHTTPJSON(w, http.StatusServiceUnavailable, raw)
	default:
		writeHTTPJSON(w, http.StatusOK, resp.Result)
	}
}

// answer runs one message through ServeStdio as a session of one
// line, so both transports share every rule of the protocol: validation,
// the error envelope, timeout_seconds, a panicking tool. It is empty for a
// notification, and an error only when ctx ended first.
func (h *httpHandler) answer(ctx context.Context, msg []byte) ([]byte, error) {
	var out bytes.Buffer
	in := io.MultiReader(bytes.NewReader(msg), strings.NewReader("\n"))
	if err := ServeStdio(ctx, h.adapter, in, &out); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(out.Bytes()), nil
}

// writeHTTPFailure answers a request the protocol never saw, so it carries no id.
func writeHTTPFailure(w http.ResponseWriter, status int, code protocol.Code, details string) {
	raw, _ := json.Marshal(RPCResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: NewRPCError(code, details)})
	writeHTTPJSON(w, status, raw)
}

// writeHTTPJSON answers with one envelope, newline-terminated like a line
// of the stdio protocol.
func writeHTTPJSON(w http.ResponseWriter, status int, body []byte) {
	httpjson.WriteEncoded(w, status, append(body, '\n'))
}
