package flows

import (
	"reflect"
	"strings"
	"testing"
)

func TestTailorMech(t *testing.T) {
	tmpl := mustTemplate(t, "mech_v1")
	in := CompileIntent(bracketGoal, "")
	out, changes := Tailor(tmpl, in)

	if !reflect.DeepEqual(tmpl, mustTemplate(t, "mech_v1")) {
		t.Fatal("Tailor changed the template it was given")
	}
	if err := Check(out); err != nil {
		t.Fatalf("tailored flow breaks invariants: %v", err)
	}
	req := out.Phases[0].Brief
	for _, s := range []string{"Record these requirements", "max_displacement <= 0.5 mm", "safety_factor >= 2 1",
		"envelope_z <= 30 mm", "wall_thickness >= 3 mm", "200 N"} {
		if !strings.Contains(req, s) {
			t.Errorf("requirements brief lacks %q", s)
		}
	}
	if design := out.Phases[2].Brief; !strings.Contains(design, "aluminium_6061") || !strings.Contains(design, "cnc_milling") {
		t.Errorf("design brief does not name material and route: %s", design)
	}
	if analysis := out.Phases[3].Brief; !strings.Contains(analysis, "run input load_cases") || !strings.Contains(analysis, "200 N") {
		t.Errorf("analysis brief does not offer load_cases: %s", analysis)
	}
	var phases []string
	for _, c := range changes {
		if c.What == "" {
			t.Errorf("change %+v says nothing", c)
		}
		phases = append(phases, c.Phase)
	}
	if want := []string{"requirements", "requirements", "design", "analysis"}; !reflect.DeepEqual(phases, want) {
		t.Errorf("changes in %v, want %v", phases, want)
	}
	// Only briefs change: no gate, deliverable, tool or step.
	for i := range out.Phases {
		a, b := out.Phases[i], tmpl.Phases[i]
		a.Brief, b.Brief = "", ""
		if !reflect.DeepEqual(a, b) {
			t.Errorf("phase %s changed beyond its brief", b.Name)
		}
	}
	again, againChanges := Tailor(mustTemplate(t, "mech_v1"), CompileIntent(bracketGoal, ""))
	if !reflect.DeepEqual(again, out) || !reflect.DeepEqual(againChanges, changes) {
		t.Error("Tailor is not deterministic")
	}
}

func TestTailorNothingToAdd(t *testing.T) {
	tmpl := mustTemplate(t, "mech_v1")
	out, changes := Tailor(tmpl, CompileIntent("a bracket", ""))
	if len(changes) != 0 || !reflect.DeepEqual(out, tmpl) {
		t.Errorf("an intent with nothing measurable changed the flow: %+v", changes)
	}
}

func TestTailorElectronics(t *testing.T) {
	tmpl := mustTemplate(t, "hardware_v1")
	out, changes := Tailor(tmpl, CompileIntent("A sensor board: supply 3.3 V, draw under 50 mA", ""))
	if len(changes) != 2 {
		t.Fatalf("changes = %+v", changes)
	}
	brief := out.Phases[0].Brief
	if !strings.Contains(brief, "supply_current <= 50 mA") || !strings.Contains(brief, "supply_voltage 3.3 V") {
		t.Errorf("requirements brief: %s", brief)
	}
	if err := Check(out); err != nil {
		t.Error(err)
	}
}

func TestQuestions(t *testing.T) {
	cases := []struct {
		name string
		in   Intent
		want []string
	}{
		{"bare part", CompileIntent("Design a mounting bracket with deflection under 1 mm", ""),
			[]string{TopicLoads, TopicMaterial, TopicManufacturingRoute, TopicTargetMaturity}},
		{"part missing only maturity", CompileIntent(bracketGoal, ""), []string{TopicTargetMaturity}},
		{"everything answered", CompileIntentWith(IntentInput{Goal: bracketGoal, TargetMaturity: "prototype"}), []string{}},
		{"board without supply", CompileIntentWith(IntentInput{Goal: "a pcb drawing under 5 mA", TargetMaturity: "concept"}),
			[]string{TopicSupply}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			qs := Questions(tc.in)
			topics := []string{}
			for _, q := range qs {
				topics = append(topics, q.Topic)
				if !q.Blocking || q.Question == "" {
					t.Errorf("question %+v", q)
				}
			}
			if !reflect.DeepEqual(topics, tc.want) {
				t.Errorf("questions on %v, want %v", topics, tc.want)
			}
		})
	}
	in := CompileIntent("a bracket", "")
	Questions(in)
	for _, u := range in.Unknowns {
		if u.Topic == TopicTargetMaturity && u.Blocking {
			t.Error("Questions changed the intent's unknowns")
		}
	}
}
