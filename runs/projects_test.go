package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/adapters/twin/twintest"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// pagesRig is a real in-memory twin written through the twin's own tools
// (in process, no Temporal), and the dashboard pages' REST routes over it.
type pagesRig struct {
	t       *testing.T
	d       twintest.Direct
	store   *twin.MemoryStore
	srv     *httptest.Server
	project string
	n       int
}

func newPagesRig(t *testing.T, routes ...mcpserver.Routes) *pagesRig {
	t.Helper()
	mem := twin.NewMemoryStore()
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &pagesRig{t: t, d: twintest.New(t, &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs}), store: mem}
	mux := http.NewServeMux()
	for _, rt := range append([]mcpserver.Routes{runs.Projects{Twin: mem}, runs.Requirements{Twin: mem}, runs.BOM{Twin: mem}}, routes...) {
		rt.Register(mux)
	}
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	r.project = r.call("project.create", map[string]any{"name": "Bracket"})["project_id"].(string)
	return r
}

func (r *pagesRig) call(tool string, args map[string]any) map[string]any {
	r.t.Helper()
	r.n++
	if _, ok := args["project_id"]; !ok && r.project != "" && strings.HasPrefix(tool, "twin.") {
		args["project_id"] = r.project
	}
	return r.d.Call(adapters.CallInfo{CallID: fmt.Sprintf("call-%d", r.n), Caller: "local", Client: "test"}, tool, args)
}

// get fetches path and decodes its JSON answer.
func (r *pagesRig) get(path string) (int, map[string]any) {
	r.t.Helper()
	resp, err := http.Get(r.srv.URL + path)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		r.t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, out
}

// ok fetches path, which must answer 200.
func (r *pagesRig) ok(path string) map[string]any {
	r.t.Helper()
	code, out := r.get(path)
	if code != http.StatusOK {
		r.t.Fatalf("GET %s: %d %v", path, code, out)
	}
	return out
}

// refused fetches path, which must answer code with an error naming each
// of want.
func (r *pagesRig) refused(path string, code int, want ...string) {
	r.t.Helper()
	got, out := r.get(path)
	msg, _ := out["error"].(string)
	if got != code {
		r.t.Errorf("GET %s: %d %v, want %d", path, got, out, code)
		return
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			r.t.Errorf("GET %s: error %q does not say %q", path, msg, w)
		}
	}
}

// bracket records a bracket at two revisions, four requirements, and
// evidence making one pass, one fail, one stale and one no_data: the
// stale result was computed against the bracket's first revision.
func (r *pagesRig) bracket() (stale, fresh, failing string) {
	r.call("twin.record_constraint_set", map[string]any{"name": "Bracket reqs", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"},
		map[string]any{"name": "strong", "metric": "von_mises", "operator": "<=", "limit": 100, "unit": "MPa", "verification_method": "analysis"},
		map[string]any{"name": "no resonance", "metric": "first_mode", "operator": ">=", "limit": 100, "unit": "Hz", "verification_method": "test"},
		map[string]any{"name": "payload", "metric": "payload_mass", "operator": ">=", "limit": 0.5, "unit": "kg", "verification_method": "test"},
	}})
	r.call("twin.commit_geometry", map[string]any{"name": "Bracket", "step_base64": stepBase64})
	stale = r.call("twin.record_evidence", map[string]any{"name": "Modal survey", "kind": "simulation", "metric": "first_mode", "value": 140,
		"unit": "Hz", "valid_against": []any{"CAD-BRACKET@1"}})["node_id"].(string)
	r.call("twin.commit_geometry", map[string]any{"name": "Bracket", "step_base64": stepBase64, "item_key": "CAD-BRACKET@1",
		"change_reason": "thicker web"})
	fresh = r.call("twin.record_evidence", map[string]any{"name": "Tip FEA", "kind": "simulation", "metric": "tip_deflection", "value": 0.2,
		"unit": "mm", "valid_against": []any{"CAD-BRACKET@2"}})["node_id"].(string)
	failing = r.call("twin.record_evidence", map[string]any{"name": "Stress FEA", "kind": "simulation", "metric": "von_mises", "value": 150,
		"unit": "MPa", "valid_against": []any{"CAD-BRACKET@2"}})["node_id"].(string)
	return stale, fresh, failing
}

// GET /v1/projects/{id} and its item history: the work-product tree at
// KEY@head, the hierarchy nested, evidence fresh or stale; bad parameters
// 400 naming what to pass, an unknown project or item 404.
func TestProjectDetailRoutes(t *testing.T) {
	r := newPagesRig(t)
	stale, fresh, _ := r.bracket()
	root := r.call("twin.record_hierarchy_node", map[string]any{"name": "Bracket assembly", "level": "product"})
	r.call("twin.record_hierarchy_node", map[string]any{"name": "Web", "level": "part", "parent": root["item_key"]})

	d := r.ok("/v1/projects/" + r.project)
	if d["name"] != "Bracket" || d["fresh_evidence"] != 2.0 || d["stale_evidence"] != 1.0 || d["unverified_requirements"] != 3.0 {
		t.Errorf("project detail: %v", d)
	}
	// Without Temporal the counts are unknown (null), and the notes say why.
	if d["open_runs"] != nil || d["pending_approvals"] != nil || len(d["notes"].([]any)) != 2 {
		t.Errorf("counts without Temporal: open_runs %v, pending_approvals %v, notes %v", d["open_runs"], d["pending_approvals"], d["notes"])
	}
	branches := map[string]map[string]any{}
	for _, b := range d["tree"].([]any) {
		b := b.(map[string]any)
		branches[b["item_type"].(string)] = b
	}
	cad := branches["cad_model"]["items"].([]any)[0].(map[string]any)
	if cad["ref"] != "CAD-BRACKET@2" || cad["name"] != "Bracket" {
		t.Errorf("the cad_model branch: %v", cad)
	}
	if cs := branches["constraint_set"]["items"].([]any)[0].(map[string]any); cs["ref"] != "CS-BRACKET-REQS@1" {
		t.Errorf("the constraint_set branch: %v", cs)
	}
	positions := branches[twin.HierarchyNodeType]
	top := positions["items"].([]any)
	if positions["count"] != 2.0 || len(top) != 1 {
		t.Fatalf("the hierarchy branch: %v", positions)
	}
	if p := top[0].(map[string]any); p["name"] != "Bracket assembly" || p["level"] != "product" ||
		p["children"].([]any)[0].(map[string]any)["name"] != "Web" {
		t.Errorf("the hierarchy is not nested: %v", p)
	}
	ev := twintest.RowsBy(t, d["evidence"], "node_id")
	if s := ev[stale]; s["freshness"] != "stale" || s["stale_against"].([]any)[0].(map[string]any)["head"] != "CAD-BRACKET@2" ||
		s["valid_against"].([]any)[0] != "CAD-BRACKET@1" {
		t.Errorf("the stale evidence: %v", s)
	}
	if f := ev[fresh]; f["freshness"] != "fresh" || f["value"] != 0.2 || f["unit"] != "mm" || f["metric"] != "tip_deflection" {
		t.Errorf("the fresh evidence: %v", f)
	}

	h := r.ok("/v1/projects/" + r.project + "/items/CAD-BRACKET/history")
	revs := h["revisions"].([]any)
	if h["head_ref"] != "CAD-BRACKET@2" || len(revs) != 2 {
		t.Fatalf("history: %v", h)
	}
	first, second := revs[0].(map[string]any), revs[1].(map[string]any)
	if first["ref"] != "CAD-BRACKET@1" || first["is_head"] != false || len(first["evidence"].([]any)) != 1 ||
		first["evidence"].([]any)[0].(map[string]any)["node_id"] != stale {
		t.Errorf("revision 1: %v", first)
	}
	if second["ref"] != "CAD-BRACKET@2" || second["is_head"] != true || second["change_reason"] != "thicker web" || len(second["evidence"].([]any)) != 2 {
		t.Errorf("revision 2: %v", second)
	}
	if h2 := r.ok("/v1/projects/" + r.project + "/items/CAD-BRACKET@1/history"); h2["head_ref"] != "CAD-BRACKET@2" {
		t.Errorf("history by KEY@n: %v", h2)
	}

	r.refused("/v1/projects/nope", http.StatusNotFound, `no project "nope"`, "GET /v1/projects")
	r.refused("/v1/projects/nope/items/CAD-BRACKET/history", http.StatusNotFound, `no project "nope"`)
	r.refused("/v1/projects/"+r.project+"/items/CAD-NOTHING/history", http.StatusNotFound, "CAD-NOTHING names no item", "GET /v1/projects/"+r.project)
	r.refused("/v1/projects/"+r.project+"/items/CAD-BRACKET@x/history", http.StatusBadRequest, "positive number")
	r.refused("/v1/projects/"+r.project+"?view=tree", http.StatusBadRequest, "unknown parameter view", "takes no parameters")
	r.refused("/v1/projects?project="+r.project, http.StatusBadRequest, "unknown parameter project", "GET /v1/projects/{id}")

	list := r.ok("/v1/projects")
	if list["count"] != 1.0 {
		t.Fatalf("projects: %v", list)
	}
	p := list["projects"].([]any)[0].(map[string]any)
	want := map[string]any{"requirements": 4.0, "pass": 1.0, "fail": 1.0, "stale": 1.0, "no_data": 1.0}
	for k, v := range want {
		if p["requirements"].(map[string]any)[k] != v {
			t.Errorf("the glance's requirements: %v, want %v", p["requirements"], want)
			break
		}
	}
	if p["project_id"] != r.project || p["items"] != 4.0 || p["unverified_requirements"] != 3.0 {
		t.Errorf("the project's glance: %v", p)
	}
}

// GET /v1/requirements: each row's live status and the evidence behind it.
func TestRequirementsRoute(t *testing.T) {
	r := newPagesRig(t)
	r.refused("/v1/requirements", http.StatusBadRequest, "project=PROJECT_ID")
	r.refused("/v1/requirements?project=nope", http.StatusNotFound, `no project "nope"`)
	r.refused("/v1/requirements?project="+r.project+"&status=fail", http.StatusBadRequest, "unknown parameter status", "project=PROJECT_ID")
	if empty := r.ok("/v1/requirements?project=" + r.project); len(empty["requirements"].([]any)) != 0 ||
		!strings.Contains(empty["note"].(string), "twin.record_constraint_set") {
		t.Errorf("an empty matrix: %v", empty)
	}

	stale, fresh, failing := r.bracket()
	m := r.ok("/v1/requirements?project=" + r.project)
	rows := twintest.RowsBy(t, m["requirements"], "requirement")
	for name, status := range map[string]string{"stiff": "pass", "strong": "fail", "no resonance": "stale", "payload": "no_data"} {
		if rows[name]["status"] != status {
			t.Errorf("%s: %v, want %s", name, rows[name], status)
		}
	}
	if rows["stiff"]["evidence"].([]any)[0] != fresh || rows["strong"]["value"] != 150.0 || rows["strong"]["margin"] != -50.0 {
		t.Errorf("the rows' evidence: stiff %v, strong %v", rows["stiff"], rows["strong"])
	}
	ev := m["evidence"].(map[string]any)
	if len(ev) != 3 {
		t.Fatalf("the evidence behind the rows: %v", ev)
	}
	if s := ev[stale].(map[string]any); s["name"] != "Modal survey" || s["freshness"] != "stale" {
		t.Errorf("the stale row's evidence: %v", s)
	}
	if f := ev[failing].(map[string]any); f["name"] != "Stress FEA" || f["freshness"] != "fresh" || f["valid_against"].([]any)[0] != "CAD-BRACKET@2" {
		t.Errorf("the failing row's evidence: %v", f)
	}
	if m["project_name"] != "Bracket" || m["summary"].(map[string]any)["fail"] != 1.0 {
		t.Errorf("the matrix's header: %v %v", m["project_name"], m["summary"])
	}
}

// GET /v1/bom/rollup: each root's mass, cost and power, each child counted
// as many times as its parent holds it.
func TestBOMRollupRoute(t *testing.T) {
	r := newPagesRig(t)
	r.refused("/v1/bom/rollup", http.StatusBadRequest, "project=PROJECT_ID")
	r.refused("/v1/bom/rollup?project=nope", http.StatusNotFound, `no project "nope"`)
	r.refused("/v1/bom/rollup?project="+r.project+"&view=flat", http.StatusBadRequest, "unknown parameter view")
	if empty := r.ok("/v1/bom/rollup?project=" + r.project); empty["count"] != 0.0 || !strings.Contains(empty["note"].(string), "twin.record_hierarchy_node") {
		t.Errorf("no hierarchy: %v", empty)
	}

	plateCAD := r.call("twin.commit_geometry", map[string]any{"name": "Plate", "step_base64": stepBase64, "properties": map[string]any{"mass_kg": 0.25}})
	sensorCAD := r.call("twin.commit_geometry", map[string]any{"name": "Sensor body", "step_base64": stepBase64, "properties": map[string]any{"mass_kg": 0.05}})
	plateBOM := r.call("twin.record_component_selection", map[string]any{"name": "Plate stock", "mpn": "PL-1", "specs": map[string]any{"unit_cost": "$4.50"}})
	sensorBOM := r.call("twin.record_component_selection", map[string]any{"name": "Sensor", "mpn": "SN-1", "specs": map[string]any{"unit_cost": "$12.00"}})
	root := r.call("twin.record_hierarchy_node", map[string]any{"name": "Bracket assembly", "level": "product"})
	r.call("twin.record_hierarchy_node", map[string]any{"name": "Plate", "level": "part", "parent": root["item_key"], "quantity": 2,
		"realized_by": plateCAD["item_ref"], "instance_of": plateBOM["item_ref"], "power": map[string]any{"peak_w": 0.1, "average_w": 0.05, "dissipation_w": 0.05}})
	r.call("twin.record_hierarchy_node", map[string]any{"name": "Sensor", "level": "part", "parent": root["item_key"],
		"realized_by": sensorCAD["item_ref"], "instance_of": sensorBOM["item_ref"], "power": map[string]any{"peak_w": 2.5, "average_w": 1.0, "dissipation_w": 0.8}})

	out := r.ok("/v1/bom/rollup?project=" + r.project)
	if out["count"] != 1.0 {
		t.Fatalf("roll-up: %v", out)
	}
	top := out["roots"].([]any)[0].(map[string]any)
	figure := func(f any) float64 {
		v, _ := f.(map[string]any)["value"].(float64)
		return v
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	power := top["power"].(map[string]any)
	if top["name"] != "Bracket assembly" || !near(figure(top["mass_kg"]), 2*0.25+0.05) || !near(figure(top["cost_usd"]), 2*4.50+12.00) ||
		!near(figure(power["peak_w"]), 2*0.1+2.5) || !near(figure(power["average_w"]), 2*0.05+1.0) || len(top["children"].([]any)) != 2 {
		t.Errorf("the root's roll-up: %v", top)
	}
}

// GET /v1/projects with Temporal: a project's open runs and pending
// approvals are counted from the real embedded server.
func TestProjectsCountRunsAndHolds(t *testing.T) {
	h := newHarness(t)
	mux := http.NewServeMux()
	runs.Projects{Twin: h.facts.Store, Runs: h.runs, Holds: h.queue}.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	glance := func() map[string]any {
		t.Helper()
		resp, err := http.Get(srv.URL + "/v1/projects")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Projects []map[string]any `json:"projects"`
			Notes    []string         `json:"notes"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || len(out.Notes) > 0 {
			t.Fatalf("GET /v1/projects: %d %v %+v", resp.StatusCode, err, out)
		}
		for _, p := range out.Projects {
			if p["project_id"] == h.project {
				return p
			}
		}
		t.Fatalf("GET /v1/projects does not list %s: %v", h.project, out.Projects)
		return nil
	}
	if p := glance(); p["open_runs"] != 0.0 || p["pending_approvals"] != 0.0 {
		t.Fatalf("before any run or hold: %v", p)
	}
	version := h.approvedVersion("design_v1")
	h.call("flow.start_run", map[string]any{"flow_version_id": version})
	// A held write: its call waits in the queue for a person.
	callID := newID()
	m, _, _ := h.reg.Tool("twin.record_evidence")
	raw, _ := json.Marshal(map[string]any{"project_id": h.project, "name": "held", "kind": "note", "valid_against": []any{}})
	in := workflows.ToolCallInput{CallID: callID, ToolID: m.ToolID, AdapterID: m.AdapterID, Arguments: raw, TimeoutSeconds: m.TimeoutSeconds,
		Caller: "remote", SessionID: "session-1", Hold: &workflows.Hold{ApprovalID: callID, Route: workflows.RouteDashboard, WindowSeconds: 600,
			Reason: "a remote write"}}
	if _, err := (mcpserver.TemporalEngine{Client: h.temporal.Client}).StartCall(h.ctx, in,
		&approvals.Ask{ToolID: m.ToolID, AdapterID: m.AdapterID, ProjectID: h.project, Route: workflows.RouteDashboard, WindowSeconds: 600}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		p := glance()
		if p["open_runs"] == 1.0 && p["pending_approvals"] == 1.0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a run and a hold: %v", p)
		}
		time.Sleep(200 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.temporal.Client.TerminateWorkflow(ctx, workflows.CallWorkflowID(callID), "", "test over"); err != nil {
		t.Fatal(err)
	}
}
