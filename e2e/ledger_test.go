//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/ledger/pgtest"
)

// metaforge serve with DATABASE_URL: every call of an agent's session is in
// the ledger with its stamp and in /metrics with its class; after a SIGKILL
// and a restart (migrations run again, changing nothing) the ledger still
// has them.
func TestLedgerAndMetricsThroughTheBinary(t *testing.T) {
	r := &crashRig{t: t, dataDir: filepath.Join(t.TempDir(), "data"), ports: freePorts(t, 3),
		env: []string{"DATABASE_URL=" + pgtest.URL(t)}}
	r.start()
	base := fmt.Sprintf("http://127.0.0.1:%d", r.ports[2])
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	agent, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "3.1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	budget := map[string]any{
		"rails": []map[string]any{{"name": "5V", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 1000}},
		"loads": []map[string]any{{"name": "mcu", "rail": "5V", "current_ma": 200}},
	}
	if res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: "power.check_budget", Arguments: budget, Meta: mcp.Meta{"model": "claude-opus-5"}}); err != nil || res.IsError {
		t.Fatalf("power.check_budget: %v %v", err, res)
	}
	if _, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: "power.check_budget", Arguments: map[string]any{"rails": "none"}}); err == nil {
		t.Fatal("bad arguments were accepted")
	}
	if _, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: "power.check_everything", Arguments: map[string]any{}}); err == nil {
		t.Fatal("an unknown tool was called")
	}
	_ = agent.Close()

	metrics := get(t, base+"/metrics")
	for _, series := range []string{
		`metaforge_mcp_tool_call_total{client="e2e-agent",status="success",tool_id="power.check_budget"} 1`,
		`metaforge_mcp_tool_call_total{client="e2e-agent",status="error",tool_id="power.check_budget"} 1`,
		`metaforge_mcp_error_total{client="e2e-agent",error_class="invalid_params",tool_id="power.check_budget"} 1`,
		`metaforge_mcp_error_total{client="e2e-agent",error_class="tool_not_found",tool_id="unknown"} 1`,
	} {
		if !strings.Contains(metrics, series+"\n") {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	if !strings.Contains(metrics, `metaforge_mcp_adapter_probe_total{adapter_id="power",result="reachable"}`) {
		t.Errorf("/metrics has no probe of the power adapter (health was polled at start)")
	}

	want := func(when string) {
		t.Helper()
		var out struct {
			Actions []struct {
				ToolID        string `json:"tool_id"`
				Status        string `json:"status"`
				ErrorClass    string `json:"error_class"`
				Actor         string `json:"actor"`
				ActorVerified bool   `json:"actor_verified"`
				CallID        string `json:"call_id"`
				Client        *struct {
					Name, Version string
				} `json:"client"`
				Claimed *struct{ Model string } `json:"claimed"`
			} `json:"actions"`
		}
		if err := json.Unmarshal([]byte(get(t, base+"/v1/ledger/actions")), &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Actions) != 3 {
			t.Fatalf("%s: %d actions in the ledger, want 3: %+v", when, len(out.Actions), out.Actions)
		}
		for i, w := range []struct{ tool, status, class string }{
			{"power.check_everything", "error", "tool_not_found"},
			{"power.check_budget", "error", "invalid_params"},
			{"power.check_budget", "success", ""},
		} {
			a := out.Actions[i]
			if a.ToolID != w.tool || a.Status != w.status || a.ErrorClass != w.class || a.Actor != "untrusted" || a.ActorVerified ||
				a.Client == nil || a.Client.Name != "e2e-agent" || a.Client.Version != "3.1" {
				t.Errorf("%s: action %d = %+v, want %v by the unverified untrusted caller from e2e-agent 3.1", when, i, a, w)
			}
			if (i == 2) != (a.Claimed != nil && a.Claimed.Model == "claude-opus-5") {
				t.Errorf("%s: action %d claimed %+v; only the first call claimed a model", when, i, a.Claimed)
			}
		}
		if out.Actions[2].CallID == "" {
			t.Errorf("%s: the successful call has no callId in the ledger", when)
		}
	}
	want("before the crash")

	r.kill()
	r.start()
	want("after SIGKILL and a restart")
	var health struct {
		Components map[string]struct {
			Mode      string `json:"mode"`
			Reachable bool   `json:"reachable"`
			Durable   bool   `json:"durable"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(get(t, base+"/healthz")), &health); err != nil {
		t.Fatal(err)
	}
	if l := health.Components["ledger"]; l.Mode != "postgresql" || !l.Reachable || !l.Durable {
		t.Errorf("health's ledger = %+v, want a reachable, durable postgresql", l)
	}

	// A person reads the session on the /sessions page.
	requireChromium(t)
	node := start(t, "node sessions_page.mjs", command(t, 3*time.Minute, nodePath, "sessions_page.mjs", base, "e2e-agent"))
	if code := node.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("node sessions_page.mjs exited %d:\n%s", code, tail(node.stderr.String(), 30))
	}
	var page struct {
		SessionRows int      `json:"sessionRows"`
		SessionText string   `json:"sessionText"`
		Calls       []string `json:"calls"`
		PageErrors  []string `json:"pageErrors"`
	}
	if err := json.Unmarshal([]byte(nodeStdoutLine(t, node)), &page); err != nil {
		t.Fatal(err)
	}
	if page.SessionRows != 1 || !strings.Contains(page.SessionText, "e2e-agent 3.1") || !strings.Contains(page.SessionText, "untrusted") ||
		!strings.HasSuffix(page.SessionText, "3") {
		t.Errorf("session row %q (%d rows), want one e2e-agent 3.1 session by untrusted with 3 calls", page.SessionText, page.SessionRows)
	}
	if len(page.Calls) != 3 || !strings.Contains(page.Calls[0], "error: tool_not_found") || !strings.Contains(page.Calls[2], "claude-opus-5 (claimed)") ||
		!strings.Contains(page.Calls[2], "(not verified)") {
		t.Errorf("calls on the page = %q, want the three calls newest first, the first with its claimed model", page.Calls)
	}
	if len(page.PageErrors) > 0 {
		t.Errorf("the page threw: %v", page.PageErrors)
	}
}

// get fetches url and fails the test unless it answers 200.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}
