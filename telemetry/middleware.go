package telemetry

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Middleware is an MCP receiving middleware that opens a span for each
// request, named after its method ("tools/call power.check_budget" for a
// call), and marks one that fails with RecordFailure and the class
// ClassOfCall gives it. The handler runs inside the span, so what it
// starts (a Temporal workflow) is the span's child.
//
// It counts nothing: the server's dispatch does, once per call, in both
// dialects, and a span and a count kept apart cannot count a call twice.
//
// registered reports whether a tool id exists (see ClassOfCall); nil
// treats every tool as registered. An unregistered name is the client's
// text, so it stays out of the span's name and in mcp.tool_id only.
func (t *Tracing) Middleware(registered func(toolID string) bool) mcp.Middleware {
	if t == nil {
		return func(next mcp.MethodHandler) mcp.MethodHandler { return next }
	}
	tracer := t.Tracer()
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			// A notification has no answer to fail, and there are many.
			if strings.HasPrefix(method, "notifications/") {
				return next(ctx, method, req)
			}
			toolID := calledTool(req)
			known := registered == nil || registered(toolID)
			name := method
			attrs := []attribute.KeyValue{attribute.String(AttrMethod, method)}
			if toolID != "" {
				attrs = append(attrs, attribute.String(AttrToolID, toolID))
				if known {
					name += " " + toolID
				}
			}
			if id := sessionID(req); id != "" {
				attrs = append(attrs, attribute.String(AttrSessionID, id))
			}
			ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
			defer span.End()

			res, err := next(ctx, method, req)
			class := ClassOfError(err)
			if method == "tools/call" {
				r, _ := res.(*mcp.CallToolResult)
				class = ClassOfCall(r, err, known)
			}
			if class != "" {
				RecordFailure(span, class, failureOf(res, err))
			}
			return res, err
		}
	}
}

// calledTool is the tool a tools/call names, or "".
func calledTool(req mcp.Request) string {
	if r, ok := req.(*mcp.CallToolRequest); ok && r != nil && r.Params != nil {
		return r.Params.Name
	}
	return ""
}

// sessionID is the request's MCP session id: Mcp-Session-Id over
// Streamable HTTP, "" over stdio, which has no session id of its own.
func sessionID(req mcp.Request) string {
	if req == nil {
		return ""
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		return ss.ID()
	}
	return ""
}
