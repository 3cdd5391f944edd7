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

	"github.com/metaforge/metaforge/adapters/flow"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
)

// flowStack is the durable path with the twin and the flow tools in
// memory, and the pages cmd/metaforge serves beside /mcp (the runs and the
// ledger's sessions), with METAFORGE_DASHBOARD_URL set to dashboardURL.
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
		o.Routes = []mcpserver.Routes{runs.Handler{Runs: svc}, runs.ChangesHandler{Changes: &runs.Changes{}, Runs: svc}, ledger.Handler{}}
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
	if _, ok := created.Meta["links"]; ok {
		t.Errorf("project.create has no view, yet carries links %v", created.Meta["links"])
	}
	projectID := p["project_id"].(string)

	res, out := callOK(t, cs, "flow.propose", proposal(projectID))
	approvalID, _ := out["approval_id"].(string)
	if approvalID == "" {
		t.Fatalf("flow.propose queued no approval: %v", out)
	}
	b, _ := json.Marshal(res.Meta["links"])
	var links []struct{ URL, Label string }
	if err := json.Unmarshal(b, &links); err != nil || len(links) != 1 {
		t.Fatalf("_meta.links = %s, want one link", b)
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

// TestEveryLinkedPageIsServed checks every mapping against the mux the
// server really serves: the tool exists, its page answers GET with 200,
// and any query the link carries is one the page's script reads.
func TestEveryLinkedPageIsServed(t *testing.T) {
	st := flowStack(t, "https://forge.example.com")
	web := httptest.NewServer(st.Server.HTTPHandler())
	t.Cleanup(web.Close)
	pages := mcpserver.LinkedPages()
	if len(pages) == 0 {
		t.Fatal("no tool links anywhere")
	}
	for tool, page := range pages {
		if _, _, ok := st.Registry.Tool(tool); !ok {
			t.Errorf("%s links to %s but is no tool of this build", tool, page)
		}
		u, err := url.Parse(page)
		if err != nil || u.IsAbs() || !strings.HasPrefix(u.Path, "/") {
			t.Errorf("%s links to %q, which is not a path of this server", tool, page)
			continue
		}
		resp, err := http.Get(web.URL + page)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s links to %s: GET answers %d %s, want a 200 page", tool, page, resp.StatusCode, resp.Header.Get("Content-Type"))
			continue
		}
		for key := range u.Query() {
			if !strings.Contains(string(body), "URLSearchParams") || !strings.Contains(string(body), `"`+key+`"`) {
				t.Errorf("%s links to %s, but the page's script never reads ?%s", tool, page, key)
			}
		}
	}
}
