package twin_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// bracket is the twin an engineering change is tried on: a cad_model BRK
// with a wall thickness, constrained by its requirements; an assembly that
// uses it; evidence from an evaluate-metric-like tool with a replay recipe
// pinned to BRK@1 and verifying the requirements; hand evidence with no
// recipe; an older evaluation already superseded by a newer one; a claim
// citing the evaluation.
type bracket struct {
	graph
	brk, cs, asm              twin.Node
	fea, hand, oldFEA, newFEA twin.Node
	claim                     twin.Node
	replayArgs                map[string]any
}

func newBracket(t *testing.T, s twin.Store) bracket {
	t.Helper()
	b := bracket{graph: newGraph(t, s, "Bracket change")}
	b.cs = b.requirements("Bracket requirements", stiff(0.5))
	var err error
	b.brk, _, err = s.CommitRevision(bg, twin.RevisionWrite{ProjectID: b.p.ID, ItemType: "cad_model", Name: "Bracket", ItemKey: "BRK",
		Properties: map[string]any{"wall_thickness_mm": 2.0, "material": "6061-T6"},
		Links:      []twin.Link{{Type: twin.EdgeConstrains, To: b.cs.ID}}})
	if err != nil {
		t.Fatal(err)
	}
	b.asm, _, err = s.CommitRevision(bg, twin.RevisionWrite{ProjectID: b.p.ID, ItemType: "cad_model", Name: "Arm assembly", ItemKey: "ASM",
		Links: []twin.Link{{Type: twin.EdgeUses, To: b.brk.ID}}})
	if err != nil {
		t.Fatal(err)
	}
	b.replayArgs = map[string]any{"project_id": b.p.ID, "work_product_id": "BRK@1", "metric": "tip_deflection", "load_n": 100.0,
		"limit_mm": 0.5}
	b.fea = b.record(twin.EvidenceWrite{Name: "tip_deflection tier 0", Kind: "calculation", Metric: "tip_deflection", Value: limit(0.31),
		Unit: "mm", ValidAgainst: []string{"BRK@1"}, Verifies: []string{b.cs.ItemKey},
		Data: map[string]any{"tier": 0, "replay": map[string]any{"tool_id": "twin.evaluate_metric", "args": b.replayArgs}}})
	b.hand = b.record(twin.EvidenceWrite{Name: "hand check of the fillet", Kind: "inspection", ValidAgainst: []string{"BRK@1"},
		Verifies: []string{b.cs.ItemKey}})
	b.oldFEA = b.record(twin.EvidenceWrite{Name: "mass, first run", Kind: "calculation", Metric: "mass", Value: limit(120), Unit: "g",
		ValidAgainst: []string{"BRK@1"}, Data: map[string]any{"replay": map[string]any{"tool_id": "twin.evaluate_metric", "args": b.replayArgs}}})
	b.newFEA = b.record(twin.EvidenceWrite{Name: "mass, rerun", Kind: "calculation", Metric: "mass", Value: limit(118), Unit: "g",
		ValidAgainst: []string{"BRK@1"}, Supersedes: []string{b.oldFEA.ID},
		Data: map[string]any{"replay": map[string]any{"tool_id": "twin.evaluate_metric", "args": b.replayArgs}}})
	c, err := twin.RecordClaim(bg, s, twin.ClaimWrite{ProjectID: b.p.ID, Claim: "the bracket is stiff enough", RequirementRef: b.cs.ItemKey,
		RequirementName: "stiff", EvidenceRefs: []string{b.fea.ID}})
	if err != nil {
		t.Fatal(err)
	}
	b.claim = c.Node
	return b
}

func (b bracket) record(w twin.EvidenceWrite) twin.Node {
	b.t.Helper()
	w.ProjectID = b.p.ID
	n, _, _, err := twin.RecordEvidence(bg, b.s, w)
	if err != nil {
		b.t.Fatalf("evidence %s: %v", w.Name, err)
	}
	return n
}

func ids(ns []twin.ImpactedNode) []string {
	out := []string{}
	for _, n := range ns {
		out = append(out, n.NodeID)
	}
	sort.Strings(out)
	return out
}

func planIDs(es []twin.PlanEntry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.EvidenceID)
	}
	sort.Strings(out)
	return out
}

func sorted(ss ...string) []string {
	sort.Strings(ss)
	return ss
}

func testAnalyzeChange(t *testing.T, s twin.Store) {
	b := newBracket(t, s)
	patch := []twin.PatchOp{{Ref: "BRK@1", Set: map[string]any{"wall_thickness_mm": 3.0}}}
	before := twinSnapshot(t, s, b.p.ID)
	imp, err := twin.AnalyzeChange(bg, s, b.p.ID, patch)
	if err != nil {
		t.Fatal(err)
	}
	if after := twinSnapshot(t, s, b.p.ID); !reflect.DeepEqual(after, before) {
		t.Fatal("AnalyzeChange wrote to the twin")
	}
	if !reflect.DeepEqual(imp.Patched, []string{"BRK@1"}) || imp.ProjectID != b.p.ID || imp.Truncated {
		t.Fatalf("patched = %v (project %s, truncated %v)", imp.Patched, imp.ProjectID, imp.Truncated)
	}
	if got := ids(imp.Items); !reflect.DeepEqual(got, []string{b.asm.ID}) || imp.Items[0].Via != twin.EdgeUses || imp.Items[0].Ref != "ASM@1" ||
		imp.Items[0].Depth != 1 {
		t.Errorf("items = %+v, want ASM@1 over USES at depth 1", imp.Items)
	}
	if got := ids(imp.Requirements); !reflect.DeepEqual(got, []string{b.cs.ID}) || imp.Requirements[0].Depth != 2 {
		t.Errorf("requirements = %+v, want %s at depth 2", imp.Requirements, b.cs.Ref())
	}
	if got, want := ids(imp.Evidence), sorted(b.fea.ID, b.hand.ID, b.oldFEA.ID, b.newFEA.ID); !reflect.DeepEqual(got, want) {
		t.Errorf("evidence = %v, want %v", got, want)
	}
	for _, e := range imp.Evidence {
		if e.Via != twin.EdgeValidAgainst || e.From != "BRK@1" {
			t.Errorf("evidence %s reached over %s from %s, want VALID_AGAINST from BRK@1", e.Name, e.Via, e.From)
		}
	}
	if got := ids(imp.Claims); !reflect.DeepEqual(got, []string{b.claim.ID}) || imp.Claims[0].Via != twin.EdgeSupportedBy {
		t.Errorf("claims = %+v, want the claim over SUPPORTED_BY", imp.Claims)
	}
	// The superseded evaluation is reached but not stale: what replaced
	// it is.
	if got, want := planIDs(imp.Stale), sorted(b.fea.ID, b.hand.ID, b.newFEA.ID); !reflect.DeepEqual(got, want) {
		t.Errorf("stale = %v, want %v (not the superseded %s)", got, want, b.oldFEA.ID)
	}
	if got, want := planIDs(imp.Plan.Replay), sorted(b.fea.ID, b.newFEA.ID); !reflect.DeepEqual(got, want) {
		t.Fatalf("plan.replay = %+v, want %v", imp.Plan.Replay, want)
	}
	for _, e := range imp.Plan.Replay {
		if e.Replay == nil || e.Replay.ToolID != "twin.evaluate_metric" || e.Replay.Args["work_product_id"] != "BRK@1" ||
			!reflect.DeepEqual(e.PinnedTo, []string{"BRK@1"}) || !strings.Contains(e.Reason, "BRK@1") {
			t.Errorf("replay entry = %+v", e)
		}
		if e.EvidenceID == b.fea.ID && (e.Metric != "tip_deflection" || e.Name != b.fea.Name) {
			t.Errorf("replay entry of the FEA = %+v", e)
		}
	}
	if m := imp.Plan.ManualReviewNeeded; len(m) != 1 || m[0].EvidenceID != b.hand.ID || m[0].Replay != nil ||
		!strings.Contains(m[0].Reason, "no replay recipe") || !reflect.DeepEqual(m[0].PinnedTo, []string{"BRK@1"}) {
		t.Errorf("manual review = %+v, want the hand check, for want of a recipe", m)
	}
	if imp.ApprovalLevel != twin.ApprovalLead || !strings.Contains(imp.ApprovalReason, b.cs.Ref()) {
		t.Errorf("approval = %s (%s), want lead naming %s", imp.ApprovalLevel, imp.ApprovalReason, b.cs.Ref())
	}
	// JSON is snake_case, as the tools answer it.
	raw, _ := json.Marshal(imp)
	for _, k := range []string{`"manual_review_needed"`, `"approval_level"`, `"evidence_id"`, `"pinned_to"`, `"tool_id"`, `"node_id"`} {
		if !strings.Contains(string(raw), k) {
			t.Errorf("impact JSON has no %s: %s", k, raw)
		}
	}

	// Evidence pinned to the assembly rests on BRK without being pinned
	// to it: a person must look, it does not go stale.
	asmEv := b.record(twin.EvidenceWrite{Name: "assembly drop test", Kind: "test", ValidAgainst: []string{"ASM@1"}})
	imp, err = twin.AnalyzeChange(bg, s, b.p.ID, patch)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, e := range imp.Plan.ManualReviewNeeded {
		if e.EvidenceID == asmEv.ID {
			found = len(e.PinnedTo) == 0 && strings.Contains(e.Reason, "VALID_AGAINST ASM@1")
		}
	}
	if !found || len(imp.Stale) != 3 {
		t.Errorf("evidence on the assembly: manual review %+v, stale %d; want it reviewed (reached over VALID_AGAINST ASM@1), not stale",
			imp.Plan.ManualReviewNeeded, len(imp.Stale))
	}
}

func testApprovalLevels(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Approval levels")
	lone := g.commit("cad_model", "Spacer", map[string]any{"length_mm": 10.0})
	imp, err := twin.AnalyzeChange(bg, s, g.p.ID, []twin.PatchOp{{Ref: lone.Ref(), Set: map[string]any{"length_mm": 12.0}}})
	if err != nil || imp.ApprovalLevel != twin.ApprovalPeer || imp.Reached() != 0 {
		t.Fatalf("a change that reaches nothing = %s (%s) %v, want peer", imp.ApprovalLevel, imp.ApprovalReason, err)
	}
	// Evidence pinned to it but verifying nothing: still peer.
	for i := 0; i < twin.BoardImpactLimit; i++ {
		g.evidence(fmt.Sprintf("measurement %d", i), "length", 10, "mm", []string{lone.Ref()}, nil)
	}
	imp, err = twin.AnalyzeChange(bg, s, g.p.ID, []twin.PatchOp{{Ref: lone.Ref(), Set: map[string]any{"length_mm": 12.0}}})
	if err != nil || imp.ApprovalLevel != twin.ApprovalPeer || imp.Reached() != twin.BoardImpactLimit {
		t.Fatalf("%d unverifying evidence = %s (%s, reached %d) %v, want peer", twin.BoardImpactLimit, imp.ApprovalLevel, imp.ApprovalReason,
			imp.Reached(), err)
	}
	g.evidence("one too many", "length", 10, "mm", []string{lone.Ref()}, nil)
	imp, err = twin.AnalyzeChange(bg, s, g.p.ID, []twin.PatchOp{{Ref: lone.Ref(), Set: map[string]any{"length_mm": 12.0}}})
	if err != nil || imp.ApprovalLevel != twin.ApprovalBoard || !strings.Contains(imp.ApprovalReason, "11 nodes") {
		t.Fatalf("%d nodes reached = %s (%s) %v, want board", twin.BoardImpactLimit+1, imp.ApprovalLevel, imp.ApprovalReason, err)
	}
	// A released revision needs the board, however small the change.
	rel := g.commit("cad_model", "Released washer", map[string]any{"status": "released", "od_mm": 8.0})
	imp, err = twin.AnalyzeChange(bg, s, g.p.ID, []twin.PatchOp{{Ref: rel.Ref(), Set: map[string]any{"od_mm": 9.0}}})
	if err != nil || imp.ApprovalLevel != twin.ApprovalBoard || !strings.Contains(imp.ApprovalReason, "released") {
		t.Fatalf("a released revision = %s (%s) %v, want board", imp.ApprovalLevel, imp.ApprovalReason, err)
	}
	// Changing a requirement itself needs a lead.
	cs := g.requirements("Spacer requirements", stiff(1))
	imp, err = twin.AnalyzeChange(bg, s, g.p.ID, []twin.PatchOp{{Ref: cs.Ref(), Set: map[string]any{"note": "tightened"}}})
	if err != nil || imp.ApprovalLevel != twin.ApprovalLead {
		t.Fatalf("a requirement patched = %s (%s) %v, want lead", imp.ApprovalLevel, imp.ApprovalReason, err)
	}
}

func testCheckPatch(t *testing.T, s twin.Store) {
	b := newBracket(t, s)
	pin := b.commit("cad_model", "Pin", map[string]any{"d_mm": 4.0})
	if _, _, err := s.CommitRevision(bg, twin.RevisionWrite{ProjectID: b.p.ID, ItemType: "cad_model", Name: "Pin", ItemKey: pin.Ref(),
		Properties: map[string]any{"d_mm": 5.0}}); err != nil {
		t.Fatal(err)
	}
	set := map[string]any{"wall_thickness_mm": 3.0}
	refused := []struct {
		patch []twin.PatchOp
		want  string
	}{
		{nil, "the patch is empty"},
		{[]twin.PatchOp{{Ref: "BRK@1"}}, "changes nothing: give set, unset or name"},
		{[]twin.PatchOp{{Ref: "BRK@1", Set: map[string]any{"wall_thickness_mm": 2}}}, "BRK@1 already has those values"},
		{[]twin.PatchOp{{Ref: "BRK@1", Unset: []string{"no_such_property"}}}, "changes nothing"},
		{[]twin.PatchOp{{Ref: "BRK@1", Name: "Bracket"}}, "changes nothing"},
		{[]twin.PatchOp{{Ref: "BRK", Set: set}}, `ref "BRK" is not KEY@n`},
		{[]twin.PatchOp{{Ref: b.brk.ID, Set: set}}, "is not KEY@n"},
		{[]twin.PatchOp{{Ref: "BRK@x", Set: set}}, "is not KEY@n"},
		{[]twin.PatchOp{{Ref: "NOPE@1", Set: set}}, "NOPE@1 names no item in this project"},
		{[]twin.PatchOp{{Ref: "BRK@7", Set: set}}, "BRK has no revision 7 (its head is BRK@1)"},
		{[]twin.PatchOp{{Ref: "CAD-PIN@1", Set: map[string]any{"d_mm": 6.0}}}, "CAD-PIN@1 is not the head of CAD-PIN, CAD-PIN@2 is"},
		{[]twin.PatchOp{{Ref: "BRK@1", Set: set}, {Ref: "BRK@1", Set: map[string]any{"material": "steel"}}}, "both change BRK: merge them"},
		{[]twin.PatchOp{{Ref: "BRK@1", Set: set, Unset: []string{"wall_thickness_mm"}}}, `both sets and unsets "wall_thickness_mm"`},
	}
	for _, tc := range refused {
		if _, err := twin.CheckPatch(bg, s, b.p.ID, tc.patch); !refusal(err, tc.want) {
			t.Errorf("CheckPatch(%+v) = %v, want a refusal saying %q", tc.patch, err, tc.want)
		}
		if _, err := twin.AnalyzeChange(bg, s, b.p.ID, tc.patch); !refusal(err, tc.want) {
			t.Errorf("AnalyzeChange(%+v) = %v, want the same refusal", tc.patch, err)
		}
	}
	ok := []twin.PatchOp{{Ref: "BRK@1", Set: set}, {Ref: " CAD-PIN@2", Unset: []string{"d_mm"}}, {Ref: "ASM@1", Name: "Arm assembly, rev B"}}
	ns, err := twin.CheckPatch(bg, s, b.p.ID, ok)
	if err != nil || len(ns) != 3 || ns[0].ID != b.brk.ID || ns[1].Ref() != "CAD-PIN@2" || ns[2].ID != b.asm.ID {
		t.Fatalf("CheckPatch(good) = %+v %v, want BRK@1, CAD-PIN@2, ASM@1", ns, err)
	}
}

func testCommitChange(t *testing.T, s twin.Store) {
	b := newBracket(t, s)
	patch := []twin.PatchOp{{Ref: "BRK@1", Set: map[string]any{"wall_thickness_mm": 3.0, "fillet_mm": 1.0}, Unset: []string{"material"},
		Name: "Bracket, thick wall"}}
	imp, err := twin.AnalyzeChange(bg, s, b.p.ID, patch)
	if err != nil {
		t.Fatal(err)
	}
	c := twin.ChangeCommit{ProjectID: b.p.ID, ChangeID: "ECO-1", Reason: "thicker wall for stiffness", Author: "alice", ApprovedBy: "bob",
		Patch: patch, IdempotencyKey: "commit-eco-1"}
	res, err := twin.CommitChange(bg, s, c)
	if err != nil || !reflect.DeepEqual(res.Revisions, []string{"BRK@2"}) || len(res.NodeIDs) != 1 ||
		!reflect.DeepEqual(res.Moved, map[string]string{"BRK@1": "BRK@2"}) {
		t.Fatalf("CommitChange = %+v %v, want BRK@2", res, err)
	}
	n2, err := s.GetNode(bg, res.NodeIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"wall_thickness_mm": 3.0, "fillet_mm": 1.0}; !reflect.DeepEqual(n2.Properties, want) || n2.Name != "Bracket, thick wall" ||
		n2.Author != "alice" || !strings.Contains(n2.ChangeReason, "ECO-1") || !strings.Contains(n2.ChangeReason, "bob") ||
		!strings.Contains(n2.ChangeReason, "thicker wall") {
		t.Fatalf("BRK@2 = %+v, want the merged properties, the new name and a reason naming ECO-1", n2)
	}
	// It rests on what BRK@1 rested on; what rested on BRK@1 stays there.
	out, _ := s.Neighbors(bg, n2.ID, twin.Outgoing)
	if len(out) != 2 || out[0].Edge.Type != twin.EdgeConstrains || out[0].Node.ID != b.cs.ID || out[1].Edge.Type != twin.EdgeRevisionOf ||
		out[1].Node.ID != b.brk.ID {
		t.Fatalf("BRK@2's outgoing edges = %+v, want CONSTRAINED_BY the requirements and REVISION_OF BRK@1", out)
	}
	if in, _ := s.Neighbors(bg, n2.ID, twin.Incoming); len(in) != 0 {
		t.Fatalf("BRK@2 has incoming edges %+v: nothing was computed against it yet", in)
	}
	for _, e := range imp.Stale {
		f, err := twin.Staleness(bg, s, e.EvidenceID)
		if err != nil || !f.Stale || !reflect.DeepEqual(f.Against, []twin.StalePin{{Pinned: "BRK@1", Head: "BRK@2"}}) {
			t.Errorf("evidence %s after the commit = %+v %v, want stale against BRK@2", e.Name, f, err)
		}
	}
	// A repeat returns the first commit and writes nothing.
	before := twinSnapshot(t, s, b.p.ID)
	again, err := twin.CommitChange(bg, s, c)
	if err != nil || !reflect.DeepEqual(again, res) {
		t.Fatalf("repeated commit = %+v %v, want %+v", again, err, res)
	}
	if after := twinSnapshot(t, s, b.p.ID); !reflect.DeepEqual(after, before) {
		t.Fatal("a repeated commit wrote to the twin")
	}

	// The replay of the stale FEA, rebased onto BRK@2, supersedes it.
	var fea twin.PlanEntry
	for _, e := range imp.Plan.Replay {
		if e.EvidenceID == b.fea.ID {
			fea = e
		}
	}
	r := twin.RebaseReplay(*fea.Replay, res.Moved, b.fea.ID)
	want := map[string]any{"project_id": b.p.ID, "work_product_id": "BRK@2", "metric": "tip_deflection", "load_n": 100.0, "limit_mm": 0.5,
		"supersedes": []string{b.fea.ID}}
	if r.ToolID != "twin.evaluate_metric" || !reflect.DeepEqual(r.Args, want) {
		t.Fatalf("RebaseReplay = %+v, want %v", r, want)
	}
	if fea.Replay.Args["work_product_id"] != "BRK@1" || fea.Replay.Args["supersedes"] != nil {
		t.Fatalf("RebaseReplay changed the recipe it was given: %v", fea.Replay.Args)
	}
	fresh := b.record(twin.EvidenceWrite{Name: "tip_deflection tier 0", Kind: "calculation", Metric: "tip_deflection", Value: limit(0.2),
		Unit: "mm", ValidAgainst: []string{r.Args["work_product_id"].(string)}, Supersedes: r.Args["supersedes"].([]string)})
	if by, err := twin.SupersededBy(bg, s, b.fea.ID); err != nil || len(by) != 1 || by[0].ID != fresh.ID {
		t.Fatalf("SupersededBy(stale FEA) = %+v %v, want the fresh evidence", by, err)
	}
	if f, _ := twin.Staleness(bg, s, fresh.ID); f.Stale {
		t.Fatalf("the fresh evidence is stale: %+v", f)
	}
	if _, _, _, err := twin.RecordEvidence(bg, s, twin.EvidenceWrite{ProjectID: b.p.ID, Name: "x", Kind: "calculation",
		Supersedes: []string{b.claim.ID}}); !refusal(err, "not evidence of this project") {
		t.Errorf("superseding a claim = %v, want a refusal", err)
	}
}

func testChangeConflict(t *testing.T, s twin.Store) {
	b := newBracket(t, s)
	patch := []twin.PatchOp{{Ref: "ASM@1", Set: map[string]any{"bolt_count": 4.0}}, {Ref: "BRK@1", Set: map[string]any{"wall_thickness_mm": 3.0}}}
	if _, err := twin.AnalyzeChange(bg, s, b.p.ID, patch); err != nil {
		t.Fatal(err)
	}
	// Someone moves BRK's head between analysis and commit.
	moved, _, err := s.CommitRevision(bg, twin.RevisionWrite{ProjectID: b.p.ID, ItemType: "cad_model", Name: "Bracket", ItemKey: "BRK@1",
		Properties: map[string]any{"wall_thickness_mm": 2.5, "material": "6061-T6"}})
	if err != nil {
		t.Fatal(err)
	}
	before := twinSnapshot(t, s, b.p.ID)
	_, err = twin.CommitChange(bg, s, twin.ChangeCommit{ProjectID: b.p.ID, ChangeID: "ECO-2", Reason: "stiffer", Author: "alice",
		ApprovedBy: "bob", Patch: patch, IdempotencyKey: "commit-eco-2"})
	var conflict *twin.ChangeConflictError
	if !errors.As(err, &conflict) || !errors.Is(err, twin.ErrStaleRevision) ||
		!reflect.DeepEqual(conflict.Moved, []twin.StalePin{{Pinned: "BRK@1", Head: moved.Ref()}}) ||
		!strings.Contains(err.Error(), "BRK@1 (the head is now BRK@2)") || !strings.Contains(err.Error(), "ECO-2") {
		t.Fatalf("commit after BRK moved = %v, want a ChangeConflictError naming BRK@1 and its head BRK@2", err)
	}
	if after := twinSnapshot(t, s, b.p.ID); !reflect.DeepEqual(after, before) {
		for k, v := range after {
			if before[k] != v {
				t.Errorf("changed by the refused commit: %s = %s (was %q)", k, v, before[k])
			}
		}
		t.Fatal("a conflicting commit wrote to the twin")
	}
	// Re-pointed at the heads, the change analyses and commits.
	rebased, movedPins, err := twin.Rebase(bg, s, b.p.ID, patch)
	if err != nil || rebased[0].Ref != "ASM@1" || rebased[1].Ref != "BRK@2" || patch[1].Ref != "BRK@1" ||
		!reflect.DeepEqual(movedPins, []twin.StalePin{{Pinned: "BRK@1", Head: "BRK@2"}}) {
		t.Fatalf("Rebase = %+v %v %v", rebased, movedPins, err)
	}
	if _, err := twin.AnalyzeChange(bg, s, b.p.ID, rebased); err != nil {
		t.Fatal(err)
	}
	res, err := twin.CommitChange(bg, s, twin.ChangeCommit{ProjectID: b.p.ID, ChangeID: "ECO-2", Patch: rebased, IdempotencyKey: "commit-eco-2b"})
	if err != nil || !reflect.DeepEqual(res.Revisions, []string{"ASM@2", "BRK@3"}) {
		t.Fatalf("rebased commit = %+v %v, want ASM@2 and BRK@3", res, err)
	}
}

func testChangeEvents(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Change log")
	record := func(e twin.ChangeEvent) twin.Node {
		t.Helper()
		e.ProjectID = g.p.ID
		n, err := twin.RecordChangeEvent(bg, s, e)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	analysing := record(twin.ChangeEvent{ChangeID: "ECO-1", Seq: 2, State: "ANALYZING", Actor: "system"})
	proposed := record(twin.ChangeEvent{ChangeID: "ECO-1", Seq: 1, State: "PROPOSED", Actor: "alice", Note: "thicker wall",
		Data: map[string]any{"patch": []any{map[string]any{"ref": "BRK@1"}}}})
	record(twin.ChangeEvent{ChangeID: "ECO-9", Seq: 1, State: "PROPOSED", Actor: "carol"})
	again := record(twin.ChangeEvent{ChangeID: "ECO-1", Seq: 1, State: "PROPOSED", Actor: "mallory", Note: "a retry"})
	if again.ID != proposed.ID || again.Properties["actor"] != "alice" {
		t.Fatalf("a repeated event = %+v, want the first, %s", again, proposed.ID)
	}
	evs, err := twin.ChangeEvents(bg, s, g.p.ID, "ECO-1")
	if err != nil || len(evs) != 2 || evs[0].ID != proposed.ID || evs[1].ID != analysing.ID {
		t.Fatalf("ChangeEvents = %+v %v, want PROPOSED then ANALYZING", evs, err)
	}
	if evs[0].Type != twin.ChangeEventType || evs[0].Properties["state"] != "PROPOSED" || evs[0].Properties["note"] != "thicker wall" ||
		!reflect.DeepEqual(evs[0].Properties["data"], map[string]any{"patch": []any{map[string]any{"ref": "BRK@1"}}}) {
		t.Fatalf("PROPOSED event = %+v", evs[0])
	}
	if _, err := twin.RecordChangeEvent(bg, s, twin.ChangeEvent{ProjectID: g.p.ID, ChangeID: "ECO-1", Seq: 0, State: "X"}); !refusal(err, "seq 0") {
		t.Errorf("seq 0 = %v, want a refusal", err)
	}
	if none, err := twin.ChangeEvents(bg, s, g.p.ID, "ECO-404"); err != nil || len(none) != 0 {
		t.Errorf("events of an unknown change = %+v %v, want none", none, err)
	}
}

// twinSnapshot is every node of a project (every item's revisions, every
// record of the types these tests write) with its properties and edges,
// node by node, to show that something wrote nothing.
func twinSnapshot(t *testing.T, s twin.Store, projectID string) map[string]string {
	t.Helper()
	out := map[string]string{}
	items, err := s.Items(bg, projectID)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []twin.Node
	for _, it := range items {
		out["item "+it.Key] = it.HeadRef() + " " + it.HeadNodeID + " " + it.Name
		revs, err := s.Revisions(bg, projectID, it.Key)
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, revs...)
	}
	for _, typ := range []string{"evidence", "claim", twin.ChangeEventType} {
		ns, err := s.NodesByType(bg, projectID, typ)
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, ns...)
	}
	for _, n := range nodes {
		nbs, err := s.Neighbors(bg, n.ID, twin.Both)
		if err != nil {
			t.Fatal(err)
		}
		var edges []string
		for _, nb := range nbs {
			edges = append(edges, nb.Edge.From+"-"+nb.Edge.Type+"->"+nb.Edge.To)
		}
		props, _ := json.Marshal(n.Properties)
		out["node "+n.ID] = fmt.Sprintf("%s %s %s %s edges=%v", n.Type, n.Ref(), n.Name, props, edges)
	}
	return out
}

// A recipe is data anyone could record: only the tools revalidation knows
// are re-run, and an FEA on a mesh of the old geometry is left to a person.
func TestReplayOfTrustsOnlyKnownRecipes(t *testing.T) {
	recipe := func(tool string, args map[string]any) twin.Node {
		return twin.Node{Properties: map[string]any{"data": map[string]any{"replay": map[string]any{"tool_id": tool, "args": args}}}}
	}
	if r, problem := twin.ReplayOf(recipe("twin.evaluate_metric", map[string]any{"work_product_id": "BRK@1"})); r == nil || problem != "" {
		t.Fatalf("a tier-0 recipe: %+v %s", r, problem)
	}
	if r, problem := twin.ReplayOf(recipe("project.delete", map[string]any{"project_id": "p"})); r != nil || !strings.Contains(problem, "project.delete") {
		t.Fatalf("a forged recipe: %+v %s", r, problem)
	}
	if r, problem := twin.ReplayOf(recipe("twin.evaluate_metric", map[string]any{"tier2": map[string]any{"mesh_file": "m.inp"}})); r != nil ||
		!strings.Contains(problem, "mesh") {
		t.Fatalf("a tier-2 recipe: %+v %s", r, problem)
	}
}
