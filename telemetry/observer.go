package telemetry

import (
	"context"

	"github.com/metaforge/metaforge/mcpserver"
)

// CallCounter counts every call the MCP server ends, in either dialect:
// the call and its duration, and for a failure its class. It implements
// mcpserver.CallObserver.
type CallCounter struct{ Metrics *Metrics }

// CallEnded counts e. A tool name nobody registered is the client's own
// text, so it is counted under "unknown", never as a label of its own.
func (c CallCounter) CallEnded(_ context.Context, e mcpserver.CallEvent) {
	tool := e.ToolID
	if !e.Known {
		tool = ""
	}
	c.Metrics.ObserveCall(tool, e.Status, e.ClientName, e.Duration)
	if e.Status == StatusError {
		c.Metrics.ObserveError(tool, ClassOfFailure(e.ErrorCode, e.HoldOutcome, e.Known), e.ClientName)
	}
}
