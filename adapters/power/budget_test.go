package power

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/protocol"
)

// Test inputs are written as JSON, the way a caller sends them, so the tests
// also pin the field names.
func budget(t *testing.T, args string) *Report {
	t.Helper()
	req, err := decodeRequest(json.RawMessage(args))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	rep, err := CheckBudget(req)
	if err != nil {
		t.Fatalf("CheckBudget: %v", err)
	}
	return rep
}

func rail(t *testing.T, rep *Report, name string) RailReport {
	t.Helper()
	for _, r := range rep.Rails {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no rail %q in report", name)
	return RailReport{}
}

func approx(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s is null, want %v", what, want)
	}
	if math.Abs(*got-want) > 1e-9 {
		t.Fatalf("%s = %.12g, want %.12g", what, *got, want)
	}
}

func isNull(t *testing.T, what string, got *float64) {
	t.Helper()
	if got != nil {
		t.Fatalf("%s = %v, want null (unknown)", what, *got)
	}
}

func wantStatus(t *testing.T, r RailReport, status string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("rail %s status %q, want %q (detail: %s)", r.Name, r.Status, status, r.Detail)
	}
}

func wantMissing(t *testing.T, r RailReport, want ...Figure) {
	t.Helper()
	if len(r.Missing) != len(want) {
		t.Fatalf("rail %s missing %v, want %v", r.Name, r.Missing, want)
	}
	for i := range want {
		if r.Missing[i] != want[i] {
			t.Fatalf("rail %s missing %v, want %v", r.Name, r.Missing, want)
		}
	}
}

// The reference case: 200 mA on a 3.3 V LDO with 10 mA quiescent current
// draws 200 + 10 = 210 mA from the 5 V supply.
func TestLDOInputCurrentIsOutputPlusQuiescent(t *testing.T) {
	rep := budget(t, `{
		"rails": [
			{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 500},
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "rated_output_ma": 300, "input_rail": "5V0", "quiescent_ma": 10}
		],
		"loads": [
			{"name": "U1", "rail": "3V3", "current_ma": 120},
			{"name": "U2", "rail": "3V3", "current_ma": 80}
		]
	}`)
	ldo := rail(t, rep, "3V3")
	if ldo.LoadMA == nil || *ldo.LoadMA != 200 {
		t.Fatalf("3V3 load_ma = %v, want exactly 200", ldo.LoadMA)
	}
	if ldo.InputCurrentMA == nil || *ldo.InputCurrentMA != 210 {
		t.Fatalf("3V3 input_current_ma = %v, want exactly 210", ldo.InputCurrentMA)
	}
	approx(t, "3V3 allowance_ma", ldo.AllowanceMA, 240)      // 300 x 0.8
	approx(t, "3V3 utilization", ldo.Utilization, 200.0/300) // 0.666...
	wantStatus(t, ldo, StatusPass)

	supply := rail(t, rep, "5V0")
	if supply.LoadMA == nil || *supply.LoadMA != 210 {
		t.Fatalf("5V0 load_ma = %v, want exactly 210", supply.LoadMA)
	}
	approx(t, "5V0 allowance_ma", supply.AllowanceMA, 400)
	approx(t, "5V0 utilization", supply.Utilization, 0.42) // 210 / 500
	if supply.InputCurrentMA != nil {
		t.Fatalf("a supply draws from no input rail, got input_current_ma %v", *supply.InputCurrentMA)
	}
	wantStatus(t, supply, StatusPass)
	wantMissing(t, supply)
	if rep.Status != StatusPass || len(rep.Missing) != 0 {
		t.Fatalf("overall %q missing %v, want pass with nothing missing", rep.Status, rep.Missing)
	}
}

// A 3.3 V buck at 500 mA and 90% efficiency from 12 V draws
// 3.3 x 500 / (0.9 x 12) = 1650 / 10.8 = 152.777... mA.
func TestSwitchingInputCurrent(t *testing.T) {
	rep := budget(t, `{
		"rails": [
			{"name": "12V", "voltage_v": 12, "source_kind": "supply", "rated_output_ma": 1000},
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "switching", "rated_output_ma": 1000, "input_rail": "12V", "efficiency": 0.9}
		],
		"loads": [{"name": "FPGA", "rail": "3V3", "current_ma": 500}]
	}`)
	const want = 152.77777777777777
	approx(t, "3V3 input_current_ma", rail(t, rep, "3V3").InputCurrentMA, want)
	approx(t, "12V load_ma", rail(t, rep, "12V").LoadMA, want)
	approx(t, "12V utilization", rail(t, rep, "12V").Utilization, want/1000)
	wantStatus(t, rail(t, rep, "12V"), StatusPass)
	wantStatus(t, rail(t, rep, "3V3"), StatusPass) // 500 of 800 allowed
}

// A load given as power draws power / rail voltage: 330 mW at 3.3 V is
// 100 mA, 1000 mW at 5 V is 200 mA.
func TestPowerLoadsConvertAtRailVoltage(t *testing.T) {
	rep := budget(t, `{
		"rails": [
			{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 1000},
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "rated_output_ma": 500, "input_rail": "5V0", "quiescent_ma": 5}
		],
		"loads": [
			{"name": "MCU", "rail": "3V3", "power_mw": 330},
			{"name": "LED", "rail": "3V3", "current_ma": 20},
			{"name": "MOTOR", "rail": "5V0", "power_mw": 1000}
		]
	}`)
	approx(t, "3V3 load_ma", rail(t, rep, "3V3").LoadMA, 120)                  // 100 + 20
	approx(t, "3V3 input_current_ma", rail(t, rep, "3V3").InputCurrentMA, 125) // 120 + 5
	approx(t, "5V0 load_ma", rail(t, rep, "5V0").LoadMA, 325)                  // 200 + 125
}

func TestDerating(t *testing.T) {
	const rails = `"rails": [{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 100}]`

	// Default 0.8: 85 mA of a 100 mA rating is over the 80 mA allowance.
	rep := budget(t, `{`+rails+`, "loads": [{"name": "U1", "rail": "5V0", "current_ma": 85}]}`)
	if rep.Derating != (DeratingUsed{MaxUtilization: 0.8, Defaulted: true}) {
		t.Fatalf("derating %+v, want the 0.8 default, marked defaulted", rep.Derating)
	}
	approx(t, "allowance_ma", rep.Rails[0].AllowanceMA, 80)
	wantStatus(t, rep.Rails[0], StatusFail)
	if rep.Status != StatusFail {
		t.Fatalf("overall %q, want fail", rep.Status)
	}

	// The caller's 0.9 allows 90 mA.
	rep = budget(t, `{`+rails+`, "loads": [{"name": "U1", "rail": "5V0", "current_ma": 85}], "derating": {"max_utilization": 0.9}}`)
	if rep.Derating != (DeratingUsed{MaxUtilization: 0.9, Defaulted: false}) {
		t.Fatalf("derating %+v, want the caller's 0.9", rep.Derating)
	}
	approx(t, "allowance_ma", rep.Rails[0].AllowanceMA, 90)
	wantStatus(t, rep.Rails[0], StatusPass)

	// A load exactly at the allowance passes, whatever the rounding of
	// 100 x 0.8; a hair above fails.
	rep = budget(t, `{`+rails+`, "loads": [{"name": "U1", "rail": "5V0", "current_ma": 80}]}`)
	wantStatus(t, rep.Rails[0], StatusPass)
	rep = budget(t, `{`+rails+`, "loads": [{"name": "U1", "rail": "5V0", "current_ma": 80.001}]}`)
	wantStatus(t, rep.Rails[0], StatusFail)
}

// An LDO without quiescent_ma has an unknown input current: its input rail
// is not established while its known load fits, and fails once the known
// part alone is over.
func TestUnknownQuiescent(t *testing.T) {
	args := func(supplyRating int) string {
		return `{
			"rails": [
				{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": ` + itoa(supplyRating) + `},
				{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "rated_output_ma": 300, "input_rail": "5V0"}
			],
			"loads": [{"name": "U1", "rail": "3V3", "current_ma": 200}]
		}`
	}
	q := Figure{Kind: "rail", Name: "3V3", Field: "quiescent_ma"}

	// 500 mA rating: 400 mA allowance, at least 200 mA known.
	rep := budget(t, args(500))
	supply := rail(t, rep, "5V0")
	wantStatus(t, supply, StatusNotEstablished)
	wantMissing(t, supply, q)
	isNull(t, "5V0 load_ma", supply.LoadMA)
	isNull(t, "5V0 utilization", supply.Utilization)
	if supply.KnownLoadMA != 200 {
		t.Fatalf("5V0 known_load_ma %v, want 200", supply.KnownLoadMA)
	}
	// The LDO's own output budget needs no quiescent current: it passes, but
	// what it draws is unknown.
	ldo := rail(t, rep, "3V3")
	wantStatus(t, ldo, StatusPass)
	wantMissing(t, ldo)
	isNull(t, "3V3 input_current_ma", ldo.InputCurrentMA)
	if rep.Status != StatusNotEstablished || len(rep.Missing) != 1 || rep.Missing[0] != q {
		t.Fatalf("overall %q missing %v, want not_established missing [%v]", rep.Status, rep.Missing, q)
	}

	// 200 mA rating: 160 mA allowance, and 200 mA is known already.
	rep = budget(t, args(200))
	supply = rail(t, rep, "5V0")
	wantStatus(t, supply, StatusFail)
	wantMissing(t, supply, q)
	isNull(t, "5V0 load_ma", supply.LoadMA)
	if rep.Status != StatusFail {
		t.Fatalf("overall %q, want fail", rep.Status)
	}
}

// A switching regulator without efficiency draws at least its lossless
// input current, Vout x Iout / Vin = 3.3 x 500 / 12 = 137.5 mA.
func TestUnknownEfficiency(t *testing.T) {
	args := func(supplyRating, supplyDirect int) string {
		return `{
			"rails": [
				{"name": "12V", "voltage_v": 12, "source_kind": "supply", "rated_output_ma": ` + itoa(supplyRating) + `},
				{"name": "3V3", "voltage_v": 3.3, "source_kind": "switching", "rated_output_ma": 1000, "input_rail": "12V"}
			],
			"loads": [
				{"name": "FPGA", "rail": "3V3", "current_ma": 500},
				{"name": "FAN", "rail": "12V", "current_ma": ` + itoa(supplyDirect) + `}
			]
		}`
	}
	eff := Figure{Kind: "rail", Name: "3V3", Field: "efficiency"}

	// 1000 mA rating, 800 allowed; known 100 + 137.5 = 237.5.
	rep := budget(t, args(1000, 100))
	supply := rail(t, rep, "12V")
	wantStatus(t, supply, StatusNotEstablished)
	wantMissing(t, supply, eff)
	if math.Abs(supply.KnownLoadMA-237.5) > 1e-9 {
		t.Fatalf("12V known_load_ma %v, want 237.5", supply.KnownLoadMA)
	}
	isNull(t, "3V3 input_current_ma", rail(t, rep, "3V3").InputCurrentMA)
	if d := rail(t, rep, "3V3").Detail; !strings.Contains(d, "draws from 12V is unknown until efficiency is given") {
		t.Fatalf("3V3 detail %q does not say its input current waits on efficiency", d)
	}

	// The fan alone, 900 mA, is over the 800 mA allowance.
	rep = budget(t, args(1000, 900))
	wantStatus(t, rail(t, rep, "12V"), StatusFail)

	// 250 mA rating, 200 allowed: the fan's 100 plus the lossless 137.5 is
	// over, so the rail fails whatever the efficiency turns out to be.
	rep = budget(t, args(250, 100))
	wantStatus(t, rail(t, rep, "12V"), StatusFail)
	if !strings.Contains(rail(t, rep, "12V").Detail, "237.5") {
		t.Fatalf("detail %q does not give the known load", rail(t, rep, "12V").Detail)
	}
}

func TestLoadWithoutFigure(t *testing.T) {
	rep := budget(t, `{
		"rails": [{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 500}],
		"loads": [
			{"name": "U1", "rail": "5V0", "current_ma": 100},
			{"name": "U2", "rail": "5V0"}
		]
	}`)
	r := rep.Rails[0]
	wantStatus(t, r, StatusNotEstablished)
	wantMissing(t, r, Figure{Kind: "load", Name: "U2", Rail: "5V0", Field: "current_ma or power_mw"})
	isNull(t, "load_ma", r.LoadMA)
	if r.KnownLoadMA != 100 {
		t.Fatalf("known_load_ma %v, want 100", r.KnownLoadMA)
	}
}

// Without a rating there is no allowance: the rail is not established, and
// cannot fail however large its load.
func TestUnknownRating(t *testing.T) {
	rep := budget(t, `{
		"rails": [{"name": "5V0", "voltage_v": 5, "source_kind": "supply"}],
		"loads": [{"name": "U1", "rail": "5V0", "current_ma": 100000}]
	}`)
	r := rep.Rails[0]
	wantStatus(t, r, StatusNotEstablished)
	wantMissing(t, r, Figure{Kind: "rail", Name: "5V0", Field: "rated_output_ma"})
	isNull(t, "allowance_ma", r.AllowanceMA)
	isNull(t, "utilization", r.Utilization)
	approx(t, "load_ma", r.LoadMA, 100000)
	if rep.Status != StatusNotEstablished {
		t.Fatalf("overall %q, want not_established", rep.Status)
	}
}

// Nothing declared on a rail is no data, and no data is not a pass; a
// declared 0 mA load is data.
func TestEmptyRailIsNotAPass(t *testing.T) {
	rep := budget(t, `{
		"rails": [
			{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 500},
			{"name": "1V8", "voltage_v": 1.8, "source_kind": "ldo", "rated_output_ma": 100, "input_rail": "5V0", "quiescent_ma": 1}
		],
		"loads": []
	}`)
	empty := Figure{Kind: "rail", Name: "1V8", Field: "loads"}
	wantStatus(t, rail(t, rep, "1V8"), StatusNotEstablished)
	wantMissing(t, rail(t, rep, "1V8"), empty)
	wantStatus(t, rail(t, rep, "5V0"), StatusNotEstablished)
	wantMissing(t, rail(t, rep, "5V0"), empty)
	if rep.Status != StatusNotEstablished {
		t.Fatalf("overall %q, want not_established", rep.Status)
	}

	rep = budget(t, `{
		"rails": [
			{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 500},
			{"name": "1V8", "voltage_v": 1.8, "source_kind": "ldo", "rated_output_ma": 100, "input_rail": "5V0", "quiescent_ma": 1}
		],
		"loads": [{"name": "spare", "rail": "1V8", "current_ma": 0}]
	}`)
	approx(t, "5V0 load_ma", rail(t, rep, "5V0").LoadMA, 1) // the quiescent current
	if rep.Status != StatusPass {
		t.Fatalf("overall %q, want pass", rep.Status)
	}
}

// An unknown figure two regulators down still reaches the supply, and each
// rail lists it.
func TestUnknownPropagatesUpTheTree(t *testing.T) {
	rep := budget(t, `{
		"rails": [
			{"name": "12V", "voltage_v": 12, "source_kind": "supply", "rated_output_ma": 2000},
			{"name": "5V0", "voltage_v": 5, "source_kind": "switching", "rated_output_ma": 2000, "input_rail": "12V", "efficiency": 0.8},
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "rated_output_ma": 500, "input_rail": "5V0", "quiescent_ma": 5}
		],
		"loads": [
			{"name": "U1", "rail": "3V3", "current_ma": 95},
			{"name": "U2", "rail": "3V3"}
		]
	}`)
	u2 := Figure{Kind: "load", Name: "U2", Rail: "3V3", Field: "current_ma or power_mw"}
	for _, name := range []string{"12V", "5V0", "3V3"} {
		wantStatus(t, rail(t, rep, name), StatusNotEstablished)
		wantMissing(t, rail(t, rep, name), u2)
	}
	// Known parts: 3V3 95; 5V0 95 + 5 = 100; 12V 5 x 100 / (0.8 x 12) = 52.083...
	if got := rail(t, rep, "12V").KnownLoadMA; math.Abs(got-500.0/9.6) > 1e-9 {
		t.Fatalf("12V known_load_ma %v, want %v", got, 500.0/9.6)
	}
	if len(rep.Missing) != 1 || rep.Missing[0] != u2 {
		t.Fatalf("overall missing %v, want just %v once", rep.Missing, u2)
	}
}

func TestOverallStatus(t *testing.T) {
	// 5V0 fails (450 > 400), 3V3 is not established (no rating), 1V8 passes.
	rep := budget(t, `{
		"rails": [
			{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 500},
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "supply"},
			{"name": "1V8", "voltage_v": 1.8, "source_kind": "supply", "rated_output_ma": 100}
		],
		"loads": [
			{"name": "A", "rail": "5V0", "current_ma": 450},
			{"name": "B", "rail": "3V3", "current_ma": 10},
			{"name": "C", "rail": "1V8", "current_ma": 10}
		]
	}`)
	if rep.Status != StatusFail {
		t.Fatalf("overall %q, want fail: a failure outranks an unknown", rep.Status)
	}
	if !strings.Contains(rep.Summary, "5V0") || !strings.Contains(rep.Summary, "3V3") {
		t.Fatalf("summary %q should name the failing and the unestablished rail", rep.Summary)
	}
	wantStatus(t, rail(t, rep, "1V8"), StatusPass)

	// Without the failure, the unknown outranks the pass.
	rep = budget(t, `{
		"rails": [
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "supply"},
			{"name": "1V8", "voltage_v": 1.8, "source_kind": "supply", "rated_output_ma": 100}
		],
		"loads": [
			{"name": "B", "rail": "3V3", "current_ma": 10},
			{"name": "C", "rail": "1V8", "current_ma": 10}
		]
	}`)
	if rep.Status != StatusNotEstablished {
		t.Fatalf("overall %q, want not_established", rep.Status)
	}
}

// Rails come back in the order given, even when a regulator is listed
// before the rail that feeds it, and the same input gives the same bytes.
func TestDeterministicOrder(t *testing.T) {
	args := `{
		"rails": [
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "rated_output_ma": 300, "input_rail": "5V0", "quiescent_ma": 10},
			{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 500},
			{"name": "1V8", "voltage_v": 1.8, "source_kind": "ldo", "rated_output_ma": 300, "input_rail": "3V3"}
		],
		"loads": [
			{"name": "U1", "rail": "1V8", "current_ma": 50},
			{"name": "U2", "rail": "3V3"},
			{"name": "U1", "rail": "3V3", "current_ma": 100}
		]
	}`
	rep := budget(t, args)
	for i, want := range []string{"3V3", "5V0", "1V8"} {
		if rep.Rails[i].Name != want {
			t.Fatalf("rails[%d] is %q, want %q", i, rep.Rails[i].Name, want)
		}
	}
	// 3V3's figures: its direct load first, then what 1V8 depends on.
	wantMissing(t, rail(t, rep, "3V3"),
		Figure{Kind: "load", Name: "U2", Rail: "3V3", Field: "current_ma or power_mw"},
		Figure{Kind: "rail", Name: "1V8", Field: "quiescent_ma"})
	first, _ := json.Marshal(rep)
	for range 5 {
		again, _ := json.Marshal(budget(t, args))
		if string(again) != string(first) {
			t.Fatalf("same input, different output:\n%s\n%s", first, again)
		}
	}
}

func TestInvalidInput(t *testing.T) {
	const supply = `{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 500}`
	cases := []struct {
		name, args string
		want       []string // substrings of the error's details
	}{
		{"cycle", `{"rails": [` + supply + `,
			{"name": "A", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "B"},
			{"name": "B", "voltage_v": 1.8, "source_kind": "ldo", "input_rail": "A"}], "loads": []}`,
			[]string{"cycle", "A -> B -> A", "supply"}},
		{"self feed", `{"rails": [` + supply + `,
			{"name": "A", "voltage_v": 3.3, "source_kind": "switching", "input_rail": "A"}], "loads": []}`,
			[]string{"cycle", "A -> A"}},
		{"unknown input rail", `{"rails": [` + supply + `,
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "5V"}], "loads": []}`,
			[]string{`rails[1].input_rail "5V" names no rail`, `"5V0"`}},
		{"unknown load rail", `{"rails": [` + supply + `], "loads": [{"name": "U1", "rail": "3V3", "current_ma": 1}]}`,
			[]string{`loads[0].rail "3V3" names no rail`, `"5V0"`}},
		{"duplicate rail", `{"rails": [` + supply + `,` + supply + `], "loads": []}`,
			[]string{`rails[1].name "5V0"`, "unique"}},
		{"duplicate load on a rail", `{"rails": [` + supply + `], "loads": [
			{"name": "U1", "rail": "5V0", "current_ma": 1}, {"name": "U1", "rail": "5V0", "current_ma": 2}]}`,
			[]string{"loads[1]", `"U1"`, "counted twice"}},
		{"supply with input rail", `{"rails": [` + supply + `,
			{"name": "USB", "voltage_v": 5, "source_kind": "supply", "input_rail": "5V0"}], "loads": []}`,
			[]string{"rails[1]", "no input_rail"}},
		{"regulator without input rail", `{"rails": [` + supply + `,
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo"}], "loads": []}`,
			[]string{"rails[1].input_rail is required"}},
		{"efficiency on an ldo", `{"rails": [` + supply + `,
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "5V0", "efficiency": 0.9}], "loads": []}`,
			[]string{"rails[1].efficiency", "switching"}},
		{"quiescent on a switcher", `{"rails": [` + supply + `,
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "switching", "input_rail": "5V0", "quiescent_ma": 1}], "loads": []}`,
			[]string{"rails[1].quiescent_ma", "ldo"}},
		{"efficiency above 1", `{"rails": [` + supply + `,
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "switching", "input_rail": "5V0", "efficiency": 90}], "loads": []}`,
			[]string{"rails[1].efficiency is 90", "0.9 for 90%"}},
		{"both current and power", `{"rails": [` + supply + `], "loads": [{"name": "U1", "rail": "5V0", "current_ma": 1, "power_mw": 5}]}`,
			[]string{"loads[0]", "both current_ma and power_mw"}},
		{"negative current", `{"rails": [` + supply + `], "loads": [{"name": "U1", "rail": "5V0", "current_ma": -1}]}`,
			[]string{"loads[0].current_ma is -1"}},
		{"zero voltage", `{"rails": [{"name": "X", "voltage_v": 0, "source_kind": "supply"}], "loads": []}`,
			[]string{"rails[0].voltage_v is 0"}},
		{"no voltage", `{"rails": [{"name": "X", "source_kind": "supply"}], "loads": []}`,
			[]string{"rails[0].voltage_v is required"}},
		{"unknown kind", `{"rails": [{"name": "X", "voltage_v": 5, "source_kind": "boost", "input_rail": "X"}], "loads": []}`,
			[]string{`rails[0].source_kind "boost"`, "supply, ldo or switching"}},
		{"zero rating", `{"rails": [{"name": "X", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 0}], "loads": []}`,
			[]string{"rails[0].rated_output_ma is 0", "leave it out"}},
		{"derating above 1", `{"rails": [` + supply + `], "loads": [], "derating": {"max_utilization": 80}}`,
			[]string{"derating.max_utilization is 80"}},
		{"no rails", `{"rails": [], "loads": []}`, []string{"rails is empty"}},
		{"no loads", `{"rails": [` + supply + `]}`, []string{"loads is required"}},
		{"unknown field", `{"rails": [{"name": "X", "voltage_v": 5, "source_kind": "supply", "rated_ma": 500}], "loads": []}`,
			[]string{"unknown argument rails[].rated_ma; rails[] takes name, voltage_v, source_kind"}},
		{"overflow", `{"rails": [` + supply + `], "loads": [{"name": "A", "rail": "5V0", "current_ma": 1e308}, {"name": "B", "rail": "5V0", "current_ma": 1e308}]}`,
			[]string{"too large"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := decodeRequest(json.RawMessage(tc.args))
			if err == nil {
				_, err = CheckBudget(req)
			}
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams {
				t.Fatalf("got %v, want an INVALID_PARAMS error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(pe.Details, w) {
					t.Fatalf("error %q does not say %q", pe.Details, w)
				}
			}
		})
	}
}

// The same load name on two rails is one part with two supplies, not a
// duplicate.
func TestSameLoadNameOnTwoRails(t *testing.T) {
	rep := budget(t, `{
		"rails": [
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "supply", "rated_output_ma": 500},
			{"name": "1V8", "voltage_v": 1.8, "source_kind": "supply", "rated_output_ma": 500}
		],
		"loads": [
			{"name": "U1", "rail": "3V3", "current_ma": 30},
			{"name": "U1", "rail": "1V8", "current_ma": 70}
		]
	}`)
	approx(t, "3V3 load_ma", rail(t, rep, "3V3").LoadMA, 30)
	approx(t, "1V8 load_ma", rail(t, rep, "1V8").LoadMA, 70)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
