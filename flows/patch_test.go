package flows

import (
	"reflect"
	"strings"
	"testing"
)

func strp(s string) *string { return &s }
func intp(i int) *int       { return &i }

func TestApply(t *testing.T) {
	cases := []struct {
		name  string
		patch Patch
		index int
		check func(t *testing.T, p Phase)
	}{
		{"brief", Patch{Phase: "design", Brief: strp("Model it in CadQuery."), Reason: "clearer"}, 2, func(t *testing.T, p Phase) {
			if p.Brief != "Model it in CadQuery." {
				t.Errorf("brief = %q", p.Brief)
			}
		}},
		{"add deliverable", Patch{Phase: "concept", AddDeliverables: []string{"concept_option", "risk"}}, 1, func(t *testing.T, p Phase) {
			if !reflect.DeepEqual(p.Deliverables, []string{"decision", "concept_option", "risk"}) {
				t.Errorf("deliverables = %v", p.Deliverables)
			}
		}},
		{"add and remove criteria", Patch{Phase: "analysis", AddCriteria: []string{CriterionAllRequirements},
			RemoveCriteria: []string{CriterionNoStaleEvidence}}, 3, func(t *testing.T, p Phase) {
			if got := gateKinds(p.Gate); got != "deliverables_recorded, simulation_meets_requirements, all_requirements_pass" {
				t.Errorf("criteria = %s", got)
			}
			if p.Gate.Criteria[2].Description == "" {
				t.Error("an added criterion has no description")
			}
		}},
		{"window", Patch{Phase: "release", GateWindowSeconds: intp(3600)}, 5, func(t *testing.T, p Phase) {
			if p.Gate.WindowSeconds != 3600 || p.Gate.Window() != 3600 {
				t.Errorf("window = %d", p.Gate.WindowSeconds)
			}
		}},
		{"window back to default", Patch{Phase: "release", GateWindowSeconds: intp(0), Brief: strp("Release it.")}, 5, func(t *testing.T, p Phase) {
			if p.Gate.Window() != DefaultGateWindowSeconds {
				t.Errorf("window = %d", p.Gate.Window())
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			orig := mustTemplate(t, "mech_v1")
			pristine := mustTemplate(t, "mech_v1")
			out, i, err := Apply(orig, tc.patch)
			if err != nil {
				t.Fatal(err)
			}
			if i != tc.index || out.Phases[i].Name != tc.patch.Phase {
				t.Fatalf("index = %d (%s), want %d", i, out.Phases[i].Name, tc.index)
			}
			tc.check(t, out.Phases[i])
			if !reflect.DeepEqual(orig, pristine) {
				t.Error("Apply changed the flow it was given")
			}
			for j := range out.Phases {
				if j != i && !reflect.DeepEqual(out.Phases[j], pristine.Phases[j]) {
					t.Errorf("phase %s changed too", out.Phases[j].Name)
				}
			}
			if err := Check(out); err != nil {
				t.Errorf("patched flow breaks invariants: %v", err)
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	cases := []struct {
		name  string
		patch Patch
		says  []string
	}{
		{"unknown phase", Patch{Phase: "polish", Brief: strp("x")}, []string{`no phase "polish"`, "requirements, concept, design, analysis, verification, release"}},
		{"nothing", Patch{Phase: "design", Reason: "just because"}, []string{"changes nothing"}},
		{"same brief", Patch{Phase: "design", Brief: strp(mustTemplate(t, "mech_v1").Phases[2].Brief)}, []string{"changes nothing"}},
		{"remove absent criterion", Patch{Phase: "concept", RemoveCriteria: []string{CriterionGeometry}},
			[]string{"gate G2-concept has no criterion geometry_meets_requirements", "its criteria are deliverables_recorded"}},
		{"add present criterion", Patch{Phase: "design", AddCriteria: []string{CriterionGeometry}}, []string{"already checks geometry_meets_requirements"}},
		{"add present deliverable", Patch{Phase: "design", AddDeliverables: []string{"cad_model"}}, []string{"already has deliverable cad_model"}},
		{"add and remove one criterion", Patch{Phase: "design", AddCriteria: []string{CriterionGeometry}, RemoveCriteria: []string{CriterionGeometry}},
			[]string{"both added and removed"}},
		{"unknown criterion", Patch{Phase: "design", AddCriteria: []string{"looks_good"}}, []string{"would break", "not a known kind"}},
		{"window out of range", Patch{Phase: "design", GateWindowSeconds: intp(5)}, []string{"would break", "window_seconds", "it is 5"}},
		{"empty requirements gate", Patch{Phase: "requirements", RemoveCriteria: []string{CriterionDeliverables, CriterionRequirementsRecorded}},
			[]string{"would break", "at least one criterion"}},
		{"empty brief", Patch{Phase: "design", Brief: strp("")}, []string{"would break", "write a brief"}},
		{"bad deliverable", Patch{Phase: "design", AddDeliverables: []string{"Drawing PDF"}}, []string{"not a twin node type"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustTemplate(t, "mech_v1")
			_, _, err := Apply(f, tc.patch)
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if !reflect.DeepEqual(f, mustTemplate(t, "mech_v1")) {
				t.Error("a failed Apply changed the flow")
			}
		})
	}
}

// Patches stack: each applies to the previous version.
func TestApplyTwice(t *testing.T) {
	f := mustTemplate(t, "hardware_v1")
	v2, _, err := Apply(f, Patch{Phase: "schematic", AddCriteria: []string{CriterionNoStaleEvidence}})
	if err != nil {
		t.Fatal(err)
	}
	v3, i, err := Apply(v2, Patch{Phase: "schematic", RemoveCriteria: []string{CriterionNoStaleEvidence}})
	if err != nil || i != 2 {
		t.Fatal(i, err)
	}
	if !reflect.DeepEqual(v3, f) {
		t.Errorf("add then remove did not give the original back")
	}
	if len(v2.Phases[2].Gate.Criteria) != len(f.Phases[2].Gate.Criteria)+1 {
		t.Errorf("removing from v3 changed v2: %+v", v2.Phases[2].Gate.Criteria)
	}
}
