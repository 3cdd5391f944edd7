package twin_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// An evaluation's evidence carries its own recipe: an engineering change
// that replaces the revision it was pinned to finds it in the plan's
// replays, and the rebased recipe evaluates the new revision and
// supersedes the stale evidence.
func TestMetricEvidenceCarriesItsReplayRecipe(t *testing.T) {
	ctx := context.Background()
	be := newBackend(t)
	p, err := be.mem.CreateProject(ctx, twin.Project{Name: "Replay bracket"}, "")
	if err != nil {
		t.Fatal(err)
	}
	brk, _, err := be.mem.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Bracket", ItemKey: "BRK",
		Properties: map[string]any{"bounding_box": map[string]any{"size": []any{100.0, 20.0, 20.0}}, "material": "6061-T6",
			"wall_thickness_mm": 2.0}})
	if err != nil {
		t.Fatal(err)
	}
	m := twin.MetricCall{CallID: "0123456789abcdef", ProjectID: p.ID, WorkProductID: "BRK", Metric: "tip_deflection", LoadN: 100,
		LimitMM: 0.5, BandPct: 20}
	t0, err := be.Tier0Metric(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	// A tier-2 evaluation solved on a mesh of BRK@1's geometry.
	m2 := m
	m2.CallID, m2.Tier2 = "0123456789abcdee", &twin.Tier2Call{MeshFile: "brk.inp", FixedNodeSet: "FIX", LoadNodeSet: "TIP"}
	t2, err := be.RecordTier2Metric(ctx, m2, 0.3, "fedcba9876543210")
	if err != nil {
		t.Fatal(err)
	}
	wantArgs := map[string]any{"project_id": p.ID, "work_product_id": "BRK@1", "metric": "tip_deflection", "load_n": 100.0, "limit_mm": 0.5,
		"band_pct": 20.0}
	ev0, err := be.mem.GetNode(ctx, t0.EvidenceID)
	if err != nil {
		t.Fatal(err)
	}
	if r, problem := twin.ReplayOf(ev0); r == nil || problem != "" || r.ToolID != "twin.evaluate_metric" || !reflect.DeepEqual(r.Args, wantArgs) {
		t.Fatalf("tier 0's recipe = %+v (%s), want twin.evaluate_metric with %v", r, problem, wantArgs)
	}
	// Tier 2's recipe is recorded, but its mesh is of the old geometry: a
	// person re-meshes, the plan never replays it on the new revision.
	ev2, err := be.mem.GetNode(ctx, t2.EvidenceID)
	if err != nil {
		t.Fatal(err)
	}
	recorded := ev2.Properties["data"].(map[string]any)["replay"].(map[string]any)["args"].(map[string]any)
	if recorded["tier2"] == nil {
		t.Fatalf("tier 2's recipe lacks its tier2 inputs: %v", recorded)
	}
	if r, problem := twin.ReplayOf(ev2); r != nil || !strings.Contains(problem, "mesh") {
		t.Fatalf("tier 2's recipe = %+v (%s), want it refused for its mesh of the old geometry", r, problem)
	}

	imp, err := twin.AnalyzeChange(ctx, be.mem, p.ID, []twin.PatchOp{{Ref: "BRK@1", Set: map[string]any{"wall_thickness_mm": 3.0}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Plan.Replay) != 1 || imp.Plan.Replay[0].EvidenceID != t0.EvidenceID || len(imp.Plan.ManualReviewNeeded) != 1 ||
		imp.Plan.ManualReviewNeeded[0].EvidenceID != t2.EvidenceID {
		t.Fatalf("plan = %+v, want tier 0 replayed and tier 2 for manual review", imp.Plan)
	}
	res, err := twin.CommitChange(ctx, be.mem, twin.ChangeCommit{ProjectID: p.ID, ChangeID: "ECO-7", Reason: "stiffer", Author: "alice",
		ApprovedBy: "bob", Patch: []twin.PatchOp{{Ref: brk.Ref(), Set: map[string]any{"wall_thickness_mm": 3.0}}}, IdempotencyKey: "eco-7"})
	if err != nil {
		t.Fatal(err)
	}
	stale := imp.Plan.Replay[0]
	r := twin.RebaseReplay(*stale.Replay, res.Moved, stale.EvidenceID)
	// The replay as its tool would decode it: the twin.evaluate_metric
	// arguments become the call.
	again := twin.MetricCall{CallID: "1111111111111111", ProjectID: r.Args["project_id"].(string), WorkProductID: r.Args["work_product_id"].(string),
		Metric: r.Args["metric"].(string), LoadN: r.Args["load_n"].(float64), LimitMM: r.Args["limit_mm"].(float64),
		BandPct: r.Args["band_pct"].(float64), Supersedes: r.Args["supersedes"].([]string)}
	fresh, err := be.Tier0Metric(ctx, again)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.ValueMM >= t0.ValueMM {
		t.Errorf("tier 0 on BRK@2 (3 mm wall) = %g mm, want less than %g mm on BRK@1 (2 mm wall)", fresh.ValueMM, t0.ValueMM)
	}
	by, err := twin.SupersededBy(ctx, be.mem, stale.EvidenceID)
	if err != nil || len(by) != 1 || by[0].ID != fresh.EvidenceID {
		t.Fatalf("SupersededBy(stale) = %+v %v, want the replay's evidence %s", by, err, fresh.EvidenceID)
	}
	ev, _ := be.mem.GetNode(ctx, fresh.EvidenceID)
	if r2, _ := twin.ReplayOf(ev); r2 == nil || r2.Args["work_product_id"] != "BRK@2" || r2.Args["supersedes"] != nil {
		t.Fatalf("the replay's own recipe = %+v, want it pinned to BRK@2 and without supersedes", r2)
	}
	if f, _ := twin.Staleness(ctx, be.mem, fresh.EvidenceID); f.Stale {
		t.Errorf("the replay's evidence is stale: %+v", f)
	}
}

// Hand evidence takes supersedes too, over MCP, and carries no recipe.
func TestRecordEvidenceSupersedes(t *testing.T) {
	s, be := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	c.call("project.create", map[string]any{"name": "Supersedes bracket"})
	c.call("twin.commit_geometry", map[string]any{"name": "Bracket", "step_base64": step("s1")})
	old := c.call("twin.record_evidence", map[string]any{"name": "hand check", "kind": "inspection", "valid_against": []any{"CAD-BRACKET@1"}})
	c.call("twin.commit_geometry", map[string]any{"name": "Bracket", "step_base64": step("s2"), "change_reason": "thicker"})
	fresh := c.call("twin.record_evidence", map[string]any{"name": "hand check again", "kind": "inspection",
		"valid_against": []any{"CAD-BRACKET@2"}, "supersedes": []any{old["node_id"]}})
	by, err := twin.SupersededBy(context.Background(), be.mem, old["node_id"].(string))
	if err != nil || len(by) != 1 || by[0].ID != fresh["node_id"] {
		t.Fatalf("SupersededBy(hand check) = %+v %v, want %v", by, err, fresh["node_id"])
	}
	if r, problem := twin.ReplayOf(by[0]); r != nil || problem != "" {
		t.Errorf("hand evidence has a recipe: %+v %s", r, problem)
	}
	msg := c.refused("twin.record_evidence", map[string]any{"name": "x", "kind": "inspection", "valid_against": []any{"CAD-BRACKET@2"},
		"supersedes": []any{fresh["node_id"], "n-0000000000000000"}})
	if !strings.Contains(msg, "n-0000000000000000") {
		t.Errorf("superseding an unknown node = %q, want it named", msg)
	}
}
