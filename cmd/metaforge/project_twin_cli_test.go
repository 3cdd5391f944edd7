package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/worker"
)

// objectServe is a serve with the projects, twin and calls routes over an
// in-memory twin, the real embedded Temporal and the twin's workers (a
// project is created by project.create as a ToolCall), and the operator
// token in its data dir; at are the flags that reach it.
func objectServe(t *testing.T) (twin.Store, []string) {
	t.Helper()
	dataDir, token := cliOperator(t)
	mem := twin.NewMemoryStore()
	backend := &twinadapter.Backend{Store: mem, Sessions: mem}
	st := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.Caller, o.Transport = mcpserver.CallerUntrusted, mcpserver.TransportHTTP
		o.Auth = mcpserver.Auth{OperatorToken: token}
		svc := &runs.Service{Client: o.Engine.(mcpserver.TemporalEngine).Client, Registry: o.Registry}
		o.Routes = []mcpserver.Routes{runs.Projects{Twin: mem, Runs: svc, Authority: approvals.Authority{Identify: o.Auth.Person}},
			runs.TwinViews{Twin: mem}, runs.Calls{Runs: svc, Lookup: worker.CallLookup{Client: svc.Client},
				Authority: approvals.Authority{Identify: o.Auth.Person}}}
	}, twinadapter.New(backend)...)
	srv := httptest.NewServer(st.Server.HTTPHandler())
	t.Cleanup(srv.Close)
	return mem, []string{"--data-dir", dataDir, "--url", srv.URL}
}

// wantStatus fails unless err ends the command with exit status want.
func wantStatus(t *testing.T, what string, err error, want int, says string) {
	t.Helper()
	if err == nil || statusOf(err) != want || !strings.Contains(err.Error(), says) {
		t.Fatalf("%s: %v (exit %d), want exit %d saying %q", what, err, statusOf(err), want, says)
	}
}

// metaforge project creates (as the operator, through project.create),
// lists and shows projects; a name taken, a missing argument and a
// credential serve does not accept exit 2, a project that is not there 1.
func TestCLIProjects(t *testing.T) {
	_, at := objectServe(t)
	ctx := context.Background()
	var out bytes.Buffer
	if err := runProject(ctx, append([]string{"create", "CLI Widget", "--description", "a widget from the CLI"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "created project ") || !strings.Contains(out.String(), "(CLI Widget), call rest-") {
		t.Fatalf("project create printed %q", out.String())
	}
	id := strings.Fields(out.String())[2]
	wantStatus(t, "a second project of the same name", runProject(ctx, append([]string{"create", "cli widget"}, at...), &out), 2, "HTTP 409")
	wantStatus(t, "create without a name", runProject(ctx, append([]string{"create"}, at...), &out), 2, "usage: metaforge project")
	wantStatus(t, "create with a token serve does not accept",
		runProject(ctx, append([]string{"create", "Other", "--token", "not-a-token"}, at...), &out), 2, "only an identified person decides")
	out.Reset()
	if err := runProject(ctx, append([]string{"create", "Second", "--json"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	var created struct {
		CallID string       `json:"call_id"`
		Result twin.Project `json:"result"`
	}
	if err := json.Unmarshal(out.Bytes(), &created); err != nil || created.Result.Name != "Second" || created.CallID == "" {
		t.Fatalf("project create --json printed %s (%v)", out.String(), err)
	}

	out.Reset()
	if err := runProject(ctx, append([]string{"list"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "PROJECT") || !strings.Contains(out.String(), id) || !strings.Contains(out.String(), "CLI Widget") {
		t.Fatalf("project list:\n%s", out.String())
	}
	// The table is aligned: every row's name starts in the header's NAME column.
	col := strings.Index(lines[0], "NAME")
	for _, l := range lines[1:3] {
		if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
			t.Fatalf("project list is not aligned at column %d:\n%s", col, out.String())
		}
	}
	out.Reset()
	if err := runProject(ctx, append([]string{"list", "--json"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Count int `json:"count"`
	}
	if err := json.Unmarshal(out.Bytes(), &list); err != nil || list.Count != 2 {
		t.Fatalf("project list --json printed %s (%v)", out.String(), err)
	}
	out.Reset()
	if err := runProject(ctx, append([]string{"show", id}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "project "+id+": CLI Widget\na widget from the CLI\n0 items") {
		t.Fatalf("project show:\n%s", out.String())
	}
	wantStatus(t, "show a project that is not there", runProject(ctx, append([]string{"show", "p-nope"}, at...), &out), 1, `no project "p-nope"`)
	wantStatus(t, "an unknown verb", runProject(ctx, []string{"delete"}, &out), 2, "say create, list or show")
}

// metaforge twin shows a node by KEY, KEY@n or node id, an item's
// history and nodes by a property, as tables and as JSON.
func TestCLITwin(t *testing.T) {
	s, at := objectServe(t)
	ctx := context.Background()
	p, err := s.CreateProject(ctx, twin.Project{Name: "cli twin"}, "")
	if err != nil {
		t.Fatal(err)
	}
	first, _, err := s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "bracket", ItemKey: "BRK",
		Properties: map[string]any{"material": "steel", "wall_thickness_mm": 2.0}, IdempotencyKey: "brk-1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "bracket", ItemKey: "BRK",
		Properties: map[string]any{"material": "aluminium", "wall_thickness_mm": 3.0}, ChangeReason: "lighter", IdempotencyKey: "brk-2"}); err != nil {
		t.Fatal(err)
	}
	at = append(at, "--project", p.ID)
	var out bytes.Buffer
	if err := runTwin(ctx, append([]string{"show", "BRK"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), " BRK@2 bracket (cad_model), project "+p.ID) || !strings.Contains(out.String(), "material           aluminium") ||
		strings.Contains(out.String(), "not the current revision") {
		t.Fatalf("twin show BRK:\n%s", out.String())
	}
	out.Reset()
	if err := runTwin(ctx, append([]string{"show", "BRK@1"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "not the current revision: the head is BRK@2") || !strings.Contains(out.String(), "REVISION_OF") {
		t.Fatalf("twin show BRK@1:\n%s", out.String())
	}
	out.Reset()
	// A node id needs no project.
	if err := runTwin(ctx, append([]string{"show", first.ID, "--json"}, at[:4]...), &out); err != nil {
		t.Fatal(err)
	}
	var node runs.TwinNode
	if err := json.Unmarshal(out.Bytes(), &node); err != nil || node.ItemRef != "BRK@1" || node.HeadRef != "BRK@2" {
		t.Fatalf("twin show NODE_ID --json printed %s (%v)", out.String(), err)
	}
	wantStatus(t, "show a key that is not there", runTwin(ctx, append([]string{"show", "NOPE"}, at...), &out), 1, "NOPE")
	wantStatus(t, "show a malformed reference", runTwin(ctx, append([]string{"show", "BRK@x"}, at...), &out), 2, "HTTP 400")

	out.Reset()
	if err := runTwin(ctx, append([]string{"history", "BRK"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "BRK bracket (cad_model), head BRK@2") || !strings.Contains(out.String(), "BRK@1") ||
		!strings.Contains(out.String(), "lighter") {
		t.Fatalf("twin history:\n%s", out.String())
	}
	out.Reset()
	if err := runTwin(ctx, append([]string{"history", "BRK", "--json"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	var hist twin.ItemHistory
	if err := json.Unmarshal(out.Bytes(), &hist); err != nil || len(hist.Revisions) != 2 || !hist.Revisions[1].IsHead {
		t.Fatalf("twin history --json printed %s (%v)", out.String(), err)
	}
	wantStatus(t, "history without --project", runTwin(ctx, append([]string{"history", "BRK"}, at[:4]...), &out), 2, "usage: metaforge twin")
	wantStatus(t, "history of a key that is not there", runTwin(ctx, append([]string{"history", "NOPE"}, at...), &out), 1, "names no item")

	out.Reset()
	if err := runTwin(ctx, append([]string{"find", "wall_thickness_mm=3"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "NODE") || !strings.Contains(out.String(), "BRK@2") || strings.Contains(out.String(), "BRK@1") {
		t.Fatalf("twin find wall_thickness_mm=3 (a number, compared as one):\n%s", out.String())
	}
	out.Reset()
	if err := runTwin(ctx, append([]string{"find", "material=STEEL", "--all-revisions", "--json"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	var found struct {
		Nodes []runs.TwinFound `json:"nodes"`
	}
	if err := json.Unmarshal(out.Bytes(), &found); err != nil || len(found.Nodes) != 1 || found.Nodes[0].ItemRef != "BRK@1" {
		t.Fatalf("twin find material=STEEL --all-revisions --json printed %s (%v)", out.String(), err)
	}
	out.Reset()
	if err := runTwin(ctx, append([]string{"find", "material=titanium"}, at...), &out); err != nil || !strings.HasPrefix(out.String(), "no node has material = titanium") {
		t.Fatalf("twin find with no match: %v %q", err, out.String())
	}
	wantStatus(t, "find without KEY=VALUE", runTwin(ctx, append([]string{"find", "material"}, at...), &out), 2, "usage: metaforge twin")
	wantStatus(t, "find in a project that is not there", runTwin(ctx, append([]string{"find", "a=b", "--project", "p-nope"}, at[:4]...), &out), 1, "no project")
}
