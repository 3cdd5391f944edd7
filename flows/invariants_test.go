package flows

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// brokenIDs are the invariant IDs Check reports for f, in order, once each.
func brokenIDs(t *testing.T, f Flow) []string {
	t.Helper()
	err := Check(f)
	if err == nil {
		return nil
	}
	var ie *InvariantError
	if !errors.As(err, &ie) {
		t.Fatalf("Check returned %T, want *InvariantError", err)
	}
	var ids []string
	for _, p := range ie.Problems {
		if len(ids) == 0 || ids[len(ids)-1] != p.Invariant {
			ids = append(ids, p.Invariant)
		}
		if p.Fix == "" {
			t.Errorf("problem %+v says nothing to fix", p)
		}
	}
	return ids
}

func TestCheckEachInvariant(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(f *Flow)
		want   []string
		says   string
	}{
		{"no phases", func(f *Flow) { f.Phases = nil }, []string{InvPhases}, "add at least one phase"},
		{"empty phase name", func(f *Flow) { f.Phases[1].Name = "" }, []string{InvPhaseNames}, "name the phase"},
		{"phase name not an identifier", func(f *Flow) { f.Phases[1].Name = "Concept Work" }, []string{InvPhaseNames}, "lowercase identifier"},
		{"duplicate phase", func(f *Flow) { f.Phases[2].Name = "concept"; f.Phases[2].Gate.Name = "G3 x" }, []string{InvPhaseNames}, "already called"},
		{"requirements not first", func(f *Flow) { f.Phases[0], f.Phases[1] = f.Phases[1], f.Phases[0] }, []string{InvRequirementsFirst}, `"requirements"`},
		{"requirements gate without criteria", func(f *Flow) { f.Phases[0].Gate.Criteria = nil }, []string{InvRequirementsFirst}, "at least one criterion"},
		{"empty brief", func(f *Flow) { f.Phases[2].Brief = " " }, []string{InvPhaseBrief}, "write a brief"},
		{"no deliverables", func(f *Flow) { f.Phases[2].Deliverables = nil }, []string{InvDeliverables}, "at least one deliverable"},
		{"deliverable twice", func(f *Flow) { f.Phases[2].Deliverables = []string{"cad_model", "cad_model"} }, []string{InvDeliverables}, "listed twice"},
		{"deliverable not a type", func(f *Flow) { f.Phases[2].Deliverables = []string{"CAD model"} }, []string{InvDeliverables}, "not a twin node type"},
		{"no human decision", func(f *Flow) { f.Phases[4].Gate.HumanDecision = false }, []string{InvHumanDecision}, "human_decision"},
		{"gate unnamed", func(f *Flow) { f.Phases[1].Gate.Name = "" }, []string{InvGateNames}, "name the phase's gate"},
		{"gate names repeat", func(f *Flow) { f.Phases[2].Gate.Name = f.Phases[1].Gate.Name }, []string{InvGateNames}, "already has that name"},
		{"unknown criterion", func(f *Flow) {
			f.Phases[1].Gate.Criteria = append(f.Phases[1].Gate.Criteria, Criterion{Kind: "vibes_ok"})
		}, []string{InvCriteria}, "all_requirements_pass"},
		{"criterion twice", func(f *Flow) {
			f.Phases[1].Gate.Criteria = append(f.Phases[1].Gate.Criteria, criterion(CriterionDeliverables))
		}, []string{InvCriteria}, "listed twice"},
		{"window too short", func(f *Flow) { f.Phases[1].Gate.WindowSeconds = 59 }, []string{InvGateWindow}, "it is 59"},
		{"window too long", func(f *Flow) { f.Phases[1].Gate.WindowSeconds = MaxGateWindowSeconds + 1 }, []string{InvGateWindow}, "window_seconds"},
		{"window negative", func(f *Flow) { f.Phases[1].Gate.WindowSeconds = -5 }, []string{InvGateWindow}, "window_seconds"},
		{"step tool without adapter", func(f *Flow) { f.Phases[3].Steps[0].ToolID = "run_fea" }, []string{InvSteps}, "adapter.tool"},
		{"step without for_each", func(f *Flow) { f.Phases[3].Steps[0].ForEach = "" }, []string{InvSteps}, "for_each"},
		{"evidence field without unit", func(f *Flow) { f.Phases[3].Steps[0].Records[2].Unit = "" }, []string{InvEvidenceFields}, "its unit"},
		{"evidence field without field and metric", func(f *Flow) {
			f.Phases[3].Steps[0].Records[0].Field, f.Phases[3].Steps[0].Records[0].Metric = "", ""
		}, []string{InvEvidenceFields}, "field and metric"},
	}
	covered := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustTemplate(t, "mech_v1")
			tc.mutate(&f)
			if got := brokenIDs(t, f); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("broken = %v, want %v (%v)", got, tc.want, Check(f))
			}
			if msg := Check(f).Error(); !strings.Contains(msg, tc.says) {
				t.Errorf("message %q does not say %q", msg, tc.says)
			}
		})
		for _, id := range tc.want {
			covered[id] = true
		}
	}
	for _, inv := range Invariants() {
		if !covered[inv.ID] {
			t.Errorf("invariant %s has no test case", inv.ID)
		}
	}
}

// Chained steps: names unique and without dots, a later step on the
// first step's input or none, and from naming an earlier step's field.
func TestCheckChainedSteps(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(steps []Step)
		says   string
	}{
		{"dot in a name", func(s []Step) { s[0].Name = "generate.schematic" }, "without a dot"},
		{"names repeat", func(s []Step) { s[1].Name = s[0].Name; s[1].From = nil; s[1].ForEach = "schematic" }, "already called"},
		{"first step without for_each", func(s []Step) { s[0].ForEach = "" }, "give step generate_schematic a for_each"},
		{"later step on another input", func(s []Step) { s[1].ForEach = "board" }, `the for_each of the phase's first step ("schematic")`},
		{"later step without arguments", func(s []Step) { s[1].From = nil }, "give step run_erc its arguments"},
		{"from a later step", func(s []Step) { s[0].From = []FromField{{Argument: "x", Field: "run_erc.passed"}} }, `comes from step "run_erc", which is not an earlier step`},
		{"from an unknown step", func(s []Step) { s[1].From = []FromField{{Argument: "schematic_file", Field: "draw.schematic_file"}} }, `step "draw"`},
		{"from without a field", func(s []Step) { s[1].From = []FromField{{Argument: "schematic_file", Field: "generate_schematic"}} }, "as step.field"},
		{"from without an argument", func(s []Step) { s[1].From = []FromField{{Field: "generate_schematic.schematic_file"}} }, "must name an argument"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustTemplate(t, "hardware_v1")
			tc.mutate(f.Phases[2].Steps)
			if got := brokenIDs(t, f); !reflect.DeepEqual(got, []string{InvSteps}) {
				t.Fatalf("broken = %v, want [steps] (%v)", got, Check(f))
			}
			if msg := Check(f).Error(); !strings.Contains(msg, tc.says) {
				t.Errorf("message %q does not say %q", msg, tc.says)
			}
		})
	}
	f := mustTemplate(t, "hardware_v1")
	f.Phases[2].Steps[1].ForEach = "schematic"
	if err := Check(f); err != nil {
		t.Errorf("a later step on the first step's input: %v", err)
	}
}

func TestCheckWindowBounds(t *testing.T) {
	for _, w := range []int{0, MinGateWindowSeconds, DefaultGateWindowSeconds, MaxGateWindowSeconds} {
		f := mustTemplate(t, "design_v1")
		f.Phases[2].Gate.WindowSeconds = w
		if err := Check(f); err != nil {
			t.Errorf("window %d: %v", w, err)
		}
	}
}

// One message lists every broken invariant, so all can be fixed at once.
func TestCheckListsEveryProblem(t *testing.T) {
	f := mustTemplate(t, "mech_v1")
	f.Phases[0].Name = "intro"
	f.Phases[2].Deliverables = nil
	f.Phases[4].Gate.HumanDecision = false
	f.Phases[5].Gate.WindowSeconds = 1
	err := Check(f)
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{InvRequirementsFirst, InvDeliverables, InvHumanDecision, InvGateWindow}
	if got := brokenIDs(t, f); !reflect.DeepEqual(got, want) {
		t.Fatalf("broken = %v, want %v", got, want)
	}
	msg := err.Error()
	for _, s := range []string{"breaks 4 invariant(s)", "(1)", "(4)", `phase "design"`, `phase "verification"`, `phase "release"`} {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q lacks %q", msg, s)
		}
	}
}

func TestInvariantsListed(t *testing.T) {
	seen := map[string]bool{}
	for _, inv := range Invariants() {
		if inv.ID == "" || inv.Description == "" || seen[inv.ID] {
			t.Errorf("invariant %+v: empty or repeated", inv)
		}
		seen[inv.ID] = true
	}
	a := Invariants()
	a[0].ID = "changed"
	if Invariants()[0].ID == "changed" {
		t.Error("Invariants returns the package's own slice")
	}
}
