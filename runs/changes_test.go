package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/twin/neo4jtest"
	"github.com/metaforge/metaforge/workflows"
)

// onBothStores runs a harness test on the in-memory twin and on Neo4j (the
// end-to-end test server: each harness writes only into a project of its
// own, so nothing is wiped).
func onBothStores(t *testing.T, test func(t *testing.T, h *harness)) {
	t.Run("memory", func(t *testing.T) {
		test(t, newHarness(t))
	})
	t.Run("neo4j", func(t *testing.T) {
		uri, user, password := neo4jtest.URI(t, neo4jtest.PortE2E)
		store, err := twin.OpenNeo4j(context.Background(), uri, user, password)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close(context.Background()) })
		test(t, newHarnessOn(t, store, store, nil))
	})
}

// bracket is a tube cantilever bracket with a stiffness requirement and a
// tier-0 deflection evaluation (twin.evaluate_metric, which records its
// replay recipe) pinned to its first revision.
type bracket struct {
	ref, requirement, evidence string
}

// Aluminium 6061 (the materials table): E = 68.9 GPa. The bracket's section
// is a 40 x 20 mm tube, 300 mm long, loaded with 100 N at its tip.
const (
	bracketE, bracketW, bracketH, bracketL, bracketF = 68900.0, 40.0, 20.0, 300.0, 100.0
)

// tipDeflection is F L^3 / (3 E I) for the bracket's tube of wall t.
func tipDeflection(t float64) float64 {
	i := (bracketW*math.Pow(bracketH, 3) - (bracketW-2*t)*math.Pow(bracketH-2*t, 3)) / 12
	return bracketF * math.Pow(bracketL, 3) / (3 * bracketE * i)
}

func newBracket(t *testing.T, h *harness) bracket {
	t.Helper()
	geom := h.call("twin.commit_geometry", map[string]any{"project_id": h.project, "name": "bracket", "step_base64": stepBase64,
		"material": "aluminium_6061", "properties": map[string]any{"bounding_box": map[string]any{"size": []float64{bracketL, bracketW, bracketH}},
			"wall_thickness_mm": 2}})
	ref := geom["item_ref"].(string)
	reqs := h.call("twin.record_constraint_set", map[string]any{"project_id": h.project, "name": "bracket requirements", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 5.0, "unit": "mm", "verification_method": "analysis"}}})
	ev := h.call("twin.evaluate_metric", map[string]any{"project_id": h.project, "work_product_id": ref, "metric": "tip_deflection",
		"load_n": bracketF, "limit_mm": 5.0, "band_pct": 1})
	t0 := ev["tier0"].(map[string]any)
	want := tipDeflection(2)
	if got := t0["value_mm"].(float64); math.Abs(got-want)/want > 1e-9 {
		t.Fatalf("tier 0 on wall 2 mm: %.9g mm, closed form %.9g mm (tolerance 1e-9 relative)", got, want)
	}
	return bracket{ref: ref, requirement: reqs["item_ref"].(string), evidence: t0["evidence_id"].(string)}
}

// change reads a tool's answer's change state.
func changeState(t *testing.T, answer map[string]any) workflows.ChangeState {
	t.Helper()
	raw, err := json.Marshal(answer["state"])
	if err != nil {
		t.Fatal(err)
	}
	var st workflows.ChangeState
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// proposeWall proposes, as alice, a thicker wall on the bracket's head, and
// has it analysed.
func proposeWall(t *testing.T, h *harness, ref string, wall float64) workflows.ChangeState {
	t.Helper()
	out, err := h.callBy("twin.propose_change", map[string]any{"project_id": h.project, "title": "thicker wall",
		"reason": "the bracket deflects too much under the new load case", "patch": []any{map[string]any{"ref": ref,
			"set": map[string]any{"wall_thickness_mm": wall}}}}, "alice", "carol")
	if err != nil {
		t.Fatal(err)
	}
	st := changeState(t, out)
	if st.Status != workflows.ChangeReadyForReview || st.CreatedBy != "alice" || st.Analysis == nil {
		t.Fatalf("propose_change: want READY_FOR_REVIEW by alice with an analysis, got %+v", st)
	}
	return st
}

// step runs a change tool approved by approvedBy and returns the state it
// left, or its refusal.
func (h *harness) changeStep(tool, changeID, approvedBy string, extra map[string]any) (workflows.ChangeState, error) {
	args := map[string]any{"project_id": h.project, "change_id": changeID}
	for k, v := range extra {
		args[k] = v
	}
	out, err := h.callBy(tool, args, "", approvedBy)
	if err != nil {
		return workflows.ChangeState{}, err
	}
	return changeState(h.t, out), nil
}

// waitChange polls a change until ok says it is where the test wants it.
func (h *harness) waitChange(changeID string, ok func(workflows.ChangeState) bool) workflows.ChangeState {
	h.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, _, err := h.changes.State(h.ctx, changeID)
		if err == nil && ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("change %s: not there after 2 min: %+v (%v)", changeID, st, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The whole lifecycle of an engineering change on a bracket, on both twin
// stores: the analysis finds the evaluation that goes stale, its creator
// cannot approve it, a second person does, the commit writes the next
// revision, revalidation re-runs the evaluation on it (its value checked
// against the closed form) as fresh evidence superseding the stale one,
// and the release package then passes G8.
func TestEngineeringChangeLifecycle(t *testing.T) {
	onBothStores(t, func(t *testing.T, h *harness) { changeLifecycle(t, h, false) })
}

// The same with a hand-recorded bench test: revalidation lists it for
// manual review, never re-runs it, and the release is refused naming it.
func TestEngineeringChangeLeavesHandEvidenceToAPerson(t *testing.T) {
	onBothStores(t, func(t *testing.T, h *harness) { changeLifecycle(t, h, true) })
}

func changeLifecycle(t *testing.T, h *harness, withHand bool) {
	b := newBracket(t, h)
	handID := ""
	if withHand {
		hand := h.call("twin.record_evidence", map[string]any{"project_id": h.project, "name": "bench test of the bracket", "kind": "test",
			"metric": "tip_deflection", "value": 3.1, "unit": "mm", "valid_against": []any{b.ref}, "verifies": []any{b.requirement}})
		handID = hand["node_id"].(string)
	}

	st := proposeWall(t, h, b.ref, 3)
	a := st.Analysis
	if !hasEntry(a.Stale, b.evidence) || (withHand && !hasEntry(a.Stale, handID)) {
		t.Fatalf("the analysis does not list the evidence as going stale: %+v", a.Stale)
	}
	if len(a.Replay) != 1 || a.Replay[0].EvidenceID != b.evidence || a.Replay[0].ToolID != "twin.evaluate_metric" {
		t.Fatalf("the replay plan: want the evaluation alone, got %+v", a.Replay)
	}
	if hasEntry(a.ManualReviewNeeded, b.evidence) || withHand != hasEntry(a.ManualReviewNeeded, handID) {
		t.Fatalf("manual review: want the bench test alone (there is one: %v), got %+v", withHand, a.ManualReviewNeeded)
	}
	if a.ApprovalLevel == "" || a.ApprovalReason == "" {
		t.Fatalf("the analysis names no approval level: %+v", a)
	}

	// Its creator cannot approve it; a second, verified person can.
	if _, err := h.changeStep("twin.approve_engineering_change", st.ChangeID, "alice", nil); err == nil ||
		!strings.Contains(err.Error(), "self-approval refused") {
		t.Fatalf("alice approving her own change: want a self-approval refusal, got %v", err)
	}
	if _, err := h.changeStep("twin.approve_engineering_change", st.ChangeID, "", nil); err == nil {
		t.Fatal("an approval nobody made was recorded")
	}
	st, err := h.changeStep("twin.approve_engineering_change", st.ChangeID, "bob", map[string]any{"comment": "stiffer is right"})
	if err != nil || st.Status != workflows.ChangeApproved || st.Review.By != "bob" {
		t.Fatalf("bob approves: %+v %v", st, err)
	}

	st, err = h.changeStep("twin.commit_engineering_change", st.ChangeID, "", nil)
	if err != nil || st.Status != workflows.ChangeCommitted || st.Commit == nil || len(st.Commit.Revisions) != 1 {
		t.Fatalf("commit: %+v %v", st, err)
	}
	next := st.Commit.Revisions[0].To
	head, err := twin.ResolveRef(h.ctx, h.facts.Store, h.project, strings.Split(b.ref, "@")[0])
	if err != nil || head.Ref() != next || head.Properties["wall_thickness_mm"] != 3.0 {
		t.Fatalf("the bracket's head after the commit: %s %v (%v), want %s with a 3 mm wall", head.Ref(), head.Properties, err, next)
	}
	if f, err := twin.Staleness(h.ctx, h.facts.Store, b.evidence); err != nil || !f.Stale {
		t.Fatalf("the evaluation on %s is not stale after the commit: %+v %v", b.ref, f, err)
	}

	st, err = h.changeStep("twin.execute_revalidation_plan", st.ChangeID, "", nil)
	if err != nil || st.Revalidation == nil {
		t.Fatalf("revalidate: %+v %v", st, err)
	}
	st = h.waitChange(st.ChangeID, func(s workflows.ChangeState) bool { return s.Revalidation != nil && s.Revalidation.Status != "running" })
	rv := st.Revalidation
	if rv.Status != "done" || len(rv.Replayed) != 1 || rv.Replayed[0].Status != "revalidated" || withHand != hasEntry(rv.ManualReviewNeeded, handID) {
		t.Fatalf("revalidation: %+v", rv)
	}
	fresh, err := h.facts.Store.GetNode(h.ctx, rv.Replayed[0].FreshEvidenceID)
	if err != nil {
		t.Fatal(err)
	}
	want := tipDeflection(3)
	if got, _ := fresh.Properties["value"].(float64); math.Abs(got-want)/want > 1e-9 {
		t.Fatalf("the replayed evaluation on a 3 mm wall: %.9g mm, closed form %.9g mm (tolerance 1e-9 relative)", got, want)
	}
	if f, err := twin.Staleness(h.ctx, h.facts.Store, fresh.ID); err != nil || f.Stale {
		t.Fatalf("the fresh evidence is stale: %+v %v", f, err)
	}
	by, err := twin.SupersededBy(h.ctx, h.facts.Store, b.evidence)
	if err != nil || len(by) != 1 || by[0].ID != fresh.ID {
		t.Fatalf("the stale evaluation is superseded by %v (%v), want %s", by, err, fresh.ID)
	}
	if withHand {
		if by, _ := twin.SupersededBy(h.ctx, h.facts.Store, handID); len(by) != 0 {
			t.Fatalf("the bench test was superseded by %v: it is hand evidence and must be left for a person", by)
		}
	}
	// The replay ran as a child of the change, findable as a call.
	if rv.Replayed[0].CallID != workflows.ReplayCallID(st.ChangeID, b.evidence) {
		t.Fatalf("the replay's call: %s", rv.Replayed[0].CallID)
	}

	// The release: a baseline and an approved release approval, then
	// G8 decides.
	if _, err := h.callAs("twin.create_baseline", map[string]any{"project_id": h.project, "reason": "after the wall change"}, "bob"); err != nil {
		t.Fatal(err)
	}
	ra := h.call("twin.record_engineering_entity", map[string]any{"project_id": h.project, "entity_type": "release_approval", "name": "release 1"})
	if _, err := h.callAs("twin.approve_engineering_entity", map[string]any{"project_id": h.project, "node_id": ra["node_id"]}, "bob"); err != nil {
		t.Fatal(err)
	}
	pkg, err := h.callErr("twin.create_release_package", map[string]any{"project_id": h.project, "reason": "release 1"})
	switch {
	case withHand && (err == nil || !strings.Contains(err.Error(), "bench test of the bracket")):
		t.Fatalf("a release with the bench test stale: want it refused naming the bench test, got %v %v", pkg, err)
	case !withHand && err != nil:
		t.Fatalf("the release after revalidation: %v", err)
	}
	if withHand {
		return
	}

	// A label, not an undo: the bracket keeps its committed revision.
	if _, err := h.changeStep("twin.mark_engineering_change_rolled_back", st.ChangeID, "", nil); err == nil {
		t.Fatal("a roll-back without a reason was recorded")
	}
	st, err = h.changeStep("twin.mark_engineering_change_rolled_back", st.ChangeID, "dave", map[string]any{"reason": "the supplier cannot hold 3 mm"})
	if err != nil || st.Status != workflows.ChangeRolledBack || st.RollBack.By != "dave" {
		t.Fatalf("roll back: %+v %v", st, err)
	}
	if head, _ := twin.ResolveRef(h.ctx, h.facts.Store, h.project, strings.Split(b.ref, "@")[0]); head.Ref() != next {
		t.Fatalf("a roll-back label moved the bracket's head to %s", head.Ref())
	}
	states := []string{}
	for _, e := range st.History {
		states = append(states, e.State)
	}
	if got := strings.Join(states, " "); got != "PROPOSED ANALYZING READY_FOR_REVIEW APPROVED COMMITTED COMMITTED ROLLED_BACK" {
		t.Fatalf("the change's history: %s", got)
	}
	events, err := twin.ChangeEvents(h.ctx, h.facts.Store, h.project, st.ChangeID)
	if err != nil || len(events) != len(st.History) {
		t.Fatalf("the twin holds %d events of the change (%v), its history %d", len(events), err, len(st.History))
	}
	h.recordWorkflow(workflows.EngineeringChangeWorkflowID(st.ChangeID), "engineeringchange", "lifecycle.json")
}

func hasEntry(es []workflows.ChangePlanEntry, id string) bool {
	for _, e := range es {
		if e.EvidenceID == id {
			return true
		}
	}
	return false
}

// snapshot is every item, revision and evidence of a project, to compare
// node by node.
func snapshot(t *testing.T, h *harness) []string {
	t.Helper()
	var out []string
	items, err := h.facts.Store.Items(h.ctx, h.project)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		out = append(out, "item "+it.HeadRef())
		revs, err := h.facts.Store.Revisions(h.ctx, h.project, it.Key)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range revs {
			props, _ := json.Marshal(r.Properties)
			out = append(out, fmt.Sprintf("revision %s %s %s", r.Ref(), r.ID, props))
		}
	}
	for _, typ := range []string{"evidence", "claim"} {
		ns, err := h.facts.Store.NodesByType(h.ctx, h.project, typ)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			out = append(out, typ+" "+n.ID)
		}
	}
	sort.Strings(out)
	return out
}

// A revision that moves between the analysis and the commit aborts the
// commit whole: the twin is unchanged node by node, the change is analysed
// again on the current revision and waits for a new review; committed
// then, it writes on the current head.
func TestEngineeringChangeCommitAbortsOnMovedRevision(t *testing.T) {
	onBothStores(t, func(t *testing.T, h *harness) {
		b := newBracket(t, h)
		st := proposeWall(t, h, b.ref, 3)
		if _, err := h.changeStep("twin.approve_engineering_change", st.ChangeID, "bob", nil); err != nil {
			t.Fatal(err)
		}
		// Someone else revises the bracket meanwhile.
		moved := h.call("twin.commit_geometry", map[string]any{"project_id": h.project, "name": "bracket", "item_key": b.ref,
			"step_base64": stepBase64, "material": "aluminium_6061", "properties": map[string]any{"bounding_box": map[string]any{
				"size": []float64{bracketL, bracketW, bracketH}}, "wall_thickness_mm": 2.5}})["item_ref"].(string)
		before := snapshot(t, h)

		st, err := h.changeStep("twin.commit_engineering_change", st.ChangeID, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Status != workflows.ChangeReadyForReview || len(st.Conflicts) != 1 || st.Review != nil || st.Commit != nil {
			t.Fatalf("a commit on a moved revision: want the change back at review with the conflict, got %+v", st)
		}
		if c := st.Conflicts[0].Moved; len(c) != 1 || c[0].From != b.ref || c[0].To != moved {
			t.Fatalf("the conflict names %+v, want %s moved to %s", c, b.ref, moved)
		}
		if after := snapshot(t, h); strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Fatalf("the aborted commit changed the twin:\nbefore\n%s\nafter\n%s", strings.Join(before, "\n"), strings.Join(after, "\n"))
		}
		if st.Patch[0].Ref != moved || st.Analysis.Patch[0].Ref != moved {
			t.Fatalf("the change was not analysed again on %s: %+v", moved, st.Patch)
		}
		if _, err := h.changeStep("twin.commit_engineering_change", st.ChangeID, "", nil); err == nil {
			t.Fatal("a change back at review was committed without a new review")
		}
		if _, err := h.changeStep("twin.approve_engineering_change", st.ChangeID, "bob", nil); err != nil {
			t.Fatal(err)
		}
		st, err = h.changeStep("twin.commit_engineering_change", st.ChangeID, "", nil)
		if err != nil || st.Status != workflows.ChangeCommitted || st.Commit.Revisions[0].From != moved {
			t.Fatalf("the commit after a new review: %+v %v", st, err)
		}
		h.recordWorkflow(workflows.EngineeringChangeWorkflowID(st.ChangeID), "engineeringchange", "commit_conflict.json")
	})
}
