package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// postJSON sends one JSON-RPC frame to /mcp without any MCP handshake, as a
// legacy client does.
func postJSON(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("response %q is not JSON: %v", raw, err)
	}
	return resp.StatusCode, out
}

func TestLegacyDialectOverHTTP(t *testing.T) {
	s := theStack(t)
	ts := httptest.NewServer(s.Server.HTTPHandler())
	defer ts.Close()

	_, list := postJSON(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":"l1","method":"tool/list","params":{"capability":"power_budget"}}`)
	tools, _ := list["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["tool_id"] != "power.check_budget" || tools[0].(map[string]any)["adapter_id"] != "power" {
		t.Fatalf("tool/list by capability = %v", list)
	}

	budget, _ := json.Marshal(referenceBudget)
	status, ok := postJSON(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":"c1","method":"tool/call","params":{"tool_id":"power.check_budget","arguments":`+string(budget)+`,"timeout_seconds":30}}`)
	res, _ := ok["result"].(map[string]any)
	if status != 200 || ok["id"] != "c1" || res["status"] != "success" || res["tool_id"] != "power.check_budget" {
		t.Fatalf("tool/call = %d %v", status, ok)
	}
	if _, ok := res["duration_ms"].(float64); !ok {
		t.Errorf("tool/call result lacks duration_ms: %v", res)
	}
	rails := res["data"].(map[string]any)["rails"].([]any)
	if rails[0].(map[string]any)["load_ma"] != float64(210) {
		t.Errorf("5V load = %v, want 210", rails[0])
	}

	_, refused := postJSON(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":"c2","method":"tool/call","params":{"tool_id":"fixture.refuse","arguments":{"key":"legacy"}}}`)
	e, _ := refused["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if e["code"] != float64(-32001) || e["message"] != "Tool execution failed" || data["error_type"] != "TOOL_EXECUTION_ERROR" ||
		data["tool_id"] != "fixture.refuse" || data["details"] != `fixture refuses key "legacy"; pass another key` {
		t.Fatalf("legacy refusal = %v", refused)
	}

	_, unknown := postJSON(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":"c3","method":"tool/call","params":{"tool_id":"power.budget"}}`)
	if e := unknown["error"].(map[string]any); e["code"] != float64(-32601) {
		t.Fatalf("legacy unknown tool = %v, want -32601", unknown)
	}

	_, bad := postJSON(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":"c4","method":"tool/call","params":{"tool_id":"power.check_budget","arguments":`+string(budget)+`,"timeout_seconds":4000}}`)
	if e := bad["error"].(map[string]any); e["code"] != float64(-32602) || e["message"] != "timeout_seconds 4000 is outside 1..3600" {
		t.Fatalf("legacy bad arguments = %v, want -32602", bad)
	}

	_, h := postJSON(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":"h1","method":"health/check"}`)
	if r := h["result"].(map[string]any); r["service"] != "metaforge-mcp" || r["status"] != "healthy" {
		t.Fatalf("health/check = %v", h)
	}
	// No handshake, so no client: connected false, not an anonymous one.
	r := h["result"].(map[string]any)
	if c, _ := r["client"].(map[string]any); c["connected"] != false || c["can_elicit"] != false {
		t.Errorf("health/check client = %v", r["client"])
	}
	if a, _ := r["auth"].(map[string]any); a["mode"] != "open" {
		t.Errorf("health/check auth = %v", r["auth"])
	}

	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("/healthz = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
