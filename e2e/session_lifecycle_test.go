//go:build unix

package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The Streamable HTTP session lifecycle, as the conformance suite's
// server-session-lifecycle scenario checks it (that scenario exists only
// in the suite's 0.2 line, which needs Node.js 22; this is the same
// contract, held here): initialize issues an Mcp-Session-Id, the session
// serves requests that carry it, DELETE ends it, and a request on an ended
// session is 404 so the client knows to start again.
func TestSessionLifecycle(t *testing.T) {
	ports := freePorts(t, 3)
	serve(t, ports[0], ports[1], ports[2])
	endpoint := fmt.Sprintf("http://127.0.0.1:%d/mcp", ports[2])

	post := func(session, body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}

	resp, body := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"lifecycle","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" || !strings.Contains(body, `"metaforge-mcp"`) {
		t.Fatalf("initialize: %d, Mcp-Session-Id %q, body %s", resp.StatusCode, session, body)
	}
	if resp, body := post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s, want 202", resp.StatusCode, body)
	}
	if resp, body := post(session, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"result":{}`) {
		t.Fatalf("ping in the session: %d %s", resp.StatusCode, body)
	}
	if resp, body := post("no-such-session", `{"jsonrpc":"2.0","id":3,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("ping on a session nobody started: %d %s, want 404", resp.StatusCode, body)
	}

	del, err := http.NewRequest(http.MethodDelete, endpoint, bytes.NewReader(nil))
	if err != nil {
		t.Fatal(err)
	}
	del.Header.Set("Mcp-Session-Id", session)
	del.Header.Set("MCP-Protocol-Version", "2025-06-18")
	dresp, err := http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	dresp.Body.Close()
	if dresp.StatusCode < 200 || dresp.StatusCode > 299 {
		t.Fatalf("DELETE the session: %d, want 2xx", dresp.StatusCode)
	}
	if resp, body := post(session, `{"jsonrpc":"2.0","id":4,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("ping after the session ended: %d %s, want 404", resp.StatusCode, body)
	}
}
