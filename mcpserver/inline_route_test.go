package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/workflows"
)

// withHeader adds one header to every request a client sends.
type withHeader struct {
	name, value string
}

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// An HTTP client that can be asked is asked inline only when it is the
// operator's own (it presents the operator token): any other client's
// answer would be the caller approving its own write. Without the token
// its write waits in the queue, unasked, for a verified person; with it,
// the operator's yes in the client runs the write, as over stdio.
func TestOnlyTheOperatorsClientIsAskedInline(t *testing.T) {
	fx := &adaptertest.Fixture{}
	s := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.Caller = mcpserver.CallerUntrusted
		o.Transport = mcpserver.TransportHTTP
		o.Auth = mcpserver.Auth{OperatorToken: testOperatorToken}
	}, fx)
	ts := httptest.NewServer(s.Server.HTTPHandler())
	t.Cleanup(ts.Close) // after the clients' sessions, whose streams it waits for
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connect := func(header *withHeader, asked *[]string) *mcp.ClientSession {
		t.Helper()
		transport := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}
		if header != nil {
			transport.HTTPClient = &http.Client{Transport: *header}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "eliciting", Version: "1"},
			answering(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, asked)).Connect(ctx, transport, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}

	var strangerAsked []string
	stranger := connect(nil, &strangerAsked)
	done := make(chan error, 1)
	go func() { _, err := callWrite(t, stranger, "fixture.write", "stranger"); done <- err }()
	queue := approvals.Queue{Client: s.Temporal.Client}
	var held []approvals.HeldCall
	for deadline := time.Now().Add(20 * time.Second); len(held) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var err error
		if held, err = queue.List(ctx, approvals.Filter{ToolID: "fixture.write"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(held) != 1 || held[0].Route != workflows.RouteDashboard || held[0].Caller != mcpserver.CallerUntrusted {
		t.Fatalf("the untrusted client's write: holds in the queue %+v, want one on the dashboard route", held)
	}
	if len(strangerAsked) != 0 || fx.Attempts("stranger") != 0 {
		t.Errorf("the untrusted client was asked %q and the write ran %d times; want neither", strangerAsked, fx.Attempts("stranger"))
	}
	if _, err := queue.Decide(ctx, held[0].ApprovalID, workflows.Decision{Outcome: workflows.OutcomeRejected, Approver: approvals.Operator,
		ApproverVerified: true, Route: workflows.RouteDashboard}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; approvalData(t, err)["outcome"] != workflows.OutcomeRejected {
		t.Errorf("after the operator's rejection: %v", err)
	}

	var operatorAsked []string
	operator := connect(&withHeader{"Authorization", "Bearer " + testOperatorToken}, &operatorAsked)
	res, err := callWrite(t, operator, "fixture.write", "operator")
	if err != nil {
		t.Fatalf("the operator's client, asked inline and answering yes: %v", err)
	}
	a, _ := res.Meta["approval"].(map[string]any)
	if len(operatorAsked) != 1 || a["route"] != workflows.RouteElicitation || a["outcome"] != workflows.OutcomeApproved || fx.Attempts("operator") != 1 {
		t.Errorf("the operator's client: asked %q, approval %v, ran %d times; want asked once, approved inline, ran once",
			operatorAsked, a, fx.Attempts("operator"))
	}
}
