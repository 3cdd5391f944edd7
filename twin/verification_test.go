package twin_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// The system architecture, the test plan, built units and their
// measurements, on each store (runRules).

// tipEvidence records a tip-deflection prediction as twin.evaluate_metric's
// tier 0 does: value in mm, its band in data.band_mm.
func (g graph) tipEvidence(valueMM, bandMM float64, pin string) twin.Node {
	g.t.Helper()
	n, _, _, err := twin.RecordEvidence(bg, g.s, twin.EvidenceWrite{ProjectID: g.p.ID, Name: "tip_deflection tier 0", Kind: "calculation",
		Metric: "tip_deflection", Value: &valueMM, Unit: "mm", ValidAgainst: []string{pin},
		Data: map[string]any{"tier": 0, "band_mm": bandMM, "method": "solid rectangular cantilever"}})
	if err != nil {
		g.t.Fatal(err)
	}
	return n
}

// armArchitecture is a three-subsystem arm: the base carries the arm over
// a mechanical shoulder whose tip deflection ev predicts, and the
// controller powers it.
func armArchitecture(projectID, predictedBy string) twin.ArchitectureWrite {
	return twin.ArchitectureWrite{ProjectID: projectID,
		Subsystems: []twin.ArchitectureSubsystem{{Name: "base"}, {Name: "arm", Description: "two links", HierarchyNode: "HN-ARM"},
			{Name: "controller"}},
		Interfaces: []twin.ArchitectureInterface{
			{Name: "shoulder", From: "Base", To: "arm", Kind: "mechanical", Quantities: []twin.InterfaceQuantity{
				{Name: "tip_deflection", Unit: "mm", PredictedBy: predictedBy}, {Name: "joint temperature", Unit: "degC"}}},
			{Name: "power", From: "controller", To: "arm", Kind: "electrical", Quantities: []twin.InterfaceQuantity{
				{Name: "supply_current", Unit: "A", Predicted: limit(1.2)}}},
		}}
}

func testSystemArchitecture(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Robot Arm")
	node := g.commit("hierarchy_node", "Arm", nil)
	cad := g.commit("cad_model", "Link", nil)
	ev := g.tipEvidence(0.30, 0.06, cad.Ref())
	a, it, err := twin.CommitSystemArchitecture(bg, s, armArchitecture(g.p.ID, ev.ID))
	if err != nil {
		t.Fatal(err)
	}
	if a.Node.Ref() != "ARCH-ROBOT-ARM@1" || it.ItemType != twin.SystemArchitectureItemType || a.Node.Name != "System architecture" {
		t.Fatalf("architecture = %+v %+v", a.Node, it)
	}
	if a.Subsystems[1].HierarchyNode != "HN-ARM@1" || a.Interfaces[0].From != "base" || a.Interfaces[0].Quantities[0].PredictedBy != ev.ID {
		t.Errorf("canonical forms = %+v", a)
	}
	// What the store hands back reads as what was committed.
	stored, err := s.GetNode(bg, a.Node.ID)
	if err != nil {
		t.Fatal(err)
	}
	back, err := twin.ReadArchitecture(stored)
	if err != nil || !reflect.DeepEqual(back.Subsystems, a.Subsystems) || !reflect.DeepEqual(back.Interfaces, a.Interfaces) {
		t.Fatalf("read back = %+v %v\nwant %+v", back, err, a)
	}
	nbs, _ := s.Neighbors(bg, a.Node.ID, twin.Outgoing)
	edges := map[string]string{}
	for _, nb := range nbs {
		edges[nb.Edge.Type] = nb.Node.ID
	}
	if edges[twin.EdgeRelatesTo] != node.ID || edges[twin.EdgeSupportedBy] != ev.ID || len(nbs) != 2 {
		t.Errorf("links = %+v, want RELATES_TO the arm's hierarchy node and SUPPORTED_BY the evidence", nbs)
	}

	// A second commit is the next revision of the one architecture.
	w := armArchitecture(g.p.ID, ev.ID)
	w.ChangeReason = "a wrist"
	w.Subsystems = append(w.Subsystems, twin.ArchitectureSubsystem{Name: "wrist"})
	a2, _, err := twin.CommitSystemArchitecture(bg, s, w)
	if err != nil || a2.Node.Ref() != "ARCH-ROBOT-ARM@2" {
		t.Fatalf("second commit = %+v %v", a2.Node, err)
	}
	if cur, err := twin.SystemArchitecture(bg, s, g.p.ID, ""); err != nil || cur.Node.ID != a2.Node.ID || len(cur.Subsystems) != 4 {
		t.Errorf("current = %+v %v", cur.Node, err)
	}

	bad := func(edit func(w *twin.ArchitectureWrite), want string) {
		t.Helper()
		w := armArchitecture(g.p.ID, ev.ID)
		edit(&w)
		if _, _, err := twin.CommitSystemArchitecture(bg, s, w); !refusal(err, want) {
			t.Errorf("want a refusal saying %q, got %v", want, err)
		}
	}
	bad(func(w *twin.ArchitectureWrite) { w.Interfaces[0].To = "wrist" },
		`interface "shoulder": to "wrist" is not a subsystem of this architecture (its subsystems are base, arm, controller)`)
	bad(func(w *twin.ArchitectureWrite) { w.Subsystems[2].Name = "ARM" }, `two subsystems are named "ARM" (and "arm")`)
	bad(func(w *twin.ArchitectureWrite) { w.Interfaces[1].Name = "Shoulder" }, `two interfaces are named "Shoulder"`)
	bad(func(w *twin.ArchitectureWrite) { w.Interfaces[1].Quantities[0].Unit = "bananas" },
		`interface "power", quantity "supply_current": unit "bananas" does not parse`)
	bad(func(w *twin.ArchitectureWrite) { w.Interfaces[1].Kind = "magnetic" }, `kind "magnetic" is not one of mechanical, electrical, data, thermal, fluid`)
	bad(func(w *twin.ArchitectureWrite) { w.Interfaces[1].From = "arm" }, `interface "power" goes from "arm" to itself`)
	bad(func(w *twin.ArchitectureWrite) { w.Interfaces[0].Quantities[0].PredictedBy = cad.ID }, "is a cad_model, not evidence")
	bad(func(w *twin.ArchitectureWrite) { w.Interfaces[0].Quantities[0].Predicted = limit(0.5) },
		"predicted 0.5 mm disagrees with evidence "+ev.ID+", which predicts 0.3 mm")
	bad(func(w *twin.ArchitectureWrite) { w.Interfaces[1].Quantities[0].PredictedBy = ev.ID }, "predicts tip_deflection, not supply_current")
	bad(func(w *twin.ArchitectureWrite) { w.ItemKey = "ARCH-OTHER" }, "this project's system architecture is ARCH-ROBOT-ARM (head ARCH-ROBOT-ARM@2)")
	bad(func(w *twin.ArchitectureWrite) { w.Subsystems = nil }, "subsystems is empty")
	w = armArchitecture(g.p.ID, ev.ID)
	w.ItemKey = "ARCH-ROBOT-ARM@1"
	if _, _, err := twin.CommitSystemArchitecture(bg, s, w); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Errorf("a stale KEY@n = %v", err)
	}
	if revs, _ := s.Revisions(bg, g.p.ID, "ARCH-ROBOT-ARM"); len(revs) != 2 {
		t.Errorf("refused commits wrote: %d revisions", len(revs))
	}
}

func testTestPlan(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Plan")
	req := func(name, metric, op string, lim float64, unit, target, method string) twin.Constraint {
		return twin.Constraint{Name: name, Metric: metric, Operator: op, Limit: limit(lim), Unit: unit, TargetNodeType: target, VerificationMethod: method}
	}
	reqs := []twin.Constraint{
		req("stiff", "tip_deflection", "<=", 0.5, "mm", "arm", "test"),
		req("payload", "payload_mass", ">=", 2, "kg", "", "Test"),
		req("reach", "reach", ">=", 600, "mm", "arm", "analysis"),
		req("light", "mass", "<=", 8, "kg", "", ""),
		req("quiet", "noise", "<=", 55, "dB", "", "test"),
		{Name: "smooth", Description: "moves smoothly", VerificationMethod: "test"},
	}
	cs := g.requirements("Arm requirements", reqs...)
	plan, err := twin.GenerateTestPlan(bg, s, g.p.ID, "call-1")
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]string{}
	for _, c := range plan.Cases {
		steps[c.Name] = c.Step
		if c.Set != cs.Ref() {
			t.Errorf("case %s from %s", c.Name, c.Set)
		}
	}
	want := map[string]string{
		"Test stiff":   "Measure tip_deflection on arm; acceptance: tip_deflection <= 0.5 mm",
		"Test payload": "Measure payload_mass on the unit under test; acceptance: payload_mass >= 2 kg",
		"Test quiet":   "Measure noise on the unit under test; acceptance: noise <= 55 dB",
	}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("steps =\n %v\nwant\n %v", steps, want)
	}
	skipped := map[string]string{}
	for _, sk := range plan.Skipped {
		skipped[sk.Name] = sk.Reason + ": " + sk.Detail
	}
	if !strings.HasPrefix(skipped["reach"], "not_test: it is verified by analysis") || !strings.HasPrefix(skipped["light"], "not_test: its verification_method is not set") ||
		!strings.HasPrefix(skipped["smooth"], "unbound: a test case is derived from metric, operator, limit and unit; it lacks metric") || len(skipped) != 3 {
		t.Errorf("skipped = %v", skipped)
	}
	c0, err := s.GetNode(bg, plan.Cases[0].NodeID)
	if err != nil || c0.Type != twin.VerificationCaseType || c0.Properties["acceptance"] != "tip_deflection <= 0.5 mm" || c0.Properties["limit"] != 0.5 {
		t.Errorf("stored case = %+v %v", c0, err)
	}
	if nbs, _ := s.Neighbors(bg, c0.ID, twin.Outgoing, twin.EdgeRelatesTo); len(nbs) != 1 || nbs[0].Node.ID != cs.ID {
		t.Errorf("case links = %+v, want RELATES_TO %s", nbs, cs.Ref())
	}

	// A retry of the call answers as the first and writes nothing.
	again, err := twin.GenerateTestPlan(bg, s, g.p.ID, "call-1")
	if err != nil || len(again.Cases) != 3 || again.Cases[0].NodeID != plan.Cases[0].NodeID || len(again.Skipped) != 3 {
		t.Errorf("retry = %+v %v", again, err)
	}
	// Another call finds every test requirement planned.
	next, err := twin.GenerateTestPlan(bg, s, g.p.ID, "call-2")
	if err != nil || len(next.Cases) != 0 {
		t.Fatalf("second call = %+v %v", next, err)
	}
	planned := 0
	for _, sk := range next.Skipped {
		if sk.Reason == twin.SkipAlreadyPlanned {
			planned++
			if sk.CaseID == "" || !strings.Contains(sk.Detail, "derived from "+cs.Ref()) {
				t.Errorf("already planned = %+v", sk)
			}
		}
	}
	if planned != 3 {
		t.Errorf("already planned %d, want 3: %+v", planned, next.Skipped)
	}

	// The requirements change: a new test requirement gets a case; a
	// changed one keeps its case, and the answer says it differs.
	reqs[0].Limit = limit(0.4)
	reqs = append(reqs, req("repeatable", "repeatability", "<=", 0.1, "mm", "arm", "test"))
	g.requirements("Arm requirements", reqs...)
	third, err := twin.GenerateTestPlan(bg, s, g.p.ID, "call-3")
	if err != nil || len(third.Cases) != 1 || third.Cases[0].Step != "Measure repeatability on arm; acceptance: repeatability <= 0.1 mm" ||
		third.Cases[0].Set != "CS-ARM-REQUIREMENTS@2" {
		t.Fatalf("after the change = %+v %v", third, err)
	}
	for _, sk := range third.Skipped {
		if sk.Name == "stiff" && !strings.Contains(sk.Detail, `its acceptance ("tip_deflection <= 0.5 mm") differs from the requirement's now ("tip_deflection <= 0.4 mm")`) {
			t.Errorf("changed requirement = %+v", sk)
		}
	}
	if all, _ := s.NodesByType(bg, g.p.ID, twin.VerificationCaseType); len(all) != 4 {
		t.Errorf("%d verification cases, want 4", len(all))
	}
}

func testDeviceInstances(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Units")
	arm := g.commit("hierarchy_node", "Arm", nil)
	d, err := twin.RegisterDeviceInstance(bg, s, twin.DeviceWrite{ProjectID: g.p.ID, ProductRef: "HN-ARM", Serial: " SN-001 ",
		BuildDate: "2026-03-14", Notes: "first off the line", IdempotencyKey: "reg-1"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Node.Type != twin.DeviceInstanceNodeType || d.Node.Name != "SN-001" || d.Node.Properties["product"] != "HN-ARM@1" ||
		d.Node.Properties["build_date"] != "2026-03-14" || d.Product.ID != arm.ID {
		t.Errorf("unit = %+v", d.Node)
	}
	if nbs, _ := s.Neighbors(bg, d.Node.ID, twin.Outgoing, twin.EdgeInstanceOf); len(nbs) != 1 || nbs[0].Node.ID != arm.ID {
		t.Errorf("INSTANCE_OF = %+v", nbs)
	}
	if again, err := twin.RegisterDeviceInstance(bg, s, twin.DeviceWrite{ProjectID: g.p.ID, ProductRef: "HN-ARM", Serial: "SN-001",
		IdempotencyKey: "reg-1"}); err != nil || again.Node.ID != d.Node.ID {
		t.Errorf("a retry = %+v %v", again, err)
	}
	// The arm is revised: its serials are still its own.
	g.commit("hierarchy_node", "Arm", map[string]any{"note": "rev b"})
	_, err = twin.RegisterDeviceInstance(bg, s, twin.DeviceWrite{ProjectID: g.p.ID, ProductRef: "HN-ARM@2", Serial: "sn-001", IdempotencyKey: "reg-2"})
	if !refusal(err, "serial SN-001 is already registered for HN-ARM@2 as unit "+d.Node.ID) {
		t.Errorf("a repeated serial = %v", err)
	}
	g.commit("hierarchy_node", "Gripper", nil)
	if _, err := twin.RegisterDeviceInstance(bg, s, twin.DeviceWrite{ProjectID: g.p.ID, ProductRef: "HN-GRIPPER", Serial: "SN-001"}); err != nil {
		t.Errorf("the same serial on another product = %v", err)
	}
	if _, err := twin.DeviceInstance(bg, s, g.p.ID, "SN-001"); !refusal(err, `serial "SN-001" names 2 units of different products`) {
		t.Errorf("an ambiguous serial = %v", err)
	}
	for _, tc := range []struct {
		w    twin.DeviceWrite
		want string
	}{
		{twin.DeviceWrite{ProjectID: g.p.ID, ProductRef: "HN-ARM", Serial: " "}, "serial is blank"},
		{twin.DeviceWrite{ProjectID: g.p.ID, Serial: "SN-9"}, "product_ref is blank"},
		{twin.DeviceWrite{ProjectID: g.p.ID, ProductRef: "HN-ARM", Serial: "SN-9", BuildDate: "14/03/2026"},
			`build_date "14/03/2026" is not a date; write it as YYYY-MM-DD`},
		{twin.DeviceWrite{ProjectID: g.p.ID, ProductRef: d.Node.ID, Serial: "SN-9"}, "is a device_instance, not a product"},
	} {
		if _, err := twin.RegisterDeviceInstance(bg, s, tc.w); !refusal(err, tc.want) {
			t.Errorf("%+v = %v, want %q", tc.w, err, tc.want)
		}
	}
	if _, err := twin.RegisterDeviceInstance(bg, s, twin.DeviceWrite{ProjectID: g.p.ID, ProductRef: "NOPE", Serial: "SN-9"}); err == nil ||
		!strings.Contains(err.Error(), "NOPE names no item in this project") {
		t.Errorf("an unknown product = %v", err)
	}
	if all, _ := s.NodesByType(bg, g.p.ID, twin.DeviceInstanceNodeType); len(all) != 2 {
		t.Errorf("%d units, want 2 (refusals write nothing)", len(all))
	}
}

func testMeasurements(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Measured Arm")
	g.commit("hierarchy_node", "Arm", nil)
	cad := g.commit("cad_model", "Link", nil)
	ev := g.tipEvidence(0.30, 0.06, cad.Ref()) // predicted band 0.24 to 0.36 mm
	if _, err := twin.RecordMeasurement(bg, s, twin.MeasurementWrite{ProjectID: g.p.ID, Device: "SN-1", Interface: "shoulder",
		Quantity: "tip_deflection", Value: 0.3, Unit: "mm"}); err == nil {
		t.Errorf("a measurement with no unit registered was recorded")
	}
	if _, _, err := twin.CommitSystemArchitecture(bg, s, armArchitecture(g.p.ID, ev.ID)); err != nil {
		t.Fatal(err)
	}
	unit, err := twin.RegisterDeviceInstance(bg, s, twin.DeviceWrite{ProjectID: g.p.ID, ProductRef: "HN-ARM", Serial: "SN-1"})
	if err != nil {
		t.Fatal(err)
	}
	measure := func(v float64, u string) twin.Measurement {
		t.Helper()
		m, err := twin.RecordMeasurement(bg, s, twin.MeasurementWrite{ProjectID: g.p.ID, Device: unit.Node.ID, Interface: "Shoulder",
			Quantity: "tip deflection", Value: v, Unit: u})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m1 := measure(0.31, "mm")
	if m1.Calibration.Banded || m1.Calibration.Samples != 1 || !strings.Contains(m1.Calibration.Note, "a calibration band needs 3 or more") {
		t.Errorf("one sample = %+v", m1.Calibration)
	}
	p := m1.Prediction
	if p == nil || p.Source != "predicted_by" || !p.Judged || !p.InBand || p.EvidenceID != ev.ID || p.Low != 0.24 || p.High != 0.36 || p.BandFrom != "data.band_mm" {
		t.Errorf("in band = %+v", p)
	}
	m2 := measure(320, "um") // 0.32 mm
	if m2.Value != 0.32 || m2.Unit != "mm" || m2.Given != "320 um" {
		t.Errorf("converted = %v %s given %q", m2.Value, m2.Unit, m2.Given)
	}
	measure(0.29, "mm")
	measure(0.33, "mm")
	m5 := measure(0.30, "mm")
	// By hand: mean 1.55 / 5 = 0.31; squared deviations 0, 1e-4, 4e-4,
	// 4e-4, 1e-4 sum to 1e-3; s = sqrt(1e-3 / 4) = 0.0158113883;
	// band 0.31 -/+ 0.0316227766.
	c := m5.Calibration
	s5 := math.Sqrt(1e-3 / 4)
	if !c.Banded || c.Samples != 5 || math.Abs(c.Mean-0.31) > 1e-12 || math.Abs(c.StdDev-s5) > 1e-12 ||
		math.Abs(c.Low-(0.31-2*s5)) > 1e-12 || math.Abs(c.High-(0.31+2*s5)) > 1e-12 || c.Unit != "mm" || len(c.MeasurementIDs) != 5 {
		t.Errorf("band of 5 = %+v", c)
	}
	for _, m := range []twin.Measurement{m1, m5} {
		if nbs, _ := s.Neighbors(bg, m.Node.ID, twin.Outgoing, twin.EdgeContradicts); len(nbs) != 0 {
			t.Errorf("an in-band measurement contradicts %+v", nbs)
		}
	}
	nbs, _ := s.Neighbors(bg, m1.Node.ID, twin.Outgoing)
	if len(nbs) != 2 || nbs[0].Edge.Type != twin.EdgeMeasuredBy || nbs[0].Node.ID != unit.Node.ID || nbs[1].Edge.Type != twin.EdgeRelatesTo ||
		nbs[1].Node.Ref() != "ARCH-MEASURED-ARM@1" {
		t.Errorf("measurement links = %+v", nbs)
	}

	// Out of the predicted band: flagged against the evidence.
	out := measure(0.40, "mm")
	if p := out.Prediction; p == nil || p.InBand || math.Abs(p.OutBy-0.04) > 1e-12 || math.Abs(p.Deviation-0.10) > 1e-12 ||
		!strings.Contains(p.Note, "0.4 mm is outside the predicted band 0.24 to 0.36 mm by 0.04 mm") {
		t.Errorf("out of band = %+v", out.Prediction)
	}
	flags, _ := s.Neighbors(bg, out.Node.ID, twin.Outgoing, twin.EdgeContradicts)
	if len(flags) != 1 || flags[0].Node.ID != ev.ID || flags[0].Edge.Properties["out_by"] != 0.04 {
		t.Errorf("CONTRADICTS = %+v", flags)
	}
	if back, _ := s.Neighbors(bg, ev.ID, twin.Incoming, twin.EdgeContradicts); len(back) != 1 || back[0].Node.ID != out.Node.ID {
		t.Errorf("from the evidence, its contradiction = %+v", back)
	}

	// A bare predicted value judges nothing; a quantity with no prediction
	// says so; evidence with no band judges nothing.
	cur, err := twin.RecordMeasurement(bg, s, twin.MeasurementWrite{ProjectID: g.p.ID, Device: "SN-1", Interface: "power", Quantity: "supply_current",
		Value: 1500, Unit: "mA"})
	if err != nil || cur.Prediction == nil || cur.Prediction.Judged || cur.Prediction.Source != "predicted" || math.Abs(cur.Prediction.Deviation-0.3) > 1e-12 ||
		!strings.Contains(cur.Prediction.Note, "no band and no evidence: nothing is flagged") {
		t.Errorf("bare prediction = %+v %v", cur.Prediction, err)
	}
	temp, err := twin.RecordMeasurement(bg, s, twin.MeasurementWrite{ProjectID: g.p.ID, Device: "SN-1", Interface: "shoulder", Quantity: "joint_temperature",
		Value: 41, Unit: "degC"})
	if err != nil || temp.Prediction != nil || !strings.Contains(temp.NoPrediction, "joint temperature has no prediction") {
		t.Errorf("no prediction = %+v %v", temp, err)
	}
	v := 0.35
	fea, _, _, err := twin.RecordEvidence(bg, s, twin.EvidenceWrite{ProjectID: g.p.ID, Name: "tip_deflection tier 2", Kind: "simulation",
		Metric: "tip_deflection", Value: &v, Unit: "mm", ValidAgainst: []string{cad.Ref()}})
	if err != nil {
		t.Fatal(err)
	}
	byCall, err := twin.RecordMeasurement(bg, s, twin.MeasurementWrite{ProjectID: g.p.ID, Device: "SN-1", Interface: "shoulder", Quantity: "tip_deflection",
		Value: 0.5, Unit: "mm", PredictedEvidenceID: fea.ID})
	if err != nil || byCall.Prediction.Source != "call" || byCall.Prediction.Judged || !strings.Contains(byCall.Prediction.Note, "records no band") {
		t.Errorf("a prediction with no band = %+v %v", byCall.Prediction, err)
	}

	before, _ := s.NodesByType(bg, g.p.ID, twin.MeasurementNodeType)
	for _, tc := range []struct {
		w    twin.MeasurementWrite
		want string
	}{
		{twin.MeasurementWrite{Device: "SN-1", Interface: "wrist", Quantity: "x", Value: 1, Unit: "mm"}, `has no interface "wrist" (it has shoulder, power)`},
		{twin.MeasurementWrite{Device: "SN-1", Interface: "power", Quantity: "voltage", Value: 1, Unit: "V"}, `has no quantity "voltage" (it has supply_current)`},
		{twin.MeasurementWrite{Device: "SN-1", Interface: "shoulder", Quantity: "tip_deflection", Value: 1, Unit: "N"}, "a value in N cannot be read as mm"},
		{twin.MeasurementWrite{Device: "SN-1", Interface: "shoulder", Quantity: "tip_deflection", Value: 1, Unit: "furlongs"}, `unit "furlongs" does not parse`},
		{twin.MeasurementWrite{Device: cad.ID, Interface: "shoulder", Quantity: "tip_deflection", Value: 1, Unit: "mm"}, "is a cad_model, not a built unit"},
		{twin.MeasurementWrite{Device: "SN-404", Interface: "shoulder", Quantity: "tip_deflection", Value: 1, Unit: "mm"}, `no built unit in this project has serial "SN-404"`},
		{twin.MeasurementWrite{Device: "SN-1", Interface: "shoulder", Quantity: "tip_deflection", Value: 1, Unit: "mm", PredictedEvidenceID: cad.ID},
			"is a cad_model, not evidence"},
	} {
		tc.w.ProjectID = g.p.ID
		if _, err := twin.RecordMeasurement(bg, s, tc.w); !refusal(err, tc.want) {
			t.Errorf("%+v = %v, want %q", tc.w, err, tc.want)
		}
	}
	if after, _ := s.NodesByType(bg, g.p.ID, twin.MeasurementNodeType); len(after) != len(before) {
		t.Errorf("refused measurements wrote: %d, then %d", len(before), len(after))
	}
	other := newGraph(t, s, "No Architecture")
	other.commit("hierarchy_node", "Arm", nil)
	if _, err := twin.RegisterDeviceInstance(bg, s, twin.DeviceWrite{ProjectID: other.p.ID, ProductRef: "HN-ARM", Serial: "A"}); err != nil {
		t.Fatal(err)
	}
	if _, err := twin.RecordMeasurement(bg, s, twin.MeasurementWrite{ProjectID: other.p.ID, Device: "A", Interface: "x", Quantity: "y", Value: 1,
		Unit: "mm"}); !refusal(err, "this project has no system architecture") {
		t.Errorf("no architecture = %v", err)
	}
}
