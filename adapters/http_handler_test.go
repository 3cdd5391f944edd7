package adapters_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/protocol"
)

// sick is the fixture with its solver gone.
type sick struct{ adaptertest.Fixture }

func (*sick) Health(context.Context) (adapters.HealthStatus, error) {
	return adapters.HealthStatus{}, protocol.Unavailable("the solver is not installed")
}

// wireAnswer is what a client reads back: the HTTP status and the JSON-RPC
// answer.
type wireAnswer struct {
	status int
	header http.Header
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
		Data struct {
			ErrorType string `json:"error_type"`
			Details   string `json:"details"`
		} `json:"data"`
	} `json:"error"`
}

func post(t *testing.T, url, body string) wireAnswer {
	t.Helper()
	resp, err := http.Post(url+"/mcp", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := wireAnswer{status: resp.StatusCode, header: resp.Header}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("HTTP %d answer is not JSON: %v\n%s", resp.StatusCode, err, raw)
		}
	}
	return a
}

func (a wireAnswer) wantError(t *testing.T, status int, code protocol.Code, says string) {
	t.Helper()
	if a.status != status || a.Error == nil || a.Error.Code != int(code) || a.Error.Data.ErrorType != code.Name() ||
		!strings.Contains(a.Error.Data.Details, says) {
		t.Fatalf("HTTP %d %+v, want HTTP %d %s saying %q", a.status, a.Error, status, code.Name(), says)
	}
}

func TestHealthEndpoint(t *testing.T) {
	_, healthy := serve(t, &adaptertest.Fixture{})
	resp, err := http.Get(healthy.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	var st adapters.HealthStatus
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || st.AdapterID != "fixture" || st.Status != "healthy" || st.UptimeSeconds <= 0 {
		t.Fatalf("HTTP %d %+v %v", resp.StatusCode, st, err)
	}

	c, down := serve(t, &sick{})
	resp, err = http.Get(down.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Code int `json:"code"`
		Data struct {
			Details string `json:"details"`
		} `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable || e.Code != int(protocol.ToolUnavailable) ||
		e.Data.Details != "the solver is not installed" {
		t.Fatalf("HTTP %d %+v %v", resp.StatusCode, e, err)
	}
	// And health/check through the client says the same as in process.
	_, err = c.Health(context.Background())
	if pe := asProtocol(t, err); pe.Code != protocol.ToolUnavailable || pe.Details != "the solver is not installed" {
		t.Fatalf("client Health: %v", err)
	}
}

func TestTransportRefusals(t *testing.T) {
	_, srv := serve(t, &adaptertest.Fixture{})

	resp, err := http.Get(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Fatalf("GET /mcp: HTTP %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}

	post(t, srv.URL, `{"jsonrpc": "2.0", "id": 1, "method": `).wantError(t, http.StatusBadRequest, protocol.ParseError, "not valid JSON")

	huge := `{"jsonrpc":"2.0","id":1,"method":"tool/list"}` + strings.Repeat(" ", adapters.MaxStdioLineBytes)
	post(t, srv.URL, huge).wantError(t, http.StatusRequestEntityTooLarge, protocol.InvalidRequest, "16 MiB")

	// What the protocol refuses, it refuses as over stdio.
	post(t, srv.URL, `[1, 2]`).wantError(t, http.StatusOK, protocol.InvalidRequest, "one JSON object")
	post(t, srv.URL, `{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}`).wantError(t, http.StatusOK, protocol.MethodNotFound, "unknown method")
	post(t, srv.URL, `{"jsonrpc": "2.0", "id": 1, "method": "tool/call", "params": {"tool_id": "fixture.ech"}}`).
		wantError(t, http.StatusOK, protocol.MethodNotFound, `did you mean ["fixture.echo"`)

	// A request may span lines; a notification is accepted and not answered.
	if a := post(t, srv.URL, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 7,\n  \"method\": \"tool/list\"\n}\n"); a.status != http.StatusOK || a.Error != nil || len(a.Result) == 0 {
		t.Fatalf("multi-line request: %+v", a)
	}
	if a := post(t, srv.URL, `{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}`); a.status != http.StatusAccepted {
		t.Fatalf("notification: HTTP %d", a.status)
	}
}
