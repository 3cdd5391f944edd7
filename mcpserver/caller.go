package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Caller classes, which decide whether a write is held for approval: a
// remote or untrusted caller's writes are held, a local one's run. The
// transport declares which one a connection is; the default is the least
// trusted.
const (
	CallerLocal     = "local"     // stdio: the engineer at the keyboard
	CallerRemote    = "remote"    // HTTP with a verified identity
	CallerUntrusted = "untrusted" // HTTP with no identity
)

// callerOf classifies one request: a bearer token the deployment's
// verifier accepted identifies a remote caller; otherwise the transport's
// own class holds (stdio local, HTTP untrusted). A shared API key
// identifies nobody, so it never makes a caller remote.
func (s *Server) callerOf(extra *mcp.RequestExtra) string {
	if extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
		return CallerRemote
	}
	return s.opts.Caller
}

// requesterOf is who asked, where that is proved: the subject of a bearer
// token the verifier accepted; "" otherwise. The call's hold refuses this
// person's own approval.
func requesterOf(extra *mcp.RequestExtra) string {
	if extra != nil && extra.TokenInfo != nil {
		return extra.TokenInfo.UserID
	}
	return ""
}

// requesterIn is requesterOf for the legacy dialect, which reaches the
// server without the SDK: the token the auth middleware verified rides in
// the request's context. Without it a token's subject could hold a write
// over /rpc and approve it herself on /v1.
func requesterIn(ctx context.Context) string {
	if ti := auth.TokenInfoFromContext(ctx); ti != nil {
		return ti.UserID
	}
	return ""
}
