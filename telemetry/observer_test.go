package telemetry

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
)

// After a scripted session through the real MCP server, over MCP and the
// legacy dialect, /metrics shows each counter with the right labels and
// counts, and every failure is counted under the class of the error the
// client received.
func TestMetricsAfterAScriptedSession(t *testing.T) {
	m := NewMetrics()
	s := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.Observers = []mcpserver.CallObserver{CallCounter{Metrics: m}}
	}, &adaptertest.Fixture{})
	s.Health.OnProbe = m.ObserveProbe
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cs := s.Connect(t, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}}, nil
	}})
	for _, c := range []*mcp.CallToolParams{
		{Name: "fixture.echo", Arguments: map[string]any{"key": "1"}},
		{Name: "fixture.echo", Arguments: map[string]any{"key": "2"}},
		{Name: "fixture.refuse", Arguments: map[string]any{"key": "3"}},
		{Name: "fixture.timeout", Arguments: map[string]any{"key": "4"}},
		{Name: "fixture.echo", Arguments: map[string]any{"wrong": true}},
		{Name: "made.up_tool", Arguments: map[string]any{}},
		{Name: "fixture.write", Arguments: map[string]any{"key": "5"}},
		{Name: "health.check", Arguments: map[string]any{}},
	} {
		_, _ = cs.CallTool(ctx, c) // failures are part of the script
	}
	ts := httptest.NewServer(s.Server.HTTPHandler())
	defer ts.Close()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tool/call","params":{"tool_id":"fixture.echo","arguments":{"key":"legacy"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tool/call","params":{"tool_id":"other.made_up","arguments":{}}}`,
	} {
		resp, err := http.Post(ts.URL+"/mcp", "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	got := scrape(t, m.Handler())
	want := map[string]float64{
		`metaforge_mcp_tool_call_total{client="mcptest",status="success",tool_id="fixture.echo"}`:                 2,
		`metaforge_mcp_tool_call_total{client="mcptest",status="error",tool_id="fixture.echo"}`:                   1,
		`metaforge_mcp_tool_call_total{client="mcptest",status="error",tool_id="fixture.refuse"}`:                 1,
		`metaforge_mcp_tool_call_total{client="mcptest",status="error",tool_id="fixture.timeout"}`:                1,
		`metaforge_mcp_tool_call_total{client="mcptest",status="error",tool_id="fixture.write"}`:                  1,
		`metaforge_mcp_tool_call_total{client="mcptest",status="error",tool_id="unknown"}`:                        1,
		`metaforge_mcp_tool_call_total{client="mcptest",status="success",tool_id="health.check"}`:                 1,
		`metaforge_mcp_tool_call_total{client="legacy-jsonrpc",status="success",tool_id="fixture.echo"}`:          1,
		`metaforge_mcp_tool_call_total{client="legacy-jsonrpc",status="error",tool_id="unknown"}`:                 1,
		`metaforge_mcp_error_total{client="mcptest",error_class="tool_execution_error",tool_id="fixture.refuse"}`: 1,
		`metaforge_mcp_error_total{client="mcptest",error_class="tool_timeout",tool_id="fixture.timeout"}`:        1,
		`metaforge_mcp_error_total{client="mcptest",error_class="invalid_params",tool_id="fixture.echo"}`:         1,
		`metaforge_mcp_error_total{client="mcptest",error_class="tool_not_found",tool_id="unknown"}`:              1,
		`metaforge_mcp_error_total{client="mcptest",error_class="approval_refused",tool_id="fixture.write"}`:      1,
		`metaforge_mcp_error_total{client="legacy-jsonrpc",error_class="tool_not_found",tool_id="unknown"}`:       1,
		`metaforge_mcp_tool_call_duration_seconds_count{status="success",tool_id="fixture.echo"}`:                 3,
		`metaforge_mcp_tool_call_duration_seconds_count{status="error",tool_id="fixture.timeout"}`:                1,
		`metaforge_mcp_adapter_probe_total{adapter_id="fixture",result="reachable"}`:                              1,
		`metaforge_mcp_adapter_probe_total{adapter_id="fixture",result="unreachable"}`:                            0,
	}
	for series, n := range want {
		if v, ok := got[series]; !ok || v != n {
			t.Errorf("%s = %v (present %v), want %v", series, v, ok, n)
		}
	}
	for _, metric := range []string{"metaforge_mcp_tool_call_total", "metaforge_mcp_error_total"} {
		var total float64
		for _, v := range seriesWith(got, metric) {
			total += v
		}
		if wantTotal := map[string]float64{"metaforge_mcp_tool_call_total": 10, "metaforge_mcp_error_total": 6}[metric]; total != wantTotal {
			t.Errorf("%s sums to %v over every series, want %v: a call counted twice or not at all", metric, total, wantTotal)
		}
	}
}
