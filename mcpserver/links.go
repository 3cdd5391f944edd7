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
// serves, and the result field naming the object the page shows. Neither
// page takes a query selecting one object (runs/page.html and
// approvals/page.html read none), so the link is the page itself and the
// label names the object to find on it; a result without the id touched
// nothing the page shows, and gets no link.
type dashboardView struct {
	page  string // a path of Server.pages
	id    string // the result's field naming the object
	label string // with %s for that id
}

var (
	runsView     = dashboardView{page: "/runs", id: "run_id", label: "Run %s on the Runs page, where its gates are decided"}
	approvalView = dashboardView{page: "/approvals", id: "approval_id", label: "Approval %s on the Approvals page, where a person decides it"}
	changesView  = dashboardView{page: "/changes", id: "change_id", label: "Engineering change %s on the Changes page, where a person reviews it"}
)

// dashboardViews maps a tool to the view of what it touched. Only pages
// served beside /mcp are listed, and links_test.go checks each against the
// real mux. /sessions is not here: it selects a session by click, not by
// URL, and no tool's result names the session it ran in.
var dashboardViews = map[string]dashboardView{
	"flow.start_run":             runsView,
	"flow.status":                runsView,
	"flow.await_gate":            runsView,
	"flow.propose_gate_decision": runsView,
	"flow.verify_completion":     runsView,
	"flow.lifecycle":             runsView,
	"flow.patch":                 runsView,
	"run.start_design_flow":      runsView,
	"run.get_status":             runsView,
	"phase.claim":                runsView,
	"phase.submit":               runsView,
	"flow.propose":               approvalView,

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

// LinkedPages are the pages results link to, by tool id. The pages' own
// packages import this one, so their test checks this against the mux.
func LinkedPages() map[string]string {
	out := make(map[string]string, len(dashboardViews))
	for tool, v := range dashboardViews {
		out[tool] = v.page
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
// HTTPHandler mounts them.
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

// linksFor are the links of a successful result of toolID, or nil when
// there is nothing to say: no base URL, no view for the tool, a page this
// server does not serve, or a result without the id the view names.
func (s *Server) linksFor(toolID string, data []byte) []link {
	base, err := s.dashboardBase()
	if err != nil {
		return nil
	}
	v, ok := dashboardViews[toolID]
	if !ok || !s.pages()[v.page] || !isJSONObject(data) {
		return nil
	}
	var fields map[string]any
	if json.Unmarshal(data, &fields) != nil {
		return nil
	}
	id, _ := fields[v.id].(string)
	if id == "" {
		return nil
	}
	return []link{{URL: base + v.page, Label: fmt.Sprintf(v.label, id)}}
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
		if served[v.page] && !seen[v.page] {
			seen[v.page] = true
			linked = append(linked, v.page)
		}
	}
	if len(linked) == 0 {
		return fmt.Sprintf("enabled at %s, but this server serves none of the pages results link to", base)
	}
	sort.Strings(linked)
	return fmt.Sprintf("enabled at %s (results link to %s)", base, strings.Join(linked, ", "))
}
