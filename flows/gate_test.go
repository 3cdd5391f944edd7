package flows

import (
	"reflect"
	"strings"
	"testing"
)

func req(name, metric, status string, missing ...string) Requirement {
	return Requirement{Name: name, Metric: metric, Status: status, Missing: missing}
}

func phaseWith(deliverables []string, kinds ...string) Phase {
	return Phase{Name: "p", Deliverables: deliverables, Gate: gate(1, "p", kinds...)}
}

func TestEvaluateCriteria(t *testing.T) {
	nodes := []TypeCount{{"cad_model", 1}, {"constraint_set", 2}, {"evidence", 0}}
	cases := []struct {
		name     string
		kind     string
		facts    Facts
		status   string
		failing  []string
		missing  []string
		inDetail string
	}{
		{name: "deliverables all there", kind: CriterionDeliverables, facts: Facts{NodeTypes: nodes},
			status: StatusPass},
		{name: "deliverables missing", kind: CriterionDeliverables, facts: Facts{NodeTypes: nodes[:1]},
			status: StatusNoData, missing: []string{"a constraint_set (record it with twin.record_constraint_set)"}},

		{name: "requirements none", kind: CriterionRequirementsRecorded, status: StatusNoData, inDetail: "no requirement"},
		{name: "requirements untyped", kind: CriterionRequirementsRecorded, facts: Facts{Requirements: []Requirement{
			req("mass", "mass", StatusNoData, "evidence"),
			req("looks nice", "", StatusNoData, "expression or metric+operator+limit"),
		}}, status: StatusFail, failing: []string{"looks nice"}, inDetail: "not typed"},
		{name: "requirements typed but unmeasured", kind: CriterionRequirementsRecorded, facts: Facts{Requirements: []Requirement{
			req("mass", "mass", StatusNoData, "a value"), req("sf", "safety_factor", StatusFail),
		}}, status: StatusPass},

		{name: "geometry none of its class", kind: CriterionGeometry, facts: Facts{Requirements: []Requirement{
			req("sf", "safety_factor", StatusPass)}}, status: StatusNoData, inDetail: "no geometry requirement is recorded"},
		{name: "geometry fails", kind: CriterionGeometry, facts: Facts{Requirements: []Requirement{
			req("width", "envelope_x", StatusFail), req("mass", "Mass", StatusNoData, "a cad_model"),
			req("sf", "safety_factor", StatusFail)}}, status: StatusFail, failing: []string{"width"}},
		{name: "geometry no data", kind: CriterionGeometry, facts: Facts{Requirements: []Requirement{
			req("width", "envelope_x", StatusPass), req("mass", "mass", StatusNoData, "a cad_model with mass_kg"),
			req("wall", "wall-thickness", StatusStale), req("dens", "density", "")}}, status: StatusNoData,
			missing: []string{"mass: a cad_model with mass_kg", "current evidence for wall", "a value for dens"}},
		{name: "geometry passes", kind: CriterionGeometry, facts: Facts{Requirements: []Requirement{
			req("width", "envelope_x", StatusPass), req("sf", "safety_factor", StatusFail)}}, status: StatusPass},

		{name: "simulation fails", kind: CriterionSimulation, facts: Facts{Requirements: []Requirement{
			req("defl", "tip_deflection", StatusFail), req("sf", "safety_factor", StatusStale),
			req("width", "envelope_x", StatusFail)}}, status: StatusFail, failing: []string{"defl"}},
		{name: "simulation stale", kind: CriterionSimulation, facts: Facts{Requirements: []Requirement{
			req("defl", "max_displacement", StatusPass), req("sf", "safety_factor", StatusStale)}},
			status: StatusNoData, missing: []string{"current evidence for sf"}},
		{name: "simulation passes", kind: CriterionSimulation, facts: Facts{Requirements: []Requirement{
			req("defl", "max_displacement", StatusPass), req("f1", "natural_frequency", StatusPass)}}, status: StatusPass},

		{name: "stale fails", kind: CriterionNoStaleEvidence, facts: Facts{Requirements: []Requirement{
			req("a", "mass", StatusStale), req("b", "mass", StatusFail), req("c", "cost", StatusStale)}},
			status: StatusFail, failing: []string{"a", "c"}},
		{name: "stale none", kind: CriterionNoStaleEvidence, facts: Facts{Requirements: []Requirement{
			req("b", "mass", StatusFail)}}, status: StatusPass},

		{name: "all none", kind: CriterionAllRequirements, status: StatusNoData},
		{name: "all fail beats no data", kind: CriterionAllRequirements, facts: Facts{Requirements: []Requirement{
			req("a", "cost", StatusNoData, "a component_selection"), req("b", "mass", StatusFail)}},
			status: StatusFail, failing: []string{"b"}},
		{name: "all no data", kind: CriterionAllRequirements, facts: Facts{Requirements: []Requirement{
			req("a", "quiescent_current", StatusNoData, "a component_selection with quiescent_current"),
			req("b", "mass", StatusPass)}},
			status: StatusNoData, missing: []string{"a: a component_selection with quiescent_current"}},
		{name: "all pass", kind: CriterionAllRequirements, facts: Facts{Requirements: []Requirement{
			req("a", "cost", StatusPass), req("b", "mass", StatusPass)}}, status: StatusPass},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := phaseWith([]string{"cad_model", "constraint_set"}, tc.kind)
			r := Evaluate(p, tc.facts)
			if len(r.Criteria) != 1 {
				t.Fatalf("criteria = %+v", r.Criteria)
			}
			c := r.Criteria[0]
			if c.Kind != tc.kind || c.Status != tc.status {
				t.Fatalf("%s = %s (%s), want %s", c.Kind, c.Status, c.Detail, tc.status)
			}
			if r.Status != tc.status {
				t.Errorf("gate status = %s, want %s", r.Status, tc.status)
			}
			if !reflect.DeepEqual(c.Failing, tc.failing) {
				t.Errorf("failing = %v, want %v", c.Failing, tc.failing)
			}
			if tc.missing != nil && !reflect.DeepEqual(c.Missing, tc.missing) {
				t.Errorf("missing = %q, want %q", c.Missing, tc.missing)
			}
			if c.Status == StatusNoData && len(c.Missing) == 0 {
				t.Errorf("no_data without saying what is missing: %+v", c)
			}
			if c.Detail == "" || !strings.Contains(c.Detail, tc.inDetail) {
				t.Errorf("detail %q does not say %q", c.Detail, tc.inDetail)
			}
		})
	}
}

func TestEvaluateGateStatusAndWaivers(t *testing.T) {
	p := phaseWith([]string{"evidence"}, CriterionDeliverables, CriterionSimulation, CriterionNoStaleEvidence)
	facts := Facts{
		NodeTypes: []TypeCount{{"evidence", 3}},
		Requirements: []Requirement{
			req("deflection", "max_displacement", StatusFail),
			req("stress", "max_von_mises", StatusFail),
			req("sf", "safety_factor", StatusPass),
		},
	}
	r := Evaluate(p, facts)
	if r.Gate != "G1-p" || r.Phase != "p" || r.Status != StatusFail {
		t.Fatalf("result = %+v", r)
	}
	if b := r.Blocking(); len(b) != 1 || b[0].Kind != CriterionSimulation {
		t.Fatalf("blocking = %+v", b)
	}

	cases := []struct {
		name     string
		waivers  []Waiver
		waivedBy string
		status   string
	}{
		{"waiver of the kind", []Waiver{{ID: "W-1", Waives: []string{CriterionSimulation}, ApprovedBy: "ana"}}, "W-1", StatusPass},
		{"waiver of every failing requirement", []Waiver{{ID: "W-2", Waives: []string{"stress", "deflection"}, ApprovedBy: "ana"}}, "W-2", StatusPass},
		{"waiver of some failing requirements", []Waiver{{ID: "W-3", Waives: []string{"stress"}, ApprovedBy: "ana"}}, "", StatusFail},
		{"unapproved waiver", []Waiver{{ID: "W-4", Waives: []string{CriterionSimulation}}}, "", StatusFail},
		{"first matching waiver wins", []Waiver{
			{ID: "W-5", Waives: []string{"other"}, ApprovedBy: "ana"},
			{Name: "accept stress", Waives: []string{"stress", "deflection", "x"}, ApprovedBy: "bo"},
			{ID: "W-7", Waives: []string{CriterionSimulation}, ApprovedBy: "bo"},
		}, "accept stress", StatusPass},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := facts
			f.Waivers = tc.waivers
			r := Evaluate(p, f)
			sim := r.Criteria[1]
			if sim.Status != StatusFail {
				t.Errorf("a waiver changed the criterion's status to %s", sim.Status)
			}
			if sim.WaivedBy != tc.waivedBy || r.Status != tc.status {
				t.Fatalf("waived by %q, gate %s; want %q, %s", sim.WaivedBy, r.Status, tc.waivedBy, tc.status)
			}
			if r.Criteria[0].WaivedBy != "" {
				t.Error("a passing criterion was marked waived")
			}
			if got := len(r.Blocking()); (tc.waivedBy == "") != (got == 1) {
				t.Errorf("blocking = %d criteria", got)
			}
		})
	}
}

func TestEvaluateNoDataWaivedByKindOnly(t *testing.T) {
	p := phaseWith([]string{"evidence"}, CriterionDeliverables, CriterionAllRequirements)
	facts := Facts{Requirements: []Requirement{req("a", "cost", StatusPass)}}
	if r := Evaluate(p, facts); r.Status != StatusNoData {
		t.Fatalf("missing deliverable: gate %s, want no_data", r.Status)
	}
	facts.Waivers = []Waiver{{ID: "W-9", Waives: []string{CriterionDeliverables}, ApprovedBy: "ana"}}
	r := Evaluate(p, facts)
	if r.Status != StatusPass || r.Criteria[0].WaivedBy != "W-9" || r.Criteria[0].Status != StatusNoData {
		t.Fatalf("waived no_data: %+v", r)
	}
	if len(r.Blocking()) != 0 {
		t.Errorf("blocking = %+v", r.Blocking())
	}
}

func TestEvaluateSummary(t *testing.T) {
	// fail beats no_data beats pass; a gate without criteria passes (the
	// person still decides).
	p := phaseWith([]string{"cad_model"}, CriterionDeliverables, CriterionAllRequirements, CriterionNoStaleEvidence)
	r := Evaluate(p, Facts{Requirements: []Requirement{req("a", "mass", StatusStale)}})
	if r.Status != StatusFail {
		t.Errorf("status = %s, want fail", r.Status)
	}
	if got := len(r.Blocking()); got != 3 {
		t.Errorf("blocking = %d, want 3", got)
	}
	if r := Evaluate(Phase{Name: "x", Gate: Gate{Name: "G1 x"}}, Facts{}); r.Status != StatusPass || len(r.Criteria) != 0 {
		t.Errorf("empty gate: %+v", r)
	}
	if r := Evaluate(Phase{Name: "x", Gate: Gate{Criteria: []Criterion{{Kind: "vibes"}}}}, Facts{}); r.Status != StatusNoData {
		t.Errorf("an unknown criterion passed: %+v", r)
	}
}

func TestEvaluateTemplateRequirementsGate(t *testing.T) {
	f := mustTemplate(t, "mech_v1")
	r := Evaluate(f.Phases[0], Facts{})
	if r.Status != StatusNoData || r.Gate != "G1-requirements" {
		t.Fatalf("empty project: %+v", r)
	}
	r = Evaluate(f.Phases[0], Facts{NodeTypes: []TypeCount{{"constraint_set", 1}},
		Requirements: []Requirement{req("defl", "max_displacement", StatusNoData, "evidence")}})
	if r.Status != StatusPass {
		t.Fatalf("typed requirements recorded: %+v", r)
	}
}
