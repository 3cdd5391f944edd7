package mcpserver

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// negotiatedRevision is the revision answered to a client that asked for
// requested (spec 003, FORGE-416): that one if served; the newest served
// when the client is ahead of us; the newest served not newer than the
// request when it falls between two we serve (a client that pinned a
// revision we skip keeps the features it expects, and none it does not);
// and the newest served when it is older than all of them, as the MCP
// lifecycle recommends. Revisions are dates, so they order as strings.
func negotiatedRevision(requested string) string {
	newest := ProtocolVersions[len(ProtocolVersions)-1]
	if requested >= newest || requested < ProtocolVersions[0] {
		return newest
	}
	i, found := slices.BinarySearch(ProtocolVersions, requested)
	if found {
		return requested
	}
	return ProtocolVersions[i-1]
}

// answerRevision makes initialize answer negotiatedRevision. The SDK
// answers the newest revision to every request it does not serve; only
// the revision a client is told changes here, the request it sent is
// kept (health.check reports the two, and the skew between them).
func answerRevision(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		init, ok := res.(*mcp.InitializeResult)
		if err != nil || !ok {
			return res, err
		}
		if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil {
			init.ProtocolVersion = negotiatedRevision(p.ProtocolVersion)
		}
		return res, err
	}
}
