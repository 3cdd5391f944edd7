package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

var objectSchema = map[string]any{"type": "object"}

// tracedServer is an MCP server with the middleware and three tools: one
// that succeeds, one that fails as a tool (isError), one held and refused
// (a JSON-RPC error). inside receives the span context each handler ran in.
func tracedServer(tr *Tracing, inside chan<- trace.SpanContext) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "metaforge-mcp", Version: "test"}, nil)
	tools := map[string]bool{}
	add := func(name string, h mcp.ToolHandler) {
		tools[name] = true
		s.AddTool(&mcp.Tool{Name: name, InputSchema: objectSchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			inside <- trace.SpanContextFromContext(ctx)
			return h(ctx, req)
		})
	}
	add("power.check_budget", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"ok":true}`}}}, nil
	})
	add("calculix.solve", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: "calculix.solve failed: calculix.solve exceeded its timeout of 60s"}},
			Meta:    mcp.Meta{"error": map[string]any{"code": int(protocol.ToolTimeout), "errorType": "TOOL_TIMEOUT"}},
		}, nil
	})
	add("twin.commit_geometry", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, heldErr(workflows.OutcomeRejected)
	})
	s.AddReceivingMiddleware(tr.Middleware(func(id string) bool { return tools[id] }))
	return s
}

// connect runs server and a client over in-memory transports.
func connect(t *testing.T, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

// spanNamed is the one span named name.
func spanNamed(t *testing.T, exp *tracetest.InMemoryExporter, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, s := range exp.GetSpans() {
			names = append(names, s.Name)
		}
		t.Fatalf("%d spans named %q; spans: %q", len(found), name, names)
	}
	return found[0]
}

func hasException(s tracetest.SpanStub) bool {
	for _, e := range s.Events {
		if e.Name == "exception" {
			return true
		}
	}
	return false
}

func TestMiddlewareSpans(t *testing.T) {
	cleanOTelEnv(t)
	exp := tracetest.NewInMemoryExporter()
	tr := NewTracing("metaforge-mcp", "test", exp)
	inside := make(chan trace.SpanContext, 8)
	cs := connect(t, tracedServer(tr, inside))
	ctx := context.Background()

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "power.check_budget", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	ok := spanNamed(t, exp, "tools/call power.check_budget")
	a := attrs(ok)
	if a[AttrMethod].AsString() != "tools/call" || a[AttrToolID].AsString() != "power.check_budget" {
		t.Errorf("success span attributes = %v", ok.Attributes)
	}
	if ok.SpanKind != trace.SpanKindServer || ok.Status.Code == codes.Error || hasException(ok) {
		t.Errorf("success span: kind %v, status %v, exception %v", ok.SpanKind, ok.Status, hasException(ok))
	}
	if _, marked := a[AttrErrorClass]; marked {
		t.Errorf("a success carries %s", AttrErrorClass)
	}
	if in := <-inside; in.SpanID() != ok.SpanContext.SpanID() {
		t.Error("the handler did not run inside the request's span, so what it starts is not the span's child")
	}

	for _, tc := range []struct {
		tool, span, class string
	}{
		{"calculix.solve", "tools/call calculix.solve", ClassToolTimeout},
		{"twin.commit_geometry", "tools/call twin.commit_geometry", ClassApprovalRefused},
		// An unknown name is the client's text: not in the span's name.
		{"nope.tool", "tools/call", ClassToolNotFound},
	} {
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{}})
		s := spanNamed(t, exp, tc.span)
		a := attrs(s)
		if got := a[AttrErrorClass].AsString(); got != tc.class {
			t.Errorf("%s: %s = %q, want %q", tc.tool, AttrErrorClass, got, tc.class)
		}
		if a[AttrToolID].AsString() != tc.tool {
			t.Errorf("%s: %s = %q", tc.tool, AttrToolID, a[AttrToolID].AsString())
		}
		if s.Status.Code != codes.Error || s.Status.Description == "" {
			t.Errorf("%s: status = %+v, want Error with the reason", tc.tool, s.Status)
		}
		if !hasException(s) {
			t.Errorf("%s: no exception event; events %+v", tc.tool, s.Events)
		}
	}
	if code := attrs(spanNamed(t, exp, "tools/call twin.commit_geometry"))[AttrErrorCode].AsInt64(); code != int64(protocol.ToolExecutionError) {
		t.Errorf("%s = %d, want the code the client received", AttrErrorCode, code)
	}

	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if list := spanNamed(t, exp, "tools/list"); attrs(list)[AttrMethod].AsString() != "tools/list" {
		t.Errorf("tools/list span attributes = %v", list.Attributes)
	}
	for _, s := range exp.GetSpans() {
		if strings.HasPrefix(s.Name, "notifications/") {
			t.Errorf("a span for notification %q", s.Name)
		}
	}
}

func TestMiddlewareSessionID(t *testing.T) {
	cleanOTelEnv(t)
	exp := tracetest.NewInMemoryExporter()
	tr := NewTracing("metaforge-mcp", "test", exp)
	server := tracedServer(tr, make(chan trace.SpanContext, 8))
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "power.check_budget", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	s := spanNamed(t, exp, "tools/call power.check_budget")
	if got := attrs(s)[AttrSessionID].AsString(); got == "" || got != cs.ID() {
		t.Errorf("%s = %q, want the Mcp-Session-Id %q", AttrSessionID, got, cs.ID())
	}
}

func TestNilTracingMiddlewarePassesThrough(t *testing.T) {
	var tr *Tracing
	cs := connect(t, tracedServer(tr, make(chan trace.SpanContext, 8)))
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "power.check_budget", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
}
