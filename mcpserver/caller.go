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

// callerOf classifies one request by what its transport verified.
func (s *Server) callerOf(extra *mcp.RequestExtra) string {
	if extra == nil {
		return s.callerFrom(nil)
	}
	return s.callerFrom(extra.TokenInfo)
}

// callerFrom classifies a request by its verified token info: the operator
// token makes the operator's own client, a local caller, as over stdio; a
// bearer token the deployment's verifier accepted identifies a remote
// caller; otherwise the transport's own class holds (stdio local, HTTP
// untrusted). A shared API key identifies nobody, so it never makes a
// caller remote.
func (s *Server) callerFrom(ti *auth.TokenInfo) string {
	switch {
	case ti == nil || ti.UserID == "":
		return s.opts.Caller
	case isOperator(ti):
		return CallerLocal
	}
	return CallerRemote
}

// requesterOf is who asked, where that is proved: the subject of a bearer
// token the verifier accepted; "" otherwise, and for the operator, who is
// the one person of a deployment without identities. The call's hold
// refuses this person's own approval.
func requesterOf(extra *mcp.RequestExtra) string {
	if extra == nil {
		return requesterFrom(nil)
	}
	return requesterFrom(extra.TokenInfo)
}

// requesterIn is requesterOf for the legacy dialect, which reaches the
// server without the SDK: the token the auth middleware verified rides in
// the request's context. Without it a token's subject could hold a write
// over /rpc and approve it herself on /v1.
func requesterIn(ctx context.Context) string {
	return requesterFrom(auth.TokenInfoFromContext(ctx))
}

func requesterFrom(ti *auth.TokenInfo) string {
	if ti == nil || isOperator(ti) {
		return ""
	}
	return ti.UserID
}
