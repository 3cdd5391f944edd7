//go:build unix

package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/ledger/pgtest"
)

// The dashboard's project pages in headless Chromium against a real
// metaforge serve (with a ledger), on a project an agent built through MCP
// tool calls: a bracket at two revisions with a stale and two fresh
// results, four requirements (pass, fail, stale, no_data), a product
// hierarchy whose roll-up the test computes by hand, a design-flow run
// under way and a remote client's write held for approval. Each page
// loads with no console error, shows those objects, keeps its state in the
// address, and is written as a screenshot.
func TestDashboardProjectPages(t *testing.T) {
	began := time.Now()
	mark := func(what string) { t.Logf("%s at %s", what, time.Since(began).Round(time.Millisecond)) }
	// serve and the agent's metaforge mcp record into one ledger.
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	r := startPageRig(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", r.ports[2])
	mark("serve up")

	name := fmt.Sprintf("Pages bracket %d", time.Now().UnixNano()%1_000_000)
	project := r.call("project.create", map[string]any{"name": name})["project_id"].(string)
	tw := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		args["project_id"] = project
		return r.call(tool, args)
	}
	step := base64.StdEncoding.EncodeToString([]byte("ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n"))
	tw("twin.record_constraint_set", map[string]any{"name": "Bracket reqs", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"},
		map[string]any{"name": "strong", "metric": "von_mises", "operator": "<=", "limit": 100, "unit": "MPa", "verification_method": "analysis"},
		map[string]any{"name": "no resonance", "metric": "first_mode", "operator": ">=", "limit": 100, "unit": "Hz", "verification_method": "test"},
		map[string]any{"name": "payload", "metric": "payload_mass", "operator": ">=", "limit": 0.5, "unit": "kg", "verification_method": "test"},
	}})
	tw("twin.commit_geometry", map[string]any{"name": "Bracket", "step_base64": step})
	tw("twin.record_evidence", map[string]any{"name": "Modal survey", "kind": "simulation", "metric": "first_mode", "value": 140, "unit": "Hz",
		"valid_against": []any{"CAD-BRACKET@1"}})
	tw("twin.commit_geometry", map[string]any{"name": "Bracket", "step_base64": step, "item_key": "CAD-BRACKET@1", "change_reason": "thicker web"})
	tw("twin.record_evidence", map[string]any{"name": "Tip FEA", "kind": "simulation", "metric": "tip_deflection", "value": 0.2, "unit": "mm",
		"valid_against": []any{"CAD-BRACKET@2"}})
	tw("twin.record_evidence", map[string]any{"name": "Stress FEA", "kind": "simulation", "metric": "von_mises", "value": 150, "unit": "MPa",
		"valid_against": []any{"CAD-BRACKET@2"}})

	// The hierarchy: two plates and a sensor, each with its mass, cost and power.
	const plateKg, sensorKg, plateUSD, sensorUSD, platePeakW, sensorPeakW = 0.25, 0.05, 4.5, 12.0, 0.1, 2.5
	plateCAD := tw("twin.commit_geometry", map[string]any{"name": "Plate", "step_base64": step, "properties": map[string]any{"mass_kg": plateKg}})
	sensorCAD := tw("twin.commit_geometry", map[string]any{"name": "Sensor body", "step_base64": step, "properties": map[string]any{"mass_kg": sensorKg}})
	plateBOM := tw("twin.record_component_selection", map[string]any{"name": "Plate stock", "mpn": "PL-1", "specs": map[string]any{"unit_cost": "$4.50"}})
	sensorBOM := tw("twin.record_component_selection", map[string]any{"name": "Tilt sensor", "mpn": "SN-1", "specs": map[string]any{"unit_cost": "$12.00"}})
	root := tw("twin.record_hierarchy_node", map[string]any{"name": "Bracket assembly", "level": "product"})
	tw("twin.record_hierarchy_node", map[string]any{"name": "Plate", "level": "part", "parent": root["item_key"], "quantity": 2,
		"realized_by": plateCAD["item_ref"], "instance_of": plateBOM["item_ref"], "power": map[string]any{"peak_w": platePeakW}})
	tw("twin.record_hierarchy_node", map[string]any{"name": "Sensor", "level": "part", "parent": root["item_key"],
		"realized_by": sensorCAD["item_ref"], "instance_of": sensorBOM["item_ref"], "power": map[string]any{"peak_w": sensorPeakW}})
	wantMass, wantCost, wantPeak := 2*plateKg+sensorKg, 2*plateUSD+sensorUSD, 2*platePeakW+sensorPeakW
	mark("project built")

	// A design-flow run under way.
	p := tw("flow.propose", map[string]any{"flow": "design_v1", "goal": "an aluminium 6061 bracket under 1 kg carrying 100 N",
		"manufacturing_context": "cnc_milling", "target_maturity": "prototype", "loads_and_use": "100 N"})
	if code, body := r.rest("/v1/approvals/"+p["approval_id"].(string)+"/decision", map[string]any{"decision": "approve", "approver": "dana"}); code != http.StatusOK {
		t.Fatalf("approve the flow version: %d %s", code, body)
	}
	startApprovedRun(t, r.callErr, map[string]any{"flow_version_id": p["flow_version_id"]})
	// A remote client's write, held until a person decides it.
	ctx, cancel := context.WithCancel(context.Background())
	remote, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-pages-remote", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	defer func() {
		cancel() // the held call ends here, unanswered, before its session closes
		_ = remote.Close()
		mark("remote client closed")
	}()
	go func() {
		_, _ = remote.CallTool(ctx, &mcp.CallToolParams{Name: "project.update", Arguments: map[string]any{"project_id": project, "description": "held"}})
	}()
	var glance struct {
		Projects []struct {
			ID               string `json:"project_id"`
			OpenRuns         *int   `json:"open_runs"`
			PendingApprovals *int   `json:"pending_approvals"`
		} `json:"projects"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		if code := r.get("/v1/projects", &glance); code != http.StatusOK {
			t.Fatalf("GET /v1/projects: %d", code)
		}
		ready := false
		for _, g := range glance.Projects {
			ready = ready || g.ID == project && g.OpenRuns != nil && *g.OpenRuns == 1 && g.PendingApprovals != nil && *g.PendingApprovals == 1
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /v1/projects never counted the run and the hold: %+v", glance.Projects)
		}
	}
	var sessions struct {
		Sessions []struct {
			ID        string `json:"session_id"`
			AgentCode string `json:"agent_code"`
		} `json:"sessions"`
	}
	if code := r.get("/v1/ledger/sessions", &sessions); code != http.StatusOK {
		t.Fatalf("GET /v1/ledger/sessions: %d", code)
	}
	var session string
	for _, s := range sessions.Sessions {
		if s.AgentCode == "metaforge-e2e-crash" {
			session = s.ID
		}
	}
	if session == "" {
		t.Fatalf("the agent's session is not in the ledger: %+v", sessions.Sessions)
	}
	mark("run, hold and session ready")

	var o struct {
		ConsoleErrors []string `json:"consoleErrors"`
		PageErrors    []string `json:"pageErrors"`
		Screenshots   []string `json:"screenshots"`
		Home          struct {
			Name, OpenRuns, PendingApprovals, Unverified, FilteredAddress, FilterKept string
			Links                                                                     []string
		} `json:"home"`
		Project struct {
			Title, CadRef, Address, HistoryAfterReload string
			Positions, HistoryRefs                     []string
			Evidence                                   map[string]string
		} `json:"project"`
		Picker       string `json:"picker"`
		Requirements struct {
			Address, StiffEvidence, StaleEvidence string
			Statuses                              map[string]string
		} `json:"requirements"`
		BOM struct {
			Mass, Cost, Peak, MassText, Total, Address string
			FlatLines, HierarchicalRows                int
		} `json:"bom"`
		Releases struct {
			Gates                            []string
			EmptyPackages, Baseline, Address string
			BaselineStatus                   int
			G8StillOpen                      bool
		} `json:"releases"`
		Session struct {
			Client, FirstCall string
			Tools             []string
		} `json:"session"`
	}
	shots := runPageScript(t, r, 3*time.Minute, &o, "dashboard_pages.mjs", project, session)
	mark("pages read")
	if len(o.ConsoleErrors) > 0 || len(o.PageErrors) > 0 {
		t.Errorf("console errors %q, uncaught %q", o.ConsoleErrors, o.PageErrors)
	}
	for _, page := range []string{"home", "project", "requirements-picker", "requirements", "bom-flat", "bom-hierarchical", "releases", "session"} {
		if st, err := os.Stat(filepath.Join(shots, page+".png")); err != nil || st.Size() < 5000 {
			t.Errorf("screenshot of %s: %v", page, err)
		}
	}

	if o.Home.Name != name || o.Home.OpenRuns != "1" || o.Home.PendingApprovals != "1" || !strings.HasPrefix(o.Home.Unverified, "3 of 4") {
		t.Errorf("the home page's row: %+v", o.Home)
	}
	if !strings.Contains(strings.Join(o.Home.Links, " "), "/requirements?project="+project) || o.Home.FilteredAddress != "?q=no+such+project" ||
		o.Home.FilterKept != name[:5] {
		t.Errorf("the home page's links and filter: %+v", o.Home)
	}

	if o.Project.Title != name || o.Project.CadRef != "CAD-BRACKET@2" || strings.Join(o.Project.HistoryRefs, ",") != "CAD-BRACKET@2,CAD-BRACKET@1" ||
		o.Project.Address != "?item=CAD-BRACKET" || !strings.Contains(o.Project.HistoryAfterReload, "CAD-BRACKET") {
		t.Errorf("the project page: %+v", o.Project)
	}
	if strings.Join(o.Project.Positions, ",") != "HN-BRACKET-ASSEMBLY@1,HN-PLATE@1,HN-SENSOR@1" {
		t.Errorf("the hierarchy in the tree: %v", o.Project.Positions)
	}
	if want := map[string]string{"Modal survey": "stale", "Tip FEA": "fresh", "Stress FEA": "fresh"}; fmt.Sprint(o.Project.Evidence) != fmt.Sprint(want) {
		t.Errorf("the evidence's freshness: %v, want %v", o.Project.Evidence, want)
	}

	if !strings.Contains(o.Picker, "Pick the project") {
		t.Errorf("/requirements without ?project=: %q", o.Picker)
	}
	if want := map[string]string{"stiff": "pass", "strong": "fail", "no resonance": "stale", "payload": "no_data"}; fmt.Sprint(o.Requirements.Statuses) != fmt.Sprint(want) ||
		o.Requirements.Address != "?project="+project {
		t.Errorf("the requirement matrix: %+v, want %v", o.Requirements, want)
	}
	if !strings.Contains(o.Requirements.StiffEvidence, "Tip FEA") || !strings.Contains(o.Requirements.StaleEvidence, "Modal survey") ||
		!strings.Contains(o.Requirements.StaleEvidence, "the head is now CAD-BRACKET@2") {
		t.Errorf("the evidence behind the rows: stiff %q, no resonance %q", o.Requirements.StiffEvidence, o.Requirements.StaleEvidence)
	}

	for _, f := range []struct {
		what, got string
		want      float64
	}{{"mass", o.BOM.Mass, wantMass}, {"cost", o.BOM.Cost, wantCost}, {"peak power", o.BOM.Peak, wantPeak}} {
		v, err := strconv.ParseFloat(f.got, 64)
		if err != nil || math.Abs(v-f.want) > 1e-9 {
			t.Errorf("the BOM page's %s roll-up %q, want %g", f.what, f.got, f.want)
		}
	}
	if !strings.Contains(o.BOM.MassText, "0.55 kg") || o.BOM.FlatLines != 2 || !strings.Contains(o.BOM.Total, "21 USD") ||
		o.BOM.Address != "?project="+project+"&view=hierarchical" || o.BOM.HierarchicalRows != 3 {
		t.Errorf("the BOM page: %+v", o.BOM)
	}

	if strings.Join(o.Releases.Gates, ",") != "G3,G4,G5,G6,G7,G8" || !strings.Contains(o.Releases.EmptyPackages, "No release packages yet") ||
		o.Releases.BaselineStatus != http.StatusOK || !strings.Contains(o.Releases.Baseline, "design review 1") || !o.Releases.G8StillOpen ||
		o.Releases.Address != "?project="+project+"&gate=G8" {
		t.Errorf("the releases page: %+v", o.Releases)
	}

	if !strings.HasPrefix(o.Session.Client, "metaforge-e2e-crash") || !strings.Contains(strings.Join(o.Session.Tools, ","), "twin.record_hierarchy_node") ||
		!strings.Contains(o.Session.FirstCall, "success") {
		t.Errorf("the session page: %+v", o.Session)
	}
	mark("checked")
}
