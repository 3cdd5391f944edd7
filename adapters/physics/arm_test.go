package physics_test

import (
	"math"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/physics"
)

// exportedArm is the two-link arm as cadquery.export_urdf_assembly
// writes it from real CadQuery parts: link1, a 200 x 40 x 20 mm aluminium
// box from x = 0 to 200, and link2, 150 x 30 x 20 mm from 200 to 350, on
// revolute joint "elbow" at x = 200 about axis (+-90 deg, effort 2 N m,
// 90 deg/s; without limited, a continuous joint), each link's mesh an STL
// beside the URDF.
func exportedArm(t *testing.T, axis [3]float64, limited bool) string {
	t.Helper()
	box := func(l, w, h float64) string {
		out := call(t, cadquery.ToolCreateParametric, map[string]any{"shape_type": "box",
			"parameters": map[string]any{"length": l, "width": w, "height": h}})
		return out["cad_file"].(string)
	}
	elbow := map[string]any{"name": "elbow", "type": "revolute", "base": "link1", "follower": "link2",
		"origin": []float64{200, 0, 0}, "axis": axis[:]}
	if limited {
		elbow["limits"] = map[string]any{"lower": -90, "upper": 90, "effort": 2, "velocity": 90}
	}
	out := call(t, cadquery.ToolExportURDFAssembly, map[string]any{
		"robot_name": "arm", "material": "aluminum_6061_t6",
		"parts":  []map[string]any{{"name": "link1", "file": box(200, 40, 20), "x": 100}, {"name": "link2", "file": box(150, 30, 20), "x": 275}},
		"joints": []map[string]any{elbow},
	})
	return out["output_file"].(string)
}

// The arm with its base fixed, joint about Z (gravity along it, so no
// load turns the joint): it settles held or free, the base stays where
// the URDF puts it and the elbow does not drift.
func TestExportedArmSettles(t *testing.T) {
	urdf := exportedArm(t, [3]float64{0, 0, 1}, true)
	for _, held := range []bool{true, false} {
		out := call(t, cadquery.ToolValidatePhysicsStability, map[string]any{"urdf_file": urdf, "joints_held": held})
		if out["stable"] != true || out["at_rest"] != true || out["fixed_base"] != true || out["joints_held"] != held {
			t.Errorf("joints_held %v: the fixed arm is not stable and at rest: %v", held, out["reasons"])
		}
		if num(t, out, "tilt_deg") != 0 || num(t, out, "simulated_s") != 2 {
			t.Errorf("joints_held %v: tilt %v deg over %v s; want 0 over the default 2 s", held, out["tilt_deg"], out["simulated_s"])
		}
		for i := range 3 {
			if v := num(t, out, "final_base_pose", "xyz_m", i); v != 0 {
				t.Errorf("joints_held %v: the fixed base moved to %v", held, out["final_base_pose"])
			}
		}
		drift := at(t, out, "joint_drift", 0).(map[string]any)
		if drift["name"] != "elbow" || drift["unit"] != "deg" || drift["type"] != "revolute" || math.Abs(num(t, drift, "drift")) > 0.01 {
			t.Errorf("joints_held %v: elbow drift %v; want under 0.01 deg", held, drift)
		}
		// The ground is put just under the arm's lowest face (z = -10 mm),
		// where PyBullet's collision shapes touch it: a mesh's convex hull
		// carries PyBullet's 1 mm collision margin.
		near(t, "ground under the arm (m)", num(t, out, "ground_z_m"), -0.010-0.001, 1e-6)
		if out["penetration_within_tolerance"] != true {
			t.Errorf("joints_held %v: the arm sinks into the ground %v mm", held, out["max_penetration_mm"])
		}
	}
}

// The same arm with the elbow about Y, so link2's weight turns it (m g L/2
// = 0.18 N m, within the URDF's 2 N m effort): held, it stays up with
// hardly any drift. Free, link2 falls: with the URDF's +-90 degree limits
// it comes to rest hanging against +90 (turning about +Y takes +X toward
// -Z), which is at rest and, the base being fixed, stable, the drift
// saying what happened; as a continuous joint nothing stops or damps it
// and it is not at rest, the reasons naming link2. The ground is put 400
// mm down so the swing clears it.
func TestArmWithAHorizontalElbowHeldOrFree(t *testing.T) {
	urdf := exportedArm(t, [3]float64{0, 1, 0}, true)
	held := call(t, cadquery.ToolValidatePhysicsStability, map[string]any{"urdf_file": urdf, "ground_z_mm": -400.0})
	if held["stable"] != true {
		t.Errorf("the held arm is not stable: %v", held["reasons"])
	}
	if d := num(t, held, "joint_drift", 0, "drift"); math.Abs(d) > 0.1 {
		t.Errorf("the held elbow drifted %g deg under link2's weight", d)
	}
	free := call(t, cadquery.ToolValidatePhysicsStability, map[string]any{"urdf_file": urdf, "ground_z_mm": -400.0, "joints_held": false})
	if free["at_rest"] != true {
		t.Errorf("the free limited arm does not come to rest against its limit: %v", free["reasons"])
	}
	if d := num(t, free, "joint_drift", 0, "drift"); math.Abs(d-90) > 1 {
		t.Errorf("the free elbow drifted %g deg; want it hanging at its +90 deg limit", d)
	}

	swinging := exportedArm(t, [3]float64{0, 1, 0}, false)
	free = call(t, cadquery.ToolValidatePhysicsStability, map[string]any{"urdf_file": swinging, "ground_z_mm": -400.0, "joints_held": false})
	if free["stable"] != false || free["at_rest"] != false {
		t.Errorf("the free continuous arm is reported at rest")
	}
	if r := free["reasons"].([]any); len(r) == 0 || !strings.Contains(r[0].(string), "link2") {
		t.Errorf("the reasons do not name link2: %v", r)
	}
	if d := at(t, free, "joint_drift", 0).(map[string]any); d["type"] != "continuous" {
		t.Errorf("the elbow without limits is %v, want continuous", d["type"])
	}
}

// physics.run_simulation drives the elbow to a target with the URDF's
// effort (2 N m) and velocity limit (90 deg/s): it gets there and stops,
// never turning faster than the limit. The ground is 100 mm down so link2
// does not drag on it.
func TestArmDrivenToATarget(t *testing.T) {
	urdf := exportedArm(t, [3]float64{0, 0, 1}, true)
	out := call(t, physics.ToolRunSimulation, map[string]any{"urdf_file": urdf, "duration_s": 2.0,
		"joint_targets": map[string]any{"elbow": 45.0}, "ground_z_mm": -100.0})
	elbow := jointNamed(t, out, "elbow")
	if elbow["driven"] != true || num(t, elbow, "target") != 45 || num(t, elbow, "max_force") != 2 {
		t.Errorf("elbow: driven %v to %v with %v N m; want to 45 with the URDF's 2", elbow["driven"], elbow["target"], elbow["max_force"])
	}
	if p := num(t, elbow, "final_position"); math.Abs(p-45) > 0.5 {
		t.Errorf("the elbow ended at %g deg, want 45 +- 0.5", p)
	}
	vel := floats(t, elbow["velocity"])
	if v := vel[len(vel)-1]; math.Abs(v) > 0.5 {
		t.Errorf("the elbow still turns at %g deg/s at the end", v)
	}
	fastest := 0.0
	for _, v := range vel {
		fastest = math.Max(fastest, math.Abs(v))
	}
	if fastest > 90*1.01 || fastest < 30 {
		t.Errorf("the elbow's fastest speed is %g deg/s; want it moving, within the 90 deg/s limit", fastest)
	}
	if n := num(t, out, "sample_count"); n != 121 || num(t, out, "sample_interval_s") != 4.0/240 {
		t.Errorf("%v samples every %v s; want 121 at the default 60 Hz (every 4 steps of 1/240 s)", n, out["sample_interval_s"])
	}
	if links := out["links"].([]any); len(links) != 2 || links[0] != "link1" || links[1] != "link2" {
		t.Errorf("links %v", links)
	}
}
