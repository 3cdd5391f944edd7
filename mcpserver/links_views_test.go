package mcpserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/dashboard"
)

// besidePages serves the pages other packages serve beside /mcp, as
// cmd/metaforge mounts them (runs, changes).
type besidePages []string

func (besidePages) Register(*http.ServeMux) {}
func (b besidePages) Pages() []string       { return b }

// Each kind of link, from results as the tools write them: the deep page
// of the object with the ids it needs, and no link at all when an id is
// missing or the result is not the kind of object the page draws.
func TestEachViewLinksItsObjectOrNothing(t *testing.T) {
	s := &Server{opts: Options{DashboardURL: "https://forge.example.com/mf/",
		Routes: []Routes{dashboard.Handler{}, besidePages{"/runs", "/changes"}}}}
	const call = "7a619373979b4216"
	for _, c := range []struct {
		tool, result string
		want         string // "" for no link
		label        string // a part of the label
	}{
		{"flow.start_run", `{"run_id":"0123456789abcdef","project_id":"p-1"}`, "https://forge.example.com/mf/runs/0123456789abcdef", "Run 0123456789abcdef"},
		{"phase.submit", `{"run_id":"0123456789abcdef","phase":"requirements"}`, "https://forge.example.com/mf/runs/0123456789abcdef", "Run 0123456789abcdef"},
		{"flow.status", `{"status":"running"}`, "", ""},
		{"project.create", `{"project_id":"p 1/x","name":"bracket"}`, "https://forge.example.com/mf/projects/p%201%2Fx", "Project p 1/x"},
		{"project.open", `{"project":{"project_id":"p-1","name":"bracket"},"brief":{}}`, "https://forge.example.com/mf/projects/p-1", "Project p-1"},
		{"project.list", `{"projects":[{"project_id":"p-1"}],"count":1}`, "", ""},
		{"project.delete", `{"deleted":true,"project_id":"p-1"}`, "", ""},
		{"twin.commit_geometry", `{"node_id":"n-7","project_id":"p-1","item_ref":"CAD-BRACKET@1"}`, "https://forge.example.com/mf/twin?node=n-7&project=p-1", "Node n-7"},
		{"twin.get_node", `{"node":{"node_id":"n-7","project_id":"p-1"},"related":[]}`, "https://forge.example.com/mf/twin?node=n-7&project=p-1", "Node n-7"},
		{"twin.item_history", `{"item":{"key":"CAD-BRACKET","project_id":"p-1"},"current":{"node_id":"n-9"}}`, "https://forge.example.com/mf/twin?node=n-9&project=p-1", "Node n-9"},
		{"twin.record_evidence", `{"node_id":"n-7"}`, "", ""},
		{"twin.record_evidence", `{"project_id":"p-1"}`, "", ""},
		{"calculix.run_fea", `{"max_von_mises_mpa":120.1,"files":{"frd":"/w/fea.frd","deck":"/w/fea.inp"}}`, "https://forge.example.com/mf/sim?result=" + call, "FEA result " + call},
		{"calculix.run_thermal", `{"peak_temperature_c":81.5,"project_id":"p-1","files":{"frd":"/w/t.frd"}}`, "https://forge.example.com/mf/sim?project=p-1&result=" + call, "FEA result " + call},
		{"calculix.run_fea", `{"frequencies_hz":[101.2],"files":{"frd":"/w/fea.frd"}}`, "", ""},
		{"calculix.run_fea", `{"max_von_mises_mpa":120.1,"files":{}}`, "", ""},
		{"calculix.check_mesh_convergence", `{"status":"converged"}`, "", ""},
		{"spice.run_simulation", `{"analysis":"ac","waveform":{"scale_name":"frequency","scale":[1,10],"vectors":{}}}`, "https://forge.example.com/mf/circuits?result=" + call, "SPICE result " + call},
		{"spice.run_simulation", `{"analysis":"op","vectors":[{"name":"v(out)"}]}`, "", ""},
		{"session.log_event", `{"session_id":"s-42","project_id":"p-1","event_id":"e-1"}`, "https://forge.example.com/mf/sessions/s-42", "Session s-42"},
		{"session.complete", `{"session_id":"","project_id":"p-1"}`, "", ""},
		{"twin.get_engineering_change", `{"change_id":"ec-3"}`, "https://forge.example.com/mf/changes", "change ec-3"},
		{"twin.get_engineering_change", `{"state":"open"}`, "", ""},
		{"health.check", `{"status":"ok"}`, "", ""},
	} {
		links := s.linksFor(c.tool, call, []byte(c.result))
		switch {
		case c.want == "" && links != nil:
			t.Errorf("%s %s: links %+v, want none", c.tool, c.result, links)
		case c.want == "":
		case len(links) != 1 || links[0].URL != c.want || !strings.Contains(links[0].Label, c.label):
			t.Errorf("%s %s: links %+v, want one to %s labelled with %q", c.tool, c.result, links, c.want, c.label)
		}
	}

	// A page this server does not serve is never linked: /approvals
	// exists only where holds are decided.
	if got := s.linksFor("flow.propose", call, []byte(`{"approval_id":"a-1"}`)); got != nil {
		t.Errorf("flow.propose on a server without the Approvals page links %+v", got)
	}
	// No links at all without a base URL; absent, not empty, in _meta.
	off := &Server{opts: Options{Routes: s.opts.Routes}}
	if got := off.linksFor("flow.start_run", call, []byte(`{"run_id":"0123456789abcdef"}`)); got != nil {
		t.Errorf("without METAFORGE_DASHBOARD_URL: links %+v", got)
	}
	b, _ := json.Marshal(off.linksFor("flow.start_run", call, nil))
	if string(b) != "null" {
		t.Errorf("no links marshal as %s", b)
	}
}

// Every view's route is a route of dashboard.Routes or one of the pages
// served beside /mcp: the route is never invented.
func TestEveryViewRouteIsInTheRouteTable(t *testing.T) {
	table := map[string]bool{}
	for _, r := range dashboard.Routes {
		table[r.Path] = true
	}
	beside := map[string]bool{"/approvals": true, "/changes": true}
	for tool, v := range dashboardViews {
		if !table[v.route] && !beside[v.route] {
			t.Errorf("%s links to %s, which is not in dashboard.Routes", tool, v.route)
		}
	}
}
