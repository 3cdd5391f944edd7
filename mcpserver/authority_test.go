package mcpserver_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
)

const (
	testJWTSecret     = "decisions-test-secret"
	testAPIKey        = "decisions-test-shared-key"
	testOperatorToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

// authorityRig is one Temporal with the fixture's workers and two HTTP
// servers over it, as metaforge serve would be configured: one open (no
// auth at all) and one with the API key and JWTs. Both know the operator
// token.
type authorityRig struct {
	fx     *adaptertest.Fixture
	open   string
	guard  string
	client *http.Client
}

func startAuthorityRig(t *testing.T) *authorityRig {
	t.Helper()
	fx := &adaptertest.Fixture{}
	s := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.Caller = mcpserver.CallerUntrusted
		o.Transport = mcpserver.TransportHTTP
		o.Auth = mcpserver.Auth{APIKey: testAPIKey, Verifier: mcpserver.HS256Verifier([]byte(testJWTSecret)), OperatorToken: testOperatorToken}
		o.HowToDecide = "HOW-TO-DECIDE"
	}, fx)
	guarded := httptest.NewServer(s.Server.HTTPHandler())
	t.Cleanup(guarded.Close)
	open := mcpserver.New(mcpserver.Options{Registry: s.Registry, Engine: mcpserver.TemporalEngine{Client: s.Temporal.Client},
		Health: s.Health, Caller: mcpserver.CallerUntrusted, Transport: mcpserver.TransportHTTP, Version: "test",
		Auth:  mcpserver.Auth{OperatorToken: testOperatorToken},
		Holds: mcpserver.HoldPolicy{Decider: approvals.Queue{Client: s.Temporal.Client}, QueueReachable: true}})
	openSrv := httptest.NewServer(open.HTTPHandler())
	t.Cleanup(openSrv.Close)
	return &authorityRig{fx: fx, open: openSrv.URL, guard: guarded.URL, client: &http.Client{Timeout: 30 * time.Second}}
}

func jwtFor(sub string) string {
	enc := base64.RawURLEncoding.EncodeToString
	head := enc([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims, _ := json.Marshal(map[string]any{"sub": sub, "exp": time.Now().Add(time.Hour).Unix()})
	mac := hmac.New(sha256.New, []byte(testJWTSecret))
	mac.Write([]byte(head + "." + enc(claims)))
	return head + "." + enc(claims) + "." + enc(mac.Sum(nil))
}

// headerTransport adds fixed headers to every request: a client holding a
// credential.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// heldWrite starts fixture.write over MCP from a client with headers and
// returns once the queue lists it: its approval id, and a channel with the
// call's end.
func (rig *authorityRig) heldWrite(t *testing.T, base, key string, headers map[string]string) (string, <-chan error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "authority-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: headerTransport(headers)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fixture.write", Arguments: map[string]any{"key": key}})
		if err == nil && res.IsError {
			err = io.ErrUnexpectedEOF
		}
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		list := rig.list(t, base, map[string]string{"Authorization": "Bearer " + testOperatorToken})
		for _, h := range list.Approvals {
			if strings.Contains(h.Summary, key) {
				return h.ApprovalID, done
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("fixture.write %s was never listed as held", key)
	return "", nil
}

type listAnswer struct {
	Approvals       []approvals.HeldCall `json:"approvals"`
	ArgumentsHidden bool                 `json:"arguments_hidden"`
	HowToSeeThem    string               `json:"how_to_see_them"`
}

func (rig *authorityRig) list(t *testing.T, base string, headers map[string]string) listAnswer {
	t.Helper()
	status, raw := rig.do(t, http.MethodGet, base+"/v1/approvals", headers, "")
	if status != http.StatusOK {
		t.Fatalf("GET /v1/approvals: HTTP %d %s", status, raw)
	}
	var l listAnswer
	if err := json.Unmarshal([]byte(raw), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func (rig *authorityRig) do(t *testing.T, method, url string, headers map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := rig.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

type decided struct {
	Outcome          string `json:"outcome"`
	Approver         string `json:"approver"`
	ApproverVerified bool   `json:"approver_verified"`
	Error            string `json:"error"`
}

func (rig *authorityRig) decide(t *testing.T, base, id string, headers map[string]string, body string) (int, decided) {
	t.Helper()
	status, raw := rig.do(t, http.MethodPost, base+"/v1/approvals/"+id+"/decision", headers, body)
	var d decided
	if err := json.Unmarshal([]byte(raw), &d); err != nil && status != http.StatusUnauthorized {
		t.Fatalf("POST decision %s: HTTP %d, not JSON: %s", id, status, raw)
	}
	if d.Error == "" {
		d.Error = raw
	}
	return status, d
}

// stillHeld fails unless the call is pending and never ran.
func (rig *authorityRig) stillHeld(t *testing.T, base, id, key string, done <-chan error) {
	t.Helper()
	if n := rig.fx.Attempts(key); n != 0 {
		t.Fatalf("fixture.write %s ran %d times after a refused decision", key, n)
	}
	select {
	case err := <-done:
		t.Fatalf("the held call %s ended after a refused decision: %v", id, err)
	default:
	}
	for _, h := range rig.list(t, base, map[string]string{"Authorization": "Bearer " + testOperatorToken}).Approvals {
		if h.ApprovalID == id {
			return
		}
	}
	t.Fatalf("%s is no longer pending after a refused decision", id)
}

// Nobody decides without proving who they are: no credential is 401, the
// shared API key (which identifies nobody) is 403, a name in the body
// changes nothing; the refusal says how to decide; the call never runs.
// The operator token and a verified bearer token decide, and the
// approver recorded is the proved one, not the body's.
func TestDecisionsNeedAVerifiedPerson(t *testing.T) {
	rig := startAuthorityRig(t)
	operator := map[string]string{"Authorization": "Bearer " + testOperatorToken}

	// Open server: anyone reaches it, nobody is identified.
	id, done := rig.heldWrite(t, rig.open, "open-1", nil)
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer not-the-token"}, {"X-API-Key": "anything"}} {
		status, d := rig.decide(t, rig.open, id, h, `{"decision":"approve","approver":"attacker"}`)
		if status != http.StatusUnauthorized || !strings.Contains(d.Error, "only an identified person decides") {
			t.Errorf("open server, headers %v: HTTP %d %q; want 401 saying who decides", h, status, d.Error)
		}
		rig.stillHeld(t, rig.open, id, "open-1", done)
	}
	status, d := rig.decide(t, rig.open, id, operator, `{"decision":"approve","approver":"ada"}`)
	if status != http.StatusOK || d.Approver != "operator:ada" || !d.ApproverVerified || d.Outcome != "approved" {
		t.Fatalf("the operator token: HTTP %d %+v; want approved by operator:ada, verified", status, d)
	}
	if err := <-done; err != nil || rig.fx.Attempts("open-1") != 1 {
		t.Fatalf("the operator's approval did not run the call: %v (ran %d times)", err, rig.fx.Attempts("open-1"))
	}

	// Guarded server: API key and JWTs. Alice asks.
	alice := map[string]string{"Authorization": "Bearer " + jwtFor("alice")}
	bob := map[string]string{"Authorization": "Bearer " + jwtFor("bob")}
	key := map[string]string{"X-API-Key": testAPIKey}
	id, done = rig.heldWrite(t, rig.guard, "guard-1", alice)
	for _, c := range []struct {
		name    string
		headers map[string]string
		body    string
		status  int
		says    string
	}{
		{"no credential", nil, `{"decision":"approve","approver":"attacker"}`, http.StatusUnauthorized, "unauthorized"},
		{"the API key", key, `{"decision":"approve","approver":"bob"}`, http.StatusForbidden, "HOW-TO-DECIDE"},
		{"the API key naming the operator", key, `{"decision":"approve","approver":"operator"}`, http.StatusForbidden, "identifies nobody"},
		{"a wrong operator token", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 64)}, `{"decision":"approve"}`, http.StatusUnauthorized, ""},
		{"the requester herself", alice, `{"decision":"approve","approver":"bob"}`, http.StatusForbidden, "alice asked for this call and cannot approve it"},
	} {
		status, d := rig.decide(t, rig.guard, id, c.headers, c.body)
		if status != c.status || !strings.Contains(d.Error, c.says) {
			t.Errorf("%s: HTTP %d %q; want %d saying %q", c.name, status, d.Error, c.status, c.says)
		}
		rig.stillHeld(t, rig.guard, id, "guard-1", done)
	}

	// Only a person who may decide sees the arguments.
	if l := rig.list(t, rig.guard, key); !l.ArgumentsHidden || len(l.Approvals) == 0 || l.Approvals[0].Summary != "" ||
		!strings.Contains(l.HowToSeeThem, "HOW-TO-DECIDE") {
		t.Errorf("GET /v1/approvals with the API key: %+v; want the holds without their arguments, saying how to see them", l)
	}
	for name, h := range map[string]map[string]string{"the operator": operator, "bob": bob} {
		if l := rig.list(t, rig.guard, h); l.ArgumentsHidden || len(l.Approvals) == 0 || !strings.Contains(l.Approvals[0].Summary, "guard-1") ||
			l.Approvals[0].Requester != "alice" {
			t.Errorf("GET /v1/approvals as %s: %+v; want the arguments and the requester alice", name, l)
		}
	}

	// Bob approves; the body's name does not replace his.
	status, d = rig.decide(t, rig.guard, id, bob, `{"decision":"approve","approver":"mallory","comment":"fine"}`)
	if status != http.StatusOK || d.Approver != "bob" || !d.ApproverVerified {
		t.Fatalf("bob: HTTP %d %+v; want approved by bob, verified", status, d)
	}
	if err := <-done; err != nil || rig.fx.Attempts("guard-1") != 1 {
		t.Fatalf("bob's approval did not run the call: %v", err)
	}

	// Alice may withdraw her own request.
	id, done = rig.heldWrite(t, rig.guard, "guard-2", alice)
	status, d = rig.decide(t, rig.guard, id, alice, `{"decision":"reject","comment":"asked by mistake"}`)
	if status != http.StatusOK || d.Outcome != "rejected" || d.Approver != "alice" {
		t.Fatalf("alice rejecting her own call: HTTP %d %+v; want rejected by alice", status, d)
	}
	if err := <-done; err == nil || rig.fx.Attempts("guard-2") != 0 {
		t.Fatalf("a rejected call ran or ended well: %v, ran %d times", err, rig.fx.Attempts("guard-2"))
	}

	// The legacy dialect on /rpc records its requester too: alice cannot
	// hold a write there and approve it herself on /v1.
	legacyDone := make(chan int, 1)
	go func() {
		status, _ := rig.do(t, http.MethodPost, rig.guard+"/rpc", alice,
			`{"jsonrpc":"2.0","id":"w","method":"tool/call","params":{"tool_id":"fixture.write","arguments":{"key":"guard-legacy"}}}`)
		legacyDone <- status
	}()
	id = ""
	for deadline := time.Now().Add(30 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, h := range rig.list(t, rig.guard, operator).Approvals {
			if strings.Contains(h.Summary, "guard-legacy") {
				id = h.ApprovalID
			}
		}
	}
	if id == "" {
		t.Fatal("the legacy tool/call was never held")
	}
	if status, d := rig.decide(t, rig.guard, id, alice, `{"decision":"approve"}`); status != http.StatusForbidden || rig.fx.Attempts("guard-legacy") != 0 {
		t.Errorf("alice approving her own legacy call: HTTP %d %q, ran %d times; want 403", status, d.Error, rig.fx.Attempts("guard-legacy"))
	}
	if status, d := rig.decide(t, rig.guard, id, operator, `{"decision":"reject"}`); status != http.StatusOK {
		t.Fatalf("the operator rejecting: HTTP %d %q", status, d.Error)
	}
	<-legacyDone
}
