package flows

import (
	"reflect"
	"strings"
	"testing"
)

// knownTools are the MetaForge tools a template may name.
var knownTools = map[string]bool{
	"twin.record_constraint_set": true, "twin.record_engineering_entity": true, "twin.record_decision": true,
	"cadquery.create_parametric": true, "cadquery.get_properties": true, "cadquery.export_geometry": true,
	"twin.commit_geometry": true, "gmsh.generate_mesh": true, "gmsh.list_named_faces": true, "calculix.run_fea": true,
	"calculix.check_mesh_convergence": true, "twin.record_evidence": true, "twin.constraint_violations": true,
	"spice.run_simulation": true, "kicad.run_drc": true, "kicad.run_erc": true, "kicad.export_bom": true,
	"twin.record_component_selection": true, "power.check_budget": true, "kicad.generate_schematic": true, "kicad.auto_route": true,
	"twin.list_maturity_gates": true, "twin.create_baseline": true, "twin.approve_engineering_entity": true, "twin.create_release_package": true,
}

func TestTemplatesSortedAndValid(t *testing.T) {
	ts := Templates()
	var ids []string
	for _, f := range ts {
		ids = append(ids, f.ID)
		if err := Check(f); err != nil {
			t.Errorf("template %s: %v", f.ID, err)
		}
	}
	if want := []string{"design_v1", "hardware_v1", "mech_v1"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("template ids = %v, want %v", ids, want)
	}
	if !reflect.DeepEqual(TemplateIDs(), ids) {
		t.Errorf("TemplateIDs() = %v, want %v", TemplateIDs(), ids)
	}
}

func TestTemplatePhasesDeliverablesAndCriteria(t *testing.T) {
	type phase struct {
		name        string
		deliverable []string
		criteria    []string
	}
	d, rr, geo, sim, stale, all := CriterionDeliverables, CriterionRequirementsRecorded, CriterionGeometry, CriterionSimulation,
		CriterionNoStaleEvidence, CriterionAllRequirements
	erc, drc, routed := CriterionERCClean, CriterionDRCClean, CriterionRoutingComplete
	cases := map[string][]phase{
		"mech_v1": {
			{"requirements", []string{"constraint_set"}, []string{d, rr}},
			{"concept", []string{"decision"}, []string{d}},
			{"design", []string{"cad_model"}, []string{d, geo}},
			{"analysis", []string{"evidence"}, []string{d, sim, stale}},
			{"verification", []string{"evidence"}, []string{d, all, stale}},
			{"release", []string{"release_package"}, []string{d, all}},
		},
		"hardware_v1": {
			{"requirements", []string{"constraint_set"}, []string{d, rr}},
			{"architecture", []string{"decision"}, []string{d}},
			{"schematic", []string{"component_selection"}, []string{d, erc}},
			{"layout", []string{"evidence"}, []string{d, erc, drc, routed, stale}},
			{"verification", []string{"evidence"}, []string{d, all, stale}},
			{"release", []string{"release_package"}, []string{d, all}},
		},
		"design_v1": {
			{"requirements", []string{"constraint_set"}, []string{d, rr}},
			{"concept", []string{"decision"}, []string{d}},
			{"design", []string{"cad_model"}, []string{d, geo}},
			{"verification", []string{"evidence"}, []string{d, all, stale}},
			{"release", []string{"release_package"}, []string{d, all}},
		},
	}
	for _, id := range TemplateIDs() {
		want := cases[id]
		f, err := Template(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Phases) != len(want) {
			t.Fatalf("%s has %d phases, want %d", id, len(f.Phases), len(want))
		}
		for i, p := range f.Phases {
			w := want[i]
			if p.Name != w.name {
				t.Errorf("%s phase %d = %s, want %s", id, i+1, p.Name, w.name)
			}
			if !reflect.DeepEqual(p.Deliverables, w.deliverable) {
				t.Errorf("%s/%s deliverables = %v, want %v", id, p.Name, p.Deliverables, w.deliverable)
			}
			var kinds []string
			for _, c := range p.Gate.Criteria {
				kinds = append(kinds, c.Kind)
				if c.Description == "" {
					t.Errorf("%s/%s criterion %s has no description", id, p.Name, c.Kind)
				}
			}
			if !reflect.DeepEqual(kinds, w.criteria) {
				t.Errorf("%s/%s criteria = %v, want %v", id, p.Name, kinds, w.criteria)
			}
			if want := gateName(i+1, p.Name); p.Gate.Name != want || !p.Gate.HumanDecision {
				t.Errorf("%s/%s gate = %q human=%v, want %q with a human decision", id, p.Name, p.Gate.Name, p.Gate.HumanDecision, want)
			}
		}
	}
}

// Briefs must name the tools the phase lists, only tools that exist, and
// a tool that records each deliverable.
func TestTemplateToolsAndBriefs(t *testing.T) {
	for _, f := range Templates() {
		for _, p := range f.Phases {
			if len(p.Tools) == 0 {
				t.Errorf("%s/%s lists no tools", f.ID, p.Name)
			}
			for _, tool := range p.Tools {
				if !knownTools[tool] {
					t.Errorf("%s/%s names unknown tool %s", f.ID, p.Name, tool)
				}
				if !strings.Contains(p.Brief, tool) {
					t.Errorf("%s/%s brief does not mention its tool %s", f.ID, p.Name, tool)
				}
			}
			for _, d := range p.Deliverables {
				if !contains(p.Tools, RecordingTool(d)) {
					t.Errorf("%s/%s delivers %s but does not list %s", f.ID, p.Name, d, RecordingTool(d))
				}
			}
		}
	}
}

func TestTemplateSteps(t *testing.T) {
	f, _ := Template("mech_v1")
	p := f.Phases[phaseIndex(f, "analysis")]
	want := []Step{{Name: "fea per load case", ToolID: "calculix.run_fea", ForEach: "load_cases", Records: []EvidenceField{
		{Field: "max_von_mises_mpa", Metric: "max_von_mises", Unit: "MPa"},
		{Field: "max_displacement_mm", Metric: "max_displacement", Unit: "mm"},
		{Field: "safety_factor", Metric: "safety_factor", Unit: "1"},
	}}}
	if !reflect.DeepEqual(p.Steps, want) {
		t.Fatalf("analysis steps = %+v, want %+v", p.Steps, want)
	}
	// hardware_v1: the schematic is generated from the run input schematic,
	// then checked by ERC on the file written; the board in the run input
	// board is routed, then checked by DRC on the routed copy. Each count a
	// gate judges keeps the list of what it counts.
	h := mustTemplate(t, "hardware_v1")
	wantSteps := map[string][]Step{
		"schematic": {
			{Name: "generate_schematic", ToolID: "kicad.generate_schematic", ForEach: "schematic"},
			{Name: "run_erc", ToolID: "kicad.run_erc", From: []FromField{{Argument: "schematic_file", Field: "generate_schematic.schematic_file"}},
				EvidenceKind: "analysis", Records: []EvidenceField{
					{Field: "error_count", Metric: "erc_errors", Unit: "1", Findings: "violations"},
					{Field: "warning_count", Metric: "erc_warnings", Unit: "1"},
				}},
		},
		"layout": {
			{Name: "auto_route", ToolID: "kicad.auto_route", ForEach: "board", EvidenceKind: "analysis", Records: []EvidenceField{
				{Field: "connections.routed", Metric: "routed_connections", Unit: "1"},
			}},
			{Name: "run_drc", ToolID: "kicad.run_drc", From: []FromField{{Argument: "board_file", Field: "auto_route.board_file"}},
				EvidenceKind: "analysis", Records: []EvidenceField{
					{Field: "error_count", Metric: "drc_errors", Unit: "1", Findings: "violations"},
					{Field: "warning_count", Metric: "drc_warnings", Unit: "1"},
					{Field: "unconnected_items.count", Metric: "unrouted_connections", Unit: "1", Findings: "unconnected_items.items"},
				}},
		},
	}
	for _, p := range h.Phases {
		if !reflect.DeepEqual(p.Steps, wantSteps[p.Name]) {
			t.Errorf("hardware_v1/%s steps = %+v, want %+v", p.Name, p.Steps, wantSteps[p.Name])
		}
	}
	// The metrics the check criteria read are the ones the steps record.
	recorded := map[string]bool{}
	for _, p := range h.Phases {
		for _, s := range p.Steps {
			for _, r := range s.Records {
				recorded[r.Metric] = true
			}
		}
	}
	for _, m := range CheckMetrics() {
		if !recorded[m] {
			t.Errorf("check metric %s is recorded by no hardware_v1 step", m)
		}
	}
	g, _ := Template("design_v1")
	for _, p := range g.Phases {
		if len(p.Steps) != 0 {
			t.Errorf("design_v1/%s has steps; design_v1 runs no server steps", p.Name)
		}
	}
}

func TestTemplatesAreFreshCopies(t *testing.T) {
	a, _ := Template("mech_v1")
	a.Phases[0].Brief = "changed"
	a.Phases[0].Deliverables[0] = "changed"
	a.Phases[0].Tools[0] = "changed"
	a.Phases[0].Gate.Criteria[0].Kind = "changed"
	a.Phases[3].Steps[0].Records[0].Metric = "changed"
	for _, b := range []Flow{mustTemplate(t, "mech_v1"), Templates()[2]} {
		if b.Phases[0].Brief == "changed" || b.Phases[0].Deliverables[0] == "changed" || b.Phases[0].Tools[0] == "changed" ||
			b.Phases[0].Gate.Criteria[0].Kind == "changed" || b.Phases[3].Steps[0].Records[0].Metric == "changed" {
			t.Fatal("changing a returned template changed the next copy")
		}
	}
}

func TestUnknownTemplate(t *testing.T) {
	_, err := Template("rocket_v9")
	if err == nil {
		t.Fatal("no error for an unknown template")
	}
	for _, id := range []string{"rocket_v9", "design_v1", "hardware_v1", "mech_v1"} {
		if !strings.Contains(err.Error(), id) {
			t.Errorf("error %q does not name %s", err, id)
		}
	}
}

func mustTemplate(t *testing.T, id string) Flow {
	t.Helper()
	f, err := Template(id)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
