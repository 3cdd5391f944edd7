package twin_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// The twin's rules over a store. Each test runs on every store (the
// in-memory one in memory_test.go, Neo4j in neo4j_test.go): the rules read
// only through twin.Store, so what they answer must not depend on which
// store holds the graph.
func runRules(t *testing.T, newStore func(t *testing.T) twin.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s twin.Store)
	}{
		{"ThreadWalkGoesTheWayItIsAsked", testThreadWalk},
		{"WhatVerifiesWeighsCurrentEvidence", testWhatVerifies},
		{"WhereUsedGroupsByEdge", testWhereUsed},
		{"FindByProperty", testFindByProperty},
		{"ClaimStatusIsComputedLive", testClaimStatus},
		{"RequirementStatus", testRequirementStatus},
		{"ValidateConstraintsFindsConflicts", testValidateConstraints},
		{"ComponentSelectionHoldsSpecs", testComponentSelection},
		{"PRDIsOneItemWithStrayValues", testPRD},
		{"DecisionsPinRevisions", testDecisions},
		{"EntitiesApprovalsAndCounts", testEntitiesAndApprovals},
		{"HierarchyRollsUpKnownFiguresOnly", testHierarchyRollup},
		{"HierarchyMovesAndRefusals", testHierarchyMovesAndRefusals},
		{"EBOMFromTheHierarchy", testEBOM},
		{"ProductStructureForG3AndTheResource", testProductStructure},
		{"WorkProductReadAsTube", testTube},
		{"GeometryIsKeptByFormat", testCommitGeometry},
		{"LoadCasesNameAPartAndFacesByGeometry", testLoadCases},
		{"AnalyzeChangeWalksTheThread", testAnalyzeChange},
		{"ChangeApprovalLevels", testApprovalLevels},
		{"CheckPatchRefusals", testCheckPatch},
		{"CommitChangeWritesTheNextRevisions", testCommitChange},
		{"CommitChangeConflictWritesNothing", testChangeConflict},
		{"ChangeEventsAreIdempotent", testChangeEvents},
		{"BaselinesPinHeadsAtomically", testBaselines},
		{"ReleaseGateNamesEachFailingCheck", testReleaseGate},
		{"MaturityGatesG3ToG8", testMaturityGates},
		{"PromotionChecksClaimsAndRecordsEachAttempt", testPromotion},
		{"SystemArchitectureIsOneItemOfCheckedInterfaces", testSystemArchitecture},
		{"URDFImportRecordsLinksAndJointsAndSaysWhatItSkipped", testImportURDF},
		{"TestPlanFromTestRequirements", testTestPlan},
		{"DeviceInstanceSerialsArePerProduct", testDeviceInstances},
		{"MeasurementsCalibrateAndContradictPredictions", testMeasurements},
		{"BringupChecklistInBuildOrder", testBringupChecklist},
		{"FirmwareScaffoldFromJointsAndPins", testFirmwareScaffold},
		{"HarnessEstimateAlongTheChain", testHarnessEstimate},
		{"SystemBudgetsHeldByTheRollup", testSystemBudgets},
		{"HierarchyKeepsAChildAddedDuringARevision", testHierarchyKeepsALateChild},
		{"ConceptSelectionWeighsRecordedScores", testConceptSelection},
		{"ComponentChoiceHoldsCandidatesAgainstRequirements", testComponentChoice},
		{"TypedDocumentsAreCheckedRevisedAndLinked", testTypedDocuments},
		{"SessionNarrativeEndsOnce", testSessionNarrative},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

var bg = context.Background()

// graph writes a test's twin, failing the test on any error.
type graph struct {
	t *testing.T
	s twin.Store
	p twin.Project
}

func newGraph(t *testing.T, s twin.Store, name string) graph {
	t.Helper()
	p, err := s.CreateProject(bg, twin.Project{Name: name}, "")
	if err != nil {
		t.Fatal(err)
	}
	return graph{t, s, p}
}

func (g graph) commit(itemType, name string, props map[string]any, links ...twin.Link) twin.Node {
	g.t.Helper()
	n, _, err := g.s.CommitRevision(bg, twin.RevisionWrite{ProjectID: g.p.ID, ItemType: itemType, Name: name, Properties: props, Links: links})
	if err != nil {
		g.t.Fatalf("commit %s %s: %v", itemType, name, err)
	}
	return n
}

func (g graph) requirements(name string, cs ...twin.Constraint) twin.Node {
	g.t.Helper()
	n, _, _, err := twin.RecordConstraintSet(bg, g.s, g.p.ID, name, cs, twin.WriteInfo{})
	if err != nil {
		g.t.Fatalf("constraint set %s: %v", name, err)
	}
	return n
}

func (g graph) evidence(name, metric string, value float64, unit string, validAgainst, verifies []string) twin.Node {
	g.t.Helper()
	n, _, _, err := twin.RecordEvidence(bg, g.s, twin.EvidenceWrite{ProjectID: g.p.ID, Name: name, Kind: "simulation", Metric: metric,
		Value: &value, Unit: unit, ValidAgainst: validAgainst, Verifies: verifies})
	if err != nil {
		g.t.Fatalf("evidence %s: %v", name, err)
	}
	return n
}

func limit(v float64) *float64 { return &v }

// stiff is a typed requirement: tip deflection at most lim mm.
func stiff(lim float64) twin.Constraint {
	return twin.Constraint{Name: "stiff", Metric: "tip_deflection", Operator: "<=", Limit: limit(lim), Unit: "mm", VerificationMethod: "analysis"}
}

// refusal says whether err is a refusal of the rules whose message
// contains want.
func refusal(err error, want string) bool {
	var r *twin.RefusalError
	return errors.As(err, &r) && strings.Contains(r.Message, want)
}

func testThreadWalk(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Thread")
	cad := g.commit("cad_model", "Link", nil)
	cs := g.requirements("Link requirements", stiff(0.5))
	ev := g.evidence("FEA", "tip_deflection", 0.2, "mm", []string{"CAD-LINK"}, []string{"CS-LINK-REQUIREMENTS"})

	out, err := twin.NewWalkSpec(nil, "", nil)
	if err != nil || out.Depth != twin.DefaultThreadDepth || out.Direction != twin.Outgoing {
		t.Fatalf("default spec = %+v %v", out, err)
	}
	w, err := out.From(bg, s, cs)
	if err != nil || len(w.Nodes) != 1 || len(w.Edges) != 0 ||
		!strings.Contains(w.Note, "nothing is reached from CS-LINK-REQUIREMENTS@1 walking outgoing edges (depth 2)") {
		t.Fatalf("outgoing from a requirement = %+v %v", w, err)
	}
	one := 1
	in, _ := twin.NewWalkSpec(&one, "incoming", nil)
	if w, err = in.From(bg, s, cs); err != nil || len(w.Edges) != 1 || w.Edges[0].Type != twin.EdgeVerifies || w.Edges[0].From != ev.ID || w.Note != "" {
		t.Fatalf("incoming depth 1 = %+v %v", w, err)
	}
	both, _ := twin.NewWalkSpec(nil, "both", []string{twin.EdgeVerifies, twin.EdgeValidAgainst})
	w, err = both.From(bg, s, cs)
	if err != nil || len(w.Nodes) != 3 || w.Nodes[2].Node.ID != cad.ID || w.Nodes[2].Depth != 2 {
		t.Fatalf("both depth 2 = %+v %v", w, err)
	}
	six := 6
	if _, err := twin.NewWalkSpec(&six, "", nil); !refusal(err, "depth 6: walk 1 to 5 hops") {
		t.Errorf("depth 6 = %v", err)
	}
	if _, err := twin.NewWalkSpec(nil, "up", nil); !refusal(err, `direction "up": use outgoing, incoming or both`) {
		t.Errorf("direction up = %v", err)
	}
}

func testWhatVerifies(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Verify")
	g.commit("cad_model", "Arm", nil)
	cs1 := g.requirements("Arm requirements", stiff(0.5))
	target := func(itemKey string) twin.Target {
		t.Helper()
		n, err := twin.ResolveRef(bg, s, g.p.ID, itemKey)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := twin.TargetOf(bg, s, n, itemKey)
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	v, err := twin.WhatVerifies(bg, s, target("CS-ARM-REQUIREMENTS"))
	if err != nil || v.Verified || v.Related != 0 || !strings.HasPrefix(v.Note, "nothing verifies CS-ARM-REQUIREMENTS: no VERIFIES or SUPPORTS edge") {
		t.Fatalf("nothing recorded = %+v %v", v, err)
	}
	g.evidence("FEA", "tip_deflection", 0.31, "mm", []string{"CAD-ARM"}, []string{cs1.ID})
	if v, err = twin.WhatVerifies(bg, s, target("CS-ARM-REQUIREMENTS")); err != nil || !v.Verified || v.Note != "" ||
		len(v.Evidence) != 1 || v.Evidence[0].Checks[0].Verdict != twin.VerdictSatisfies {
		t.Fatalf("current passing evidence = %+v %v", v, err)
	}

	// The requirement tightens: the evidence was against requirements that
	// have since changed, and now breaks the new limit anyway.
	g.requirements("Arm requirements", stiff(0.25))
	v, err = twin.WhatVerifies(bg, s, target("CS-ARM-REQUIREMENTS"))
	if err != nil || v.Verified || len(v.Evidence) != 1 || !v.Evidence[0].RequirementChanged ||
		!reflect.DeepEqual(v.Evidence[0].Verifies, []string{"CS-ARM-REQUIREMENTS@1"}) || v.Evidence[0].Checks[0].Verdict != twin.VerdictViolates ||
		!strings.Contains(v.Note, "1 evidence against earlier requirements that have since changed") {
		t.Fatalf("after the requirement changed = %+v %v", v, err)
	}
	// Asked about revision 1 alone, the evidence still verifies it, until
	// the arm it was computed on is revised.
	if v, _ = twin.WhatVerifies(bg, s, target("CS-ARM-REQUIREMENTS@1")); !v.Verified {
		t.Errorf("revision 1 = %+v", v)
	}
	g.commit("cad_model", "Arm", map[string]any{"material": "steel"})
	v, _ = twin.WhatVerifies(bg, s, target("CS-ARM-REQUIREMENTS@1"))
	if v.Verified || !v.Evidence[0].Freshness.Stale ||
		!reflect.DeepEqual(v.Evidence[0].Freshness.Against, []twin.StalePin{{Pinned: "CAD-ARM@1", Head: "CAD-ARM@2"}}) {
		t.Errorf("after the arm's revision 2 = %+v", v)
	}
}

func testWhereUsed(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Used")
	cad := g.commit("cad_model", "Bracket", nil)
	dec := g.commit("decision", "Use the bracket", map[string]any{"decision": "yes"}, twin.Link{Type: twin.EdgeDependsOn, To: cad.ID})
	g.evidence("FEA", "mass", 1, "kg", []string{"CAD-BRACKET@1"}, nil)
	g.commit("cad_model", "Bracket", nil)

	head, _ := twin.ResolveRef(bg, s, g.p.ID, "CAD-BRACKET")
	tg, err := twin.TargetOf(bg, s, head, "CAD-BRACKET")
	if err != nil || len(tg.Walk) != 2 || tg.Label != "CAD-BRACKET" || !reflect.DeepEqual(tg.Refs(), []string{"CAD-BRACKET@2", "CAD-BRACKET@1"}) {
		t.Fatalf("target = %+v %v", tg, err)
	}
	u, err := twin.WhereUsed(bg, s, tg)
	if err != nil || u.Related != 2 || len(u.UsedBy[twin.EdgeDependsOn]) != 1 || len(u.UsedBy[twin.EdgeValidAgainst]) != 1 ||
		u.UsedBy[twin.EdgeContains] == nil || len(u.UsedBy[twin.EdgeContains]) != 0 {
		t.Fatalf("where used = %+v %v", u, err)
	}
	d := u.UsedBy[twin.EdgeDependsOn][0]
	if d.Node.ID != dec.ID || d.Uses != "CAD-BRACKET@1" || *d.UsesCurrent || !*d.IsCurrentRevision || d.Stale != nil {
		t.Errorf("the decision's use = %+v", d)
	}
	if e := u.UsedBy[twin.EdgeValidAgainst][0]; e.Stale == nil || !*e.Stale || e.IsCurrentRevision != nil {
		t.Errorf("the evidence's use = %+v", e)
	}
	tg, _ = twin.TargetOf(bg, s, head, "CAD-BRACKET@2")
	if u, _ = twin.WhereUsed(bg, s, tg); u.Related != 0 || !strings.HasPrefix(u.Note, "nothing uses CAD-BRACKET@2") {
		t.Errorf("revision 2 alone = %+v", u)
	}
}

func testFindByProperty(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Find")
	g.commit("cad_model", "Plate", map[string]any{"material": "Steel", "tags": []any{"sheet", "laser"}})
	g.commit("cad_model", "Plate", map[string]any{"material": "aluminium"})
	g.commit("cad_model", "Rod", map[string]any{"material": " steel ", "length_mm": 120.0})
	g.evidence("Run", "mass", 2, "kg", []string{"CAD-ROD"}, nil)

	find := func(q twin.PropertyQuery) []string {
		t.Helper()
		q.ProjectID = g.p.ID
		m, err := twin.FindByProperty(bg, s, q)
		if err != nil {
			t.Fatal(err)
		}
		var refs []string
		for _, f := range m.Nodes {
			refs = append(refs, f.Node.RefOrID())
		}
		return refs
	}
	if got := find(twin.PropertyQuery{Key: "material", Value: "STEEL"}); !reflect.DeepEqual(got, []string{"CAD-ROD@1"}) {
		t.Errorf("current steel = %v", got)
	}
	if got := find(twin.PropertyQuery{Key: "material", Value: "steel", AllRevisions: true}); !reflect.DeepEqual(got, []string{"CAD-PLATE@1", "CAD-ROD@1"}) {
		t.Errorf("steel in any revision = %v", got)
	}
	if got := find(twin.PropertyQuery{Key: "length_mm", Value: "120"}); !reflect.DeepEqual(got, []string{"CAD-ROD@1"}) {
		t.Errorf("a number by its text = %v", got)
	}
	if got := find(twin.PropertyQuery{Key: "tags", Value: "laser", NodeType: "cad_model", AllRevisions: true}); !reflect.DeepEqual(got, []string{"CAD-PLATE@1"}) {
		t.Errorf("a list element = %v", got)
	}
	if got := find(twin.PropertyQuery{Key: "unit", Value: "kg"}); len(got) != 1 || !strings.HasPrefix(got[0], "n-") {
		t.Errorf("a record's property = %v", got)
	}
}

func testClaimStatus(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Claims")
	cad := g.commit("cad_model", "Arm", nil)
	g.requirements("Arm requirements", stiff(0.5), twin.Constraint{Name: "light", Metric: "mass", Operator: "<=", Limit: limit(1), Unit: "kg"})
	good := g.evidence("FEA", "tip_deflection", 0.31, "mm", []string{"CAD-ARM"}, nil)
	bad := g.evidence("Test rig", "tip_deflection", 700, "um", []string{"CAD-ARM"}, nil)

	claim := func(name string, evidence ...string) twin.ClaimStatus {
		t.Helper()
		c, err := twin.RecordClaim(bg, s, twin.ClaimWrite{ProjectID: g.p.ID, Claim: "the arm is stiff enough", RequirementRef: "CS-ARM-REQUIREMENTS",
			RequirementName: name, EvidenceRefs: evidence})
		if err != nil {
			t.Fatal(err)
		}
		return c.Status
	}
	if st := claim("STIFF", good.ID); st.Status != twin.ClaimSupported || st.Requirement.Name != "stiff" || *st.Requirement.Limit != 0.5 ||
		st.Requirement.HeadRef != "CS-ARM-REQUIREMENTS@1" || st.Evidence[0].Checks[0].Verdict != twin.VerdictSatisfies {
		t.Errorf("one good evidence = %+v", st)
	}
	if st := claim("stiff", good.ID, bad.ID); st.Status != twin.ClaimContradicted ||
		!strings.Contains(strings.Join(st.Reasons, "|"), `evidence "Test rig" gives tip_deflection = 700 um, which breaks requirement "stiff" (<= 0.5 mm)`) {
		t.Errorf("good and bad evidence = %+v", st)
	}
	if st := claim("stiff"); st.Status != twin.ClaimNoData || !strings.HasPrefix(st.Reasons[0], "no evidence is linked: no data is not a pass") {
		t.Errorf("no evidence = %+v", st)
	}
	// A new arm makes the evidence stale; stale evidence that breaks the
	// limit does not contradict, it describes an older design.
	g.commit("cad_model", "Arm", nil, twin.Link{Type: twin.EdgeRevisionOf, To: cad.ID})
	if st := claim("stiff", bad.ID); st.Status != twin.ClaimStale || len(st.Reasons) != 2 {
		t.Errorf("stale bad evidence = %+v", st)
	}

	_, err := twin.RecordClaim(bg, s, twin.ClaimWrite{ProjectID: g.p.ID, Claim: "x", RequirementRef: "CAD-ARM"})
	if !refusal(err, "requirement_ref CAD-ARM is a cad_model, not a constraint set") {
		t.Errorf("a claim on a part = %v", err)
	}
	_, err = twin.RecordClaim(bg, s, twin.ClaimWrite{ProjectID: g.p.ID, Claim: "x", RequirementRef: "CS-ARM-REQUIREMENTS", RequirementName: "fast"})
	if !refusal(err, `requirement_name "fast": CS-ARM-REQUIREMENTS@1 has no requirement of that name; it has "stiff", "light"`) {
		t.Errorf("an unknown requirement = %v", err)
	}
	_, err = twin.RecordClaim(bg, s, twin.ClaimWrite{ProjectID: g.p.ID, Claim: "x", RequirementRef: "CS-NOPE"})
	if !errors.Is(err, twin.ErrNotFound) || !strings.HasPrefix(err.Error(), "requirement_ref CS-NOPE: ") {
		t.Errorf("an unknown set = %v", err)
	}
	if _, err := twin.StatusOfClaim(bg, s, good.ID); !refusal(err, "is a evidence, not a claim") {
		t.Errorf("the status of evidence = %v", err)
	}
}

func testRequirementStatus(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Status")
	rep, err := twin.Requirements(bg, s, g.p.ID)
	if err != nil || rep.AllPass || len(rep.Requirements) != 0 || !strings.HasPrefix(rep.Note, "no requirements are recorded in this project") {
		t.Fatalf("an empty project = %+v %v", rep, err)
	}
	g.commit("cad_model", "Box", map[string]any{"bounding_box": map[string]any{"size": []any{120.0, 80.0, 40.0}}, "material": "steel"})
	g.commit("cad_model", "Lid", nil)
	g.requirements("Box requirements",
		stiff(0.5),
		twin.Constraint{Name: "fits", Metric: "envelope_x", Operator: "<=", Limit: limit(10), Unit: "cm"},
		twin.Constraint{Name: "light", Metric: "mass", Operator: "<=", Limit: limit(1), Unit: "kg"},
		twin.Constraint{Name: "strong", Metric: "yield_strength", Operator: ">=", Limit: limit(200), Unit: "MPa"},
		twin.Constraint{Name: "pretty", Description: "someone likes it"})
	g.evidence("FEA", "Tip Deflection", 400, "um", []string{"CAD-BOX"}, nil)
	g.evidence("Weighing", "mass", 900, "g", []string{"CAD-LID@1"}, nil)
	g.commit("cad_model", "Lid", nil)

	rep, err = twin.Requirements(bg, s, g.p.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]twin.RequirementStatus{}
	for _, r := range rep.Requirements {
		got[r.Name] = r
	}
	if r := got["stiff"]; r.Status != twin.StatusPass || r.Shown.Value != 0.4 || *r.Shown.Margin != 0.1 || r.Shown.Given != "400 um" || len(r.Evidence) != 1 {
		t.Errorf("stiff = %+v %+v", r, r.Shown)
	}
	if r := got["fits"]; r.Status != twin.StatusFail || r.Shown.Kind != "cad_model" || r.Shown.Value != 12 || r.Shown.From != "properties.bounding_box x" {
		t.Errorf("fits = %+v %+v", r, r.Shown)
	}
	if r := got["light"]; r.Status != twin.StatusStale || len(r.StaleValues) != 1 || r.Shown.Value != 0.9 {
		t.Errorf("light = %+v", r)
	}
	if r := got["strong"]; r.Status != twin.StatusPass || r.Shown.Value != 250 {
		t.Errorf("strong = %+v", r)
	}
	if r := got["pretty"]; r.Status != twin.StatusNoData || !reflect.DeepEqual(r.Missing, []string{"metric", "operator (one of <=, <, >=, >, ==)", "limit", "unit"}) {
		t.Errorf("pretty = %+v", r)
	}
	if rep.Summary != (twin.RequirementSummary{Requirements: 5, Pass: 2, Fail: 1, Stale: 1, NoData: 1}) || rep.AllPass ||
		len(rep.Violations()) != 1 || !reflect.DeepEqual(rep.CheckedAgainst, []string{"CS-BOX-REQUIREMENTS@1"}) {
		t.Errorf("report = %+v", rep)
	}
}

func testValidateConstraints(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Validate")
	g.requirements("Mass budget", twin.Constraint{Name: "light", Metric: "mass", Operator: "<=", Limit: limit(1), Unit: "kg"})
	g.requirements("Arm requirements", stiff(0.5))
	proposal := []twin.Constraint{
		{Name: "heavy", Metric: "mass", Operator: ">=", Limit: limit(2000), Unit: "g", VerificationMethod: "test"},
		{Name: "stiff", Metric: "tip_deflection", Operator: "<=", Limit: limit(-1), Unit: "mm", VerificationMethod: "analysis"},
		{Name: "also stiff", Metric: "tip_deflection", Operator: "<=", Limit: limit(-1), Unit: "mm"},
	}
	v, err := twin.ValidateConstraints(bg, s, g.p.ID, "arm requirements", "", proposal)
	if err != nil || v.Valid || v.Revises != "CS-ARM-REQUIREMENTS" || !reflect.DeepEqual(v.ConflictsCheckedAgainst, []string{"CS-MASS-BUDGET@1"}) {
		t.Fatalf("validation = %+v %v", v, err)
	}
	if len(v.Conflicts) != 1 || v.Conflicts[0].Kind != "contradictory_bounds" || v.Conflicts[0].With.ConstraintSet != "CS-MASS-BUDGET@1" {
		t.Errorf("conflicts = %+v", v.Conflicts)
	}
	if len(v.Duplicates) != 1 || v.Duplicates[0].Kind != "identical_bound" || v.Duplicates[0].With.ConstraintSet != "(this set)" {
		t.Errorf("duplicates = %+v", v.Duplicates)
	}
	if is := v.Requirements[1].Issues; len(is) != 1 || is[0].Code != "never_met" || is[0].Severity != twin.FindingError {
		t.Errorf("a negative deflection limit = %+v", is)
	}
	if v, _ := twin.ValidateConstraints(bg, s, "", "", "", proposal[:1]); !v.Valid || v.ProjectID != "" || len(v.Notes) != 2 {
		t.Errorf("without a project = %+v", v)
	}
	if _, err := twin.CheckConstraintSet([]twin.Constraint{{Name: "a"}, {Name: " A "}}); !refusal(err, `constraint " A " appears twice`) {
		t.Errorf("a duplicate name = %v", err)
	}
}

func testComponentSelection(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Selection")
	board := g.commit("pcb", "Main board", nil)
	g.requirements("Power", twin.Constraint{Name: "iq", Metric: "quiescent_current", Operator: "<=", Limit: limit(50), Unit: "uA"},
		twin.Constraint{Name: "vout", Metric: "output_voltage", Operator: ">=", Limit: limit(3.3), Unit: "V"})
	sel, err := twin.RecordComponentSelection(bg, s, twin.SelectionWrite{ProjectID: g.p.ID, Name: "LDO", MPN: " TPS7A02 ", ForItem: "PCB-MAIN-BOARD",
		Specs: map[string]any{"Quiescent Current": "75 uA", "output_voltage": "3300 mV"}})
	if err != nil || sel.Node.Ref() != "BOM-LDO@1" {
		t.Fatalf("selection = %+v %v", sel, err)
	}
	if sel.ForItem != board.Ref() || !reflect.DeepEqual(sel.Check.Violates, []string{"iq"}) || len(sel.Check.Margins) != 2 ||
		!reflect.DeepEqual(sel.Check.CheckedAgainst(), []string{"CS-POWER@1"}) || sel.Node.Properties["mpn"] != "TPS7A02" {
		t.Errorf("check = %+v", sel.Check)
	}
	nbs, _ := s.Neighbors(bg, sel.Node.ID, twin.Outgoing)
	if len(nbs) != 2 {
		t.Errorf("links = %+v, want DEPENDS_ON the board and CONSTRAINED_BY the set", nbs)
	}
	if err := (twin.SelectionWrite{Name: "x", MPN: "y", Specs: map[string]any{"a b": 1.0, "A-B": 2.0}}).Check(); !refusal(err, "name the same metric (a_b)") {
		t.Errorf("two specs of one metric = %v", err)
	}
	if r := twin.ReadSpec(75.0, "uA"); !r.UnitAssumed || r.Value != 75 {
		t.Errorf("a bare number = %+v", r)
	}
	if r := twin.ReadSpec("3 furlongs", "m"); r.Reason != "incompatible_units" {
		t.Errorf("an unknown unit = %+v", r)
	}
}

func testPRD(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Drone Frame")
	g.requirements("Frame", twin.Constraint{Name: "light", Metric: "mass", Operator: "<=", Limit: limit(2), Unit: "kg"})
	doc, err := twin.RecordDocument(bg, s, twin.DocumentWrite{Project: g.p, DocumentType: "prd", Title: "Product",
		Text: "A frame under 2000 g that carries a 500 g camera for 30 minutes."})
	if err != nil || doc.Item.Key != "PRD-DRONE-FRAME" || !reflect.DeepEqual(doc.StrayValues, []string{"500 g", "30 minutes"}) ||
		!strings.Contains(doc.Warning, "no requirement in CS-FRAME@1 states them") {
		t.Fatalf("prd = %+v %v", doc, err)
	}
	again, err := twin.RecordDocument(bg, s, twin.DocumentWrite{Project: g.p, DocumentType: "prd", Title: "Another title", Text: "Prose only."})
	if err != nil || again.Item.Key != "PRD-DRONE-FRAME" || again.Node.Revision != 2 || again.StrayValues != nil {
		t.Errorf("a second prd = %+v %v", again, err)
	}
	_, err = twin.RecordDocument(bg, s, twin.DocumentWrite{Project: g.p, DocumentType: "prd", Title: "P", Text: "x", WriteInfo: twin.WriteInfo{ItemKey: "PRD-OTHER"}})
	if !refusal(err, "item_key PRD-OTHER: this project's prd is PRD-DRONE-FRAME (head PRD-DRONE-FRAME@2)") {
		t.Errorf("another prd key = %v", err)
	}
	note, err := twin.RecordDocument(bg, s, twin.DocumentWrite{Project: g.p, DocumentType: "note", Title: " Meeting ", Text: "2 W"})
	if err != nil || note.Item.Key != "DOC-MEETING" || note.StrayValues != nil {
		t.Errorf("a note = %+v %v", note, err)
	}
	if err := (twin.DocumentWrite{Title: "t", Text: " "}).Check(); !refusal(err, "Missing: text") {
		t.Errorf("no text = %v", err)
	}
}

func testDecisions(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Decide")
	g.commit("cad_model", "Arm", nil)
	g.commit("cad_model", "Arm", nil)
	ev := g.evidence("Search", "mass", 1, "kg", []string{"CAD-ARM"}, nil)
	n, it, pinned, err := twin.RecordDecision(bg, s, twin.DecisionWrite{ProjectID: g.p.ID, Name: " Wall ", Decision: "2 mm",
		Alternatives: []twin.Alternative{{Option: "1 mm", Reason: "too soft"}}, DependsOn: []string{"CAD-ARM@1", "CAD-ARM@1"},
		SupportedBy: []string{ev.ID}, WriteInfo: twin.WriteInfo{Author: "agent:test"}})
	if err != nil || it.Key != "DEC-WALL" || !reflect.DeepEqual(pinned, []string{"CAD-ARM@1"}) || n.Author != "agent:test" {
		t.Fatalf("decision = %+v %+v %v %v", n, it, pinned, err)
	}
	if nbs, _ := s.Neighbors(bg, n.ID, twin.Outgoing, twin.EdgeDependsOn, twin.EdgeSupportedBy); len(nbs) != 2 {
		t.Errorf("links = %+v", nbs)
	}
	_, _, _, err = twin.RecordDecision(bg, s, twin.DecisionWrite{ProjectID: g.p.ID, Name: "x", Decision: "y", DependsOn: []string{ev.ID}})
	if !refusal(err, "depends_on "+ev.ID+": that is a evidence record, not a revision of an item") {
		t.Errorf("a record pinned = %v", err)
	}
	if err := (twin.DecisionWrite{Name: "x", Decision: "y", Alternatives: []twin.Alternative{{Option: "z"}}}).Check(); !refusal(err, "alternatives[0] needs both") {
		t.Errorf("an alternative without a reason = %v", err)
	}
}

func testEntitiesAndApprovals(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Entities")
	obj := g.commit("objective", "Fly far", nil)
	risk, err := twin.RecordEntity(bg, s, twin.EntityWrite{ProjectID: g.p.ID, EntityType: "risk", Name: "Motor fails",
		ParentRefs: []twin.ParentRef{{Ref: "OBJ-FLY-FAR"}, {Ref: obj.ID}}})
	if err != nil || risk.Item != nil || len(risk.Parents) != 1 || risk.Parents[0].Edge != twin.EdgeRelatesTo || risk.Parents[0].Ref != obj.Ref() {
		t.Fatalf("risk = %+v %v", risk, err)
	}
	if err := (twin.EntityWrite{EntityType: "budget", Name: "Mass", Properties: map[string]any{"unit": "kg"}}).Check(); !refusal(err, "a budget needs metric, system_total") {
		t.Errorf("a budget without a metric = %v", err)
	}
	if err := (twin.EntityWrite{EntityType: "risk", Name: "r", WriteInfo: twin.WriteInfo{ItemKey: "R"}}).Check(); !refusal(err, "a risk is a record") {
		t.Errorf("a record with an item key = %v", err)
	}
	waiver, err := twin.RecordEntity(bg, s, twin.EntityWrite{ProjectID: g.p.ID, EntityType: "waiver", Name: "Skip the drop test",
		Properties: map[string]any{"waives": []any{" drop_test ", ""}}})
	if err != nil {
		t.Fatal(err)
	}
	if w, _ := twin.ApprovedWaivers(bg, s, g.p.ID); len(w) != 0 {
		t.Errorf("waivers before approval = %+v", w)
	}
	if _, err := twin.Approve(bg, s, twin.ApprovalWrite{Project: g.p, NodeID: risk.Node.ID, Approver: "ana"}); !refusal(err, "is a risk, not a waiver") {
		t.Errorf("approving a risk = %v", err)
	}
	ap, err := twin.Approve(bg, s, twin.ApprovalWrite{Project: g.p, NodeID: waiver.Node.ID, Approver: "ana", Comment: " ok "})
	if err != nil || ap.Count != 1 || ap.Record.Properties["comment"] != "ok" {
		t.Fatalf("approval = %+v %v", ap, err)
	}
	w, err := twin.ApprovedWaivers(bg, s, g.p.ID)
	if err != nil || !reflect.DeepEqual(w, []twin.ApprovedWaiver{{ID: waiver.Node.ID, Name: "Skip the drop test", Waives: []string{"drop_test"}, ApprovedBy: "ana"}}) {
		t.Errorf("approved waivers = %+v %v", w, err)
	}
	counts, err := twin.CountByType(bg, s, g.p.ID)
	if err != nil || !reflect.DeepEqual(counts, map[string]int{"objective": 1, "risk": 1, "waiver": 1, twin.ApprovalNodeType: 1}) {
		t.Errorf("counts = %v %v", counts, err)
	}
}

func testTube(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Tube")
	g.commit("cad_model", "Boom", map[string]any{"bounding_box": map[string]any{"size": []any{0.5, 0.04, 0.02}, "unit": "m"},
		"wall_thickness_mm": 2.0, "material": "steel"})
	bare := g.commit("cad_model", "Blob", nil)

	n, err := twin.WorkProduct(bg, s, "", "CAD-BOOM")
	if err != nil || n.Ref() != "CAD-BOOM@1" {
		t.Fatalf("work product anywhere = %+v %v", n, err)
	}
	tb, err := twin.TubeOf(n)
	if err != nil || tb.LengthMM != 500 || tb.WidthMM != 40 || tb.HeightMM != 20 || tb.WallMM != 2 || tb.Mat.Name != "steel" {
		t.Errorf("tube = %+v %v", tb, err)
	}
	_, err = twin.TubeOf(bare)
	for _, want := range []string{"cad_model CAD-BLOB@1 cannot be read as a rectangular tube", "record bounding_box", "record wall_thickness_mm", "record material"} {
		if !refusal(err, want) {
			t.Errorf("a bare part = %v, want it to say %q", err, want)
		}
	}
	other := newGraph(t, s, "Other")
	other.commit("cad_model", "Boom", nil)
	if _, err := twin.WorkProduct(bg, s, "", "CAD-BOOM"); !refusal(err, "CAD-BOOM is an item in 2 projects") {
		t.Errorf("an item in two projects = %v", err)
	}
	if _, err := twin.WorkProduct(bg, s, g.p.ID, "CS-NONE"); !errors.Is(err, twin.ErrNotFound) || !strings.HasPrefix(err.Error(), "work_product_id CS-NONE: ") {
		t.Errorf("an unknown item = %v", err)
	}
	if _, err := twin.WorkProduct(bg, s, "", " "); !refusal(err, "Missing: work_product_id") {
		t.Errorf("no reference = %v", err)
	}
}
