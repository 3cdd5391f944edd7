package twin_test

import (
	"errors"
	"maps"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// The product hierarchy's rules, on every store (runRules). The figures
// expected are hand sums written out beside each check.

func ptr[T any](v T) *T { return &v }

// position records a hierarchy node, failing the test on any error.
func (g graph) position(w twin.HierarchyNodeWrite) twin.HierarchyPosition {
	g.t.Helper()
	w.ProjectID = g.p.ID
	pos, err := twin.RecordHierarchyNode(bg, g.s, w)
	if err != nil {
		g.t.Fatalf("record position %s: %v", w.Name, err)
	}
	return pos
}

// bom records a component selection with a unit cost and category.
func (g graph) bom(name, mpn string, specs map[string]any) twin.Node {
	g.t.Helper()
	sel, err := twin.RecordComponentSelection(bg, g.s, twin.SelectionWrite{ProjectID: g.p.ID, Name: name, MPN: mpn, Manufacturer: "Acme", Specs: specs})
	if err != nil {
		g.t.Fatalf("bom %s: %v", name, err)
	}
	return sel.Node
}

func (g graph) rollup(root string) twin.Rollup {
	g.t.Helper()
	r, err := twin.ComputeRollup(bg, g.s, g.p.ID, root)
	if err != nil {
		g.t.Fatalf("rollup %s: %v", root, err)
	}
	return r
}

// figureNear says a figure is a known total within 1e-9 of want.
func figureNear(f twin.Figure, want float64) bool {
	return f.Value != nil && math.Abs(*f.Value-want) < 1e-9
}

// partial says a figure is unknown, its known part within 1e-9 of want,
// naming exactly the refs given as no_data.
func partial(f twin.Figure, want float64, refs ...string) bool {
	if f.Value != nil || f.KnownPartialSum == nil || math.Abs(*f.KnownPartialSum-want) > 1e-9 || len(f.NoData) != len(refs) {
		return false
	}
	for i, g := range f.NoData {
		if g.Ref != refs[i] || g.Name == "" || g.Reason == "" {
			return false
		}
	}
	return true
}

func child(n twin.RollupNode, name string) twin.RollupNode {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return twin.RollupNode{}
}

// armGraph is a two-level arm: Base (1) holds a plate and 2 motors;
// Forearm (2) holds a tube and 4 screws, the screw's model without a mass.
func armGraph(t *testing.T, s twin.Store) graph {
	g := newGraph(t, s, "Arm")
	none := &twin.Power{PeakW: ptr(0.0), AverageW: ptr(0.0), DissipationW: ptr(0.0)}
	g.commit("cad_model", "Base plate", map[string]any{"mass_kg": 2.0})
	g.commit("cad_model", "Motor", map[string]any{"mass_kg": 0.5})
	g.commit("cad_model", "Tube", map[string]any{"mass_kg": 0.3})
	g.commit("cad_model", "Screw", nil)
	g.bom("Plate stock", "PL-10", map[string]any{"unit_cost": "$40"})
	g.bom("Servo", "SV-25", map[string]any{"Unit Cost": map[string]any{"value": 25.0, "unit": "USD"}, "category": "actuator"})
	g.bom("Tube stock", "TB-5", map[string]any{"unit_cost": "5 USD"})
	g.bom("M3 screw", "ISO4762-M3x8", map[string]any{"unit_cost": "$0.10", "category": "Fastener"})

	g.position(twin.HierarchyNodeWrite{Name: "Arm", Level: "product"})
	g.position(twin.HierarchyNodeWrite{Name: "Base", Level: "subsystem", Parent: "HN-ARM"})
	g.position(twin.HierarchyNodeWrite{Name: "Forearm", Level: "subsystem", Parent: "HN-ARM", Quantity: ptr(2)})
	g.position(twin.HierarchyNodeWrite{Name: "Plate", Level: "part", Parent: "HN-BASE", RealizedBy: "CAD-BASE-PLATE", InstanceOf: "BOM-PLATE-STOCK", Power: none})
	motor := g.position(twin.HierarchyNodeWrite{Name: "Motor", Level: "part", Parent: "HN-BASE", Quantity: ptr(2), RealizedBy: "CAD-MOTOR@1",
		InstanceOf: "BOM-SERVO", Power: &twin.Power{PeakW: ptr(12.0), AverageW: ptr(4.0), DissipationW: ptr(3.0)},
		Placement: &twin.Placement{XMM: 40, ZMM: 15, RZDeg: 90}})
	if motor.Parent != "HN-BASE@1" || motor.Quantity != 2 || motor.RealizedBy != "CAD-MOTOR@1" || motor.InstanceOf != "BOM-SERVO@1" ||
		!reflect.DeepEqual(motor.Placement, &twin.Placement{XMM: 40, ZMM: 15, RZDeg: 90}) {
		t.Fatalf("motor = %+v", motor)
	}
	g.position(twin.HierarchyNodeWrite{Name: "Tube", Level: "part", Parent: "HN-FOREARM", RealizedBy: "CAD-TUBE", InstanceOf: "BOM-TUBE-STOCK", Power: none})
	g.position(twin.HierarchyNodeWrite{Name: "Screw", Level: "part", Parent: "HN-FOREARM", Quantity: ptr(4), RealizedBy: "CAD-SCREW",
		InstanceOf: "BOM-M3-SCREW", Power: none})
	return g
}

func testHierarchyRollup(t *testing.T, s twin.Store) {
	g := armGraph(t, s)
	r := g.rollup("HN-ARM")
	arm, base, fore := r.Root, child(r.Root, "Base"), child(r.Root, "Forearm")
	if arm.Ref != "HN-ARM@1" || arm.Level != "product" || len(arm.Children) != 2 || base.Quantity != 1 || fore.Quantity != 2 ||
		child(fore, "Screw").Quantity != 4 || child(fore, "Screw").TotalQuantity != 8 || child(base, "Motor").TotalQuantity != 2 {
		t.Fatalf("tree = %+v", arm)
	}
	// Mass: Base = 2.0 + 2 x 0.5 = 3.0 kg. Forearm: the screw has no
	// mass, so only the tube's 0.3 is known. Arm: 3.0 + 2 x 0.3 = 3.6
	// known, the screw named on the forearm and the arm.
	if !figureNear(base.MassKg, 3.0) || !partial(fore.MassKg, 0.3, "HN-SCREW@1") || !partial(arm.MassKg, 3.6, "HN-SCREW@1") {
		t.Errorf("mass: base %+v, forearm %+v, arm %+v", base.MassKg, fore.MassKg, arm.MassKg)
	}
	if g := arm.MassKg.NoData[0]; g.Name != "Screw" || !strings.Contains(g.Reason, "CAD-SCREW@1 gives no mass") {
		t.Errorf("the screw's no_data = %+v", g)
	}
	// Cost: Base = 40 + 2 x 25 = 90; Forearm = 5 + 4 x 0.10 = 5.4; Arm =
	// 90 + 2 x 5.4 = 100.8 USD.
	if !figureNear(base.CostUSD, 90) || !figureNear(fore.CostUSD, 5.4) || !figureNear(arm.CostUSD, 100.8) {
		t.Errorf("cost: base %+v, forearm %+v, arm %+v", base.CostUSD, fore.CostUSD, arm.CostUSD)
	}
	// Power: only the motors draw: peak 2 x 12 = 24, average 2 x 4 = 8,
	// dissipation 2 x 3 = 6 W.
	if !figureNear(arm.Power.PeakW, 24) || !figureNear(arm.Power.AverageW, 8) || !figureNear(arm.Power.DissipationW, 6) {
		t.Errorf("power = %+v", arm.Power)
	}
	if m := child(base, "Motor"); m.MassKg.Source != "CAD-MOTOR@1 properties.mass_kg" || m.CostUSD.Source != "BOM-SERVO@1 unit_cost" {
		t.Errorf("motor sources = %+v %+v", m.MassKg, m.CostUSD)
	}

	// A new model revision of the screw is not used until the position
	// is realised by it; the roll-up says so.
	g.commit("cad_model", "Screw", map[string]any{"mass_kg": 0.002})
	r = g.rollup("HN-ARM")
	if sc := child(child(r.Root, "Forearm"), "Screw"); len(sc.Notes) != 1 || !strings.Contains(sc.Notes[0], "CAD-SCREW is now at CAD-SCREW@2") {
		t.Errorf("screw notes = %v", sc.Notes)
	}
	// Recording cannot replace a realisation; realising does, as a new
	// revision of the position.
	_, err := twin.RecordHierarchyNode(bg, s, twin.HierarchyNodeWrite{ProjectID: g.p.ID, Name: "Screw", RealizedBy: "CAD-SCREW@2"})
	if !refusal(err, "already realized_by CAD-SCREW@1") || !refusal(err, "twin.realize_hierarchy_node") {
		t.Errorf("record over a realisation = %v", err)
	}
	re, err := twin.RealizeHierarchyNode(bg, s, twin.RealizeWrite{ProjectID: g.p.ID, Position: "HN-SCREW@1", RealizedBy: "CAD-SCREW"})
	if err != nil || re.Node.Ref() != "HN-SCREW@2" || re.ReplacedRealizedBy != "CAD-SCREW@1" || re.RealizedBy != "CAD-SCREW@2" ||
		re.ReplacedInstanceOf != "" || re.InstanceOf != "BOM-M3-SCREW@1" || re.Parent != "HN-FOREARM@1" || re.Quantity != 4 || re.Previous != "HN-SCREW@1" {
		t.Fatalf("realize = %+v %v", re, err)
	}
	if _, err := twin.RealizeHierarchyNode(bg, s, twin.RealizeWrite{ProjectID: g.p.ID, Position: "HN-SCREW@1", RealizedBy: "CAD-SCREW"}); !errors.Is(err, twin.ErrStaleRevision) {
		t.Errorf("realize against a stale head = %v, want ErrStaleRevision", err)
	}
	revs, _ := s.Revisions(bg, g.p.ID, "HN-SCREW")
	if len(revs) != 2 {
		t.Fatalf("screw history = %d revisions, want 2", len(revs))
	}
	// Mass now: Forearm = 0.3 + 4 x 0.002 = 0.308; Arm = 3.0 + 2 x 0.308
	// = 3.616 kg.
	r = g.rollup("HN-ARM")
	if fore := child(r.Root, "Forearm"); !figureNear(fore.MassKg, 0.308) || !figureNear(r.Root.MassKg, 3.616) || child(fore, "Screw").Ref != "HN-SCREW@2" {
		t.Errorf("after realising: forearm %+v, arm %+v", fore.MassKg, r.Root.MassKg)
	}

	// Revising a parent keeps its children; revising a child keeps its
	// place (a revision made by another write, with the position's
	// properties and links carried as an engineering change carries
	// them, too).
	fore2 := g.position(twin.HierarchyNodeWrite{Name: "Forearm", Description: "carbon tube forearm"})
	if fore2.Node.Ref() != "HN-FOREARM@2" || fore2.Parent != "HN-ARM@1" || fore2.Quantity != 2 ||
		!reflect.DeepEqual(fore2.Children, []string{"HN-TUBE@1", "HN-SCREW@2"}) {
		t.Fatalf("revised forearm = %+v", fore2)
	}
	motorHead, _ := twin.ResolveRef(bg, s, g.p.ID, "HN-MOTOR")
	carried, _ := s.Neighbors(bg, motorHead.ID, twin.Outgoing, twin.EdgeRealizedBy, twin.EdgeInstanceOf)
	var links []twin.Link
	for _, nb := range carried {
		links = append(links, twin.Link{Type: nb.Edge.Type, To: nb.Node.ID, Properties: nb.Edge.Properties})
	}
	if _, _, err := s.CommitRevision(bg, twin.RevisionWrite{ProjectID: g.p.ID, ItemType: twin.HierarchyNodeType, Name: "Motor",
		ItemKey: "HN-MOTOR@1", Properties: maps.Clone(motorHead.Properties), Links: links, ChangeReason: "ECO-7"}); err != nil {
		t.Fatal(err)
	}
	r = g.rollup("HN-ARM@1")
	if m := child(child(r.Root, "Base"), "Motor"); m.Ref != "HN-MOTOR@2" || m.Quantity != 2 || m.Placement == nil || m.Placement.RZDeg != 90 ||
		!figureNear(r.Root.MassKg, 3.616) || !figureNear(r.Root.CostUSD, 100.8) || child(r.Root, "Forearm").Ref != "HN-FOREARM@2" {
		t.Errorf("after revising the motor and the forearm = %+v", r.Root)
	}

	// A parent under its own child is refused, naming the loop.
	_, err = twin.RecordHierarchyNode(bg, s, twin.HierarchyNodeWrite{ProjectID: g.p.ID, Name: "Arm", Parent: "HN-SCREW"})
	if !refusal(err, "that would make a cycle (Arm (HN-ARM@1) > Forearm (HN-FOREARM@2) > Screw (HN-SCREW@2) > Arm (HN-ARM@1))") {
		t.Errorf("cycle = %v", err)
	}
	if revs, _ := s.Revisions(bg, g.p.ID, "HN-ARM"); len(revs) != 1 {
		t.Errorf("the refused cycle wrote a revision of the arm")
	}
	if _, err := twin.ComputeRollup(bg, s, g.p.ID, "CAD-MOTOR"); !refusal(err, "is a cad_model, not a hierarchy_node") {
		t.Errorf("rollup of a cad_model = %v", err)
	}
}

func testHierarchyMovesAndRefusals(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Rover")
	g.position(twin.HierarchyNodeWrite{Name: "Rover", Level: "product"})
	g.position(twin.HierarchyNodeWrite{Name: "Chassis", Level: "system", Parent: "HN-ROVER"})
	g.position(twin.HierarchyNodeWrite{Name: "Mast", Level: "system", Parent: "HN-ROVER"})
	cam := g.position(twin.HierarchyNodeWrite{Name: "Camera", Level: "part", Parent: "HN-CHASSIS", Quantity: ptr(3),
		Placement: &twin.Placement{YMM: 10}, Power: &twin.Power{PeakW: ptr(2.5), AverageW: ptr(1.5)}})
	if cam.Parent != "HN-CHASSIS@1" || cam.Quantity != 3 {
		t.Fatalf("camera = %+v", cam)
	}
	// Moved to the mast: the quantity stays, the chassis's placement
	// does not follow it into another frame.
	moved := g.position(twin.HierarchyNodeWrite{Name: "camera", Parent: "HN-MAST"})
	if moved.Node.Ref() != "HN-CAMERA@2" || moved.Parent != "HN-MAST@1" || moved.Quantity != 3 || moved.Placement != nil {
		t.Fatalf("moved camera = %+v", moved)
	}
	r := g.rollup("HN-ROVER")
	chassis, mast := child(r.Root, "Chassis"), child(r.Root, "Mast")
	if len(chassis.Children) != 0 || len(mast.Children) != 1 || mast.Children[0].Ref != "HN-CAMERA@2" {
		t.Fatalf("after the move: chassis %+v, mast %+v", chassis, mast)
	}
	// Power: peak 3 x 2.5 = 7.5 W on the mast; no average is unknown
	// on the camera, so the average is 3 x 1.5 = 4.5; dissipation is not
	// recorded: no_data naming the camera, and the chassis (an empty
	// subsystem) is no_data for everything.
	if !figureNear(mast.Power.PeakW, 7.5) || !figureNear(mast.Power.AverageW, 4.5) || !partial(mast.Power.DissipationW, 0, "HN-CAMERA@2") {
		t.Errorf("mast power = %+v", mast.Power)
	}
	if !partial(r.Root.Power.PeakW, 7.5, "HN-CHASSIS@1") || !partial(r.Root.MassKg, 0, "HN-CHASSIS@1", "HN-CAMERA@2") {
		t.Errorf("rover: peak %+v, mass %+v", r.Root.Power.PeakW, r.Root.MassKg)
	}
	// The sub-branch alone.
	if sub := g.rollup("HN-MAST"); sub.Root.Quantity != 1 || sub.Root.TotalQuantity != 1 || !figureNear(sub.Root.Power.PeakW, 7.5) {
		t.Errorf("mast roll-up = %+v", sub.Root)
	}

	for _, c := range []struct {
		w    twin.HierarchyNodeWrite
		want string
	}{
		{twin.HierarchyNodeWrite{Name: "Wheel"}, "level is missing"},
		{twin.HierarchyNodeWrite{Name: "Wheel", Level: "widget"}, `level "widget" is not one of product, system`},
		{twin.HierarchyNodeWrite{Name: "Wheel", Level: "part", Quantity: ptr(0)}, "quantity 0"},
		{twin.HierarchyNodeWrite{Name: "Wheel", Level: "part", Quantity: ptr(2)}, `"Wheel" has no parent`},
		{twin.HierarchyNodeWrite{Name: "Wheel", Level: "part", Power: &twin.Power{PeakW: ptr(1.0), AverageW: ptr(2.0)}}, "cannot exceed the peak"},
		{twin.HierarchyNodeWrite{Name: "Wheel", Level: "part", Parent: "CAD-NOPE"}, "parent CAD-NOPE"},
		{twin.HierarchyNodeWrite{Name: "Wheel", Level: "part", Joints: []twin.Joint{{Name: "j", Type: "weld", Base: "a", Follower: "b"}}}, `type "weld"`},
		{twin.HierarchyNodeWrite{Name: "Mast", Parent: "HN-MAST"}, "that would make a cycle (Mast (HN-MAST@1) > Mast (HN-MAST@1))"},
	} {
		c.w.ProjectID = g.p.ID
		_, err := twin.RecordHierarchyNode(bg, s, c.w)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v = %v, want %q", c.w, err, c.want)
		}
	}
	g.commit("cad_model", "Wheel", nil)
	g.commit("constraint_set", "Rover requirements", nil)
	if _, err := twin.RecordHierarchyNode(bg, s, twin.HierarchyNodeWrite{ProjectID: g.p.ID, Name: "Wheel", Level: "part",
		Parent: "CAD-WHEEL"}); !refusal(err, "parent CAD-WHEEL is a cad_model, not a hierarchy_node") {
		t.Errorf("a cad_model as parent = %v", err)
	}
	if _, err := twin.RecordHierarchyNode(bg, s, twin.HierarchyNodeWrite{ProjectID: g.p.ID, Name: "Wheel", Level: "part",
		InstanceOf: "CS-ROVER-REQUIREMENTS"}); !refusal(err, "instance_of CS-ROVER-REQUIREMENTS is a constraint_set, not a component_selection") {
		t.Errorf("a constraint set as BOM item = %v", err)
	}
	if _, err := twin.RealizeHierarchyNode(bg, s, twin.RealizeWrite{ProjectID: g.p.ID, Position: "HN-MAST"}); !refusal(err, "Missing: realized_by or instance_of") {
		t.Errorf("realize nothing = %v", err)
	}
	// A repeated call (its idempotency key) writes nothing more: one
	// revision, one CONTAINS edge.
	repeat := twin.HierarchyNodeWrite{ProjectID: g.p.ID, Name: "Antenna", Level: "part", Parent: "HN-MAST", Quantity: ptr(2),
		WriteInfo: twin.WriteInfo{IdempotencyKey: "call-antenna"}}
	first, err := twin.RecordHierarchyNode(bg, s, repeat)
	if err != nil {
		t.Fatal(err)
	}
	again, err := twin.RecordHierarchyNode(bg, s, repeat)
	if err != nil || again.Node.ID != first.Node.ID || again.Quantity != 2 || again.Parent != "HN-MAST@1" {
		t.Fatalf("repeat = %+v %v, want %s again", again, err, first.Node.ID)
	}
	if in, _ := s.Neighbors(bg, first.Node.ID, twin.Incoming, twin.EdgeContains); len(in) != 1 {
		t.Errorf("a repeated record made %d CONTAINS edges, want 1", len(in))
	}
	// Joints are kept as twin.JointsValue gives them.
	arm := g.position(twin.HierarchyNodeWrite{Name: "Arm", Level: "assembly", Parent: "HN-MAST", Joints: []twin.Joint{
		{Name: "pan", Type: "continuous", Base: "Mast", Follower: "Camera"}}})
	if js, err := twin.JointsOf(arm.Node); err != nil || len(js) != 1 || js[0].Name != "pan" {
		t.Errorf("joints = %+v %v", js, err)
	}
	if items, _ := s.Items(bg, g.p.ID); len(items) != 8 {
		t.Errorf("refused writes made items: %+v", items)
	}
}

func testEBOM(t *testing.T, s twin.Store) {
	g := armGraph(t, s)
	flat, err := twin.EBOM(bg, s, g.p.ID, "flat", "")
	if err != nil {
		t.Fatal(err)
	}
	// Screws: 2 forearms x 4 = 8 at $0.10 = $0.80; plate 1 x $40; servo
	// 2 x $25 = $50; tube 2 x $5 = $10; total 100.80, the roll-up's cost.
	want := []struct {
		ref      string
		qty      int
		unit, ex float64
		category string
	}{
		{"BOM-M3-SCREW@1", 8, 0.10, 0.80, "Fastener"},
		{"BOM-PLATE-STOCK@1", 1, 40, 40, ""},
		{"BOM-SERVO@1", 2, 25, 50, "actuator"},
		{"BOM-TUBE-STOCK@1", 2, 5, 10, ""},
	}
	if len(flat.Lines) != len(want) || flat.Tree != nil || flat.TotalCostUSD == nil || math.Abs(*flat.TotalCostUSD-100.8) > 1e-9 {
		t.Fatalf("flat = %+v", flat)
	}
	for i, w := range want {
		l := flat.Lines[i]
		if l.ItemRef != w.ref || l.Quantity != w.qty || l.UnitCostUSD == nil || math.Abs(*l.UnitCostUSD-w.unit) > 1e-9 ||
			math.Abs(*l.ExtendedCostUSD-w.ex) > 1e-9 || l.Category != w.category || l.Manufacturer != "Acme" || l.MPN == "" {
			t.Errorf("line %d = %+v, want %+v", i, l, w)
		}
	}
	if !reflect.DeepEqual(flat.Lines[0].Positions, []string{"HN-SCREW@1"}) {
		t.Errorf("screw positions = %v", flat.Lines[0].Positions)
	}
	h, err := twin.EBOM(bg, s, g.p.ID, "hierarchical", "")
	if err != nil || len(h.Tree) != 1 || h.Lines != nil {
		t.Fatalf("hierarchical = %+v %v", h, err)
	}
	fore := h.Tree[0].Children[1]
	if fore.Name != "Forearm" || fore.Quantity != 2 || fore.BOMItem != nil || len(fore.Children) != 2 {
		t.Fatalf("forearm = %+v", fore)
	}
	if sc := fore.Children[1]; sc.Quantity != 4 || sc.TotalQuantity != 8 || sc.BOMItem.ItemRef != "BOM-M3-SCREW@1" || sc.BOMItem.Quantity != 8 ||
		math.Abs(*sc.BOMItem.ExtendedCostUSD-0.8) > 1e-9 {
		t.Errorf("screw position = %+v %+v", sc, sc.BOMItem)
	}
	// A category keeps its items only, ignoring case, and the branches
	// that lead to them.
	fast, err := twin.EBOM(bg, s, g.p.ID, "hierarchical", "FASTENER")
	if err != nil || len(fast.Tree) != 1 || len(fast.Tree[0].Children) != 1 || len(fast.Tree[0].Children[0].Children) != 1 ||
		fast.Tree[0].Children[0].Children[0].Name != "Screw" || fast.TotalCostUSD == nil || math.Abs(*fast.TotalCostUSD-0.8) > 1e-9 {
		t.Errorf("fasteners = %+v %v", fast, err)
	}
	if none, _ := twin.EBOM(bg, s, g.p.ID, "flat", "bearing"); len(none.Lines) != 0 || !strings.Contains(none.Note, "no BOM item in the hierarchy has category bearing") {
		t.Errorf("an unknown category = %+v", none)
	}
	if _, err := twin.EBOM(bg, s, g.p.ID, "tree", ""); !refusal(err, `view "tree" is not one of flat, hierarchical`) {
		t.Errorf("bad view = %v", err)
	}
	// A BOM item without a cost: no total, the known part, the line named.
	g.bom("Grease", "G-1", nil)
	g.position(twin.HierarchyNodeWrite{Name: "Grease", Level: "part", Parent: "HN-BASE", InstanceOf: "BOM-GREASE"})
	flat, _ = twin.EBOM(bg, s, g.p.ID, "flat", "")
	if flat.TotalCostUSD != nil || flat.KnownPartialCostUSD == nil || math.Abs(*flat.KnownPartialCostUSD-100.8) > 1e-9 ||
		!reflect.DeepEqual(flat.CostNoData, []string{"BOM-GREASE@1"}) || !strings.Contains(flat.Lines[0].CostNoData, "has no unit_cost spec") {
		t.Errorf("a line without a cost = %+v", flat)
	}
}

// The product structure the hierarchy resource and G3 read: the parts
// with no hierarchy, the roll-up with one.
func testProductStructure(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Structure")
	g.requirements("Reqs", stiff(0.5))
	entity(t, s, g.p, "budget", "Mass", map[string]any{"metric": "mass", "unit": "g", "system_total": 5000.0})
	g.commit("cad_model", "Frame", map[string]any{"mass_kg": 1.25})
	g.commit("cad_model", "Lid", map[string]any{"volume_mm3": 100000.0, "material": "aluminum_6061_t6"})
	ps, err := twin.ReadProductStructure(bg, s, g.p.ID)
	// The lid: 1e5 mm3 x 2700 kg/m3 x 1e-9 = 0.27 kg; both 1.52 kg.
	if err != nil || len(ps.Roots) != 0 || len(ps.Parts) != 2 || *ps.Parts[0].MassKg != 1.25 || math.Abs(*ps.Parts[1].MassKg-0.27) > 1e-12 {
		t.Fatalf("parts = %+v %v", ps, err)
	}
	if kg, from, _ := ps.Mass(); math.Abs(kg-1.52) > 1e-12 || !strings.Contains(from, "committed parts") {
		t.Errorf("mass without a hierarchy = %g %q", kg, from)
	}
	gates, _ := twin.MaturityGates(bg, s, g.p.ID)
	if c := checkOf(t, gates[0], "budgets_held"); c.Status != twin.GatePass || !strings.Contains(c.Detail, `budget "Mass": 1520 of 5000 g`) {
		t.Errorf("G3 on the parts = %+v", c)
	}

	// With a hierarchy, its roll-up: 2 frames and a lid without a model.
	g.position(twin.HierarchyNodeWrite{Name: "Box", Level: "product"})
	g.position(twin.HierarchyNodeWrite{Name: "Frame", Level: "part", Parent: "HN-BOX", Quantity: ptr(2), RealizedBy: "CAD-FRAME"})
	g.position(twin.HierarchyNodeWrite{Name: "Lid", Level: "part", Parent: "HN-BOX"})
	ps, _ = twin.ReadProductStructure(bg, s, g.p.ID)
	if len(ps.Roots) != 1 || ps.Parts != nil || !partial(ps.Roots[0].Root.MassKg, 2.5, "HN-LID@1") {
		t.Fatalf("structure with a hierarchy = %+v", ps)
	}
	gates, _ = twin.MaturityGates(bg, s, g.p.ID)
	if c := checkOf(t, gates[0], "budgets_held"); c.Status != twin.GateNoData || !strings.Contains(c.Missing[0], "Lid (HN-LID@1): no realized_by cad_model") {
		t.Errorf("G3 with a lid of no mass = %+v", c)
	}
	if _, err := twin.RealizeHierarchyNode(bg, s, twin.RealizeWrite{ProjectID: g.p.ID, Position: "HN-LID", RealizedBy: "CAD-LID"}); err != nil {
		t.Fatal(err)
	}
	// 2 x 1.25 + 0.27 = 2.77 kg = 2770 g.
	gates, _ = twin.MaturityGates(bg, s, g.p.ID)
	if c := checkOf(t, gates[0], "budgets_held"); c.Status != twin.GatePass || !strings.Contains(c.Detail, `budget "Mass": 2770 of 5000 g (the product hierarchy's rolled-up mass of HN-BOX@1)`) {
		t.Errorf("G3 on the hierarchy = %+v", c)
	}
}
