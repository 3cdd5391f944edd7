package telemetry

import (
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span attributes. mcp.error_class takes the same values as the
// error_class label, so a trace filters by the taxonomy the metric counts.
const (
	AttrMethod     = "mcp.method"
	AttrToolID     = "mcp.tool_id"
	AttrSessionID  = "mcp.session_id"
	AttrErrorClass = "mcp.error_class"
	// AttrErrorCode is OpenTelemetry's name for a JSON-RPC error code.
	AttrErrorCode = "rpc.jsonrpc.error_code"
)

// RecordFailure marks span as failed with class: err as an exception
// event, status Error, mcp.error_class, and the JSON-RPC code when err
// carries one. Without an exception event a failed request reads in a
// trace as one that merely returned.
func RecordFailure(span trace.Span, class string, err error) {
	if err == nil {
		err = errors.New(class)
	}
	span.SetAttributes(attribute.String(AttrErrorClass, class))
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		span.SetAttributes(attribute.Int64(AttrErrorCode, rpcErr.Code))
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

// toolFailure is an isError result as an error: the tool ran and failed,
// and its text says why.
type toolFailure struct{ text string }

func (f toolFailure) Error() string { return f.text }

// failureOf is what a failed request answered: its error, or the text of
// its isError result.
func failureOf(res mcp.Result, err error) error {
	if err != nil {
		return err
	}
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r == nil {
		return nil
	}
	var texts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok && t.Text != "" {
			texts = append(texts, t.Text)
		}
	}
	if len(texts) == 0 {
		return toolFailure{"the tool reported an error and said nothing more"}
	}
	return toolFailure{strings.Join(texts, "\n")}
}
