package mcpserver

import (
	"context"
	"fmt"
	"math"
	"net"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// Every tools/call, whatever its transport (MCP over stdio or HTTP, the
// legacy dialect on stdio, /mcp or /rpc), passes admission in dispatch:
// its caller's rate, then a running slot from the fair scheduler.

// remoteKey carries the remote address of an HTTP request that has no
// session (the legacy dialect), so its calls count against their sender.
type remoteKey struct{}

func withRemote(ctx context.Context, remoteAddr string) context.Context {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	return context.WithValue(ctx, remoteKey{}, host)
}

// callerKey is who a call counts against: its session, else the address
// it came from, else its whole class.
func callerKey(ctx context.Context, in workflows.ToolCallInput) string {
	if in.SessionID != "" {
		return "session " + in.SessionID
	}
	if host, _ := ctx.Value(remoteKey{}).(string); host != "" {
		return "address " + host
	}
	return "class " + in.Caller
}

// checkRate spends one of the caller's calls per second, or refuses the
// call as retryable with the seconds until it may try again.
func (s *Server) checkRate(ctx context.Context, in workflows.ToolCallInput) *jsonrpc.Error {
	c := s.limits.of(in.Caller)
	wait, ok := s.rates.take(callerKey(ctx, in), c, time.Now())
	if ok {
		return nil
	}
	return limitError(in, "rate", wait, fmt.Sprintf("%s caller is over its rate of %g calls a second (bursts of %d)", in.Caller, c.Rate, max(c.Burst, int(math.Max(c.Rate, 1)))))
}

// takeSlot waits the call's turn to run. A caller already at its queued
// limit is refused at once as retryable rather than kept waiting.
func (s *Server) takeSlot(ctx context.Context, in workflows.ToolCallInput) (release func(), rpcErr *jsonrpc.Error) {
	c := s.limits.of(in.Caller)
	key := callerKey(ctx, in)
	if c.Queued > 0 && s.sched.admitted(key) >= c.Queued {
		return nil, limitError(in, "queued", time.Second, fmt.Sprintf("%s caller already has %d calls running or waiting, its limit", in.Caller, c.Queued))
	}
	running := c.Running
	if running <= 0 {
		running = math.MaxInt // only the server's own bound
	}
	release, err := s.sched.acquire(ctx, key, running)
	if err != nil {
		return nil, rpcError(protocol.InternalError,
			fmt.Sprintf("stopped waiting to start %s: %v; it never started, so calling it again is safe", in.ToolID, err),
			map[string]any{"tool_id": in.ToolID})
	}
	return release, nil
}

// limitError is a call refused by a limit: TOOL_UNAVAILABLE, retryable,
// with retry_after (whole seconds, at least 1) in data._meta, so a client
// backs off instead of hammering.
func limitError(in workflows.ToolCallInput, limit string, wait time.Duration, why string) *jsonrpc.Error {
	after := max(int(math.Ceil(wait.Seconds())), 1)
	details := fmt.Sprintf("%s; retry after %ds", why, after)
	return rpcError(protocol.ToolUnavailable, fmt.Sprintf("%s was not started: %s", in.ToolID, details), map[string]any{
		"error_type":   protocol.ToolUnavailable.Name(),
		"tool_id":      in.ToolID,
		"details":      details,
		"retryable":    true,
		"limit":        limit,
		"caller_class": in.Caller,
		"_meta":        map[string]any{"retry_after": after},
	})
}
