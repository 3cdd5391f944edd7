package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/flow"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/dashboard"
	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
)

// flowStack is the durable path with the twin and the flow tools in
// memory, and the pages cmd/metaforge serves beside /mcp (the dashboard's
// route table, the runs, the changes and the ledger's sessions), with
// METAFORGE_DASHBOARD_URL set to dashboardURL.
func flowStack(t *testing.T, dashboardURL string) *mcptest.Stack {
	t.Helper()
	mem := twin.NewMemoryStore()
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	backend := &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs}
	svc := &runs.Service{}
	extra := append(twinadapter.New(backend), flow.New(&flow.Service{Engine: svc, Store: mem, Facts: backend})...)
	st := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.DashboardURL = dashboardURL
		// serve tells people its own address for the Approvals page when
		// METAFORGE_DASHBOARD_URL is unset; that must not become a link base.
		o.Holds.DashboardURL = "http://127.0.0.1:8765"
		o.Routes = []mcpserver.Routes{runs.Handler{Runs: svc}, runs.ChangesHandler{Changes: &runs.Changes{}, Runs: svc}, ledger.Handler{}, dashboard.Handler{}}
	}, extra...)
	// The run service needs the stack's Temporal, which exists only now;
	// no tool has run yet.
	svc.Client, svc.Namespace, svc.Registry = st.Temporal.Client, st.Temporal.Namespace, st.Registry
	return st
}

func callOK(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s failed: %v", tool, res.Content)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res, out
}

// proposal is a flow.propose whose goal answers every question, so it
// records a version and queues its approval.
func proposal(projectID string) map[string]any {
	return map[string]any{"project_id": projectID, "flow": "mech_v1", "goal": "an aluminium_6061 wall bracket that holds a 5 kg shelf",
		"manufacturing_context": "cnc_milling", "target_maturity": "prototype", "loads_and_use": "50 N down at the free end, indoors"}
}

func TestLinksPointAtTheViewThatShowsIt(t *testing.T) {
	st := flowStack(t, "https://forge.example.com/")
	cs := st.Connect(t, nil)
	created, p := callOK(t, cs, "project.create", map[string]any{"name": "links-" + t.Name()})
	projectID := p["project_id"].(string)
	if got := linksOf(t, created); len(got) != 1 || got[0].URL != "https://forge.example.com/projects/"+projectID || !strings.Contains(got[0].Label, projectID) {
		t.Errorf("project.create links %+v, want its project's page /projects/%s", got, projectID)
	}
	if listed, _ := callOK(t, cs, "project.list", map[string]any{}); listed.Meta["links"] != nil {
		t.Errorf("project.list touches no one project, yet links %v", listed.Meta["links"])
	}

	// A twin write names its project and its node: the twin page of both.
	res, set := callOK(t, cs, "twin.record_constraint_set", map[string]any{"project_id": projectID, "name": "reqs", "constraints": []map[string]any{
		{"name": "light", "metric": "mass", "operator": "<=", "limit": 1, "unit": "kg", "verification_method": "inspection"}}})
	nodeID := set["node_id"].(string)
	want := "https://forge.example.com/twin?" + url.Values{"project": {projectID}, "node": {nodeID}}.Encode()
	if got := linksOf(t, res); len(got) != 1 || got[0].URL != want || !strings.Contains(got[0].Label, nodeID) {
		t.Errorf("twin.record_constraint_set links %+v, want %s", got, want)
	}

	var out map[string]any
	res, out = callOK(t, cs, "flow.propose", proposal(projectID))
	approvalID, _ := out["approval_id"].(string)
	if approvalID == "" {
		t.Fatalf("flow.propose queued no approval: %v", out)
	}
	links := linksOf(t, res)
	if len(links) != 1 {
		t.Fatalf("_meta.links = %+v, want one link", links)
	}
	if links[0].URL != "https://forge.example.com/approvals" || !strings.Contains(links[0].Label, approvalID) {
		t.Errorf("link = %+v, want the Approvals page naming %s", links[0], approvalID)
	}

	// A result without the id its view needs gets no link, not the bare page.
	needsInput := proposal(projectID)
	delete(needsInput, "manufacturing_context")
	delete(needsInput, "target_maturity")
	delete(needsInput, "loads_and_use")
	res, out = callOK(t, cs, "flow.propose", needsInput)
	if out["status"] != "needs_input" {
		t.Fatalf("flow.propose without a route or loads = %v, want needs_input", out)
	}
	if _, ok := res.Meta["links"]; ok {
		t.Errorf("a proposal that queued nothing links to %v", res.Meta["links"])
	}
}

type resultLink struct{ URL, Label string }

// linksOf is a result's _meta.links; nil when absent. Present but empty
// fails: links is absent rather than empty when there is nothing to say.
func linksOf(t *testing.T, res *mcp.CallToolResult) []resultLink {
	t.Helper()
	raw, ok := res.Meta["links"]
	if !ok {
		return nil
	}
	b, _ := json.Marshal(raw)
	var links []resultLink
	if err := json.Unmarshal(b, &links); err != nil || len(links) == 0 {
		t.Fatalf("_meta.links = %s: want absent or a list of links", b)
	}
	return links
}

func TestNoLinksWithoutADashboardURL(t *testing.T) {
	st := flowStack(t, "")
	cs := st.Connect(t, nil)
	_, p := callOK(t, cs, "project.create", map[string]any{"name": "nolinks-" + t.Name()})
	res, out := callOK(t, cs, "flow.propose", proposal(p["project_id"].(string)))
	if out["approval_id"] == nil {
		t.Fatalf("flow.propose queued no approval: %v", out)
	}
	if _, ok := res.Meta["links"]; ok {
		t.Errorf("METAFORGE_DASHBOARD_URL unset, yet _meta.links = %v", res.Meta["links"])
	}
	if res.Meta["callId"] == nil {
		t.Errorf("_meta = %v, want the callId still", res.Meta)
	}
	_, health := callOK(t, cs, "health.check", map[string]any{})
	if got, _ := health["dashboard_links"].(string); !strings.HasPrefix(got, "disabled (METAFORGE_DASHBOARD_URL is not set") {
		t.Errorf("health.check dashboard_links = %q, want it disabled for want of METAFORGE_DASHBOARD_URL", got)
	}
}

// TestEveryLinkedPageIsServed checks every mapping against the route
// table and the mux the server really serves: the tool exists, its route
// is a route of dashboard.Routes or a page another package serves beside
// /mcp (never invented), the page answers GET with 200, and any query the
// link carries is one the page's script reads.
func TestEveryLinkedPageIsServed(t *testing.T) {
	st := flowStack(t, "https://forge.example.com")
	web := httptest.NewServer(st.Server.HTTPHandler())
	t.Cleanup(web.Close)
	pages := mcpserver.LinkedPages()
	if len(pages) == 0 {
		t.Fatal("no tool links anywhere")
	}
	routes := map[string]dashboard.Route{}
	for _, r := range dashboard.Routes {
		routes[r.Path] = r
	}
	// The pages other packages serve beside /mcp, with the navigation bar.
	beside := map[string]bool{"/approvals": true, "/changes": true, "/runs": true, "/sessions": true, "/knowledge": true}
	get := func(path string) (int, string, string) {
		resp, err := http.Get(web.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
	}
	unchecked := map[string]bool{}
	for tool, page := range pages {
		// This stack registers the twin and flow tools; the solvers'
		// are checked against the one table every tool is declared in.
		if _, _, ok := st.Registry.Tool(tool); !ok {
			if _, declared := adapters.AnnotationsFor(tool); !declared {
				t.Errorf("%s links to %s but is no tool of this build", tool, page)
			}
		}
		u, err := url.Parse(page)
		if err != nil || u.IsAbs() || !strings.HasPrefix(u.Path, "/") {
			t.Errorf("%s links to %q, which is not a path of this server", tool, page)
			continue
		}
		route, inTable := routes[u.Path]
		if !inTable && !beside[u.Path] {
			t.Errorf("%s links to %s, which is no route of dashboard.Routes nor a page served beside /mcp", tool, u.Path)
			continue
		}
		path := strings.Replace(u.Path, "{id}", "0123456789abcdef", 1)
		code, ctype, body := get(path)
		if code != http.StatusOK || !strings.HasPrefix(ctype, "text/html") {
			t.Errorf("%s links to %s: GET %s answers %d %s, want a 200 page", tool, page, path, code, ctype)
			continue
		}
		if len(u.Query()) == 0 {
			continue
		}
		// The dashboard's pages read their query in their module; the
		// others in the page itself.
		script := body
		if inTable {
			code, _, js := get("/assets/pages/" + route.Script)
			if code == http.StatusNotFound {
				// dashboard's own test fails for a route without its module.
				if !unchecked[route.Script] {
					unchecked[route.Script] = true
					t.Logf("%s (linked with ?%s) is not in this build: the query it reads is not checked", route.Script, u.RawQuery)
				}
				continue
			}
			script = js
		}
		for key := range u.Query() {
			// currentProject (nav.js) is how a page reads ?project: it
			// also remembers it for the navigation's links.
			if key == "project" && strings.Contains(script, "currentProject()") {
				continue
			}
			if !strings.Contains(script, `"`+key+`"`) {
				t.Errorf("%s links to %s, but the page's script never reads ?%s", tool, page, key)
			}
		}
	}
}
