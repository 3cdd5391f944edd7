package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/metaforge/metaforge/mcpserver/stdiotest"
)

// edge is one frame a careless client sends, and the JSON-RPC error it
// must get: code, and id as the reply carries it.
type edge struct {
	name, frame string
	code        int
	id          string
}

// edgeReply checks reply is a JSON-RPC error with the edge's code and id.
func edgeReply(reply []byte, e edge) (ok bool, got string) {
	var r struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(reply, &r) != nil || r.JSONRPC != "2.0" || r.Error == nil || r.Error.Message == "" {
		return false, string(reply)
	}
	return r.Error.Code == e.code && string(r.ID) == e.id, string(reply)
}

// The ids an MCP server cannot echo: the SDK reads numbers as int64.
var badIDEdges = []edge{
	{"id 1.5", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
	{"id 2^70", `{"jsonrpc":"2.0","id":1180591620717411303424,"method":"ping"}`, -32600, "null"},
	{"id 1e3", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, -32600, "null"},
}

// Each protocol edge on /mcp is answered with its JSON-RPC code in a
// JSON-RPC body, not with plain text or code 0; an id that cannot be
// echoed is refused, not rewritten.
func TestProtocolEdgesOverMCPHTTP(t *testing.T) {
	s := realServer(t)
	ts := httptest.NewServer(s.HTTPHandler())
	defer ts.Close()
	client := &http.Client{Timeout: frameBound}

	before := []edge{
		{"a call before initialize", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, -32600, "9"},
		{"initialize with params of the wrong type", `{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`, -32602, "10"},
		{"initialize without params", `{"jsonrpc":"2.0","id":11,"method":"initialize"}`, -32602, "11"},
	}
	for _, e := range before {
		a := mcpPost(t, client, ts.URL, "", e.frame)
		if len(a.Messages) != 1 || a.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: HTTP %d %s %q, want one JSON-RPC error", e.name, a.StatusCode, a.Header.Get("Content-Type"), a.Messages)
			continue
		}
		if ok, got := edgeReply(a.Messages[0], e); !ok {
			t.Errorf("%s: answered %s, want code %d id %s", e.name, got, e.code, e.id)
		}
	}

	session := mcpPost(t, client, ts.URL, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"edges","version":"1"}}}`).Header.Get("Mcp-Session-Id")
	mcpPost(t, client, ts.URL, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	during := append([]edge{
		{"an unknown method", `{"jsonrpc":"2.0","id":7,"method":"tools/frobnicate"}`, -32601, "7"},
		{"a request without an id", `{"jsonrpc":"2.0","method":"tools/list"}`, -32600, "null"},
		{"a notification with an id", `{"jsonrpc":"2.0","id":8,"method":"notifications/initialized"}`, -32600, "8"},
		{"tools/call with params of the wrong type", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":5}}`, -32602, "12"},
		{"a second initialize", `{"jsonrpc":"2.0","id":15,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"edges","version":"1"}}}`, -32600, "15"},
		{"a batch with an unknown method", `[{"jsonrpc":"2.0","id":13,"method":"ping"},{"jsonrpc":"2.0","id":14,"method":"nope"}]`, -32601, "null"},
	}, badIDEdges...)
	for _, e := range during {
		a := mcpPost(t, client, ts.URL, session, e.frame)
		if len(a.Messages) != 1 || a.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: HTTP %d %s %q, want one JSON-RPC error", e.name, a.StatusCode, a.Header.Get("Content-Type"), a.Messages)
			continue
		}
		if ok, got := edgeReply(a.Messages[0], e); !ok {
			t.Errorf("%s: answered %s, want code %d id %s", e.name, got, e.code, e.id)
		}
	}
	if a := mcpPost(t, client, ts.URL, session, `{"jsonrpc":"2.0","method":"notifications/nobody_handles"}`); a.StatusCode != http.StatusAccepted || len(a.Messages) != 0 {
		t.Errorf("an unknown notification: HTTP %d %q, want 202 and no answer", a.StatusCode, a.Messages)
	}
	if ping := mcpPost(t, client, ts.URL, session, `{"jsonrpc":"2.0","id":"after","method":"ping"}`); answerTo(ping, "after") == nil {
		t.Error("the session does not answer ping after the edges")
	}
}

// Over stdio a call before initialize gets -32600, not code 0, and ids
// that cannot be echoed are refused, in MCP and in the legacy dialect.
func TestProtocolEdgesOverStdio(t *testing.T) {
	s := realServer(t)
	c := stdiotest.Serve(t, s)
	defer c.Close(t)
	c.Send(t, []byte(`{"jsonrpc":"2.0","id":"early","method":"tools/list"}`))
	answer, _ := c.Await(t, `"early"`, frameBound)
	if ok, got := edgeReply(answer, edge{code: -32600, id: `"early"`}); !ok {
		t.Errorf("a call before initialize: %s, want -32600", got)
	}
	edges := append(badIDEdges, edge{"legacy id 1.5", `{"jsonrpc":"2.0","id":1.5,"method":"tool/list"}`, -32600, "null"},
		edge{"legacy id 2^70", `{"jsonrpc":"2.0","id":1180591620717411303424,"method":"health/check"}`, -32600, "null"})
	for _, e := range edges {
		c.Send(t, []byte(e.frame))
		answer, _ := c.Await(t, "null", frameBound)
		if ok, got := edgeReply(answer, e); !ok {
			t.Errorf("%s: answered %s, want code %d id %s", e.name, got, e.code, e.id)
		}
	}
}

// /rpc echoes ids as sent, so an id it cannot echo exactly is refused there
// too, rather than answered under another number.
func TestBadIDsOverRPC(t *testing.T) {
	s := realServer(t)
	ts := rpcServer(t, s)
	client := &http.Client{Timeout: 30 * time.Second}
	for _, e := range []edge{
		{"id 1.5", `{"jsonrpc":"2.0","id":1.5,"method":"tool/list"}`, -32600, "null"},
		{"id 2^70", `{"jsonrpc":"2.0","id":1180591620717411303424,"method":"tool/list"}`, -32600, "null"},
	} {
		a := rpcPost(t, client, ts.URL, e.frame)
		if len(a.Messages) != 1 {
			t.Errorf("%s: HTTP %d %q", e.name, a.StatusCode, a.Messages)
			continue
		}
		if ok, got := edgeReply(a.Messages[0], e); !ok {
			t.Errorf("%s: answered %s, want code %d id %s", e.name, got, e.code, e.id)
		}
	}
}
