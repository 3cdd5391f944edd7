//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/dashboard"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/ledger/pgtest"
)

// dashSkipEnv lists page modules (home.js, sim.js, ...) whose routes and
// links the all-routes test leaves out, comma-separated: for a branch
// that does not have them yet. Unset, every route is checked.
const dashSkipEnv = "METAFORGE_E2E_DASHBOARD_SKIP"

// dashCall is one tool call of the build and what its result carried.
type dashCall struct {
	tool   string
	callID string
	out    map[string]any
	links  []dashLink
}

type dashLink struct {
	URL   string `json:"url"`
	Label string `json:"label"`
}

// dashRig is a `metaforge serve` with METAFORGE_DASHBOARD_URL set to its
// own address and a ledger, and an MCP session to it carrying the
// operator token (a local caller, whose writes run).
type dashRig struct {
	t       *testing.T
	base    string
	dataDir string
	token   string
	cs      *mcp.ClientSession
	calls   []dashCall
}

func (r *dashRig) call(tool string, args map[string]any) map[string]any {
	r.t.Helper()
	out, err := r.callErr(tool, args)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

func (r *dashRig) callErr(tool string, args map[string]any) (map[string]any, error) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, res, err := callToolJSON(ctx, r.cs, tool, args)
	if err != nil {
		return nil, err
	}
	c := dashCall{tool: tool, out: out}
	c.callID, _ = res.Meta["callId"].(string)
	if raw, ok := res.Meta["links"]; ok {
		b, _ := json.Marshal(raw)
		if err := json.Unmarshal(b, &c.links); err != nil || len(c.links) == 0 {
			r.t.Errorf("%s: _meta.links %s: want absent or a list of links", tool, b)
		}
	}
	r.calls = append(r.calls, c)
	return out, nil
}

// last is the last call of tool.
func (r *dashRig) last(tool string) dashCall {
	for i := len(r.calls) - 1; i >= 0; i-- {
		if r.calls[i].tool == tool {
			return r.calls[i]
		}
	}
	r.t.Fatalf("no %s call", tool)
	return dashCall{}
}

// waitRun polls flow.status until the run's status is want.
func (r *dashRig) waitRun(runID, want string) map[string]any {
	r.t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		st := r.call("flow.status", map[string]any{"run_id": runID})
		if st["status"] == want {
			return st
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("run %s: want %s, is %v at %v", runID, want, st["status"], st["phase"])
		}
	}
}

// dashPage is one page the browser opens: its address, what it must show
// (each entry a list of alternatives, one of which must appear as text or
// as a data-* attribute's value), and where its screenshot goes.
type dashPage struct {
	Name   string     `json:"name"`
	Path   string     `json:"path"`
	Expect [][]string `json:"expect"`
}

// dashSeen is what the browser saw of one page.
type dashSeen struct {
	Name          string   `json:"name"`
	Path          string   `json:"path"`
	Status        int      `json:"status"`
	ConsoleErrors []string `json:"consoleErrors"`
	PageErrors    []string `json:"pageErrors"`
	Missing       []string `json:"missing"`
	Garbage       []string `json:"garbage"`
	Screenshot    string   `json:"screenshot"`
	Ms            float64  `json:"ms"`
}

// The dashboard in headless Chromium on a project built through MCP tool
// calls: a bracket with requirements and its geometry, FEA evidence from a
// real CalculiX solve of a cantilever, a design-flow run waiting at its
// requirements gate, a call held for approval, a SPICE AC analysis of an
// RC low-pass. Every route of dashboard.Routes and the pages served beside
// it loads with no console error and is screenshotted; approving the gate
// on /runs/{id} moves the page to the next phase without a reload; and
// every link a tool result carried opens a page showing that object.
func TestDashboardEveryRoute(t *testing.T) {
	requireChromium(t)
	began := time.Now()
	skip := map[string]bool{}
	for _, s := range strings.Split(os.Getenv(dashSkipEnv), ",") {
		if s = strings.TrimSpace(s); s != "" {
			skip[s] = true
		}
	}
	ports := freePorts(t, 3)
	r := &dashRig{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", ports[2]), dataDir: filepath.Join(t.TempDir(), "data")}
	cmd := command(t, 5*time.Minute, binary, "serve", "--data-dir", r.dataDir,
		"--temporal-port", strconv.Itoa(ports[0]), "--ui-port", strconv.Itoa(ports[1]),
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", ports[2]))
	// The held call waits through the whole browser run, even one slowed
	// by failing pages.
	cmd.Env = append(cmd.Env, "METAFORGE_DASHBOARD_URL="+r.base, "DATABASE_URL="+pgtest.URL(t), "METAFORGE_APPROVAL_HOLD_SECONDS=600")
	srv := start(t, "metaforge serve", cmd)
	waitHealthy(t, srv, r.base+"/healthz", 2*time.Minute)
	r.token = operatorToken(t, r.dataDir)
	r.cs = httpSessionWith(t, r.base, bearer(r.token))
	t.Logf("serve answered after %s", time.Since(began).Round(time.Millisecond))

	// The project, its run stopped at the requirements gate.
	name := fmt.Sprintf("bracket-%d", time.Now().UnixNano()%1e6)
	project := r.call("project.create", map[string]any{"name": name})["project_id"].(string)
	proposal := map[string]any{"project_id": project, "flow": "design_v1",
		"goal": "an aluminium 6061 cantilever bracket 200 mm long carrying 50 N at its tip", "manufacturing_context": "cnc_milling",
		"target_maturity": "prototype", "loads_and_use": "50 N static at the tip"}
	p := r.call("flow.propose", proposal)
	decidedApproval := p["approval_id"].(string)
	if code, body := dashPost(t, r, "/v1/approvals/"+decidedApproval+"/decision", map[string]any{"decision": "approve", "approver": "dana"}); code != http.StatusOK {
		t.Fatalf("approve the flow version: %d %s", code, body)
	}
	runID := startApprovedRun(t, r.callErr, map[string]any{"flow_version_id": p["flow_version_id"]})
	r.waitRun(runID, flows.RunWaitingForClient)
	r.call("phase.claim", map[string]any{"run_id": runID, "phase": "requirements"})
	reqs := r.call("twin.record_constraint_set", map[string]any{"project_id": project, "name": "bracket requirements", "constraints": []map[string]any{
		{"name": "stiff enough", "metric": "max_displacement", "operator": "<=", "limit": 12, "unit": "mm", "verification_method": "analysis"},
		{"name": "stress margin", "metric": "max_von_mises", "operator": "<=", "limit": 200, "unit": "MPa", "verification_method": "analysis"},
	}})
	r.call("phase.submit", map[string]any{"run_id": runID, "phase": "requirements", "summary": "requirements recorded", "recorded_ids": []string{reqs["node_id"].(string)}})
	atGate := r.waitRun(runID, flows.RunAtGate)
	gate := atGate["phases"].([]any)[int(atGate["phase_index"].(float64))].(map[string]any)["gate"].(map[string]any)["name"].(string)

	// A second version left for a person: its approval stays on /approvals.
	pendingApproval := r.call("flow.propose", proposal)["approval_id"].(string)

	// The bracket: geometry committed to the twin, meshed and solved by
	// CalculiX (200 x 20 x 5 mm aluminium, 50 N down at the free end),
	// the peak recorded as evidence against the geometry.
	beam := r.call("cadquery.create_parametric", map[string]any{"shape_type": "box", "parameters": map[string]any{"length": 200, "width": 20, "height": 5},
		"material": "aluminum_6061_t6"})
	step := r.call("cadquery.export_geometry", map[string]any{"input_file": beam["cad_file"], "output_format": "step"})
	cad := r.call("twin.commit_geometry", map[string]any{"project_id": project, "name": "bracket", "step_base64": step["step_base64"], "material": "aluminum_6061_t6"})
	mesh := r.call("gmsh.generate_mesh", map[string]any{"input_file": beam["cad_file"], "element_order": 2, "mesh_size_mm": 5})
	fixed, loaded := endFaces(t, mesh)
	fea := r.call("calculix.run_fea", map[string]any{"mesh_file": mesh["mesh_file"], "material": "aluminum_6061_t6", "fixed_node_set": fixed,
		"load_node_set": loaded, "load_force_n": 50, "load_direction": []float64{0, 0, -1}})
	feaCall := r.last("calculix.run_fea").callID
	r.call("twin.record_evidence", map[string]any{"project_id": project, "name": "tip load von Mises", "kind": "simulation", "metric": "max_von_mises",
		"value": fea["max_von_mises_mpa"], "unit": "MPa", "valid_against": []string{cad["item_ref"].(string)}, "data": map[string]any{"solver": "calculix", "call_id": feaCall}})

	// The RC low-pass, R = 1 kOhm, C = 16 nF: corner 1/(2 pi R C) = 9947 Hz.
	r.call("spice.run_simulation", map[string]any{"netlist": "RC low-pass\nV1 in 0 AC 1\nR1 in out 1k\nC1 out 0 16n\n", "analysis_type": "ac",
		"params": map[string]any{"variation": "dec", "points": 20, "fstart": 10, "fstop": 1e6}, "vectors": []string{"out"}})
	spiceCall := r.last("spice.run_simulation").callID

	// This session's narrative, and a call held for a person: an
	// unidentified client's project.create waits in the queue.
	session := r.call("session.log_event", map[string]any{"project_id": project, "kind": "action", "text": "built the bracket, solved it, ran the filter",
		"refs": []string{cad["item_ref"].(string)}})["session_id"].(string)
	untrusted := httpSessionWith(t, r.base, nil)
	heldName := name + "-held"
	held := holdCall(t, untrusted, r.base, r.token, "project.create", map[string]any{"name": heldName}, heldName)
	t.Logf("the project was built in %s", time.Since(began).Round(time.Millisecond))

	// Every route, opened at the object the build made.
	open := map[string]dashPage{
		"/{$}":           {Path: "/", Expect: [][]string{{name}}},
		"/projects/{id}": {Path: "/projects/" + project, Expect: [][]string{{name}}},
		"/requirements":  {Path: "/requirements?project=" + project, Expect: [][]string{{"stiff enough"}}},
		"/bom":           {Path: "/bom?project=" + project},
		"/twin":          {Path: "/twin?" + url.Values{"project": {project}, "node": {cad["node_id"].(string)}}.Encode(), Expect: [][]string{{cad["node_id"].(string), "bracket"}}},
		"/sim":           {Path: "/sim?" + url.Values{"project": {project}, "result": {feaCall}}.Encode(), Expect: [][]string{{feaCall}}},
		"/circuits":      {Path: "/circuits?result=" + spiceCall, Expect: [][]string{{spiceCall}}},
		"/runs/{id}":     {Path: "/runs/" + runID, Expect: [][]string{{runID}, {gate}}},
		"/releases":      {Path: "/releases?project=" + project},
		"/sessions/{id}": {Path: "/sessions/" + url.PathEscape(session), Expect: [][]string{{session}}},
	}
	// The pages served beside the route table first: the Approvals page
	// while the held call is sure to wait.
	pages := []dashPage{
		{Name: "approvals", Path: "/approvals", Expect: [][]string{{held.id}, {pendingApproval}}},
		{Name: "runs", Path: "/runs", Expect: [][]string{{runID}}},
		{Name: "changes", Path: "/changes"},
		{Name: "sessions", Path: "/sessions"},
		{Name: "knowledge", Path: "/knowledge"},
	}
	for _, route := range dashboard.Routes {
		pg, ok := open[route.Path]
		if !ok {
			t.Errorf("route %s (%s) has no entry in TestDashboardEveryRoute's table: say which object of the build it opens and what it shows", route.Path, route.Script)
			continue
		}
		if skip[route.Script] {
			t.Logf("%s: %s skipped (%s)", route.Path, route.Script, dashSkipEnv)
			continue
		}
		pg.Name = strings.Trim(strings.NewReplacer("/", "-", "{$}", "home", "{id}", "id").Replace(route.Path), "-")
		pages = append(pages, pg)
	}

	// Every link the results carried, once per address, with what the
	// page must show for its kind.
	var links []dashPage
	kinds := map[string]int{}
	seen := map[string]bool{}
	for _, c := range r.calls {
		for _, l := range c.links {
			u, err := url.Parse(l.URL)
			if err != nil || !strings.HasPrefix(l.URL, r.base+"/") {
				t.Errorf("%s links to %q, not a page of METAFORGE_DASHBOARD_URL %s", c.tool, l.URL, r.base)
				continue
			}
			kind, expect, script := dashLinkKind(t, c, u, project, name)
			if kind == "" {
				continue
			}
			kinds[kind]++
			if skip[script] {
				continue
			}
			if c.tool == "flow.propose" && c.out["approval_id"] == decidedApproval {
				// The Approvals page lists what waits; this one was decided
				// to start the run. The page still opens; its object is gone.
				expect = nil
			}
			path := strings.TrimPrefix(l.URL, r.base)
			if seen[path] {
				continue
			}
			seen[path] = true
			links = append(links, dashPage{Name: fmt.Sprintf("link-%02d-%s", len(links)+1, kind), Path: path, Expect: expect})
		}
	}
	for _, kind := range []string{"run", "project", "twin", "sim", "circuits", "session", "approval"} {
		if kinds[kind] == 0 {
			t.Errorf("no tool result of the build linked to a %s page", kind)
		}
	}

	shots := filepath.Join(t.TempDir(), "screenshots")
	if dir := os.Getenv("METAFORGE_TEST_ARTIFACTS"); dir != "" {
		shots = filepath.Join(dir, "screenshots")
	}
	plan := map[string]any{"base": r.base, "token": r.token, "pages": pages, "links": links,
		"run": map[string]any{"id": runID, "gate": gate, "phase": "requirements", "next": "concept", "approver": "dana", "skip": skip["run.js"]}}
	planFile := filepath.Join(t.TempDir(), "plan.json")
	b, _ := json.Marshal(plan)
	if err := os.WriteFile(planFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	browserStart := time.Now()
	node := command(t, 3*time.Minute, nodePath, "dashboard.mjs", planFile)
	node.Env = append(node.Env, "E2E_SCREENSHOTS="+shots)
	p2 := start(t, "node dashboard.mjs", node)
	if code := p2.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("node dashboard.mjs exited %d:\n%s", code, tail(p2.stderr.String(), 30))
	}
	var o struct {
		Pages   []dashSeen `json:"pages"`
		Links   []dashSeen `json:"links"`
		Approve struct {
			Skipped        bool           `json:"skipped"`
			Before         string         `json:"before"`
			After          string         `json:"after"`
			DecisionStatus int            `json:"decisionStatus"`
			Decision       map[string]any `json:"decision"`
			Reloaded       bool           `json:"reloaded"`
			MovedMs        float64        `json:"movedMs"`
			TemporalLink   string         `json:"temporalLink"`
			Seen           dashSeen       `json:"seen"`
		} `json:"approve"`
	}
	if err := json.Unmarshal([]byte(nodeStdoutLine(t, p2)), &o); err != nil {
		t.Fatal(err)
	}
	t.Logf("the browser took %s for %d pages and %d links; screenshots in %s", time.Since(browserStart).Round(time.Millisecond), len(o.Pages), len(o.Links), shots)

	check := func(what string, want []dashPage, got []dashSeen) {
		if len(got) != len(want) {
			t.Errorf("%s: the browser saw %d of %d", what, len(got), len(want))
		}
		for _, s := range got {
			if s.Status != http.StatusOK {
				t.Errorf("%s %s: HTTP %d", what, s.Path, s.Status)
			}
			if len(s.ConsoleErrors) > 0 || len(s.PageErrors) > 0 {
				t.Errorf("%s %s: console errors %q, page errors %q", what, s.Path, s.ConsoleErrors, s.PageErrors)
			}
			if len(s.Garbage) > 0 {
				t.Errorf("%s %s prints %q where a value was missing", what, s.Path, s.Garbage)
			}
			if len(s.Missing) > 0 {
				t.Errorf("%s %s does not show %q", what, s.Path, s.Missing)
			}
			if info, err := os.Stat(s.Screenshot); err != nil || info.Size() == 0 {
				t.Errorf("%s %s: no screenshot (%v)", what, s.Path, err)
			}
		}
	}
	check("page", pages, o.Pages)
	check("link", links, o.Links)

	// The gate approved on the run's page: the run moved on, and the page
	// showed it without a reload.
	if !skip["run.js"] {
		a := o.Approve
		if a.DecisionStatus != http.StatusOK || a.Decision["decider"] != "operator:dana" || a.Decision["decision"] != "approve" {
			t.Errorf("the decision on /runs/%s: %d %v", runID, a.DecisionStatus, a.Decision)
		}
		if a.Before != "requirements" || a.After != "concept" || a.Reloaded {
			t.Errorf("/runs/%s showed phase %q before the approval and %q after (reloaded: %v); want requirements, then concept without a reload", runID, a.Before, a.After, a.Reloaded)
		} else {
			t.Logf("the page showed the next phase %.0f ms after the click", a.MovedMs)
		}
		if !strings.HasSuffix(a.TemporalLink, "/namespaces/default/workflows/design-flow-"+runID) {
			t.Errorf("/runs/%s links to the Temporal UI at %q", runID, a.TemporalLink)
		}
		check("after the approval, page", []dashPage{{}}, []dashSeen{a.Seen})
		if st := r.waitRun(runID, flows.RunWaitingForClient); st["phase"] != "concept" {
			t.Errorf("after the page's approval the run is at %v", st["phase"])
		}
	}
	// The held call waited through it all; rejected now, it ends (and
	// its session closes at once rather than wait out the hold).
	select {
	case err := <-held.done:
		t.Errorf("the held project.create ended while it was to wait (%v)", err)
	default:
		if code, body := dashPost(t, r, "/v1/approvals/"+held.id+"/decision", map[string]any{"decision": "reject", "approver": "dana"}); code != http.StatusOK {
			t.Errorf("reject the held call: %d %s", code, body)
		}
		select {
		case <-held.done:
		case <-time.After(30 * time.Second):
			t.Errorf("the held project.create did not end within 30 s of its rejection")
		}
	}
	t.Logf("TestDashboardEveryRoute took %s", time.Since(began).Round(time.Millisecond))
}

// dashLinkKind is the kind of a link's page, what that page must show of
// the object the call touched (alternatives: its id or its name), and the
// page's module.
func dashLinkKind(t *testing.T, c dashCall, u *url.URL, project, projectName string) (string, [][]string, string) {
	t.Helper()
	str := func(k string) string { s, _ := c.out[k].(string); return s }
	q := u.Query()
	switch {
	case strings.HasPrefix(u.Path, "/runs/"):
		return "run", [][]string{{str("run_id")}}, "run.js"
	case strings.HasPrefix(u.Path, "/projects/"):
		if u.Path != "/projects/"+project {
			t.Errorf("%s links to %s, not its project %s", c.tool, u, project)
		}
		return "project", [][]string{{project, projectName}}, "project.js"
	case u.Path == "/twin":
		if q.Get("project") != project || q.Get("node") != str("node_id") {
			t.Errorf("%s links to %s, want its node %s in project %s", c.tool, u, str("node_id"), project)
		}
		return "twin", [][]string{{str("node_id"), str("name")}}, "twin.js"
	case u.Path == "/sim":
		if q.Get("result") != c.callID {
			t.Errorf("%s links to %s, want its call %s", c.tool, u, c.callID)
		}
		return "sim", [][]string{{c.callID}}, "sim.js"
	case u.Path == "/circuits":
		if q.Get("result") != c.callID {
			t.Errorf("%s links to %s, want its call %s", c.tool, u, c.callID)
		}
		return "circuits", [][]string{{c.callID}}, "circuits.js"
	case strings.HasPrefix(u.Path, "/sessions/"):
		return "session", [][]string{{str("session_id")}}, "session.js"
	case u.Path == "/approvals":
		return "approval", [][]string{{str("approval_id")}}, ""
	case u.Path == "/changes":
		return "change", [][]string{{str("change_id")}}, ""
	}
	t.Errorf("%s links to %s: a kind of page this test does not know; add it to dashLinkKind", c.tool, u)
	return "", nil, ""
}

// dashPost posts body to path as the local operator.
func dashPost(t *testing.T, r *dashRig, path string, body map[string]any) (int, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	status, out := hdRequest(t, http.MethodPost, r.base+path, map[string]string{"Authorization": "Bearer " + r.token, "Content-Type": "application/json"}, string(b))
	return status, string(out)
}
