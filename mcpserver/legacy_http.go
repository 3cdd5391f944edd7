package mcpserver

import (
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/protocol"
)

// RPCHandler serves the legacy dialect on its own endpoint, POST /rpc, where
// the dialect's remote clients send it: one JSON-RPC request per body,
// answered with one JSON response. Bodies are held to the same limits and
// screening as /mcp, and it is behind the same auth as /v1. It sends no
// tool/result progress: the dialect defines no stream over HTTP, and a POST's
// one JSON answer has no room for notifications before it.
func (s *Server) RPCHandler() http.Handler {
	return s.opts.Auth.MCPMiddleware(http.HandlerFunc(s.serveRPC))
}

func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "/rpc takes JSON-RPC requests by POST", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxFrameBytes+1))
	if err != nil {
		httpjson.WriteEncoded(w, http.StatusBadRequest, errorResponse(nil, protocol.ParseError, "could not read the request body: "+err.Error(), nil))
		return
	}
	v := screen(body, false)
	switch {
	case v.reply != nil:
		httpjson.WriteEncoded(w, v.status, v.reply)
	case v.legacy != nil:
		resp := s.answerLegacy(withRemote(r.Context(), r.RemoteAddr), v.legacy)
		if resp == nil {
			w.WriteHeader(http.StatusNoContent) // a notification
			return
		}
		httpjson.WriteEncoded(w, http.StatusOK, resp)
	default:
		// Valid JSON-RPC, but not this dialect's: screen has decoded it.
		msg, _ := jsonrpc.DecodeMessage(body)
		req, ok := msg.(*jsonrpc.Request)
		switch {
		case !ok:
			httpjson.WriteEncoded(w, http.StatusBadRequest, errorResponse(idOf(body), protocol.InvalidRequest,
				"invalid request: /rpc takes requests, and this server asked nothing to answer", nil))
		case !req.ID.IsValid():
			w.WriteHeader(http.StatusNoContent) // a notification is never answered, even in error
		default:
			httpjson.WriteEncoded(w, http.StatusOK, errorResponse(idOf(body), protocol.MethodNotFound,
				fmt.Sprintf("method %q not found: /rpc speaks tool/list, tool/call and health/check; MCP is served on /mcp", req.Method), nil))
		}
	}
}
