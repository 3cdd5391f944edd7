package twin_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

func anchor(x, y, z float64) []float64 { return []float64{x, y, z} }

func wires(n int) *int { return &n }

// armJoints is a five-joint arm, listed out of build order. The anchors
// are in each base's frame: turret 100 mm up, shoulder 50, elbow 300, the
// wrist 250 along the forearm, and a fixed camera mount 3-4-5 off the
// forearm (50 mm) with a 6-wire cable.
func armJoints() []twin.Joint {
	return []twin.Joint{
		{Name: "wrist", Type: "revolute", Base: "forearm", Follower: "gripper", AnchorMM: anchor(250, 0, 0), LowerLimit: limit(-90), UpperLimit: limit(90)},
		{Name: "camera_mount", Type: "fixed", Base: "forearm", Follower: "camera", AnchorMM: anchor(30, 40, 0), Conductors: wires(6)},
		{Name: "elbow", Type: "revolute", Base: "upper_arm", Follower: "forearm", AnchorMM: anchor(0, 0, 300), LowerLimit: limit(-135), UpperLimit: limit(135)},
		{Name: "turret", Type: "continuous", Base: "base", Follower: "turret", AnchorMM: anchor(0, 0, 100)},
		{Name: "shoulder", Type: "revolute", Base: "turret", Follower: "upper_arm", AnchorMM: anchor(0, 0, 50), LowerLimit: limit(-10), UpperLimit: limit(100.5)},
	}
}

func TestBuildOrderAttachesEachPartAfterItsBase(t *testing.T) {
	steps, err := twin.BuildOrder(armJoints())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range steps {
		got = append(got, st.Text())
	}
	want := []string{
		"Step 1: attach turret to base via turret (continuous joint)",
		"Step 2: attach upper_arm to turret via shoulder (revolute joint)",
		"Step 3: attach forearm to upper_arm via elbow (revolute joint)",
		"Step 4: attach gripper to forearm via wrist (revolute joint)",
		"Step 5: attach camera to forearm via camera_mount (fixed joint)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("build order:\n got %q\nwant %q", got, want)
	}
	if c := steps[4].Chain; !reflect.DeepEqual(c, []string{"turret", "shoulder", "elbow", "camera_mount"}) {
		t.Errorf("camera chain = %v", c)
	}

	// Two roots (parallel subassemblies) are fine, each built from its own.
	two, err := twin.BuildOrder([]twin.Joint{
		{Name: "b", Type: "fixed", Base: "frame_b", Follower: "leg_b"},
		{Name: "a", Type: "fixed", Base: "frame_a", Follower: "leg_a"},
	})
	if err != nil || len(two) != 2 || two[0].Joint.Name != "b" {
		t.Fatalf("two roots = %+v %v", two, err)
	}
}

func TestBuildOrderRefusesACycleNamingIt(t *testing.T) {
	joints := []twin.Joint{
		{Name: "mount", Type: "fixed", Base: "base", Follower: "hub"},
		{Name: "j1", Type: "revolute", Base: "link_a", Follower: "link_b"},
		{Name: "j2", Type: "revolute", Base: "link_b", Follower: "link_c"},
		{Name: "j3", Type: "revolute", Base: "link_c", Follower: "link_a"},
	}
	_, err := twin.BuildOrder(joints)
	if !refusal(err, "the joint graph has a cycle: link_a -> link_b -> link_c -> link_a (joints j1, j2, j3)") {
		t.Fatalf("cycle = %v", err)
	}
	if _, err := twin.BuildOrder([]twin.Joint{{Name: "x", Type: "hinge", Base: "a", Follower: "b"}}); !refusal(err, `type "hinge" is not one of`) {
		t.Errorf("bad type = %v", err)
	}
	if _, err := twin.BuildOrder([]twin.Joint{{Name: "x", Type: "fixed", Base: "a", Follower: "b", AnchorMM: []float64{1, 2}}}); !refusal(err, "anchor_mm has 2 numbers") {
		t.Errorf("short anchor = %v", err)
	}
}

// armAssembly records an arm assembly position with its joints, and the
// six positions it contains.
func armAssembly(g graph, joints []twin.Joint) twin.Node {
	g.t.Helper()
	asm, err := twin.RecordHierarchyNode(bg, g.s, twin.HierarchyNodeWrite{ProjectID: g.p.ID, Name: "Arm", Level: "assembly", Joints: joints})
	if err != nil {
		g.t.Fatal(err)
	}
	for _, part := range []string{"base", "turret", "upper_arm", "forearm", "gripper", "camera"} {
		if _, err := twin.RecordHierarchyNode(bg, g.s, twin.HierarchyNodeWrite{ProjectID: g.p.ID, Name: part, Level: "part", Parent: asm.Node.ID}); err != nil {
			g.t.Fatal(err)
		}
	}
	return asm.Node
}

func testBringupChecklist(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Bring-up")
	asm := armAssembly(g, armJoints())
	cl, err := twin.CreateBringupChecklist(bg, s, g.p.ID, asm.Ref(), "call-1")
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := cl.Node.Properties["steps"].([]any)
	if len(steps) != 5 || steps[0] != "Step 1: attach turret to base via turret (continuous joint)" || cl.Node.Properties["assembly"] != asm.Ref() {
		t.Fatalf("checklist = %+v", cl.Node.Properties)
	}
	deps, err := s.Neighbors(bg, cl.Node.ID, twin.Outgoing, twin.EdgeDependsOn)
	if err != nil || len(deps) != 1 || deps[0].Node.ID != asm.ID {
		t.Fatalf("checklist pinned to %+v %v", deps, err)
	}
	again, err := twin.CreateBringupChecklist(bg, s, g.p.ID, asm.Ref(), "call-1")
	if err != nil || again.Node.ID != cl.Node.ID {
		t.Fatalf("a repeated call made %v (%v), not %s", again.Node.ID, err, cl.Node.ID)
	}

	// A cycle, a part the assembly does not contain, an assembly with no
	// joints: each refused, and no checklist written.
	cyclic := append(armJoints(), twin.Joint{Name: "loop", Type: "revolute", Base: "gripper", Follower: "turret"})
	cyc := armAssembly(newGraph(t, s, "Cyclic"), cyclic)
	if _, err := twin.CreateBringupChecklist(bg, s, cyc.ProjectID, cyc.ID, "call-2"); !refusal(err, "the joint graph has a cycle: forearm -> gripper -> turret -> upper_arm -> forearm (joints wrist, loop, shoulder, elbow)") {
		t.Errorf("cyclic = %v", err)
	}
	stray := append(armJoints(), twin.Joint{Name: "tail", Type: "fixed", Base: "base", Follower: "tail"})
	st := armAssembly(newGraph(t, s, "Stray"), stray)
	if _, err := twin.CreateBringupChecklist(bg, s, st.ProjectID, st.ID, "call-3"); !refusal(err, `joint "tail" names "tail", which Arm does not contain; its positions are base, camera, forearm, gripper, turret, upper_arm`) {
		t.Errorf("stray part = %v", err)
	}
	plain := g.commit("cad_model", "Bracket", nil)
	if _, err := twin.CreateBringupChecklist(bg, s, g.p.ID, plain.ID, "call-4"); !refusal(err, "records no joints") {
		t.Errorf("no joints = %v", err)
	}
	for _, pid := range []string{g.p.ID, cyc.ProjectID, st.ProjectID} {
		lists, err := s.NodesByType(bg, pid, twin.BringupChecklistNodeType)
		if err != nil || (pid == g.p.ID) != (len(lists) == 1) || len(lists) > 1 {
			t.Errorf("project %s has checklists %d (%v)", pid, len(lists), err)
		}
	}
}

func testFirmwareScaffold(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Firmware")
	asm := armAssembly(g, armJoints())
	mapping, _ := json.Marshal(map[string]any{"reference": "J1", "pins": []map[string]any{
		{"pin": "1", "pin_name": "VIN", "net": "+24V"}, {"pin": "2", "net": "GND"},
		{"pin": "3", "pin_name": "CANH", "net": "CAN_H"}, {"pin": "4", "pin_name": "CANL", "net": "CAN_L"}, {"pin": "5", "net": "GND"}}})
	pm, err := twin.RecordDocument(bg, s, twin.DocumentWrite{Project: g.p, DocumentType: "spec", Title: "J1 pins", Text: string(mapping)})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := twin.CreateFirmwareScaffold(bg, s, twin.ScaffoldWrite{ProjectID: g.p.ID, AssemblyRef: asm.Ref(), PinMappingRef: pm.Item.Key, IdempotencyKey: "call-1"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range sc.Nodes {
		ids = append(ids, n.Joint.Name+"="+string(rune('0'+n.CANID)))
	}
	if !reflect.DeepEqual(ids, []string{"turret=1", "shoulder=2", "elbow=3", "wrist=4"}) || !reflect.DeepEqual(sc.Fixed, []string{"camera_mount"}) {
		t.Fatalf("CAN ids %v, fixed %v", ids, sc.Fixed)
	}
	wantCSV := "reference,pin,pin_name,net\nJ1,1,VIN,+24V\nJ1,2,,GND\nJ1,3,CANH,CAN_H\nJ1,4,CANL,CAN_L\nJ1,5,,GND\n"
	if sc.CSV != wantCSV || sc.PinMap.Properties["text"] != wantCSV || sc.PinMap.Properties["document_type"] != "pinmap" {
		t.Fatalf("pin map CSV = %q", sc.CSV)
	}
	for _, line := range []string{
		"#ifndef METAFORGE_ARM_FIRMWARE_H", "#define PIN_24V 1", "#define PIN_GND 2", "#define PIN_GND_2 5", "#define PIN_CAN_H 3",
		"#define JOINT_COUNT 4", `{"turret", 1, 0, 0.0f, 0.0f},`, `{"shoulder", 2, 1, -10.0f, 100.5f},`,
		`{"wrist", 4, 1, -90.0f, 90.0f},`, "#endif /* METAFORGE_ARM_FIRMWARE_H */",
	} {
		if !strings.Contains(sc.Header, line+"\n") {
			t.Errorf("header lacks %q:\n%s", line, sc.Header)
		}
	}
	if sc.HeaderDocument.Properties["document_type"] != "firmware_source" || sc.HeaderDocument.Revision != 1 {
		t.Errorf("header document = %+v", sc.HeaderDocument)
	}
	// Derived the same way from the same twin: the same bytes; a second
	// call is the next revision of both documents.
	next, err := twin.CreateFirmwareScaffold(bg, s, twin.ScaffoldWrite{ProjectID: g.p.ID, AssemblyRef: asm.ID, PinMappingRef: pm.Node.ID, IdempotencyKey: "call-2"})
	if err != nil || next.Header != sc.Header || next.PinMap.Revision != 2 || next.HeaderDocument.Revision != 2 {
		t.Fatalf("second scaffold = rev %d/%d %v", next.PinMap.Revision, next.HeaderDocument.Revision, err)
	}
	deps, _ := s.Neighbors(bg, next.HeaderDocument.ID, twin.Outgoing, twin.EdgeDependsOn)
	if len(deps) != 2 {
		t.Errorf("header depends on %d nodes, want the assembly and the pin mapping", len(deps))
	}

	// Not a pin mapping: refused, and nothing written.
	note, _ := twin.RecordDocument(bg, s, twin.DocumentWrite{Project: g.p, DocumentType: "note", Title: "Thoughts", Text: "no pins here"})
	if _, err := twin.CreateFirmwareScaffold(bg, s, twin.ScaffoldWrite{ProjectID: g.p.ID, AssemblyRef: asm.ID, PinMappingRef: note.Node.ID, IdempotencyKey: "call-3"}); !refusal(err, "does not record a pin mapping") {
		t.Errorf("a note as pin mapping = %v", err)
	}
	if revs, _ := s.Revisions(bg, g.p.ID, sc.HeaderDocument.ItemKey); len(revs) != 2 {
		t.Errorf("header revisions after a refusal = %d, want 2", len(revs))
	}
}

func testHarnessEstimate(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Harness")
	h, err := twin.HarnessEstimate(bg, s, g.p.ID, armAssembly(g, armJoints()).ID)
	if err != nil {
		t.Fatal(err)
	}
	// By hand, along each chain from the base: turret 100, shoulder
	// 100+50, elbow 150+300, wrist 450+250, camera 450+sqrt(30^2+40^2).
	want := map[string]float64{"turret": 100, "shoulder": 150, "elbow": 450, "wrist": 700, "camera_mount": 500}
	for _, e := range h.Entries {
		if e.LengthMM == nil || math.Abs(*e.LengthMM-want[e.Joint.Name]) > 1e-9 {
			t.Errorf("%s cable = %v mm, want %g", e.Joint.Name, e.LengthMM, want[e.Joint.Name])
		}
	}
	// Wire: 4 conductors to each of four actuators, 6 to the camera:
	// 4*(100+150+450+700) + 6*500 = 8600 mm.
	if h.ConductorMM == nil || math.Abs(*h.ConductorMM-8600) > 1e-9 || len(h.Unknown) != 0 {
		t.Fatalf("conductor length = %v, unknown %v", h.ConductorMM, h.Unknown)
	}

	// The elbow's anchor unknown: its cable and every cable beyond it are
	// unknown and named, never counted as zero.
	joints := armJoints()
	joints[2].AnchorMM = nil
	g2 := newGraph(t, s, "Harness unknown")
	h, err = twin.HarnessEstimate(bg, s, g2.p.ID, armAssembly(g2, joints).ID)
	if err != nil {
		t.Fatal(err)
	}
	if h.ConductorMM != nil || !reflect.DeepEqual(h.Unknown, []string{"elbow", "wrist", "camera_mount"}) ||
		h.KnownConductorMM == nil || *h.KnownConductorMM != 4*100+4*150 || h.Entries[2].UnknownBecause != "joint elbow has no anchor_mm" {
		t.Fatalf("unknown anchor: total %v, known %v, unknown %v", h.ConductorMM, h.KnownConductorMM, h.Unknown)
	}
	if h.PowerTree == nil || h.PowerTree.Name != "Arm" || h.PowerTree.Power.PeakW.Known() || len(h.PowerTree.Power.PeakW.NoData) != 6 {
		t.Fatalf("power tree of an arm with no draws recorded = %+v", h.PowerTree)
	}

	// In a product with draws recorded: the power tree is the product's,
	// each branch summed by hand.
	g3 := newGraph(t, s, "Harness power")
	pos := func(name, level, parent string, joints []twin.Joint, peak, avg, diss float64) twin.Node {
		t.Helper()
		w := twin.HierarchyNodeWrite{ProjectID: g3.p.ID, Name: name, Level: level, Parent: parent, Joints: joints}
		if level == "part" {
			w.Power = &twin.Power{PeakW: &peak, AverageW: &avg, DissipationW: &diss}
		}
		p, err := twin.RecordHierarchyNode(bg, s, w)
		if err != nil {
			t.Fatal(err)
		}
		return p.Node
	}
	robot := pos("Robot", "product", "", nil, 0, 0, 0)
	arm := pos("Arm", "assembly", robot.ID, armJoints(), 0, 0, 0)
	pos("controller", "part", robot.ID, nil, 12, 6, 6)
	for _, p := range []struct {
		name            string
		peak, avg, diss float64
	}{{"base", 0, 0, 0}, {"turret", 40, 10, 4}, {"upper_arm", 40, 10, 4}, {"forearm", 30, 8, 3}, {"gripper", 10, 2, 1}, {"camera", 2.5, 2.5, 2.5}} {
		pos(p.name, "part", arm.ID, nil, p.peak, p.avg, p.diss)
	}
	h, err = twin.HarnessEstimate(bg, s, g3.p.ID, arm.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The arm: 40+40+30+10+2.5 = 122.5 W peak, 10+10+8+2+2.5 = 32.5 W
	// average, 4+4+3+1+2.5 = 14.5 W dissipated; the robot adds the
	// controller's 12, 6 and 6.
	tree := h.PowerTree
	if tree == nil || tree.Name != "Robot" || len(tree.Children) != 2 {
		t.Fatalf("power tree = %+v", tree)
	}
	got := func(f twin.Figure) float64 {
		if f.Value == nil {
			t.Fatalf("figure unknown: %+v", f)
		}
		return *f.Value
	}
	armBranch := tree.Children[0]
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"robot peak", got(tree.Power.PeakW), 134.5}, {"robot average", got(tree.Power.AverageW), 38.5},
		{"robot dissipation", got(tree.Power.DissipationW), 20.5},
		{"arm peak", got(armBranch.Power.PeakW), 122.5}, {"arm average", got(armBranch.Power.AverageW), 32.5},
		{"arm dissipation", got(armBranch.Power.DissipationW), 14.5},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %g W, want %g", c.what, c.got, c.want)
		}
	}
}
