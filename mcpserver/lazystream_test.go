package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/workflows"
)

// rawSession speaks Streamable HTTP by hand, to see each answer's
// Content-Type as a client would.
type rawSession struct {
	t   *testing.T
	url string
	id  string
}

func (r *rawSession) post(body string) *http.Response {
	r.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, r.url, bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if r.id != "" {
		req.Header.Set("Mcp-Session-Id", r.id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	return resp
}

// A call that is not held keeps its plain JSON answer; a held call's answer
// becomes a stream when the server has something to say first.
func TestAnswerIsJSONUnlessSomethingComesFirst(t *testing.T) {
	fx := &adaptertest.Fixture{}
	s := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.Caller, o.Transport = mcpserver.CallerUntrusted, mcpserver.TransportHTTP
	}, fx)
	ts := httptest.NewServer(s.Server.HTTPHandler())
	defer ts.Close()
	r := &rawSession{t: t, url: ts.URL + "/mcp"}
	resp := r.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	resp.Body.Close()
	r.id = resp.Header.Get("Mcp-Session-Id")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || r.id == "" {
		t.Fatalf("initialize answered %s with session %q", ct, r.id)
	}
	r.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()

	resp = r.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fixture.echo","arguments":{"key":"plain"}}}`)
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !strings.HasPrefix(body.String(), `{"jsonrpc":"2.0","id":2,"result"`) {
		t.Fatalf("a read answered %s: %s", ct, body.String())
	}

	resp = r.post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fixture.write","arguments":{"key":"streamed"},"_meta":{"progressToken":"p"}}}`)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("a held call with a progress token answered %s", ct)
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	next := func() string {
		for lines.Scan() {
			if d, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				return d
			}
		}
		t.Fatalf("the stream ended: %v", lines.Err())
		return ""
	}
	if first := next(); !strings.Contains(first, `"notifications/progress"`) || !strings.Contains(first, "held for approval") {
		t.Fatalf("first event %s, want the hold's progress", first)
	}
	q := approvals.Queue{Client: s.Temporal.Client}
	deadline := time.Now().Add(15 * time.Second)
	for {
		held, err := q.List(context.Background(), approvals.Filter{ToolID: "fixture.write"})
		if err == nil && len(held) == 1 {
			if _, err := q.Decide(context.Background(), held[0].ApprovalID, workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: "Fidel", Route: workflows.RouteDashboard}); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hold was never listed: %v %v", held, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for {
		d := next()
		if strings.Contains(d, `"id":3`) {
			if !strings.Contains(d, `"approvedBy":"Fidel"`) {
				t.Errorf("result %s lacks the approval", d)
			}
			break
		}
	}
}
