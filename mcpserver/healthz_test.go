package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/power"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/protocol"
)

// countedPower is the power adapter with a Health that counts its probes
// and answers down while down is set.
type countedPower struct {
	*power.Adapter
	probes atomic.Int64
	down   atomic.Bool
}

func (p *countedPower) Health(ctx context.Context) (adapters.HealthStatus, error) {
	p.probes.Add(1)
	if p.down.Load() {
		return adapters.HealthStatus{}, protocol.Unavailable("adapter container is down")
	}
	return p.Adapter.Health(ctx)
}

// /healthz and health.check answer the last measurement with its age;
// ?refresh=true and {"refresh": true} probe now, and what they find down
// is what tools/list names.
func TestHealthAnswersTheLastMeasurementAndRefreshProbes(t *testing.T) {
	p := &countedPower{Adapter: power.New()}
	stack := mcptest.Start(t, p)
	ts := httptest.NewServer(stack.Server.HTTPHandler())
	defer ts.Close()
	healthz := func(query string) (int, map[string]any) {
		t.Helper()
		resp, err := http.Get(ts.URL + "/healthz" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("/healthz%s = %s", query, raw)
		}
		return resp.StatusCode, out
	}

	_, first := healthz("")
	_, second := healthz("")
	if p.probes.Load() != 1 {
		t.Errorf("two /healthz probed power %d times, want once: the second answers the first's measurement", p.probes.Load())
	}
	if first["checked_at"] != second["checked_at"] || second["status"] != "healthy" {
		t.Errorf("/healthz checked_at %v then %v (status %v), want the same measurement", first["checked_at"], second["checked_at"], second["status"])
	}
	if at, _ := second["checked_at"].(string); at == "" {
		t.Errorf("/healthz has no checked_at: %v", second)
	} else if _, err := time.Parse(time.RFC3339, at); err != nil {
		t.Errorf("checked_at %q is not RFC 3339", at)
	}
	if age, ok := second["age_ms"].(float64); !ok || age < 0 || age >= 15000 {
		t.Errorf("age_ms = %v, want 0 up to the 15 s interval", second["age_ms"])
	}

	p.down.Store(true)
	_, stale := healthz("")
	if stale["status"] != "healthy" || p.probes.Load() != 1 {
		t.Errorf("without refresh /healthz probed (%d probes) or changed: %v", p.probes.Load(), stale["status"])
	}
	_, fresh := healthz("?refresh=true")
	if p.probes.Load() != 2 || fresh["status"] != "degraded" || !strings.Contains(fresh["detail"].(string), "power") {
		t.Errorf("/healthz?refresh=true: %d probes, status %v detail %v; want a probe finding power down", p.probes.Load(), fresh["status"], fresh["detail"])
	}
	cs := stack.Connect(t, nil)
	if _, list := listedNames(t, cs); !strings.Contains(mustJSON(t, list.Meta["unavailableAdapters"]), `"adapter_id":"power"`) {
		t.Errorf("tools/list _meta = %v, want power named as down after /healthz found it", list.Meta)
	}
	if code, bad := healthz("?refresh=maybe"); code != http.StatusBadRequest || !strings.Contains(bad["error"].(string), "refresh=true") {
		t.Errorf("/healthz?refresh=maybe = %d %v, want 400 saying what to write", code, bad)
	}

	p.down.Store(false)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "health.check", Arguments: map[string]any{"refresh": true}})
	if err != nil || res.IsError {
		t.Fatalf("health.check refresh: %v %v", res, err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; p.probes.Load() != 3 || !strings.Contains(text, `"status":"healthy"`) || !strings.Contains(text, `"age_ms"`) {
		t.Errorf("health.check {refresh: true}: %d probes, %s", p.probes.Load(), text)
	}
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "health.check", Arguments: map[string]any{"refesh": true}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, "refesh") {
		t.Errorf("health.check {refesh: true} = %v, want -32602 naming the argument", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
