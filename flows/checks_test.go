package flows

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func count(v float64) *float64 { return &v }

// A check criterion is judged on the latest evidence of its metric, and a
// failure names what the checker found.
func TestEvaluateCheckCriteria(t *testing.T) {
	erc := func(id string, v *float64, findings ...string) CheckEvidence {
		return CheckEvidence{Metric: "erc_errors", EvidenceID: id, Value: v, Unit: "1", ToolID: "kicad.run_erc", CallID: "c-" + id,
			Findings: findings, FindingsTotal: len(findings)}
	}
	cases := []struct {
		name     string
		kind     string
		checks   []CheckEvidence
		status   string
		inDetail []string
		missing  string
		findings []string
	}{
		{name: "never checked", kind: CriterionERCClean, status: StatusNoData, inDetail: []string{"no erc_errors evidence"},
			missing: "run kicad.run_erc"},
		{name: "another metric only", kind: CriterionERCClean, checks: []CheckEvidence{{Metric: "drc_errors", EvidenceID: "d", Value: count(0)}},
			status: StatusNoData, missing: "metric erc_errors"},
		{name: "clean", kind: CriterionERCClean, checks: []CheckEvidence{erc("e1", count(0))}, status: StatusPass,
			inDetail: []string{"no ERC errors", "e1", "kicad.run_erc, call c-e1"}},
		{name: "errors named", kind: CriterionERCClean, checks: []CheckEvidence{erc("e2", count(2), "power_pin_not_driven at U1 pin 8", "pin_to_pin at U1 pin 3")},
			status: StatusFail, inDetail: []string{"erc_errors is 2 on evidence e2", "power_pin_not_driven at U1 pin 8; pin_to_pin at U1 pin 3", "Fix them"},
			findings: []string{"power_pin_not_driven at U1 pin 8", "pin_to_pin at U1 pin 3"}},
		{name: "stale", kind: CriterionERCClean, checks: []CheckEvidence{{Metric: "erc_errors", EvidenceID: "e3", Value: count(0), Stale: true,
			StaleAgainst: []string{"TIMER@1 (now TIMER@2)"}}}, status: StatusNoData, inDetail: []string{"older revision", "TIMER@1 (now TIMER@2)"},
			missing: "current erc_errors evidence"},
		{name: "no value", kind: CriterionERCClean, checks: []CheckEvidence{erc("e4", nil)}, status: StatusNoData, inDetail: []string{"holds no value"}},
		{name: "drc clean", kind: CriterionDRCClean, checks: []CheckEvidence{{Metric: "drc_errors", EvidenceID: "d1", Value: count(0)}}, status: StatusPass},
		{name: "drc errors", kind: CriterionDRCClean, checks: []CheckEvidence{{Metric: "DRC errors", EvidenceID: "d2", Value: count(1),
			Findings: []string{"clearance at (10, 20) mm"}}}, status: StatusFail, inDetail: []string{"drc_errors is 1", "clearance at (10, 20) mm"},
			findings: []string{"clearance at (10, 20) mm"}},
		{name: "unrouted", kind: CriterionRoutingComplete, checks: []CheckEvidence{{Metric: "unrouted_connections", EvidenceID: "u1", Value: count(3)}},
			status: StatusFail, inDetail: []string{"unrouted_connections is 3"}},
		{name: "routed", kind: CriterionRoutingComplete, checks: []CheckEvidence{{Metric: "unrouted_connections", EvidenceID: "u2", Value: count(0)}},
			status: StatusPass, inDetail: []string{"no unrouted connections"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Evaluate(phaseWith(nil, tc.kind), Facts{Checks: tc.checks})
			c := res.Criteria[0]
			if c.Status != tc.status || res.Status != tc.status {
				t.Fatalf("status = %s (gate %s), want %s: %+v", c.Status, res.Status, tc.status, c)
			}
			for _, s := range tc.inDetail {
				if !strings.Contains(c.Detail, s) {
					t.Errorf("detail %q does not say %q", c.Detail, s)
				}
			}
			if tc.missing != "" && (len(c.Missing) != 1 || !strings.Contains(c.Missing[0], tc.missing)) {
				t.Errorf("missing = %q, want one saying %q", c.Missing, tc.missing)
			}
			if !reflect.DeepEqual(c.Findings, tc.findings) {
				t.Errorf("findings = %q, want %q", c.Findings, tc.findings)
			}
		})
	}
}

// Many findings: the detail names the first five and counts the rest,
// including those the evidence did not keep.
func TestCheckDetailCountsTheRest(t *testing.T) {
	var fs []string
	for i := 1; i <= MaxFindings; i++ {
		fs = append(fs, fmt.Sprintf("f%d", i))
	}
	ev := CheckEvidence{Metric: "erc_errors", EvidenceID: "e", Value: count(70), Findings: fs, FindingsTotal: 70}
	c := Evaluate(phaseWith(nil, CriterionERCClean), Facts{Checks: []CheckEvidence{ev}}).Criteria[0]
	if !strings.Contains(c.Detail, "f1; f2; f3; f4; f5; and 65 more") || strings.Contains(c.Detail, "f6") {
		t.Fatalf("detail %q", c.Detail)
	}
	if len(c.Findings) != MaxFindings {
		t.Errorf("findings: %d, want %d", len(c.Findings), MaxFindings)
	}
}

// A failing check is excused only by an approved waiver of its kind.
func TestCheckWaived(t *testing.T) {
	f := Facts{Checks: []CheckEvidence{{Metric: "erc_errors", EvidenceID: "e", Value: count(1)}},
		Waivers: []Waiver{{ID: "w0", Waives: []string{CriterionERCClean}}}}
	if r := Evaluate(phaseWith(nil, CriterionERCClean), f); r.Status != StatusFail {
		t.Fatalf("an unapproved waiver excused it: %+v", r)
	}
	f.Waivers = append(f.Waivers, Waiver{ID: "w1", Waives: []string{CriterionERCClean}, ApprovedBy: "alice"})
	r := Evaluate(phaseWith(nil, CriterionERCClean), f)
	if r.Status != StatusPass || r.Criteria[0].WaivedBy != "w1" {
		t.Fatalf("the approved waiver did not excuse it: %+v", r)
	}
}

func TestCheckMetrics(t *testing.T) {
	if got, want := CheckMetrics(), []string{"drc_errors", "erc_errors", "unrouted_connections"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("CheckMetrics = %v, want %v", got, want)
	}
	for _, c := range Criteria() {
		m := CheckMetric(c.Kind)
		if (m != "") != (c.Kind == CriterionERCClean || c.Kind == CriterionDRCClean || c.Kind == CriterionRoutingComplete) {
			t.Errorf("criterion %s reads metric %q", c.Kind, m)
		}
	}
}

// Findings keep errors first, at most MaxFindings, and each reads as a
// line naming the rule, the parts and pins, the sheet and the place.
func TestKeepAndDescribeFindings(t *testing.T) {
	var list []map[string]any
	list = append(list, map[string]any{"type": "pin_not_connected", "description": "Pin not connected", "severity": "warning",
		"sheet": "/", "pins": []any{map[string]any{"reference": "J1", "pin": "3"}}})
	list = append(list, map[string]any{"type": "power_pin_not_driven", "description": "Input Power pin not driven by any Output Power pins",
		"severity": "error", "sheet": "/", "position": map[string]any{"x_mm": 50.8, "y_mm": 25.4},
		"pins": []any{map[string]any{"reference": "U1", "pin": "8", "pin_name": "VCC"}}})
	for i := 0; i < MaxFindings; i++ {
		list = append(list, map[string]any{"rule": "clearance", "description": fmt.Sprintf("Clearance violation %d", i), "severity": "warning",
			"items": []any{map[string]any{"description": "Track [GND] on F.Cu"}}, "location": map[string]any{"x_mm": 1.0, "y_mm": 2.5}})
	}
	raw, _ := json.Marshal(list)
	kept, total := KeepFindings(raw)
	if total != MaxFindings+2 || len(kept) != MaxFindings {
		t.Fatalf("kept %d of %d, want %d of %d", len(kept), total, MaxFindings, MaxFindings+2)
	}
	lines := DescribeFindings(kept)
	want := []string{
		"power_pin_not_driven: Input Power pin not driven by any Output Power pins (error) at U1 pin 8 (VCC), sheet /, (50.8, 25.4) mm",
		"pin_not_connected: Pin not connected (warning) at J1 pin 3, sheet /",
		"clearance: Clearance violation 0 (warning) at Track [GND] on F.Cu, (1, 2.5) mm",
	}
	if !reflect.DeepEqual(lines[:3], want) {
		t.Fatalf("lines = %q,\nwant %q", lines[:3], want)
	}
	for _, bad := range []string{`{"a": 1}`, `null`, `[]`, `"x"`} {
		if k, n := KeepFindings(json.RawMessage(bad)); k != nil || n != 0 {
			t.Errorf("KeepFindings(%s) = %v, %d", bad, k, n)
		}
	}
	if got := DescribeFindings([]any{"plain text", 7.0}); !reflect.DeepEqual(got, []string{"plain text", "7"}) {
		t.Errorf("plain findings = %q", got)
	}
}
