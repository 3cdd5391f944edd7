package flows

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStepArguments(t *testing.T) {
	gen := StepResult{Step: "generate_schematic", Result: json.RawMessage(`{"schematic_file": "/w/calls/a/astable.kicad_sch", "nets": 5}`)}
	route := StepResult{Step: "auto_route", Result: json.RawMessage(`{"board_file": "/w/calls/b/routed.kicad_pcb", "connections": {"unrouted": 0}}`)}
	cases := []struct {
		name    string
		base    string
		from    []FromField
		earlier []StepResult
		want    string
		err     string
	}{
		{name: "from the step before", from: []FromField{{Argument: "schematic_file", Field: "generate_schematic.schematic_file"}},
			earlier: []StepResult{gen}, want: `{"schematic_file":"/w/calls/a/astable.kicad_sch"}`},
		{name: "over the entry's arguments, nested", base: `{"severity": "error", "count": 1}`,
			from:    []FromField{{Argument: "board_file", Field: "auto_route.board_file"}, {Argument: "count", Field: "auto_route.connections.unrouted"}},
			earlier: []StepResult{gen, route}, want: `{"board_file":"/w/calls/b/routed.kicad_pcb","count":0,"severity":"error"}`},
		{name: "no from keeps the entry", base: `{"a": 1}`, want: `{"a":1}`},
		{name: "earlier step failed", from: []FromField{{Argument: "board_file", Field: "auto_route.board_file"}}, earlier: []StepResult{gen},
			err: "comes from step auto_route, which gave no result"},
		{name: "field absent", from: []FromField{{Argument: "board_file", Field: "auto_route.routed_file"}}, earlier: []StepResult{route},
			err: "field routed_file of step auto_route's result, which has no such field"},
		{name: "not step.field", from: []FromField{{Argument: "board_file", Field: "auto_route"}}, earlier: []StepResult{route}, err: "not step.field"},
		{name: "result not an object", from: []FromField{{Argument: "x", Field: "s.f"}}, earlier: []StepResult{{Step: "s", Result: json.RawMessage(`[1]`)}},
			err: "not a JSON object"},
		{name: "entry not an object", base: `[1]`, err: "entry's arguments are not a JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := StepArguments(json.RawMessage(tc.base), tc.from, tc.earlier)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

// Records read numbers at dotted paths, and keep the findings they count.
func TestStepEvidenceNestedAndFindings(t *testing.T) {
	step := mustTemplate(t, "hardware_v1").Phases[3].Steps[1]
	res := `{"error_count": 1, "warning_count": 0, "violations": [{"rule": "clearance", "severity": "warning"}, {"rule": "short", "severity": "error"}],
		"unconnected_items": {"count": 2, "items": [{"description": "pad 1"}, {"description": "pad 2"}]}}`
	values, problems := StepEvidence(step, json.RawMessage(res))
	if len(problems) != 0 || len(values) != 3 {
		t.Fatalf("values %+v, problems %q", values, problems)
	}
	if v := values[2]; v.Metric != "unrouted_connections" || v.Value != 2 || v.FindingsTotal != 2 || len(v.Findings) != 2 {
		t.Errorf("unrouted: %+v", v)
	}
	if v := values[0]; v.FindingsTotal != 2 || v.Findings[0].(map[string]any)["rule"] != "short" {
		t.Errorf("drc_errors keeps errors first: %+v", v)
	}
	if v := values[1]; v.Findings != nil {
		t.Errorf("warnings keep no findings: %+v", v)
	}
	_, problems = StepEvidence(step, json.RawMessage(`{"error_count": 0, "warning_count": 0, "unconnected_items": 3}`))
	if len(problems) != 1 || !strings.Contains(problems[0], "unconnected_items.count missing") {
		t.Errorf("a path through a number: %q", problems)
	}
}
