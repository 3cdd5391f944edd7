package flows

import (
	"math"
	"reflect"
	"testing"
)

const bracketGoal = "Design an aluminium 6061 wall bracket that carries 200 N at its tip with under 0.5 mm deflection, " +
	"safety factor at least 2, fitting in 120 x 40 x 30 mm, wall thickness at least 3 mm, made by CNC milling"

func TestCompileIntentBracket(t *testing.T) {
	it := CompileIntent(bracketGoal, "start with the requirements")
	if it.Goal != bracketGoal || it.ImmediateRequest != "start with the requirements" {
		t.Errorf("goal/request not kept: %q / %q", it.Goal, it.ImmediateRequest)
	}
	if it.Domain != DomainMechanical || it.SuggestedFlow != "mech_v1" {
		t.Errorf("domain %s flow %s", it.Domain, it.SuggestedFlow)
	}
	if it.Material != "aluminium_6061" || it.ManufacturingRoute != "cnc_milling" {
		t.Errorf("material %q route %q", it.Material, it.ManufacturingRoute)
	}
	if len(it.Loads) != 1 || it.Loads[0].Magnitude != 200 || it.Loads[0].Unit != "N" || it.Loads[0].Text == "" {
		t.Errorf("loads = %+v", it.Loads)
	}
	want := []string{
		"max_displacement <= 0.5 mm",
		"safety_factor >= 2 1",
		"envelope_x <= 120 mm",
		"envelope_y <= 40 mm",
		"envelope_z <= 30 mm",
		"wall_thickness >= 3 mm",
	}
	var got []string
	for _, s := range it.SuccessCriteria {
		got = append(got, s.String())
		if s.Text == "" {
			t.Errorf("criterion %s has no text", s)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("success criteria = %q, want %q", got, want)
	}
	for _, s := range it.SuccessCriteria {
		if s.Metric == "load" {
			t.Error("a load became a success criterion")
		}
	}
	categories := map[string]string{}
	for _, c := range it.Constraints {
		categories[c.Metric] = c.Category
	}
	for metric, cat := range map[string]string{"load": CategoryStructural, "max_displacement": CategoryStructural,
		"envelope_x": CategoryGeometry, "wall_thickness": CategoryGeometry, "material": CategoryMaterial,
		"manufacturing_route": CategoryManufacturing} {
		if categories[metric] != cat {
			t.Errorf("constraint %s category = %q, want %s", metric, categories[metric], cat)
		}
	}
	// Everything blocking is answered; only the maturity is still open.
	if len(it.Unknowns) != 1 || it.Unknowns[0].Topic != TopicTargetMaturity || it.Unknowns[0].Blocking {
		t.Errorf("unknowns = %+v", it.Unknowns)
	}
}

func TestCompileIntentDeterministic(t *testing.T) {
	goals := []string{bracketGoal,
		"A sensor board: supply 3.3 V, draw under 50 mA, quiescent current below 20 uA, 50 x 30 mm, operating -40 to 85 °C",
		"something nice", ""}
	for _, g := range goals {
		a, b := CompileIntent(g, "now"), CompileIntent(g, "now")
		if !reflect.DeepEqual(a, b) {
			t.Errorf("two compilations of %q differ:\n%+v\n%+v", g, a, b)
		}
	}
}

// One quantity per goal: what it becomes.
func TestCompileIntentQuantities(t *testing.T) {
	cases := []struct {
		goal, metric, op string
		limit            float64
		unit, category   string
	}{
		{"stress below 100 MPa", "max_von_mises", "<=", 100, "MPa", CategoryStructural},
		{"mass under 150 g", "mass", "<=", 150, "g", CategoryMass},
		{"weighs less than 0.2 kg", "mass", "<=", 0.2, "kg", CategoryMass},
		{"max deflection 0.5 mm", "max_displacement", "<=", 0.5, "mm", CategoryStructural},
		{"deflection of 0.5 mm or less", "max_displacement", "<=", 0.5, "mm", CategoryStructural},
		{"tip displacement no more than 1.2 mm", "max_displacement", "<=", 1.2, "mm", CategoryStructural},
		{"minimum wall 2 mm", "wall_thickness", ">=", 2, "mm", CategoryGeometry},
		{"factor of safety of 1.5", "safety_factor", ">=", 1.5, "1", CategoryStructural},
		{"a 2.5 safety factor", "safety_factor", ">=", 2.5, "1", CategoryStructural},
		{"first natural frequency above 80 Hz", "natural_frequency", ">=", 80, "Hz", CategoryStructural},
		{"draw under 50 mA", "supply_current", "<=", 50, "mA", CategoryElectrical},
		{"quiescent current below 20 µA", "quiescent_current", "<=", 20, "uA", CategoryElectrical},
		{"efficiency above 90%", "efficiency", ">=", 90, "%", CategoryElectrical},
		{"temperature rise below 40 °C", "temperature_rise", "<=", 40, "K", CategoryThermal},
		{"BOM cost under $15", "bom_cost", "<=", 15, "USD", CategoryCost},
		{"unit cost at most 12 EUR", "unit_cost", "<=", 12, "EUR", CategoryCost},
		{"ready within 6 weeks", "lead_time", "<=", 6, "week", CategorySchedule},
		{"battery life at least 24 hours", "battery_life", ">=", 24, "h", CategoryElectrical},
		{"yield strength over 250 MPa", "yield_strength", ">=", 250, "MPa", CategoryMaterial},
		{"length ≤ 200 mm", "length", "<=", 200, "mm", CategoryGeometry},
	}
	for _, tc := range cases {
		it := CompileIntent(tc.goal, "")
		if len(it.SuccessCriteria) != 1 {
			t.Errorf("%q: criteria = %+v (constraints %+v)", tc.goal, it.SuccessCriteria, it.Constraints)
			continue
		}
		s := it.SuccessCriteria[0]
		if s.Metric != tc.metric || s.Operator != tc.op || s.Limit != tc.limit || s.Unit != tc.unit {
			t.Errorf("%q: got %s, want %s %s %g %s", tc.goal, s, tc.metric, tc.op, tc.limit, tc.unit)
		}
		if c := it.Constraints[0]; c.Category != tc.category {
			t.Errorf("%q: category %s, want %s", tc.goal, c.Category, tc.category)
		}
	}
}

func TestCompileIntentElectronics(t *testing.T) {
	it := CompileIntent("A sensor board: supply 3.3 V, draw under 50 mA, 50 x 30 mm, operating between -40 and 85 °C", "")
	if it.Domain != DomainElectronics || it.SuggestedFlow != "hardware_v1" {
		t.Fatalf("domain %s flow %s", it.Domain, it.SuggestedFlow)
	}
	var supply *IntentConstraint
	for i, c := range it.Constraints {
		if c.Metric == "supply_voltage" {
			supply = &it.Constraints[i]
		}
	}
	if supply == nil || supply.Operator != "" || supply.Limit == nil || *supply.Limit != 3.3 || supply.Unit != "V" {
		t.Fatalf("supply = %+v", supply)
	}
	var got []string
	for _, s := range it.SuccessCriteria {
		got = append(got, s.String())
	}
	want := []string{"supply_current <= 50 mA", "envelope_x <= 50 mm", "envelope_y <= 30 mm",
		"ambient_temperature >= -40 °C", "ambient_temperature <= 85 °C"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("criteria = %q, want %q", got, want)
	}
	for _, u := range it.Unknowns {
		if u.Topic == TopicLoads || u.Topic == TopicMaterial || u.Topic == TopicSupply {
			t.Errorf("a board with a supply asks %s", u.Topic)
		}
	}
	if noSupply := CompileIntent("a usb sensor board drawing under 10 mA", ""); !hasUnknown(noSupply, TopicSupply, true) {
		t.Errorf("a board without a supply voltage does not ask for one: %+v", noSupply.Unknowns)
	}
}

func TestCompileIntentUnknowns(t *testing.T) {
	bare := CompileIntent("Design a steel mounting bracket with deflection under 1 mm", "")
	for _, topic := range []string{TopicLoads, TopicManufacturingRoute} {
		if !hasUnknown(bare, topic, true) {
			t.Errorf("no blocking %s unknown: %+v", topic, bare.Unknowns)
		}
	}
	if hasUnknown(bare, TopicMaterial, true) || bare.Material != "steel" {
		t.Errorf("material steel stated, but: %q %+v", bare.Material, bare.Unknowns)
	}
	if !hasUnknown(bare, TopicTargetMaturity, false) {
		t.Errorf("no maturity unknown: %+v", bare.Unknowns)
	}

	with := CompileIntentWith(IntentInput{Goal: "Design a mounting bracket with deflection under 1 mm",
		ManufacturingContext: "laser cut and bent sheet, 500 a year", TargetMaturity: "Prototype",
		LoadsAndUse: "a 15 kg shelf hangs on it", Budget: "$8 each"})
	if with.ManufacturingRoute != "sheet_metal" || with.TargetMaturity != "prototype" {
		t.Errorf("route %q maturity %q", with.ManufacturingRoute, with.TargetMaturity)
	}
	// A 15 kg shelf hanging on it is its weight: 15 x 9.80665 = 147.1 N.
	if len(with.Loads) != 1 || math.Abs(with.Loads[0].Magnitude-15*9.80665) > 1e-9 || with.Loads[0].Unit != "N" || with.Loads[0].Stated != "15 kg" {
		t.Errorf("loads = %+v", with.Loads)
	}
	if !hasCriterion(with, "unit_cost <= 8 USD") {
		t.Errorf("budget not read: %+v", with.SuccessCriteria)
	}
	if !hasUnknown(with, TopicMaterial, true) || len(with.Unknowns) != 1 {
		t.Errorf("only the material should be unknown: %+v", with.Unknowns)
	}

	// A loads answer without a number still answers the question.
	words := CompileIntentWith(IntentInput{Goal: "an aluminium bracket, cnc machined", LoadsAndUse: "a person leaning on it"})
	if hasUnknown(words, TopicLoads, true) || words.ManufacturingRoute != "cnc_machining" {
		t.Errorf("unknowns %+v route %q", words.Unknowns, words.ManufacturingRoute)
	}
	if !hasUnknown(words, TopicSuccessCriteria, false) {
		t.Errorf("no measurable criteria, but no question: %+v", words.Unknowns)
	}
}

func TestCompileIntentWords(t *testing.T) {
	cases := []struct {
		goal, material, route, maturity, domain string
	}{
		{"a 6061-T6 aluminum housing, die cast", "aluminium_6061", "die_casting", "", DomainMechanical},
		{"stainless 316 clamp, turned on a lathe, production-ready", "stainless_316", "cnc_turning", "production", DomainMechanical},
		{"a PETG fixture, 3D printed prototype", "petg", "3d_printing", "prototype", DomainMechanical},
		{"an ESP32 board with a buck regulator, PCB assembly at JLCPCB", "", "pcb_assembly", "", DomainElectronics},
		{"a nice logo", "", "", "", DomainGeneral},
	}
	for _, tc := range cases {
		it := CompileIntent(tc.goal, "")
		if it.Material != tc.material || it.ManufacturingRoute != tc.route || it.TargetMaturity != tc.maturity || it.Domain != tc.domain {
			t.Errorf("%q: material %q route %q maturity %q domain %q; want %q %q %q %q", tc.goal, it.Material,
				it.ManufacturingRoute, it.TargetMaturity, it.Domain, tc.material, tc.route, tc.maturity, tc.domain)
		}
	}
}

func TestCompileIntentNotFooled(t *testing.T) {
	// M3 is a screw size, 6061 a grade: neither is a quantity, and a
	// number with no unit constrains nothing.
	it := CompileIntent("use M3 screws, 4 of them, aluminium 6061", "")
	for _, c := range it.Constraints {
		if c.Limit != nil {
			t.Errorf("read a quantity from nothing: %+v", c)
		}
	}
	// Units that are also words count only against the number.
	it = CompileIntent("500 a year, 2 c batteries, draws 2A, up to 85c", "")
	var got []string
	for _, c := range it.Constraints {
		got = append(got, c.Metric+" "+formatNumber(*c.Limit)+" "+c.Unit)
	}
	if want := []string{"supply_current 2 A", "max_temperature 85 °C"}; !reflect.DeepEqual(got, want) {
		t.Errorf("constraints = %q, want %q", got, want)
	}
	// A length with no word saying what it is is kept but bounds nothing.
	it = CompileIntent("about 120 mm", "")
	if len(it.SuccessCriteria) != 0 || len(it.Constraints) != 1 || it.Constraints[0].Operator != "" {
		t.Errorf("unlabelled length: %+v", it.Constraints)
	}
	// The same requirement twice is recorded once.
	it = CompileIntent("deflection under 0.5 mm. Max deflection 0.5 mm", "")
	if len(it.SuccessCriteria) != 1 {
		t.Errorf("duplicate criteria: %+v", it.SuccessCriteria)
	}
}

func hasUnknown(it Intent, topic string, blocking bool) bool {
	for _, u := range it.Unknowns {
		if u.Topic == topic && u.Blocking == blocking && u.Question != "" {
			return true
		}
	}
	return false
}

func hasCriterion(it Intent, s string) bool {
	for _, c := range it.SuccessCriteria {
		if c.String() == s {
			return true
		}
	}
	return false
}

// Any text compiles, twice the same, into criteria that are all bounds.
func FuzzCompileIntent(f *testing.F) {
	for _, s := range []string{bracketGoal, "between 5 and 12 V, -40 to 85 °C, $2k budget", "safety factor", "sf 2 mm",
		"1 x 2 x", "120 x 40 mm x 30 mm", "..-.5 to -.5 mm", "a 2.5 safety factor of at least 3"} {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, goal, request string) {
		a, b := CompileIntent(goal, request), CompileIntent(goal, request)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("not deterministic for %q", goal)
		}
		for _, s := range a.SuccessCriteria {
			if !isBound(s.Operator) || s.Metric == "" {
				t.Fatalf("criterion %+v from %q", s, goal)
			}
		}
	})
}
