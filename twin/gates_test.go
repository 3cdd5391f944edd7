package twin_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// movingStore commits a new revision of key right after the first Items
// read: another writer moving a head while a baseline is being assembled.
type movingStore struct {
	twin.Store
	projectID, key string
	moved          bool
}

func (m *movingStore) Items(ctx context.Context, projectID string) ([]twin.Item, error) {
	items, err := m.Store.Items(ctx, projectID)
	if err == nil && !m.moved {
		m.moved = true
		if _, _, err := m.Store.CommitRevision(ctx, twin.RevisionWrite{ProjectID: m.projectID, ItemType: "cad_model", Name: "Bracket",
			ItemKey: m.key}); err != nil {
			return nil, err
		}
	}
	return items, err
}

func testBaselines(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Baselines")
	w := twin.BaselineWrite{ProjectID: g.p.ID, ApprovedBy: "ana", ApproverVerified: true, Reason: "design review"}
	if _, err := twin.CreateBaseline(bg, s, w); !refusal(err, "has nothing to baseline") {
		t.Fatalf("a baseline of an empty project = %v", err)
	}
	if _, err := twin.CreateBaseline(bg, s, twin.BaselineWrite{ProjectID: g.p.ID}); !refusal(err, "Missing: approved_by (the person who approved it), reason") {
		t.Fatalf("a baseline with no approver = %v", err)
	}
	cad := g.commit("cad_model", "Bracket", nil)
	g.requirements("Bracket requirements", stiff(0.5))
	risk, err := twin.RecordEntity(bg, s, twin.EntityWrite{ProjectID: g.p.ID, EntityType: "risk", Name: "Creep"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := twin.CreateBaseline(bg, s, w)
	if err != nil || b.Node.Type != twin.BaselineNodeType || b.ApprovedBy != "ana" || !b.ApproverVerified ||
		strings.Join(b.Items, " ") != "CAD-BRACKET@1 CS-BRACKET-REQUIREMENTS@1" || strings.Join(b.ConstraintSets, " ") != "CS-BRACKET-REQUIREMENTS@1" ||
		len(b.Entities) != 1 || b.Entities[0] != risk.Node.ID {
		t.Fatalf("baseline = %+v %v", b, err)
	}
	pins, err := s.Neighbors(bg, cad.ID, twin.Incoming, twin.EdgePins)
	if err != nil || len(pins) != 1 || pins[0].Node.ID != b.Node.ID {
		t.Fatalf("PINS into the cad_model = %+v %v", pins, err)
	}

	// A head that moves while the baseline is read aborts it whole.
	ms := &movingStore{Store: s, projectID: g.p.ID, key: "CAD-BRACKET"}
	_, err = twin.CreateBaseline(bg, ms, twin.BaselineWrite{ProjectID: g.p.ID, ApprovedBy: "ana", Reason: "second"})
	if !errors.Is(err, twin.ErrStaleRevision) || !strings.Contains(err.Error(), "CAD-BRACKET@1 (its head is now CAD-BRACKET@2)") {
		t.Fatalf("a baseline over a moved head = %v", err)
	}
	bs, err := twin.Baselines(bg, s, g.p.ID)
	if err != nil || len(bs) != 1 || bs[0].Node.ID != b.Node.ID {
		t.Fatalf("baselines after the aborted one = %+v %v", bs, err)
	}
	head, _ := s.GetItem(bg, g.p.ID, "CAD-BRACKET")
	if pins, _ := s.Neighbors(bg, head.HeadNodeID, twin.Incoming, twin.EdgePins); len(pins) != 0 {
		t.Fatalf("the aborted baseline left PINS edges: %+v", pins)
	}
	moved, err := twin.MovedSince(bg, s, bs[0])
	if err != nil || strings.Join(moved, ",") != "CAD-BRACKET@1 -> CAD-BRACKET@2" {
		t.Fatalf("moved since = %v %v", moved, err)
	}
	b2, err := twin.CreateBaseline(bg, s, twin.BaselineWrite{ProjectID: g.p.ID, ApprovedBy: "bo", Reason: "again", IdempotencyKey: "k"})
	if err != nil || b2.Items[0] != "CAD-BRACKET@2" {
		t.Fatalf("second baseline = %+v %v", b2, err)
	}
	if again, err := twin.CreateBaseline(bg, s, twin.BaselineWrite{ProjectID: g.p.ID, ApprovedBy: "bo", Reason: "again", IdempotencyKey: "k"}); err != nil || again.Node.ID != b2.Node.ID {
		t.Fatalf("repeated baseline = %+v %v", again, err)
	}
	if bs, _ := twin.Baselines(bg, s, g.p.ID); len(bs) != 2 {
		t.Fatalf("baselines = %d, want 2", len(bs))
	}
}

// checkOf finds a gate's check by id.
func checkOf(t *testing.T, g twin.Gate, id string) twin.GateCheck {
	t.Helper()
	for _, c := range g.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("%s has no check %s: %+v", g.ID, id, g.Checks)
	return twin.GateCheck{}
}

func approve(t *testing.T, s twin.Store, p twin.Project, id string) {
	t.Helper()
	if _, err := twin.Approve(bg, s, twin.ApprovalWrite{Project: p, NodeID: id, Approver: "ana", ApproverVerified: true}); err != nil {
		t.Fatal(err)
	}
}

func entity(t *testing.T, s twin.Store, p twin.Project, typ, name string, props map[string]any) twin.Node {
	t.Helper()
	e, err := twin.RecordEntity(bg, s, twin.EntityWrite{ProjectID: p.ID, EntityType: typ, Name: name, Properties: props})
	if err != nil {
		t.Fatal(err)
	}
	return e.Node
}

func testReleaseGate(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Release")
	g.commit("cad_model", "Bracket", nil)
	g.requirements("Bracket requirements", stiff(0.5))
	create := func(key string) (twin.ReleasePackage, error) {
		return twin.CreateReleasePackage(bg, s, twin.ReleaseWrite{ProjectID: g.p.ID, Reason: "ship", CreatedBy: "ana", IdempotencyKey: key})
	}

	// A fresh project: every check that lacks data says what to record.
	g8, err := twin.ReleaseGate(bg, s, g.p.ID)
	if err != nil || g8.Passed || g8.Status != twin.GateNoData {
		t.Fatalf("G8 on a fresh project = %+v %v", g8, err)
	}
	for id, want := range map[string]string{"baseline_fixed": twin.GateNoData, "no_stale_evidence": twin.GatePass,
		"verification_complete": twin.GateNoData, "waivers_approved": twin.GatePass, "release_approved": twin.GateNoData} {
		if c := checkOf(t, g8, id); c.Status != want || want == twin.GateNoData && len(c.Missing) == 0 {
			t.Errorf("fresh %s = %+v, want %s with what is missing", id, c, want)
		}
	}
	_, err = create("")
	for _, want := range []string{"no release package was recorded", "Configuration baseline fixed (no_data)", "twin.create_baseline",
		"Verification coverage complete (no_data)", "evidence with metric tip_deflection", "Release approval recorded (no_data)"} {
		if !refusal(err, want) {
			t.Errorf("release on a fresh project = %v, want it to name %q", err, want)
		}
	}
	if rs, _ := twin.ReleasePackages(bg, s, g.p.ID); len(rs) != 0 {
		t.Fatalf("a refused release recorded %+v", rs)
	}
	if _, err := twin.RecordEntity(bg, s, twin.EntityWrite{ProjectID: g.p.ID, EntityType: "release_package", Name: "by hand"}); !refusal(err, "twin.create_release_package records one") {
		t.Errorf("a release_package by hand = %v", err)
	}

	// Evidence on CAD@1, then CAD@2: stale, named by id and name.
	old := g.evidence("FEA r1", "tip_deflection", 0.3, "mm", []string{"CAD-BRACKET"}, []string{"CS-BRACKET-REQUIREMENTS"})
	g.commit("cad_model", "Bracket", nil)
	g8, _ = twin.ReleaseGate(bg, s, g.p.ID)
	stale := checkOf(t, g8, "no_stale_evidence")
	if stale.Status != twin.GateFail || len(stale.Failing) != 1 ||
		stale.Failing[0] != `evidence `+old.ID+` "FEA r1" was computed against CAD-BRACKET@1 (now CAD-BRACKET@2)` {
		t.Fatalf("stale evidence check = %+v", stale)
	}
	// Fresh evidence superseding it: the stale one no longer counts.
	v := 0.31
	fresh, _, _, err := twin.RecordEvidence(bg, s, twin.EvidenceWrite{ProjectID: g.p.ID, Name: "FEA r2", Kind: "simulation", Metric: "tip_deflection",
		Value: &v, Unit: "mm", ValidAgainst: []string{"CAD-BRACKET@2"}, Verifies: []string{"CS-BRACKET-REQUIREMENTS"}, Supersedes: []string{old.ID}})
	if err != nil {
		t.Fatal(err)
	}
	g8, _ = twin.ReleaseGate(bg, s, g.p.ID)
	if c := checkOf(t, g8, "no_stale_evidence"); c.Status != twin.GatePass || !strings.Contains(c.Detail, "superseded") {
		t.Fatalf("stale but superseded = %+v", c)
	}
	if c := checkOf(t, g8, "verification_complete"); c.Status != twin.GatePass {
		t.Fatalf("verification after fresh evidence = %+v", c)
	}

	if _, err := twin.CreateBaseline(bg, s, twin.BaselineWrite{ProjectID: g.p.ID, ApprovedBy: "ana", ApproverVerified: true, Reason: "release"}); err != nil {
		t.Fatal(err)
	}
	ra := entity(t, s, g.p, "release_approval", "Release 1 approval", nil)
	waiver := entity(t, s, g.p, "waiver", "Skip the drop test", map[string]any{"waives": []any{"drop_test"}})
	g8, _ = twin.ReleaseGate(bg, s, g.p.ID)
	if c := checkOf(t, g8, "release_approved"); c.Status != twin.GateFail || !strings.Contains(c.Failing[0], ra.ID) {
		t.Errorf("unapproved release approval = %+v", c)
	}
	if c := checkOf(t, g8, "waivers_approved"); c.Status != twin.GateFail || !strings.Contains(c.Failing[0], waiver.ID) {
		t.Errorf("unapproved waiver = %+v", c)
	}
	if c := checkOf(t, g8, "baseline_fixed"); c.Status != twin.GatePass {
		t.Errorf("baseline = %+v", c)
	}
	_, err = create("")
	if !refusal(err, "Release approval recorded (fail)") || !refusal(err, "Waivers approved (fail)") || refusal(err, "baseline") {
		t.Errorf("release with unapproved entities = %v", err)
	}
	approve(t, s, g.p, ra.ID)
	approve(t, s, g.p, waiver.ID)
	g.commit("decision", "Use 6061", map[string]any{"alternatives": []any{map[string]any{"option": "steel"}}})
	if _, err := create(""); !refusal(err, "DEC-USE-6061@1 (new since the baseline)") {
		t.Fatalf("release after a new item = %v", err)
	}
	if _, err := twin.CreateBaseline(bg, s, twin.BaselineWrite{ProjectID: g.p.ID, ApprovedBy: "ana", Reason: "with the decision"}); err != nil {
		t.Fatal(err)
	}
	r1, err := create("rel-1")
	if err != nil || r1.Version != 1 || r1.Counts != (twin.ReleaseCounts{Hierarchy: 1, Evidence: 1, Decisions: 1, Items: 3}) || r1.Delta != r1.Counts ||
		r1.Evidence[0] != fresh.ID || r1.Node.Type != twin.ReleasePackageNodeType {
		t.Fatalf("release 1 = %+v %v", r1, err)
	}
	if again, err := create("rel-1"); err != nil || again.Node.ID != r1.Node.ID {
		t.Fatalf("repeated release = %+v %v", again, err)
	}
	// A second part, re-baselined, released: the delta counts it.
	g.commit("cad_model", "Bolt", nil)
	if _, err := twin.CreateBaseline(bg, s, twin.BaselineWrite{ProjectID: g.p.ID, ApprovedBy: "ana", Reason: "bolt"}); err != nil {
		t.Fatal(err)
	}
	r2, err := create("rel-2")
	if err != nil || r2.Version != 2 || r2.Delta != (twin.ReleaseCounts{Hierarchy: 1, Items: 1}) {
		t.Fatalf("release 2 = %+v %v", r2, err)
	}
	rs, err := twin.ReleasePackages(bg, s, g.p.ID)
	if err != nil || len(rs) != 2 || rs[1].Version != 2 || rs[1].Counts.Items != 4 || rs[1].Delta.Hierarchy != 1 || rs[0].Baseline == "" {
		t.Fatalf("release packages = %+v %v", rs, err)
	}
}

func testMaturityGates(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Gates")
	gates, err := twin.MaturityGates(bg, s, g.p.ID)
	if err != nil || len(gates) != 6 {
		t.Fatalf("gates = %+v %v", gates, err)
	}
	for i, gt := range gates {
		if want := "G" + string(rune('3'+i)); gt.ID != want || gt.Passed || gt.Status != twin.GateNoData {
			t.Errorf("gate %d on an empty project = %+v, want %s no_data", i, gt, want)
		}
	}
	// G3: a mass budget held by the breakdown's rolled-up mass.
	g.requirements("Reqs", stiff(0.5))
	entity(t, s, g.p, "budget", "Mass", map[string]any{"metric": "mass", "unit": "kg", "system_total": 2.0})
	g.commit("cad_model", "Arm", map[string]any{"mass_kg": 1.5})
	gates, _ = twin.MaturityGates(bg, s, g.p.ID)
	if gates[0].Status != twin.GatePass || !strings.Contains(checkOf(t, gates[0], "budgets_held").Detail, `budget "Mass": 1.5 of 2 kg`) {
		t.Fatalf("G3 = %+v", gates[0])
	}
	g.commit("cad_model", "Arm", map[string]any{"mass_kg": 2.5})
	gates, _ = twin.MaturityGates(bg, s, g.p.ID)
	if c := checkOf(t, gates[0], "budgets_held"); gates[0].Status != twin.GateFail || !strings.Contains(c.Failing[0], "is over its system total") {
		t.Fatalf("G3 over budget = %+v", gates[0])
	}
	// G6: data, then a failing value.
	if c := checkOf(t, gates[3], "requirements_have_data"); c.Status != twin.GateNoData || !strings.Contains(c.Missing[0], "stiff") {
		t.Errorf("G6 data = %+v", c)
	}
	g.evidence("FEA", "tip_deflection", 0.9, "mm", []string{"CAD-ARM"}, nil)
	gates, _ = twin.MaturityGates(bg, s, g.p.ID)
	if c := checkOf(t, gates[3], "requirements_hold"); gates[3].Status != twin.GateFail || !strings.Contains(c.Failing[0], "stiff") {
		t.Errorf("G6 failing = %+v", gates[3])
	}
	// G7: the requirement declares its method; verification cases missing.
	if c := checkOf(t, gates[4], "verification_methods"); c.Status != twin.GatePass {
		t.Errorf("G7 methods = %+v", c)
	}
	entity(t, s, g.p, "verification_case", "Deflection FEA", nil)
	if gates, _ = twin.MaturityGates(bg, s, g.p.ID); !gates[4].Passed {
		t.Errorf("G7 with a verification case = %+v", gates[4])
	}
}

func testPromotion(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Promotion")
	cad := g.commit("cad_model", "Bracket", nil)
	light := twin.Constraint{Name: "light", Metric: "mass", Operator: "<=", Limit: limit(1), Unit: "kg", VerificationMethod: "analysis"}
	g.requirements("Reqs", stiff(0.5), light)
	ev := g.evidence("FEA", "tip_deflection", 0.2, "mm", []string{cad.Ref()}, []string{"CS-REQS"})
	claim := func(req string, evs ...string) string {
		c, err := twin.RecordClaim(bg, s, twin.ClaimWrite{ProjectID: g.p.ID, Claim: req + " holds", RequirementRef: "CS-REQS", RequirementName: req, EvidenceRefs: evs})
		if err != nil {
			t.Fatal(err)
		}
		return c.Node.ID
	}
	stiffClaim, lightClaim := claim("stiff", ev.ID), claim("light")
	attempt := func(reject bool, ids ...string) twin.Promotion {
		t.Helper()
		p, err := twin.AttemptPromotion(bg, s, twin.PromotionWrite{ProjectID: g.p.ID, ClaimIDs: ids, MaturityLevel: "prototype", Comment: "looks fine",
			Reject: reject, DecidedBy: "ana", DeciderVerified: true})
		if err != nil {
			t.Fatal(err)
		}
		if p.Node.Type != twin.MaturityGateNodeType || p.DecidedBy != "ana" {
			t.Fatalf("attempt record = %+v", p)
		}
		return p
	}
	if _, err := twin.AttemptPromotion(bg, s, twin.PromotionWrite{ProjectID: g.p.ID, ClaimIDs: []string{stiffClaim}, MaturityLevel: "x", DecidedBy: "ana"}); !refusal(err, "decided by a verified person") {
		t.Errorf("an unverified decider = %v", err)
	}
	if _, err := twin.AttemptPromotion(bg, s, twin.PromotionWrite{ProjectID: g.p.ID, ClaimIDs: []string{cad.ID}, MaturityLevel: "x", DecidedBy: "ana", DeciderVerified: true}); !refusal(err, "is not a claim of this project") {
		t.Errorf("a cad_model as a claim = %v", err)
	}

	pass := attempt(false, stiffClaim)
	if !pass.Promoted || len(pass.BlockedReasons) != 0 || pass.Claims[0].Outcome != twin.ClaimSatisfied || len(pass.Evidence) != 1 || pass.Evidence[0] != ev.ID {
		t.Fatalf("a passing claim = %+v", pass)
	}
	relied, _ := s.Neighbors(bg, pass.Node.ID, twin.Outgoing, twin.EdgeReliesOn)
	if len(relied) != 2 {
		t.Errorf("RELIES_ON = %+v, want the claim and its evidence", relied)
	}
	blocked := attempt(false, stiffClaim, lightClaim)
	if blocked.Promoted || blocked.Claims[1].Status != twin.StatusNoData || blocked.Claims[1].Outcome != twin.ClaimBlocked ||
		len(blocked.BlockedReasons) != 1 || !strings.Contains(blocked.BlockedReasons[0], `requirement "light" has no data`) {
		t.Fatalf("a no_data claim = %+v", blocked)
	}
	w := entity(t, s, g.p, "waiver", "Mass later", map[string]any{"waives": []any{"light"}})
	if p := attempt(false, stiffClaim, lightClaim); p.Promoted {
		t.Fatalf("an unapproved waiver waived: %+v", p)
	}
	approve(t, s, g.p, w.ID)
	waived := attempt(false, stiffClaim, lightClaim)
	if !waived.Promoted || waived.Claims[1].Outcome != twin.ClaimWaived || waived.Claims[1].WaivedBy[0] != w.ID {
		t.Fatalf("a waived claim = %+v", waived)
	}
	veto := attempt(true, stiffClaim)
	if veto.Promoted || !veto.Reject || veto.BlockedReasons[0] != "the reviewer rejected the promotion: looks fine" {
		t.Fatalf("a veto = %+v", veto)
	}
	// A new revision of the part: stiff rests on stale evidence, which no
	// waiver lifts.
	g.commit("cad_model", "Bracket", nil)
	if st := attempt(false, stiffClaim); st.Promoted || st.Claims[0].Status != twin.StatusStale {
		t.Fatalf("a stale claim = %+v", st)
	}
	ps, err := twin.Promotions(bg, s, g.p.ID)
	if err != nil || len(ps) != 6 || !ps[0].Promoted || ps[1].Promoted || ps[3].Claims[1].Outcome != twin.ClaimWaived || !ps[4].Reject ||
		ps[5].Claims[0].Status != twin.StatusStale || ps[0].DecidedBy != "ana" || !ps[0].DeciderVerified {
		t.Fatalf("promotions = %+v %v", ps, err)
	}
}
