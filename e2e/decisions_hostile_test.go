//go:build unix

package e2e

// Human decisions against a real `metaforge serve`: every route that
// decides a hold, a flow version, a patch or a gate, tried by someone who
// is not an identified person (no credential, a wrong token, a name in the
// body, the shared API key) and by a JWT subject approving her own held
// write. Each attempt is refused and what it tried to decide did not
// happen; then the operator token and another person's token decide.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/internal/hostile"
)

// operatorToken reads the token serve wrote to dataDir, failing unless the
// file is readable only by its user.
func operatorToken(t *testing.T, dataDir string) string {
	t.Helper()
	path := filepath.Join(dataDir, "operator-token")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("metaforge serve wrote no operator token: %v", err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Fatalf("%s has mode %04o, want 0600", path, perm)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// bearer is the header a credential is presented in.
func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// httpSessionWith is an MCP session over Streamable HTTP to base, its
// requests carrying headers: a remote client.
func httpSessionWith(t *testing.T, base string, headers map[string]string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-hostile-decisions", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: headerRoundTripper(headers)}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect to %s/mcp: %v", base, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

type headerRoundTripper map[string]string

func (h headerRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// pendingCall is a tool call waiting in the queue, and its end.
type pendingCall struct {
	id   string
	done chan error
}

// holdCall calls tool on cs in the background and returns once base's
// queue (read as the operator) lists it with marker in its arguments.
func holdCall(t *testing.T, cs *mcp.ClientSession, base, operator, tool string, args map[string]any, marker string) pendingCall {
	t.Helper()
	p := pendingCall{done: make(chan error, 1)}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err == nil && res.IsError {
			err = fmt.Errorf("%s ended as an error", tool)
		}
		p.done <- err
	}()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		for _, h := range listHolds(t, base, "tool="+tool, bearer(operator)) {
			if strings.Contains(h.Summary, marker) {
				p.id = h.ApprovalID
				return p
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s (%s) was never held in the queue", tool, marker)
	return p
}

// notDecided is nil when id is still pending and its call has not ended.
func notDecided(t *testing.T, base, operator string, p pendingCall) error {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("the held call %s ended (%v)", p.id, err)
	default:
	}
	for _, h := range listHolds(t, base, "", bearer(operator)) {
		if h.ApprovalID == p.id {
			return nil
		}
	}
	return fmt.Errorf("%s is no longer pending", p.id)
}

// attempt is one try at deciding without the right to.
type attempt struct {
	name    string
	headers map[string]string
	body    string
}

// nobodies are the ways someone who is not an identified person tries to
// decide on a server with no auth configured.
func nobodies(decision string) []attempt {
	return []attempt{
		{"no credential", nil, `{"decision":"` + decision + `","approver":"attacker"}`},
		{"a name that is not the operator's token", nil, `{"decision":"` + decision + `","approver":"operator"}`},
		{"a made-up bearer token", bearer(strings.Repeat("f", 64)), `{"decision":"` + decision + `","approver":"attacker"}`},
		{"a made-up API key", map[string]string{"X-API-Key": "guess"}, `{"decision":"` + decision + `","approver":"attacker"}`},
	}
}

// try posts each attempt to url and counts it held when the server
// refused it (401 or 403) saying how to decide, and unchanged says nothing
// happened. (The auth middleware's own 401, on a server with an API key
// or JWTs, says "unauthorized" and how to present a credential.)
func try(t *testing.T, tl *hostile.Tally, route, url string, attempts []attempt, unchanged func() error) {
	t.Helper()
	for _, a := range attempts {
		name := route + ": " + a.name
		status, raw := hdRequest(t, http.MethodPost, url, a.headers, a.body)
		switch {
		case status != http.StatusUnauthorized && status != http.StatusForbidden:
			tl.Failed(name, "HTTP %d %s; want 401 or 403", status, raw)
		case !strings.Contains(string(raw), "decide") && !strings.Contains(string(raw), "unauthorized"):
			tl.Failed(name, "HTTP %d, but the refusal does not say how to decide: %s", status, raw)
		default:
			tl.Check(name, unchanged())
		}
	}
}

// operatorDecides posts a decision as the local operator and returns the
// answer, failing unless it is 200 and names the operator, verified.
func operatorDecides(t *testing.T, url, operator, body, nameField string) map[string]any {
	t.Helper()
	status, raw := hdRequest(t, http.MethodPost, url, bearer(operator), body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	if status != http.StatusOK || out[nameField] != "operator:e2e" || out[nameField+"_verified"] != true {
		t.Fatalf("the operator's decision %s: HTTP %d %s; want 200 by operator:e2e, verified", body, status, raw)
	}
	return out
}

// TestHostileDecisions: the attacks of issue 18 on an open serve, each
// refused with nothing decided; the operator token decides each instead.
func TestHostileDecisions(t *testing.T) {
	tl := hostile.New(t, "decisions")
	r := &crashRig{t: t, dataDir: filepath.Join(t.TempDir(), "data"), ports: freePorts(t, 3)}
	r.start()
	base := fmt.Sprintf("http://127.0.0.1:%d", r.ports[2])
	operator := operatorToken(t, r.dataDir)
	// The person at the keyboard is given the pages' link with the token,
	// and where the CLI finds it.
	if banner := r.serve.stderr.String(); !strings.Contains(banner, base+"/approvals?token="+operator) ||
		!strings.Contains(banner, filepath.Join(r.dataDir, "operator-token")) {
		t.Errorf("serve's banner lacks the approvals link with the token or the token file:\n%s", tail(ownLogs(banner), 20))
	}
	remote := httpSessionWith(t, base, nil) // an untrusted client over HTTP: its writes are held

	// Nobody but a person who may decide sees what a held call asks.
	project := hdName("hostile")
	create := holdCall(t, remote, base, operator, "project.create", map[string]any{"name": project}, project)
	status, raw := hdRequest(t, http.MethodGet, base+"/v1/approvals", nil, "")
	if status != http.StatusOK || !strings.Contains(string(raw), `"arguments_hidden":true`) || strings.Contains(string(raw), project) {
		t.Errorf("GET /v1/approvals without a credential: HTTP %d %s; want the holds without their arguments", status, raw)
	}

	// project.create, held for the untrusted client.
	projectExists := func() bool {
		for _, p := range r.call("project.list", map[string]any{})["projects"].([]any) {
			if p.(map[string]any)["name"] == project {
				return true
			}
		}
		return false
	}
	try(t, tl, "approve a held project.create", base+"/v1/approvals/"+create.id+"/decision", nobodies("approve"), func() error {
		if projectExists() {
			return fmt.Errorf("project %s was created", project)
		}
		return notDecided(t, base, operator, create)
	})
	operatorDecides(t, base+"/v1/approvals/"+create.id+"/decision", operator, `{"decision":"approve","approver":"e2e"}`, "approver")
	if err := <-create.done; err != nil || !projectExists() {
		t.Fatalf("project.create approved by the operator: %v (created: %v)", err, projectExists())
	}
	projectID := ""
	for _, p := range r.call("project.list", map[string]any{})["projects"].([]any) {
		if p.(map[string]any)["name"] == project {
			projectID = p.(map[string]any)["project_id"].(string)
		}
	}

	// A flow version's approval (the README: "an identified person
	// approves").
	p := r.call("flow.propose", map[string]any{"project_id": projectID, "flow": "mech_v1",
		"goal":                  "an aluminium 6061 bracket carrying 200 N with under 0.5 mm deflection and a safety factor of at least 2",
		"manufacturing_context": "cnc_milling", "target_maturity": "prototype", "loads_and_use": "200 N tip load"})
	version, approval := p["flow_version_id"].(string), p["approval_id"].(string)
	try(t, tl, "approve a flow version", base+"/v1/approvals/"+approval+"/decision", nobodies("approve"), func() error {
		if _, err := r.callErr("flow.start_run", map[string]any{"flow_version_id": version}); err == nil {
			return fmt.Errorf("a run of version %s started", version)
		}
		return notDecided(t, base, operator, pendingCall{id: approval, done: make(chan error, 1)})
	})
	operatorDecides(t, base+"/v1/approvals/"+approval+"/decision", operator, `{"decision":"approve","approver":"e2e"}`, "approver")
	runID := startApprovedRun(t, r.callErr, map[string]any{"flow_version_id": version})
	r.waitStatus(runID, flows.RunWaitingForClient)
	runIs := func(want string) func() error {
		return func() error {
			if st := r.call("flow.status", map[string]any{"run_id": runID}); st["status"] != want || st["phase"] != "requirements" {
				return fmt.Errorf("run %s is %v at %v, was %s at requirements", runID, st["status"], st["phase"], want)
			}
			return nil
		}
	}

	// phase.claim and phase.submit, held for the untrusted client.
	claim := holdCall(t, remote, base, operator, "phase.claim", map[string]any{"run_id": runID, "phase": "requirements"}, runID)
	try(t, tl, "approve a held phase.claim", base+"/v1/approvals/"+claim.id+"/decision", nobodies("approve"), func() error {
		if err := runIs(flows.RunWaitingForClient)(); err != nil {
			return err
		}
		return notDecided(t, base, operator, claim)
	})
	operatorDecides(t, base+"/v1/approvals/"+claim.id+"/decision", operator, `{"decision":"reject","approver":"e2e"}`, "approver")
	r.call("phase.claim", map[string]any{"run_id": runID, "phase": "requirements"})
	submit := holdCall(t, remote, base, operator, "phase.submit", map[string]any{"run_id": runID, "phase": "requirements",
		"summary": "hostile", "recorded_ids": []string{}}, runID)
	try(t, tl, "approve a held phase.submit", base+"/v1/approvals/"+submit.id+"/decision", nobodies("approve"), func() error {
		if st := r.call("flow.status", map[string]any{"run_id": runID}); st["status"] == flows.RunAtGate {
			return fmt.Errorf("run %s reached its gate", runID)
		}
		return notDecided(t, base, operator, submit)
	})
	operatorDecides(t, base+"/v1/approvals/"+submit.id+"/decision", operator, `{"decision":"reject","approver":"e2e"}`, "approver")
	r.call("phase.submit", map[string]any{"run_id": runID, "phase": "requirements", "summary": "done", "recorded_ids": []string{}})
	st := r.waitStatus(runID, flows.RunAtGate)
	gate := st["phases"].([]any)[int(st["phase_index"].(float64))].(map[string]any)["gate"].(map[string]any)["name"].(string)

	// The gate: "reject" by attacker ended the run on main.
	gateURL := fmt.Sprintf("%s/v1/runs/%s/gates/%s/decision", base, runID, urlPath(gate))
	try(t, tl, "reject a gate", gateURL, nobodies("reject"), runIs(flows.RunAtGate))
	try(t, tl, "approve a gate", gateURL, nobodies("approve"), runIs(flows.RunAtGate))

	// flow.patch, always held for an identified person, even for a local
	// caller.
	patch := holdCall(t, r.session, base, operator, "flow.patch", map[string]any{"run_id": runID,
		"patch": map[string]any{"phase": "concept", "brief": "hostile brief", "reason": "hostile"}}, "hostile brief")
	try(t, tl, "approve a held flow.patch", base+"/v1/approvals/"+patch.id+"/decision", nobodies("approve"), func() error {
		if err := runIs(flows.RunAtGate)(); err != nil {
			return err
		}
		return notDecided(t, base, operator, patch)
	})
	operatorDecides(t, base+"/v1/approvals/"+patch.id+"/decision", operator, `{"decision":"reject","approver":"e2e"}`, "approver")
	if err := <-patch.done; err == nil {
		t.Error("a flow.patch the operator rejected ended well")
	}

	// The operator token decides a gate.
	operatorDecides(t, gateURL, operator, `{"decision":"reject","approver":"e2e","comment":"hostile test done"}`, "decider")
	r.waitStatus(runID, flows.RunRejected)
}

// TestHostileDecisionsWithIdentities: with METAFORGE_MCP_JWT_SECRET and
// METAFORGE_MCP_API_KEY, the shared key decides nothing and a token's
// subject cannot approve her own held write; another person's token can.
func TestHostileDecisionsWithIdentities(t *testing.T) {
	tl := hostile.New(t, "decisions, with identities")
	const secret, apiKey = "e2e-hostile-decisions-secret", "e2e-hostile-decisions-key"
	ports := freePorts(t, 2)
	srv := hdServe(t, filepath.Join(t.TempDir(), "data"), ports[0], ports[1],
		"METAFORGE_MCP_JWT_SECRET="+secret, "METAFORGE_MCP_API_KEY="+apiKey)
	operator := operatorToken(t, srv.dataDir)
	alice, bob := bearer(hdJWT(secret, "alice", time.Now().Add(time.Hour))), bearer(hdJWT(secret, "bob", time.Now().Add(time.Hour)))
	key := map[string]string{"X-API-Key": apiKey}
	asAlice, asBob := httpSessionWith(t, srv.base, alice), httpSessionWith(t, srv.base, bob)

	project := hdName("alice-own")
	create := holdCall(t, asAlice, srv.base, operator, "project.create", map[string]any{"name": project}, project)
	status, raw := hdRequest(t, http.MethodGet, srv.base+"/v1/approvals", key, "")
	if status != http.StatusOK || !strings.Contains(string(raw), `"arguments_hidden":true`) || strings.Contains(string(raw), project) {
		t.Errorf("GET /v1/approvals with the shared API key: HTTP %d %s; want the holds without their arguments", status, raw)
	}
	projectExists := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := asBob.CallTool(ctx, &mcp.CallToolParams{Name: "project.list", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("project.list: %v", err)
		}
		return strings.Contains(res.Content[0].(*mcp.TextContent).Text, project)
	}
	unchanged := func() error {
		if projectExists() {
			return fmt.Errorf("project %s was created", project)
		}
		return notDecided(t, srv.base, operator, create)
	}
	url := srv.base + "/v1/approvals/" + create.id + "/decision"
	try(t, tl, "approve alice's project.create", url, []attempt{
		{"no credential", nil, `{"decision":"approve","approver":"bob"}`},
		{"the shared API key", key, `{"decision":"approve","approver":"bob"}`},
		{"the shared API key naming the operator", key, `{"decision":"approve","approver":"operator"}`},
	}, unchanged)
	// Alice herself: refused, and the refusal says why.
	name := "approve alice's project.create: alice's own token"
	status, raw = hdRequest(t, http.MethodPost, url, alice, `{"decision":"approve","approver":"bob"}`)
	switch {
	case status != http.StatusForbidden || !strings.Contains(string(raw), "alice asked for this call and cannot approve it"):
		tl.Failed(name, "HTTP %d %s; want 403 saying the requester cannot approve her own call", status, raw)
	default:
		tl.Check(name, unchanged())
	}

	// Bob, another identified person, approves; the name in the body
	// does not replace his.
	status, raw = hdRequest(t, http.MethodPost, url, bob, `{"decision":"approve","approver":"alice"}`)
	var d hdDecision
	_ = json.Unmarshal(raw, &d)
	if status != http.StatusOK || d.Approver != "bob" || !d.ApproverVerified {
		t.Fatalf("bob approving alice's call: HTTP %d %s; want 200 by bob, verified", status, raw)
	}
	if err := <-create.done; err != nil || !projectExists() {
		t.Fatalf("alice's project.create approved by bob: %v", err)
	}

	// The flow version alice proposes waits for someone else too: its
	// approval records her as its requester.
	var projectID string
	for _, p := range callJSON(t, asBob, "project.list", map[string]any{})["projects"].([]any) {
		if p.(map[string]any)["name"] == project {
			projectID = p.(map[string]any)["project_id"].(string)
		}
	}
	proposal := callJSON(t, asAlice, "flow.propose", map[string]any{"project_id": projectID, "flow": "mech_v1",
		"goal":                  "an aluminium 6061 bracket carrying 200 N with under 0.5 mm deflection and a safety factor of at least 2",
		"manufacturing_context": "cnc_milling", "target_maturity": "prototype", "loads_and_use": "200 N tip load"})
	version, approval := proposal["flow_version_id"].(string), proposal["approval_id"].(string)
	name = "approve alice's flow version: alice's own token"
	status, raw = hdRequest(t, http.MethodPost, srv.base+"/v1/approvals/"+approval+"/decision", alice, `{"decision":"approve"}`)
	switch {
	case status != http.StatusForbidden || !strings.Contains(string(raw), "alice asked for this call and cannot approve it"):
		tl.Failed(name, "HTTP %d %s; want 403 saying the requester cannot approve her own call", status, raw)
	default:
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := asAlice.CallTool(ctx, &mcp.CallToolParams{Name: "flow.start_run", Arguments: map[string]any{"flow_version_id": version}})
		cancel()
		if err == nil && !res.IsError {
			tl.Failed(name, "a run of version %s started", version)
		} else {
			tl.Check(name, notDecided(t, srv.base, operator, pendingCall{id: approval, done: make(chan error, 1)}))
		}
	}
	status, raw = hdRequest(t, http.MethodPost, srv.base+"/v1/approvals/"+approval+"/decision", bob, `{"decision":"approve"}`)
	if status != http.StatusOK || !strings.Contains(string(raw), `"approver":"bob"`) {
		t.Fatalf("bob approving alice's flow version: HTTP %d %s", status, raw)
	}
}

// callJSON calls a tool that must run at once and returns its result.
func callJSON(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, _, err := callToolJSON(ctx, cs, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
