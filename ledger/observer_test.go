package ledger_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/ledger/pgtest"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
)

// Every call of a scripted MCP session reaches the ledger with its stamp:
// the client from the handshake, the model only where the request claimed
// one, the actor verified only for a token's subject; and each hold's
// decision with who decided and by which route.
func TestEveryCallOfASessionIsRecordedWithItsStamp(t *testing.T) {
	l := open(t, pgtest.URL(t))
	secret := []byte("ledger-test-secret")
	s := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.Observers = []mcpserver.CallObserver{ledger.Recorder{Ledger: l}}
		o.SessionID = "stdio-ledger-test" // as metaforge mcp names its one session
	}, &adaptertest.Fixture{})
	ctx := testContext(t)

	// A local session whose client can be asked: it approves one write
	// and declines the next.
	answers := []bool{true, false}
	local := s.Connect(t, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		approve := answers[0]
		answers = answers[1:]
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": approve}}, nil
	}})
	calls := []*mcp.CallToolParams{
		{Name: "fixture.echo", Arguments: map[string]any{"key": "a"}, Meta: mcp.Meta{"model": "claude-opus-5"}},
		{Name: "fixture.refuse", Arguments: map[string]any{"key": "b"}},
		{Name: "fixture.echo", Arguments: map[string]any{"wrong": 1}},
		{Name: "fixture.nonexistent", Arguments: map[string]any{}},
		{Name: "fixture.write", Arguments: map[string]any{"key": "approved"}},
		{Name: "fixture.write", Arguments: map[string]any{"key": "declined"}},
	}
	for _, c := range calls {
		_, _ = local.CallTool(ctx, c) // failures are part of the script
	}
	got, err := l.Actions(ctx, ledger.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(calls) {
		t.Fatalf("%d actions recorded, want %d: %+v", len(got), len(calls), got)
	}
	const session = "stdio-ledger-test"
	want := []struct{ tool, status, class, model string }{ // newest first
		{"fixture.write", "error", "approval_refused", ""},
		{"fixture.write", "success", "", ""},
		{"fixture.nonexistent", "error", "tool_not_found", ""},
		{"fixture.echo", "error", "invalid_params", ""},
		{"fixture.refuse", "error", "tool_execution_error", ""},
		{"fixture.echo", "success", "", "claude-opus-5"},
	}
	for i, w := range want {
		a := got[i]
		if a.ToolID != w.tool || a.Status != w.status || a.ErrorClass != w.class {
			t.Errorf("action %d = %s %s %q, want %s %s %q", i, a.ToolID, a.Status, a.ErrorClass, w.tool, w.status, w.class)
		}
		if a.Actor != mcpserver.CallerLocal || a.ActorVerified || a.Caller != mcpserver.CallerLocal {
			t.Errorf("action %d actor %q verified %v caller %q, want the unverified local caller", i, a.Actor, a.ActorVerified, a.Caller)
		}
		if a.Client == nil || a.Client.Name != "mcptest" || a.Client.Version != "1" {
			t.Errorf("action %d client %+v, want mcptest 1 from the handshake", i, a.Client)
		}
		if (w.model == "") != (a.Claimed == nil) || (a.Claimed != nil && a.Claimed.Model != w.model) {
			t.Errorf("action %d claimed %+v, want model %q", i, a.Claimed, w.model)
		}
		if a.SessionID != session {
			t.Errorf("action %d in session %q, want %q", i, a.SessionID, session)
		}
	}
	if got[0].CallID == "" || got[0].AdapterID != "fixture" {
		t.Errorf("the held call's action has call %q adapter %q", got[0].CallID, got[0].AdapterID)
	}

	decisions, err := l.Decisions(ctx, ledger.DecisionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(decisions) != 2 {
		t.Fatalf("%d decisions recorded, want 2: %+v", len(decisions), decisions)
	}
	for _, d := range decisions {
		if d.Route != "elicitation" || d.ToolID != "fixture.write" || d.ApprovalID == "" || d.SessionID != session {
			t.Errorf("decision %+v, want an elicitation decision on fixture.write in the session", d)
		}
	}
	if outcomes := []string{decisions[0].Outcome, decisions[1].Outcome}; !(outcomes[0] == "rejected" && outcomes[1] == "approved") {
		t.Errorf("decision outcomes %v, newest first, want [rejected approved]", outcomes)
	}

	// Over HTTP with a verified token, the actor is the token's subject
	// and verified.
	srv := mcpserver.New(mcpserver.Options{
		Registry: s.Registry, Engine: mcpserver.TemporalEngine{Client: s.Temporal.Client, Eager: true},
		Health: s.Health, Caller: mcpserver.CallerUntrusted, Transport: mcpserver.TransportHTTP,
		Auth:      mcpserver.Auth{Verifier: mcpserver.HS256Verifier(secret)},
		Observers: []mcpserver.CallObserver{ledger.Recorder{Ledger: l}},
	})
	ts := httptest.NewServer(srv.HTTPHandler())
	defer ts.Close()
	token := hs256(secret, `{"sub":"fidel","exp":`+strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)+`}`)
	remote, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "2.1.4"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	if _, err := remote.CallTool(ctx, &mcp.CallToolParams{Name: "fixture.echo", Arguments: map[string]any{"key": "remote"}}); err != nil {
		t.Fatal(err)
	}
	latest, err := l.Actions(ctx, ledger.ActionFilter{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a := latest[0]; a.Actor != "user:fidel" || !a.ActorVerified || a.Caller != mcpserver.CallerRemote ||
		a.Client == nil || a.Client.Name != "claude-code" || a.SessionID == "" || a.SessionID == session {
		t.Errorf("remote action %+v, want user:fidel verified, remote, claude-code, its own session", a)
	}

	sessions, err := l.Sessions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 2 || sessions[1].SessionID != session || sessions[1].AgentCode != "mcptest" || sessions[1].Actions != int64(len(calls)) ||
		sessions[0].AgentCode != "claude-code" || sessions[0].Actions != 1 {
		t.Errorf("sessions %+v, want claude-code (1 action) then mcptest (%d actions)", sessions, len(calls))
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// hs256 signs claims as the HS256 JWT the server's verifier accepts.
func hs256(secret []byte, claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	head := enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(claims))
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(head))
	return head + "." + enc(mac.Sum(nil))
}
