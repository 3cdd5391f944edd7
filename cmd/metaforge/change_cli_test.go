package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// metaforge change lists, shows and reviews engineering changes through
// serve's REST API with the operator token (or --token), so the change's
// own rule holds there too: its proposer cannot approve it.
func TestCLIReviewsChangesThroughREST(t *testing.T) {
	dataDir, token := cliOperator(t)
	mem := twin.NewMemoryStore()
	changes := &runs.Changes{}
	svc := &runs.Service{}
	backend := &twinadapter.Backend{Store: mem, Sessions: mem, Changes: changes}
	st := mcptest.StartWithTwinConfigured(t, backend, func(o *mcpserver.Options) {
		o.Caller, o.Transport = mcpserver.CallerUntrusted, mcpserver.TransportHTTP
		o.Auth = mcpserver.Auth{Verifier: mcpserver.HS256Verifier([]byte(cliJWTSecret)), OperatorToken: token}
		o.Routes = []mcpserver.Routes{runs.ChangesHandler{Changes: changes, Runs: svc, Store: mem,
			Authority: approvals.Authority{Identify: o.Auth.Person}}}
	}, twinadapter.New(backend)...)
	// The engine needs the stack's Temporal, which exists only now.
	changes.Client, changes.Namespace, svc.Client, svc.Namespace = st.Temporal.Client, st.Temporal.Namespace, st.Temporal.Client, st.Temporal.Namespace
	srv := httptest.NewServer(st.Server.HTTPHandler())
	t.Cleanup(srv.Close)
	ctx := context.Background()

	p, err := mem.CreateProject(ctx, twin.Project{Name: "cli bracket"}, "p-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := mem.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "bracket", ItemKey: "BRK",
		Properties: map[string]any{"wall_thickness_mm": 2.0}, IdempotencyKey: "brk-1"}); err != nil {
		t.Fatal(err)
	}
	// Alice proposes over REST with her own token; it is analysed at once.
	body, _ := json.Marshal(map[string]any{"project_id": p.ID, "title": "thicker wall", "reason": "stiffer", "analyze": true,
		"patch": []any{map[string]any{"ref": "BRK@1", "set": map[string]any{"wall_thickness_mm": 3.0}}}})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/changes", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+cliJWT("alice"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var proposed workflows.ChangeState
	_ = json.NewDecoder(resp.Body).Decode(&proposed)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || proposed.Status != workflows.ChangeReadyForReview || proposed.CreatedBy != "alice" {
		t.Fatalf("POST /v1/changes: %d %+v", resp.StatusCode, proposed)
	}
	id := proposed.ChangeID

	at := []string{"--data-dir", dataDir, "--url", srv.URL}
	var out bytes.Buffer
	if err := runChange(ctx, append([]string{"list", "--project", p.ID}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), id) || !strings.Contains(out.String(), "READY_FOR_REVIEW") || !strings.Contains(out.String(), "thicker wall") {
		t.Fatalf("metaforge change list:\n%s", out.String())
	}
	out.Reset()
	if err := runChange(ctx, append([]string{"show", id}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "patch BRK@1") || !strings.Contains(out.String(), "approval level:") {
		t.Fatalf("metaforge change show:\n%s", out.String())
	}

	// Alice cannot approve her own change; the server's reason comes back.
	err = runChange(ctx, append([]string{"approve", id, "--token", cliJWT("alice")}, at...), &out)
	if err == nil || !strings.Contains(err.Error(), "self-approval refused") || !strings.Contains(err.Error(), "HTTP 409") || statusOf(err) != 2 {
		t.Fatalf("alice approving her own change: %v", err)
	}
	if err := runChange(ctx, append([]string{"reject", id}, at...), &out); err == nil || !strings.Contains(err.Error(), "--comment") {
		t.Fatalf("a rejection without a comment: %v", err)
	}
	out.Reset()
	if err := runChange(ctx, append([]string{"approve", id, "--as", "bob", "--comment", "fine"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if want := "change " + id + ": APPROVED by operator:bob"; !strings.Contains(out.String(), want) {
		t.Fatalf("metaforge change approve printed %q, want %q", out.String(), want)
	}
	out.Reset()
	if err := runChange(ctx, append([]string{"list", "--status", "approved"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), id) {
		t.Fatalf("metaforge change list --status approved:\n%s", out.String())
	}
}
