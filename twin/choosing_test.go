package twin_test

import (
	"math"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// near says whether got is want within tol.
func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// decisionCount is how many decision revisions the project holds.
func decisionCount(t *testing.T, s twin.Store, projectID string) int {
	t.Helper()
	ds, err := s.NodesByType(bg, projectID, "decision")
	if err != nil {
		t.Fatal(err)
	}
	return len(ds)
}

func (g graph) conceptOption(name string, scores map[string]any) twin.Node {
	g.t.Helper()
	e, err := twin.RecordEntity(bg, g.s, twin.EntityWrite{ProjectID: g.p.ID, EntityType: "concept_option", Name: name,
		Properties: map[string]any{"criteria_scores": scores}})
	if err != nil {
		g.t.Fatalf("concept option %s: %v", name, err)
	}
	return e.Node
}

// A trade study of three arm concepts. By hand, with weights mass 2,
// cost 1, risk 1 normalised to 0.5, 0.25, 0.25:
//
//	serial   0.5*6 + 0.25*8 + 0.25*7 = 6.75
//	parallel 0.5*9 + 0.25*5 + 0.25*6 = 7.25
//	cable    risk not scored: no_data (partial 0.5*8 + 0.25*9 = 6.25 over 0.75)
func testConceptSelection(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Trade study")
	serial := g.conceptOption("Serial arm", map[string]any{"mass": 6.0, "cost": 8.0, "risk": 7.0})
	parallel := g.conceptOption("Parallel arm", map[string]any{"Mass": 9.0, "cost": 5.0, "risk": 6.0})
	cable := g.conceptOption("Cable arm", map[string]any{"mass": 8.0, "cost": 9.0})
	risk, err := twin.RecordEntity(bg, s, twin.EntityWrite{ProjectID: g.p.ID, EntityType: "risk", Name: "Not an option"})
	if err != nil {
		t.Fatal(err)
	}
	weights := map[string]float64{"mass": 2, "cost": 1, "risk": 1}
	const tol = 1e-9

	out, err := twin.SelectConcept(bg, s, twin.ConceptSelection{ProjectID: g.p.ID, Options: []string{serial.ID, "Parallel arm", cable.ID},
		Weights: weights, Rationale: "the arm must be light", WriteInfo: twin.WriteInfo{IdempotencyKey: "concept-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Selected.Node.ID != parallel.ID || out.ChosenBy != "ranking" || !near(*out.Selected.Score, 7.25, tol) || out.Selected.Rank != 1 {
		t.Fatalf("selected %+v by %s, want the parallel arm at 7.25 by the ranking", out.Selected, out.ChosenBy)
	}
	if !near(out.Weights["mass"], 0.5, tol) || !near(out.Weights["cost"], 0.25, tol) || !near(out.Weights["risk"], 0.25, tol) ||
		!strings.Contains(out.Normalisation, "normalised to sum to 1") {
		t.Errorf("weights %v (%s), want 0.5, 0.25, 0.25 and the normalisation said", out.Weights, out.Normalisation)
	}
	if o := out.Options[0]; !near(*o.Score, 6.75, tol) || o.Rank != 2 {
		t.Errorf("serial arm = %+v, want 6.75, rank 2", o)
	}
	c := out.Options[2]
	if c.Score != nil || c.Rank != 0 || len(c.Missing) != 1 || c.Missing[0] != "risk" || !near(c.Partial, 6.25, tol) || !near(c.Covered, 0.75, tol) {
		t.Errorf("cable arm = %+v, want no_data for risk, unranked, partial 6.25 over 0.75", c)
	}
	if row := c.Criteria[2]; row.Criterion != "risk" || !row.NoData() || !strings.Contains(row.Detail, "no score for risk") {
		t.Errorf("cable arm's risk = %+v", row)
	}
	if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "Cable arm") || !strings.Contains(out.Warnings[0], "never scored zero") {
		t.Errorf("warnings = %v, want the cable arm's no_data said", out.Warnings)
	}

	// The decision: the others as alternatives with their scores, linked
	// to the chosen option.
	dec := out.Decision
	if dec.Type != "decision" || dec.Ref() != "DEC-CONCEPT-SELECTION@1" || dec.Properties["decision"] != `Selected concept "Parallel arm" (weighted score 7.25)` {
		t.Fatalf("decision = %+v", dec)
	}
	stored, err := s.GetNode(bg, dec.ID)
	if err != nil {
		t.Fatal(err)
	}
	alts, _ := stored.Properties["alternatives"].([]any)
	if len(alts) != 2 {
		t.Fatalf("alternatives = %v, want the serial and the cable arm", stored.Properties["alternatives"])
	}
	a0, a1 := alts[0].(map[string]any), alts[1].(map[string]any)
	if a0["option"] != "Serial arm ("+serial.ID+")" || a0["reason"] != `weighted score 6.75 against 7.25 for "Parallel arm" (rank 2)` {
		t.Errorf("first alternative = %v", a0)
	}
	if a1["option"] != "Cable arm ("+cable.ID+")" || !strings.HasPrefix(a1["reason"].(string), "not ranked: no_data for risk (never scored zero") {
		t.Errorf("second alternative = %v", a1)
	}
	if r, _ := stored.Properties["rationale"].(string); !strings.HasPrefix(r, "the arm must be light\n\nTrade study over cost 0.25, mass 0.5, risk 0.25") {
		t.Errorf("rationale = %q", r)
	}
	study, _ := stored.Properties["trade_study"].(map[string]any)
	if study["selected"] != parallel.ID || study["chosen_by"] != "ranking" || len(study["options"].([]any)) != 3 {
		t.Errorf("trade_study = %v", study)
	}
	from, err := s.Neighbors(bg, dec.ID, twin.Outgoing, twin.EdgeGeneratedFrom)
	if err != nil || len(from) != 1 || from[0].Node.ID != parallel.ID {
		t.Errorf("GENERATED_FROM = %+v %v, want the parallel arm", from, err)
	}
	// The trade study passes G5, the concept selection gate.
	gates, err := twin.MaturityGates(bg, s, g.p.ID)
	if err != nil {
		t.Fatal(err)
	}
	g5 := false
	for _, gate := range gates {
		if gate.ID == "G5" {
			g5 = true
			if !gate.Passed || len(gate.NotPassing()) > 0 {
				t.Errorf("G5 after the trade study = %+v, want it passed", gate)
			}
		}
	}
	if !g5 {
		t.Errorf("no G5 among the maturity gates %+v", gates)
	}
	if again, err := twin.SelectConcept(bg, s, twin.ConceptSelection{ProjectID: g.p.ID, Options: []string{serial.ID, parallel.ID, cable.ID},
		Weights: weights, WriteInfo: twin.WriteInfo{IdempotencyKey: "concept-1"}}); err != nil || again.Decision.ID != dec.ID {
		t.Errorf("a repeated call = %v %v, want the first decision", again.Decision.ID, err)
	}

	// Refused, writing nothing.
	before := decisionCount(t, s, g.p.ID)
	for _, tc := range []struct {
		c    twin.ConceptSelection
		want string
	}{
		{twin.ConceptSelection{Options: []string{serial.ID}, Weights: weights}, "options has 1 entries"},
		{twin.ConceptSelection{Options: []string{serial.ID, parallel.ID, cable.ID, serial.ID + "x", "e"}, Weights: weights}, "options has 5 entries"},
		{twin.ConceptSelection{Options: []string{serial.ID, serial.ID}, Weights: weights}, "twice"},
		{twin.ConceptSelection{Options: []string{serial.ID, "Serial arm"}, Weights: weights}, "twice"},
		{twin.ConceptSelection{Options: []string{serial.ID, parallel.ID}}, "weights is empty"},
		{twin.ConceptSelection{Options: []string{serial.ID, parallel.ID}, Weights: map[string]float64{"mass": 1, "cost": 0}}, `weights["cost"] is 0`},
		{twin.ConceptSelection{Options: []string{serial.ID, parallel.ID}, Weights: map[string]float64{"mass": -1}}, "must be > 0"},
		{twin.ConceptSelection{Options: []string{serial.ID, parallel.ID}, Weights: map[string]float64{"mass": 1, "Mass ": 1}}, "name the same criterion"},
		{twin.ConceptSelection{Options: []string{serial.ID, risk.Node.ID}, Weights: weights}, "is a risk, not a concept_option"},
		{twin.ConceptSelection{Options: []string{serial.ID, "Tentacle arm"}, Weights: weights}, `no concept_option is named "Tentacle arm"`},
		{twin.ConceptSelection{Options: []string{serial.ID, parallel.ID}, Weights: weights, Choice: "Cable arm"}, "is not one of the options compared"},
		// Both scored on mass and cost only: 0.5*6 + 0.5*8 = 7 = 0.5*9 + 0.5*5.
		{twin.ConceptSelection{Options: []string{serial.ID, parallel.ID}, Weights: map[string]float64{"mass": 1, "cost": 1}}, "tie at weighted score 7"},
	} {
		tc.c.ProjectID = g.p.ID
		if _, err := twin.SelectConcept(bg, s, tc.c); !refusal(err, tc.want) {
			t.Errorf("%+v: %v, want a refusal saying %q", tc.c, err, tc.want)
		}
	}
	noneRanked := twin.ConceptSelection{ProjectID: g.p.ID, Options: []string{cable.ID, serial.ID}, Weights: map[string]float64{"risk": 1, "reach": 1}}
	if _, err := twin.SelectConcept(bg, s, noneRanked); !refusal(err, "no option has a score for every weighted criterion") {
		t.Errorf("no option scored on every criterion: %v", err)
	}
	if n := decisionCount(t, s, g.p.ID); n != before {
		t.Fatalf("refused selections wrote %d decisions", n-before)
	}

	// A tie the caller breaks, and a choice the ranking cannot score.
	tie, err := twin.SelectConcept(bg, s, twin.ConceptSelection{ProjectID: g.p.ID, Name: "Tied study", Options: []string{serial.ID, parallel.ID},
		Weights: map[string]float64{"mass": 1, "cost": 1}, Choice: "Serial arm"})
	if err != nil || tie.ChosenBy != "caller" || tie.Selected.Node.ID != serial.ID {
		t.Fatalf("a broken tie = %+v %v", tie, err)
	}
	if alts := tie.Decision.Properties["alternatives"].([]any); !strings.Contains(alts[0].(map[string]any)["reason"].(string), "tied with the selected option") {
		t.Errorf("tie alternative = %v", alts)
	}
	pick, err := twin.SelectConcept(bg, s, twin.ConceptSelection{ProjectID: g.p.ID, Options: []string{serial.ID, parallel.ID, cable.ID},
		Weights: weights, Choice: cable.ID, Rationale: "the cable arm keeps motors off the arm"})
	if err != nil || pick.Decision.Ref() != "DEC-CONCEPT-SELECTION@2" || pick.Best == nil || pick.Best.Node.ID != parallel.ID {
		t.Fatalf("the caller's unscored choice = %+v %v", pick, err)
	}
	if d := pick.Decision.Properties["decision"]; d != `Selected concept "Cable arm" (weighted score no_data (no score for risk))` {
		t.Errorf("decision = %v", d)
	}
	if !strings.Contains(strings.Join(pick.Warnings, "\n"), "its weighted score is no_data") {
		t.Errorf("warnings = %v", pick.Warnings)
	}
}

func servoReq(spec string, threshold float64, unit, dir string) twin.RequiredSpec {
	return twin.RequiredSpec{Spec: spec, Threshold: &threshold, Unit: unit, Direction: dir}
}

// A shoulder servo chosen from three. By hand, against stall_torque >= 1.2
// N*m, mass <= 60 g, unit_cost <= 40 USD:
//
//	MG996R  torque 1.1: -0.1 N*m (-8.33%) fail; mass 55 g: +5 (8.33%); cost 9: +31 (77.5%)
//	DS3218  torque 2.0: +0.8 (66.67%); mass 0.058 kg = 58 g: +2 (3.33%); cost 15: +25 (62.5%)
//	LX-16A  torque 1.9: +0.7 (58.33%); mass: no figure, no_data; cost 18: +22 (55%)
//
// Only DS3218 meets every requirement (tightest 3.33%), so the rank rule
// chooses it; LX-16A's better known margins do not count, its mass is
// unknown.
func testComponentChoice(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Servo choice")
	arm := g.commit("cad_model", "Upper arm", nil)
	required := []twin.RequiredSpec{servoReq("stall_torque", 1.2, "N*m", ">="), servoReq("mass", 60, "g", "<="), servoReq("unit_cost", 40, "USD", "<=")}
	cands := []twin.ComponentCandidate{
		{MPN: "MG996R", Manufacturer: "TowerPro", Specs: map[string]any{"stall_torque": "1.1 N*m", "mass": "55 g", "unit_cost": "$9", "category": "servo"}},
		{MPN: "DS3218", Manufacturer: "DSServo", DatasheetURL: "https://example.com/ds3218.pdf",
			Specs: map[string]any{"Stall Torque": "2.0 N*m", "mass": "0.058 kg", "unit_cost": 15.0, "category": "servo"}},
		{MPN: "LX-16A", Manufacturer: "Hiwonder", Specs: map[string]any{"stall_torque": map[string]any{"value": 1.9, "unit": "N*m"}, "unit_cost": "18 USD"}},
	}
	const tol = 1e-9
	two := 2
	out, err := twin.SelectComponent(bg, s, twin.ComponentChoiceRequest{ProjectID: g.p.ID, Role: "Shoulder servo", Candidates: cands,
		Required: required, Quantity: &two, ForItem: "CAD-UPPER-ARM", WriteInfo: twin.WriteInfo{IdempotencyKey: "servo-1", Author: "agent:test"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Selected.Candidate.MPN != "DS3218" || out.ChosenBy != "rank" || !out.SelectedMeetsRequirements || out.Selected.Rank != 1 {
		t.Fatalf("selected %s by %s (meets %v), want DS3218 by the rank rule", out.Selected.Candidate.MPN, out.ChosenBy, out.SelectedMeetsRequirements)
	}
	type want struct {
		status         string
		value, margin  float64
		pct            float64
		hasValue, hasM bool
	}
	wants := map[string][]want{
		"MG996R": {{"fail", 1.1, -0.1, -8.33333333333, true, true}, {"pass", 55, 5, 8.33333333333, true, true}, {"pass", 9, 31, 77.5, true, true}},
		"DS3218": {{"pass", 2.0, 0.8, 66.6666666667, true, true}, {"pass", 58, 2, 3.33333333333, true, true}, {"pass", 15, 25, 62.5, true, true}},
		"LX-16A": {{"pass", 1.9, 0.7, 58.3333333333, true, true}, {status: "no_data"}, {"pass", 18, 22, 55, true, true}},
	}
	for _, c := range out.Candidates {
		for i, w := range wants[c.Candidate.MPN] {
			m := c.Margins[i]
			if m.Status != w.status {
				t.Errorf("%s %s: status %s, want %s (%s)", c.Candidate.MPN, m.Required.Spec, m.Status, w.status, m.Detail)
				continue
			}
			if !w.hasValue {
				if m.Value != nil || m.Margin != nil || !strings.Contains(m.Detail, "no figure for mass") {
					t.Errorf("%s %s: %+v, want no value, no margin and the missing figure named", c.Candidate.MPN, m.Required.Spec, m)
				}
				continue
			}
			if !near(*m.Value, w.value, tol) || !near(*m.Margin, w.margin, 1e-9) || !near(*m.MarginPct, w.pct, 1e-6) {
				t.Errorf("%s %s: value %v margin %v (%v%%), want %v, %v (%v%%)", c.Candidate.MPN, m.Required.Spec, *m.Value, *m.Margin, *m.MarginPct, w.value, w.margin, w.pct)
			}
		}
	}
	lx := out.Candidates[2]
	if lx.MeetsAll || lx.NoData != 1 || lx.Fails != 0 || lx.Passes != 2 || lx.Rank != 0 {
		t.Errorf("LX-16A = passes %d fails %d no_data %d meets %v rank %d, want 2/0/1, not meeting, unranked", lx.Passes, lx.Fails, lx.NoData, lx.MeetsAll, lx.Rank)
	}
	if ds := out.Candidates[1]; ds.Tightest == nil || !near(*ds.Tightest, 3.33333333333, 1e-6) {
		t.Errorf("DS3218 tightest = %v, want 3.333%%", ds.Tightest)
	}

	// The BOM item keeps the chosen part's specs (unit_cost, category) and
	// the decision is GENERATED_FROM it.
	bom := out.BOM.Node
	specs, _ := bom.Properties["specs"].(map[string]any)
	if bom.Ref() != "BOM-SHOULDER-SERVO@1" || bom.Properties["mpn"] != "DS3218" || specs["category"] != "servo" || specs["unit_cost"] != 15.0 ||
		bom.Properties["for_item"] != arm.Ref() || bom.Properties["datasheet_url"] != "https://example.com/ds3218.pdf" {
		t.Errorf("BOM item = %s %v", bom.Ref(), bom.Properties)
	}
	dec, err := s.GetNode(bg, out.Decision.ID)
	if err != nil {
		t.Fatal(err)
	}
	if dec.Ref() != "DEC-COMPONENT-SELECTION-SHOULDER-SERVO@1" || dec.Author != "agent:test" ||
		dec.Properties["decision"] != "Use DS3218 (DSServo) for Shoulder servo (meets all 3 requirements, tightest margin 3.33333%)" {
		t.Errorf("decision = %s %q by %s", dec.Ref(), dec.Properties["decision"], dec.Author)
	}
	alts := dec.Properties["alternatives"].([]any)
	if len(alts) != 2 {
		t.Fatalf("alternatives = %v", alts)
	}
	mg, lxAlt := alts[0].(map[string]any), alts[1].(map[string]any)
	if mg["option"] != "MG996R (TowerPro)" || !strings.HasPrefix(mg["reason"].(string), "fails stall_torque: stall_torque 1.1 N*m against >= 1.2: margin -0.1 N*m (-8.33333%), fail") {
		t.Errorf("MG996R alternative = %v", mg)
	}
	if lxAlt["option"] != "LX-16A (Hiwonder)" || !strings.HasPrefix(lxAlt["reason"].(string), "no_data for mass: ") ||
		!strings.Contains(lxAlt["reason"].(string), "mass no_data (<= 60 g required)") {
		t.Errorf("LX-16A alternative = %v", lxAlt)
	}
	from, err := s.Neighbors(bg, dec.ID, twin.Outgoing, twin.EdgeGeneratedFrom)
	if err != nil || len(from) != 1 || from[0].Node.ID != bom.ID {
		t.Errorf("GENERATED_FROM = %+v %v, want the BOM item", from, err)
	}
	// A retried call writes neither again.
	again, err := twin.SelectComponent(bg, s, twin.ComponentChoiceRequest{ProjectID: g.p.ID, Role: "Shoulder servo", Candidates: cands,
		Required: required, Quantity: &two, ForItem: "CAD-UPPER-ARM", WriteInfo: twin.WriteInfo{IdempotencyKey: "servo-1"}})
	if err != nil || again.BOM.Node.ID != bom.ID || again.Decision.ID != dec.ID {
		t.Errorf("a retried call = %v, %v, %v", again.BOM.Node.ID, again.Decision.ID, err)
	}

	// The caller's choice of a failing part is recorded, and says so.
	pick, err := twin.SelectComponent(bg, s, twin.ComponentChoiceRequest{ProjectID: g.p.ID, Role: "Shoulder servo", Candidates: cands,
		Required: required, Choice: "mg996r", Rationale: "in stock today"})
	if err != nil || pick.BOM.Node.Ref() != "BOM-SHOULDER-SERVO@2" || pick.SelectedMeetsRequirements || pick.ChosenBy != "caller" ||
		pick.Best == nil || pick.Best.Candidate.MPN != "DS3218" {
		t.Fatalf("the caller's failing choice = %+v %v", pick, err)
	}
	if w := strings.Join(out.Warnings, "\n"); strings.Contains(w, "does not read in USD") {
		t.Errorf("warnings = %v, want none about DS3218's cost (15, read as USD)", out.Warnings)
	}
	eur, err := twin.SelectComponent(bg, s, twin.ComponentChoiceRequest{ProjectID: g.p.ID, Role: "Wrist servo", Choice: "B",
		Candidates: []twin.ComponentCandidate{{MPN: "A", Specs: map[string]any{"unit_cost": "9 USD"}}, {MPN: "B", Specs: map[string]any{"unit_cost": "8 EUR"}}},
		Required:   []twin.RequiredSpec{servoReq("unit_cost", 10, "USD", "<=")}})
	if err != nil || !strings.Contains(strings.Join(eur.Warnings, "\n"), "B's unit_cost (8 EUR) does not read in USD") || eur.SelectedMeetsRequirements {
		t.Errorf("a part priced in EUR = %v %v, want the roll-up's no_data said, and its cost no_data against the USD limit", eur.Warnings, err)
	}
	if w := strings.Join(pick.Warnings, "\n"); !strings.Contains(w, "the caller chose MG996R over DS3218") || !strings.Contains(w, "does not meet every requirement: fails stall_torque") {
		t.Errorf("warnings = %v", pick.Warnings)
	}

	// Refused, writing nothing.
	before := decisionCount(t, s, g.p.ID)
	boms, _ := s.NodesByType(bg, g.p.ID, "component_selection")
	twinCands := []twin.ComponentCandidate{{MPN: "A", Specs: map[string]any{"stall_torque": "1.5 N*m"}}, {MPN: "B", Specs: map[string]any{"stall_torque": "1.5 N*m"}}}
	torque := []twin.RequiredSpec{servoReq("stall_torque", 1.2, "N*m", ">=")}
	for _, tc := range []struct {
		r    twin.ComponentChoiceRequest
		want string
	}{
		{twin.ComponentChoiceRequest{Candidates: cands, Required: required}, "name is blank"},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: cands[:1], Required: required}, "candidates has 1 entries"},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: append([]twin.ComponentCandidate{{MPN: " mg996r "}}, cands...), Required: required}, "mpn MG996R twice"},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: []twin.ComponentCandidate{{MPN: ""}, cands[0]}, Required: required}, "candidates[0].mpn is blank"},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: []twin.ComponentCandidate{{MPN: "Q", Specs: map[string]any{"mass": 1.0, "Mass": 2.0}}, cands[0]}, Required: required}, "name the same metric"},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: cands}, "requirements is empty"},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: cands, Required: []twin.RequiredSpec{servoReq("mass", 60, "furlongs", "<=")}}, `unit "furlongs" is not a unit`},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: cands, Required: []twin.RequiredSpec{servoReq("mass", 60, "g", ">")}}, `direction ">"`},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: cands, Required: []twin.RequiredSpec{{Spec: "mass", Unit: "g", Direction: "<="}}}, "has no threshold"},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: cands, Required: []twin.RequiredSpec{servoReq("mass", 60, "g", "<="), servoReq("Mass", 50, "g", "<=")}}, "names mass twice"},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: cands, Required: required, Choice: "SG90"}, `choice "SG90" is not the mpn of a candidate`},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: []twin.ComponentCandidate{cands[0], cands[2]}, Required: required}, "no candidate meets every requirement (MG996R fails stall_torque; LX-16A no_data for mass)"},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: twinCands, Required: torque}, "candidates A, B tie under the rank rule"},
		{twin.ComponentChoiceRequest{Role: "x", Candidates: cands, Required: required, ForItem: "CAD-NOPE"}, ""},
	} {
		tc.r.ProjectID = g.p.ID
		_, err := twin.SelectComponent(bg, s, tc.r)
		if tc.want == "" && err == nil || tc.want != "" && !refusal(err, tc.want) {
			t.Errorf("%+v: %v, want a refusal saying %q", tc.r, err, tc.want)
		}
	}
	after, _ := s.NodesByType(bg, g.p.ID, "component_selection")
	if n := decisionCount(t, s, g.p.ID); n != before || len(after) != len(boms) {
		t.Fatalf("refused selections wrote %d decisions and %d BOM revisions", n-before, len(after)-len(boms))
	}
}
