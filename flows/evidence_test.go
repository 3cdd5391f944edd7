package flows

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestStepEvidence(t *testing.T) {
	step := mustTemplate(t, "mech_v1").Phases[3].Steps[0]
	cases := []struct {
		name     string
		result   string
		values   []EvidenceValue
		problems []string
	}{
		{"every field", `{"max_von_mises_mpa": 88.5, "max_displacement_mm": 0.31, "safety_factor": 3.1, "files": {"frd": "x.frd"}}`,
			[]EvidenceValue{
				{Metric: "max_von_mises", Unit: "MPa", Value: 88.5, Field: "max_von_mises_mpa"},
				{Metric: "max_displacement", Unit: "mm", Value: 0.31, Field: "max_displacement_mm"},
				{Metric: "safety_factor", Unit: "1", Value: 3.1, Field: "safety_factor"},
			}, nil},
		{"absent, null and not a number", `{"max_von_mises_mpa": "88", "max_displacement_mm": null, "safety_factor": 2}`,
			[]EvidenceValue{{Metric: "safety_factor", Unit: "1", Value: 2, Field: "safety_factor"}},
			[]string{"field max_von_mises_mpa in the result is not a number", "field max_displacement_mm missing from the result"}},
		{"nested is not top level", `{"results": {"safety_factor": 2}}`, nil, []string{
			"field max_von_mises_mpa missing", "field max_displacement_mm missing", "field safety_factor missing"}},
		{"not an object", `[1, 2]`, nil, []string{"max_von_mises_mpa missing", "max_displacement_mm missing", "safety_factor missing"}},
		{"empty", ``, nil, []string{"max_von_mises_mpa missing", "max_displacement_mm missing", "safety_factor missing"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			values, problems := StepEvidence(step, json.RawMessage(tc.result))
			if !reflect.DeepEqual(values, tc.values) {
				t.Errorf("values = %+v, want %+v", values, tc.values)
			}
			if len(problems) != len(tc.problems) {
				t.Fatalf("problems = %q, want %d like %q", problems, len(tc.problems), tc.problems)
			}
			for i, p := range tc.problems {
				if !strings.Contains(problems[i], p) {
					t.Errorf("problem %d = %q, want it to say %q", i, problems[i], p)
				}
			}
		})
	}
}

func TestStepEvidenceNoRecords(t *testing.T) {
	values, problems := StepEvidence(Step{Name: "s", ToolID: "a.b", ForEach: "x"}, json.RawMessage(`{"a": 1}`))
	if values != nil || problems != nil {
		t.Fatalf("got %v, %v", values, problems)
	}
}
