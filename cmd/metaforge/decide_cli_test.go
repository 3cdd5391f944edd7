package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
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

const cliJWTSecret = "cli-test-secret"

func cliJWT(sub string) string {
	enc := base64.RawURLEncoding.EncodeToString
	head := enc([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims, _ := json.Marshal(map[string]any{"sub": sub, "exp": time.Now().Add(time.Hour).Unix()})
	mac := hmac.New(sha256.New, []byte(cliJWTSecret))
	mac.Write([]byte(head + "." + enc(claims)))
	return head + "." + enc(claims) + "." + enc(mac.Sum(nil))
}

// approve, reject and approvals go through the server's REST API with the
// operator token from the data dir (or --token), so the server's rules
// apply to them: the operator decides, the requester does not approve her
// own call, and the server's refusal is passed on in its words.
func TestCLIDecidesThroughREST(t *testing.T) {
	dataDir, token := cliOperator(t)
	fx := &adaptertest.Fixture{}
	st := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.Caller, o.Transport = mcpserver.CallerUntrusted, mcpserver.TransportHTTP
		o.Auth = mcpserver.Auth{Verifier: mcpserver.HS256Verifier([]byte(cliJWTSecret)), OperatorToken: token}
	}, fx)
	srv := httptest.NewServer(st.Server.HTTPHandler())
	t.Cleanup(srv.Close)
	engine := mcpserver.TemporalEngine{Client: st.Temporal.Client}
	ctx := context.Background()
	hold := func(key, requester string) string {
		t.Helper()
		id := mcpserver.NewCallID()
		in := workflows.ToolCallInput{CallID: id, ToolID: "fixture.write", AdapterID: "fixture", Arguments: json.RawMessage(`{"key":"` + key + `"}`),
			TimeoutSeconds: 30, Caller: mcpserver.CallerRemote, Requester: requester,
			Hold: &workflows.Hold{ApprovalID: id, Route: workflows.RouteDashboard, WindowSeconds: 120, Reason: "writes; held for approval (remote caller)"}}
		ask := approvals.Ask{ToolID: in.ToolID, AdapterID: "fixture", Summary: approvals.Summarize(in.Arguments), Reason: in.Hold.Reason,
			Caller: in.Caller, Route: in.Hold.Route, WindowSeconds: 120}
		if _, err := engine.StartCall(ctx, in, &ask); err != nil {
			t.Fatal(err)
		}
		return id
	}
	ran := func(key string) bool {
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if fx.Attempts(key) > 0 {
				return true
			}
			time.Sleep(50 * time.Millisecond)
		}
		return false
	}
	at := []string{"--data-dir", dataDir, "--url", srv.URL}

	id := hold("cli-1", "")
	deadline := time.Now().Add(20 * time.Second)
	var out bytes.Buffer
	for !strings.Contains(out.String(), id) && time.Now().Before(deadline) {
		out.Reset()
		if err := runApprovals(ctx, at, &out); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(out.String(), id) || !strings.Contains(out.String(), "key: cli-1") {
		t.Fatalf("metaforge approvals as the operator:\n%s\nwant %s with its arguments", out.String(), id)
	}
	out.Reset()
	if err := runDecide(ctx, "approve", append([]string{id, "--as", "ada"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if want := id + ": approved by operator:ada"; !strings.Contains(out.String(), want) {
		t.Errorf("metaforge approve printed %q, want %q", out.String(), want)
	}
	if !ran("cli-1") {
		t.Fatal("the call approved from the CLI never ran")
	}

	// Alice's own call: her token cannot approve it, and the server's
	// reason comes back; the operator's reject ends it.
	id = hold("cli-2", "alice")
	err := runDecide(ctx, "approve", append([]string{id, "--token", cliJWT("alice")}, at...), &out)
	if err == nil || !strings.Contains(err.Error(), "alice asked for this call and cannot approve it") || !strings.Contains(err.Error(), "HTTP 403") {
		t.Errorf("alice approving her own call from the CLI: %v; want the server's 403 passed on", err)
	}
	if err := runDecide(ctx, "reject", append([]string{id}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if fx.Attempts("cli-2") != 0 {
		t.Error("a call its requester tried to approve, then rejected, ran")
	}

	// What to fix, when the CLI cannot decide.
	for _, c := range []struct {
		name string
		args []string
		says []string
	}{
		{"no token file", []string{"--data-dir", t.TempDir(), "--url", srv.URL}, []string{"no operator token at", "start metaforge serve", "--data-dir"}},
		{"no server", []string{"--data-dir", dataDir, "--url", "http://127.0.0.1:1"}, []string{"no metaforge serve is reachable", "--url"}},
	} {
		err := runDecide(ctx, "approve", append([]string{"0123456789abcdef"}, c.args...), &out)
		for _, s := range c.says {
			if err == nil || !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %v; want it to say %q", c.name, err, s)
			}
		}
	}
}
