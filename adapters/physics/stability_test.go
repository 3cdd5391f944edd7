package physics_test

import (
	"math"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/physics"
)

const steel = 7850.0 // kg/m^3

// A heavy steel block (100 mm cube) on a thin aluminium stem (20 x 20 x
// 300 mm), the whole body leaning 3 degrees about Y as it stands: its
// centre of mass is then further out than the stem's bottom edge it rests
// on (both derived here), so it must fall over, and the check must say
// it is not stable because it tipped. A squat aluminium slab (200 x 200 x
// 50 mm) on the same ground stays put and is stable.
func TestTopHeavyBodyTipsOverAndASquatOneStands(t *testing.T) {
	lean := 3 * math.Pi / 180
	lollipop := link{name: "body", rpy: [3]float64{0, lean, 0}, boxes: []box{
		{size: [3]float64{0.02, 0.02, 0.3}, at: [3]float64{0, 0, 0.15}, density: aluminium},
		{size: [3]float64{0.1, 0.1, 0.1}, at: [3]float64{0, 0, 0.35}, density: steel},
	}}
	// Leaning toward +X, it rests on the stem's bottom edge at x = +10 mm
	// (turned); its centre of mass must lie beyond it.
	com := rotate(lollipop.rpy, lollipop.com())
	edge := rotate(lollipop.rpy, [3]float64{0.01, 0, 0})
	if com[0] <= edge[0] {
		t.Fatalf("the test body is not out of balance: centre of mass at x = %g m, edge at %g m", com[0], edge[0])
	}
	tall := writeFile(t, "stability/lollipop.urdf", robotXML("lollipop", []link{lollipop}, nil))
	out := call(t, cadquery.ToolValidatePhysicsStability, map[string]any{"urdf_file": tall, "fixed_base": false, "settle_time_s": 3.0})
	if out["stable"] != false {
		t.Errorf("the top-heavy body is reported stable: %v", out)
	}
	if tilt := num(t, out, "tilt_deg"); tilt < 45 {
		t.Errorf("the top-heavy body tipped only %g deg; it should have fallen over", tilt)
	}
	reasons, _ := out["reasons"].([]any)
	if len(reasons) == 0 || !strings.Contains(reasons[len(reasons)-1].(string), "tipped") {
		t.Errorf("the reasons do not say it tipped: %v", reasons)
	}
	if out["fixed_base"] != false || out["joints_held"] != true || num(t, out, "simulated_s") != 3 {
		t.Errorf("settings echoed wrong: fixed_base %v, joints_held %v, simulated_s %v", out["fixed_base"], out["joints_held"], out["simulated_s"])
	}

	slab := link{name: "slab", boxes: []box{{size: [3]float64{0.2, 0.2, 0.05}, density: aluminium}}}
	squat := writeFile(t, "stability/slab.urdf", robotXML("slab", []link{slab}, nil))
	out = call(t, cadquery.ToolValidatePhysicsStability, map[string]any{"urdf_file": squat, "fixed_base": false})
	if out["stable"] != true || out["at_rest"] != true || len(out["reasons"].([]any)) != 0 {
		t.Errorf("the squat slab is not reported stable and at rest: %v", out["reasons"])
	}
	if tilt := num(t, out, "tilt_deg"); tilt > 0.1 {
		t.Errorf("the squat slab tipped %g deg", tilt)
	}
	// The ground was put under its lowest face, half its height below its
	// centre, and it stayed there.
	near(t, "ground height under the slab (m)", num(t, out, "ground_z_m"), -0.025, 1e-6)
	if z := num(t, out, "final_base_pose", "xyz_m", 2); math.Abs(z) > 1e-4 {
		t.Errorf("the slab moved %g m vertically while standing", z)
	}
	if num(t, out, "max_linear_speed_mm_s") > 5 || out["penetration_within_tolerance"] != true {
		t.Errorf("the slab is still moving (%v mm/s) or sunk into the ground (%v mm)", out["max_linear_speed_mm_s"], out["max_penetration_mm"])
	}
	// Resting, the ground carries its weight.
	contacts := out["contacts"].([]any)
	if len(contacts) != 1 || at(t, contacts, 0, "link_b") != "ground" {
		t.Fatalf("want one contact, slab on ground: %v", contacts)
	}
	near(t, "ground's normal force on the resting slab (N)", num(t, contacts, 0, "normal_force_n"), slab.mass()*9.81, 0.005)
}

// run_simulation samples contacts as it goes: a slab dropped from 20 mm
// above the ground lands, and from then on the ground's normal force on it
// is its weight.
func TestADroppedSlabRestsOnTheGroundWithItsWeight(t *testing.T) {
	slab := link{name: "slab", boxes: []box{{size: [3]float64{0.2, 0.2, 0.05}, density: aluminium}}}
	urdf := writeFile(t, "contacts/slab.urdf", robotXML("slab", []link{slab}, nil))
	out := call(t, physics.ToolRunSimulation, map[string]any{"urdf_file": urdf, "fixed_base": false, "duration_s": 1.0,
		"ground_z_mm": -45.0, "sample_rate_hz": 10.0})
	samples := out["contacts"].([]any)
	if len(samples) != 11 {
		t.Fatalf("want 11 contact samples (1 s at 10 Hz), got %d", len(samples))
	}
	if pairs := at(t, samples, 0, "pairs").([]any); len(pairs) != 0 {
		t.Errorf("the slab touches something before it falls: %v", pairs)
	}
	// Free fall of 20 mm takes sqrt(2 h / g) = 64 ms; by 0.5 s it has landed.
	last := at(t, samples, 10, "pairs").([]any)
	if len(last) != 1 || at(t, last, 0, "link_a") != "slab" || at(t, last, 0, "link_b") != "ground" {
		t.Fatalf("want the slab on the ground at the end: %v", last)
	}
	near(t, "normal force at the end (N)", num(t, last, 0, "normal_force_n"), slab.mass()*9.81, 0.005)
	near(t, "final height of the slab's frame (m)", num(t, out, "final_base_pose", "xyz_m", 2), -0.045+0.025, 0.005)
	if len(out["joints"].([]any)) != 0 {
		t.Errorf("a single link has no joints: %v", out["joints"])
	}
}

// With self_collision, links that overlap are found and measured: a
// three-link chain folded back on itself (both joints at 180 degrees)
// lays link c exactly over link a, two 200 x 40 x 20 mm boxes, so they
// overlap by the full 20 mm of their thickness; without it, PyBullet does
// not collide a robot's links and nothing is reported.
func TestSelfCollisionFindsOverlappingLinks(t *testing.T) {
	bar := box{size: [3]float64{0.2, 0.04, 0.02}, at: [3]float64{0.1, 0, 0}, density: aluminium}
	urdf := writeFile(t, "self/fold.urdf", robotXML("fold",
		[]link{{name: "a", boxes: []box{bar}}, {name: "b", boxes: []box{bar}}, {name: "c", boxes: []box{bar}}},
		[]joint{
			{name: "j1", kind: "continuous", parent: "a", child: "b", origin: [3]float64{0.2, 0, 0}, axis: [3]float64{0, 0, 1}},
			{name: "j2", kind: "continuous", parent: "b", child: "c", origin: [3]float64{0.2, 0, 0}, axis: [3]float64{0, 0, 1}},
		}))
	folded := map[string]any{"j1": 180.0, "j2": 180.0}
	out := call(t, cadquery.ToolValidatePhysicsStability, map[string]any{"urdf_file": urdf, "initial_positions": folded,
		"self_collision": true, "ground": false, "settle_time_s": 0.1})
	pens := out["penetrations"].([]any)
	if len(pens) != 1 || at(t, pens, 0, "link_a") != "a" || at(t, pens, 0, "link_b") != "c" {
		t.Fatalf("want links a and c overlapping: %v", pens)
	}
	near(t, "overlap of a and c (mm)", num(t, out, "max_penetration_mm"), 20, 0.005)
	if out["penetration_within_tolerance"] != false || out["ground_z_m"] != nil {
		t.Errorf("a 20 mm overlap is within the 1 mm tolerance, or a ground was loaded: %v, %v", out["penetration_within_tolerance"], out["ground_z_m"])
	}
	out = call(t, cadquery.ToolValidatePhysicsStability, map[string]any{"urdf_file": urdf, "initial_positions": folded,
		"ground": false, "settle_time_s": 0.1})
	if len(out["penetrations"].([]any)) != 0 || out["penetration_within_tolerance"] != true {
		t.Errorf("without self_collision, penetrations %v", out["penetrations"])
	}
}
