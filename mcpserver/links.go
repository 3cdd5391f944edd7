package mcpserver

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// A link is one entry of a tools/call result's _meta.links: the dashboard
// view showing what the call touched, so the person reading the answer
// can open it.
type link struct {
	URL   string `json:"url"`
	Label string `json:"label"`
}

// dashboardView is where a tool's result is shown: a page this server
// serves (a route of dashboard.Routes, or a page another package serves
// beside /mcp), and where in the result the ids the page needs are. A
// result without one of the ids it needs touched nothing the page shows
// (or nothing this page can select), and gets no link: linking the bare
// page would point at whatever happens to be selected there.
type dashboardView struct {
	// route is the page's pattern as the mux serves it: "/runs/{id}",
	// "/twin", "/approvals".
	route string
	// id fills the route's {id}, or for a page that selects nothing by
	// URL names the object its label points out; zero for none.
	id from
	// query are the page's query parameters.
	query []queryParam
	// shows says whether the result is the kind of object the page
	// draws (a CalculiX solve with a field to colour, a SPICE run with a
	// waveform); nil for any result carrying the ids.
	shows func(fields map[string]any) bool
	// label names the object, with %s for the view's first id.
	label string
}

// from is where an id is in a result: paths into its JSON object, the
// first that holds a non-empty string winning; or the call's own id.
type from struct {
	paths  []string // "run_id", "project.project_id"
	callID bool
}

func field(paths ...string) from { return from{paths: paths} }

// callID is the call's id (_meta.callId): the page reads the call's
// stored result.
var callID = from{callID: true}

type queryParam struct {
	name     string
	value    from
	optional bool
}

// value is the id in fields (or the call id), "" when absent.
func (f from) value(fields map[string]any, call string) string {
	if f.callID {
		return call
	}
	for _, p := range f.paths {
		if s, ok := lookup(fields, p).(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// lookup is the value at a dotted path into a JSON object, nil if absent.
func lookup(fields map[string]any, path string) any {
	var v any = fields
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// url is the view's path and query for a result, and the id its label
// names; ok false when the result lacks an id the view needs.
func (v dashboardView) url(fields map[string]any, call string) (string, string, bool) {
	path, named := v.route, ""
	if v.id.callID || len(v.id.paths) > 0 {
		if named = v.id.value(fields, call); named == "" {
			return "", "", false
		}
		path = strings.Replace(v.route, "{id}", url.PathEscape(named), 1)
	}
	q := url.Values{}
	for _, p := range v.query {
		val := p.value.value(fields, call)
		switch {
		case val == "" && p.optional:
			continue
		case val == "":
			return "", "", false
		}
		q.Set(p.name, val)
		if named == "" {
			named = val
		}
	}
	if v.shows != nil && !v.shows(fields) {
		return "", "", false
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return path, named, true
}

// has says whether a result holds a value (not null, not "") at every
// one of paths.
func has(paths ...string) func(map[string]any) bool {
	return func(fields map[string]any) bool {
		for _, p := range paths {
			if v := lookup(fields, p); v == nil || v == "" {
				return false
			}
		}
		return true
	}
}

// either is a or b.
func either(a, b func(map[string]any) bool) func(map[string]any) bool {
	return func(fields map[string]any) bool { return a(fields) || b(fields) }
}

var (
	runView = dashboardView{route: "/runs/{id}", id: field("run_id"),
		label: "Run %s: its phases, gates and decisions"}
	projectView = dashboardView{route: "/projects/{id}", id: field("project_id", "project.project_id"),
		label: "Project %s: its work products, history and evidence"}
	// twinView names the project and the node: /twin shows one node of
	// one project, and a result naming only one of them selects neither.
	twinView = dashboardView{route: "/twin", query: []queryParam{
		{name: "node", value: field("node_id", "node.node_id", "current.node_id")},
		{name: "project", value: field("project_id", "node.project_id", "item.project_id")}},
		label: "Node %s in the twin"}
	// simView is an FEA result drawn in 3D: the page reads the call's
	// stored result by its id; the project, when the result names one,
	// puts the page in it.
	simView = dashboardView{route: "/sim", query: []queryParam{
		{name: "result", value: callID},
		{name: "project", value: field("project_id"), optional: true}},
		// A static or thermal solve: a field to colour (a modal run's
		// result has mode shapes and no stress or temperature).
		shows: either(has("files.frd", "max_von_mises_mpa"), has("files.frd", "peak_temperature_c")),
		label: "FEA result %s in 3D"}
	circuitsView = dashboardView{route: "/circuits", query: []queryParam{{name: "result", value: callID}},
		shows: has("waveform.scale_name"),
		label: "SPICE result %s: its waveforms"}
	sessionView = dashboardView{route: "/sessions/{id}", id: field("session_id"),
		label: "Session %s: each call with its stamp"}
	// The Approvals and Changes pages select no object by URL
	// (approvals/page.html and runs/changes_page.html read no query), so
	// the link is the page and the label names the object to find there.
	approvalView = dashboardView{route: "/approvals", id: field("approval_id"),
		label: "Approval %s on the Approvals page, where a person decides it"}
	changesView = dashboardView{route: "/changes", id: field("change_id"),
		label: "Engineering change %s on the Changes page, where a person reviews it"}
)

// dashboardViews maps a tool to the view of what it touched. Every route
// is one this server serves (dashboard.Routes, or a page beside /mcp);
// links_test.go checks each against the route table and the real mux.
// project.list, project.delete and the twin's queries touch no one object
// and are not here.
var dashboardViews = map[string]dashboardView{
	"flow.start_run":             runView,
	"flow.status":                runView,
	"flow.await_gate":            runView,
	"flow.propose_gate_decision": runView,
	"flow.verify_completion":     runView,
	"flow.lifecycle":             runView,
	"flow.patch":                 runView,
	"run.start_design_flow":      runView,
	"run.get_status":             runView,
	"phase.claim":                runView,
	"phase.submit":               runView,
	"flow.propose":               approvalView,

	"project.create": projectView,
	"project.get":    projectView,
	"project.update": projectView,
	"project.open":   projectView,
	"session.start":  projectView,

	"session.log_event": sessionView,
	"session.complete":  sessionView,

	"twin.commit_geometry":             twinView,
	"twin.record_constraint_set":       twinView,
	"twin.record_evidence":             twinView,
	"twin.record_document":             twinView,
	"twin.record_load_case":            twinView,
	"twin.record_engineering_entity":   twinView,
	"twin.record_decision":             twinView,
	"twin.record_hierarchy_node":       twinView,
	"twin.record_component_selection":  twinView,
	"twin.import_work_product":         twinView,
	"twin.import_urdf":                 twinView,
	"twin.commit_system_architecture":  twinView,
	"twin.commit_compliance_checklist": twinView,
	"twin.commit_design_sketch":        twinView,
	"twin.commit_hazard_analysis":      twinView,
	"twin.commit_procurement_record":   twinView,
	"twin.commit_technical_drawing":    twinView,
	"twin.get_node":                    twinView,
	"twin.item_history":                twinView,

	"calculix.run_fea":     simView,
	"calculix.run_thermal": simView,

	"spice.run_simulation": circuitsView,

	"twin.propose_engineering_change":          changesView,
	"twin.propose_change":                      changesView,
	"twin.analyze_engineering_change":          changesView,
	"twin.approve_engineering_change":          changesView,
	"twin.reject_engineering_change":           changesView,
	"twin.commit_engineering_change":           changesView,
	"twin.execute_revalidation_plan":           changesView,
	"twin.mark_engineering_change_rolled_back": changesView,
	"twin.get_engineering_change":              changesView,
}

// LinkedPages are the pages results link to, by tool id: the route
// pattern, followed by the query parameters the link carries (each with
// an empty value), so a test can check the route against the route table
// and the parameters against what the page reads.
func LinkedPages() map[string]string {
	out := make(map[string]string, len(dashboardViews))
	for tool, v := range dashboardViews {
		p := v.route
		if len(v.query) > 0 {
			var q []string
			for _, qp := range v.query {
				q = append(q, qp.name+"=")
			}
			p += "?" + strings.Join(q, "&")
		}
		out[tool] = p
	}
	return out
}

// dashboardBase is METAFORGE_DASHBOARD_URL without its trailing slash, or
// why there is none: a base that is not an absolute http(s) URL would make
// every link wrong, so it disables them like an unset one.
func (s *Server) dashboardBase() (string, error) {
	raw := strings.TrimSpace(s.opts.DashboardURL)
	if raw == "" {
		return "", fmt.Errorf("METAFORGE_DASHBOARD_URL is not set")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("METAFORGE_DASHBOARD_URL=%q is not an absolute http(s) URL", raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

// pages are the dashboard pages this server serves beside /mcp, as
// HTTPHandler mounts them: route patterns, "/runs/{id}" included.
func (s *Server) pages() map[string]bool {
	out := map[string]bool{}
	if s.holds.Decider != nil {
		out["/approvals"] = true
	}
	for _, r := range s.opts.Routes {
		for _, p := range r.Pages() {
			out[p] = true
		}
	}
	return out
}

// linksFor are the links of a successful result of toolID (call callID),
// or nil when there is nothing to say: no base URL, no view for the tool, a
// page this server does not serve, or a result without the ids the view
// needs.
func (s *Server) linksFor(toolID, callID string, data []byte) []link {
	base, err := s.dashboardBase()
	if err != nil {
		return nil
	}
	v, ok := dashboardViews[toolID]
	if !ok || !s.pages()[v.route] || !isJSONObject(data) {
		return nil
	}
	var fields map[string]any
	if json.Unmarshal(data, &fields) != nil {
		return nil
	}
	path, id, ok := v.url(fields, callID)
	if !ok {
		return nil
	}
	return []link{{URL: base + path, Label: fmt.Sprintf(v.label, id)}}
}

// dashboardLinksStatus is health.check's dashboard_links: whether results
// link to the dashboard, and if not why, so a doctor can say so rather
// than leave the reader to conclude the tools never link.
func (s *Server) dashboardLinksStatus() string {
	base, err := s.dashboardBase()
	if err != nil {
		return fmt.Sprintf("disabled (%v)", err)
	}
	served := s.pages()
	var linked []string
	seen := map[string]bool{}
	for _, v := range dashboardViews {
		if served[v.route] && !seen[v.route] {
			seen[v.route] = true
			linked = append(linked, v.route)
		}
	}
	if len(linked) == 0 {
		return fmt.Sprintf("enabled at %s, but this server serves none of the pages results link to", base)
	}
	sort.Strings(linked)
	return fmt.Sprintf("enabled at %s (results link to %s)", base, strings.Join(linked, ", "))
}
