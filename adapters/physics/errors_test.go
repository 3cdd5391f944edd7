package physics_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/physics"
	"github.com/metaforge/metaforge/protocol"
)

// pendulumURDF is a small robot for the refusals: a support, a limited
// revolute "hinge" (+-1 rad = +-57.3 deg) and a fixed "tag".
func pendulumURDF(t *testing.T) string {
	t.Helper()
	bar := box{size: [3]float64{0.02, 0.02, 0.2}, at: [3]float64{0, 0, -0.1}, density: aluminium}
	small := box{size: [3]float64{0.02, 0.02, 0.02}, density: aluminium}
	return writeFile(t, "refusals/hinge.urdf", robotXML("hinge",
		[]link{{name: "support", boxes: []box{small}}, {name: "bar", boxes: []box{bar}}, {name: "marker", boxes: []box{small}}},
		[]joint{
			{name: "hinge", kind: "revolute", parent: "support", child: "bar", origin: [3]float64{0, 0, 0.5}, axis: [3]float64{0, 1, 0},
				limit: &[4]float64{-1, 1, 5, 2}},
			{name: "tag", kind: "fixed", parent: "bar", child: "marker", origin: [3]float64{0, 0, -0.2}},
		}))
}

// A file that is not a URDF is refused before PyBullet runs, saying what
// to give instead.
func TestNotAURDFIsRefused(t *testing.T) {
	cases := []struct {
		name, body string
		says       []string
	}{
		{"part.step", "ISO-10303-21;\nEND-ISO-10303-21;\n", []string{"is not a URDF file", ".urdf"}},
		{"model.urdf", `<?xml version="1.0"?><sdf version="1.7"><model name="m"/></sdf>`, []string{"not a URDF", "<robot>"}},
		{"notes.urdf", "a robot, roughly", []string{"not a URDF", "does not parse as XML"}},
		{"empty.urdf", `<robot name="nothing"></robot>`, []string{"no <link>"}},
		{"arm.urdf.xacro", `<robot name="a" xmlns:xacro="http://www.ros.org/wiki/xacro"/>`, []string{"xacro", "expand it"}},
	}
	for _, c := range cases {
		file := writeFile(t, filepath.Join("not-urdf", c.name), c.body)
		got := refused(t, protocol.InvalidParams, physics.ToolRunSimulation, map[string]any{"urdf_file": file, "duration_s": 1.0})
		mustContain(t, c.name, got, append(c.says, "urdf_file")...)
		got = refused(t, protocol.InvalidParams, cadquery.ToolValidatePhysicsStability, map[string]any{"urdf_file": file})
		mustContain(t, c.name+" (stability)", got, c.says...)
	}
	missing := refused(t, protocol.InvalidParams, physics.ToolRunSimulation, map[string]any{"urdf_file": "nowhere/robot.urdf", "duration_s": 1.0})
	mustContain(t, "a missing URDF", missing, "does not exist")
}

// Joints are named as the URDF names them, set in their own units and
// within their limits.
func TestJointNamesAndValuesAreChecked(t *testing.T) {
	urdf := pendulumURDF(t)
	run := func(extra map[string]any) string {
		args := map[string]any{"urdf_file": urdf, "duration_s": 0.5}
		for k, v := range extra {
			args[k] = v
		}
		return refused(t, protocol.InvalidParams, physics.ToolRunSimulation, args)
	}
	mustContain(t, "an unknown joint target", run(map[string]any{"joint_targets": map[string]any{"knee": 10.0}}),
		`joint_targets names joint "knee"`, `robot "hinge" does not have`, "movable joints are hinge")
	mustContain(t, "a fixed joint target", run(map[string]any{"joint_targets": map[string]any{"tag": 1.0}}),
		`"tag"`, "fixed joint", "no position to set")
	mustContain(t, "a target past the limit", run(map[string]any{"joint_targets": map[string]any{"hinge": 60.0}}),
		"joint_targets.hinge is 60 deg", "outside the joint's limits [-57.2958, 57.2958] deg")
	mustContain(t, "an unknown initial position", run(map[string]any{"initial_positions": map[string]any{"elbow": 1.0}}),
		`initial_positions names joint "elbow"`)
	got := refused(t, protocol.InvalidParams, cadquery.ToolValidatePhysicsStability,
		map[string]any{"urdf_file": urdf, "initial_positions": map[string]any{"hinge": -90.0}})
	mustContain(t, "a stability start past the limit", got, "initial_positions.hinge is -90 deg", "outside the joint's limits")
	// Within the limits, the same robot runs.
	out := call(t, physics.ToolRunSimulation, map[string]any{"urdf_file": urdf, "duration_s": 0.5,
		"joint_targets": map[string]any{"hinge": 30.0}, "initial_positions": map[string]any{"hinge": 20.0}})
	if hinge := jointNamed(t, out, "hinge"); hinge["driven"] != true || num(t, hinge, "position", 0) != 20 || num(t, hinge, "max_force") != 5 {
		t.Errorf("hinge: %v", hinge)
	}
}

// A run is bounded: the schema caps what it can, and the adapter itself
// refuses the rest (and the same caps when called without the registry),
// each saying what to change.
func TestRunsAreBounded(t *testing.T) {
	urdf := pendulumURDF(t)
	got := refused(t, protocol.InvalidParams, physics.ToolRunSimulation, map[string]any{"urdf_file": urdf, "duration_s": 61.0})
	mustContain(t, "duration over the cap (schema)", got, "duration_s")
	got = refused(t, protocol.InvalidParams, cadquery.ToolValidatePhysicsStability, map[string]any{"urdf_file": urdf, "settle_time_s": 600.0})
	mustContain(t, "settle time over the cap (schema)", got, "settle_time_s")

	direct := func(tool string, args map[string]any) string {
		t.Helper()
		ws := setup(t)
		raw, _ := json.Marshal(args)
		var err error
		if tool == physics.ToolRunSimulation {
			_, err = physics.New(ws, physics.Options{}).Call(ctx(t), tool, raw)
		} else {
			_, err = physics.New(ws, physics.Options{}).ValidateStability(ctx(t), raw)
		}
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams {
			t.Fatalf("%v: want INVALID_PARAMS, got %v", args, err)
		}
		return pe.Details
	}
	mustContain(t, "duration over the cap (adapter)", direct(physics.ToolRunSimulation, map[string]any{"urdf_file": urdf, "duration_s": 61.0}),
		"duration_s is 61 s", "more than the 60 s one call may simulate")
	mustContain(t, "settle time over the cap (adapter)", direct("stability", map[string]any{"urdf_file": urdf, "settle_time_s": 600.0}),
		"settle_time_s is 600 s", "more than the 60 s")
	mustContain(t, "too many steps", refused(t, protocol.InvalidParams, physics.ToolRunSimulation,
		map[string]any{"urdf_file": urdf, "duration_s": 30.0, "time_step_s": 1e-4}),
		"300000 steps", "more than the 200000", "longer time step")
	mustContain(t, "too many samples", refused(t, protocol.InvalidParams, physics.ToolRunSimulation,
		map[string]any{"urdf_file": urdf, "duration_s": 60.0, "sample_rate_hz": 240.0}),
		"14401 samples", "more than the 5000", "sample more slowly")
	mustContain(t, "sampling faster than stepping", refused(t, protocol.InvalidParams, physics.ToolRunSimulation,
		map[string]any{"urdf_file": urdf, "duration_s": 1.0, "sample_rate_hz": 1000.0}),
		"sample_rate_hz 1000 is faster than the simulation's own rate", "240 Hz")
	// A 50-joint chain sampled 4801 times is 240050 trajectory points.
	small := box{size: [3]float64{0.01, 0.01, 0.01}, density: aluminium}
	links := []link{{name: "l0", boxes: []box{small}}}
	var joints []joint
	for i := 1; i <= 50; i++ {
		links = append(links, link{name: fmt.Sprintf("l%d", i), boxes: []box{small}})
		joints = append(joints, joint{name: fmt.Sprintf("j%d", i), kind: "continuous", parent: fmt.Sprintf("l%d", i-1),
			child: fmt.Sprintf("l%d", i), origin: [3]float64{0.01, 0, 0}, axis: [3]float64{0, 0, 1}})
	}
	chain := writeFile(t, "refusals/chain.urdf", robotXML("chain", links, joints))
	mustContain(t, "too many joint samples", refused(t, protocol.InvalidParams, physics.ToolRunSimulation,
		map[string]any{"urdf_file": chain, "duration_s": 60.0, "sample_rate_hz": 80.0}),
		"4801 samples of 50 movable joints is 240050 trajectory points, more than the 200000")
	mustContain(t, "a ground height with no ground", refused(t, protocol.InvalidParams, physics.ToolRunSimulation,
		map[string]any{"urdf_file": urdf, "duration_s": 1.0, "ground": false, "ground_z_mm": 0.0}),
		"ground_z_mm", "ground is false")
	mustContain(t, "gravity of two numbers", refused(t, protocol.InvalidParams, physics.ToolRunSimulation,
		map[string]any{"urdf_file": urdf, "duration_s": 1.0, "gravity": []float64{0, -9.81}}),
		"gravity")
}

// Meshes are found relative to the URDF, inside the workspace; one that is
// missing, or a ROS package:// address, is refused naming its link.
func TestMeshesAreFoundBesideTheURDF(t *testing.T) {
	body := func(mesh string) string {
		return `<robot name="meshy"><link name="shell"><inertial><mass value="1"/>` +
			`<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>` +
			`<collision><geometry><mesh filename="` + mesh + `"/></geometry></collision></link></robot>`
	}
	missing := writeFile(t, "meshy/missing.urdf", body("meshes/shell.stl"))
	mustContain(t, "a missing mesh", refused(t, protocol.InvalidParams, physics.ToolRunSimulation, map[string]any{"urdf_file": missing, "duration_s": 1.0}),
		`the mesh of link "shell" in missing.urdf`, "does not exist")
	ros := writeFile(t, "meshy/ros.urdf", body("package://meshy/meshes/shell.stl"))
	mustContain(t, "a package:// mesh", refused(t, protocol.InvalidParams, physics.ToolRunSimulation, map[string]any{"urdf_file": ros, "duration_s": 1.0}),
		"ROS package address", "relative to the URDF's folder")
	outside := writeFile(t, "meshy/outside.urdf", body("/etc/passwd.stl"))
	got := refused(t, protocol.InvalidParams, physics.ToolRunSimulation, map[string]any{"urdf_file": outside, "duration_s": 1.0})
	mustContain(t, "a mesh outside the workspace", got, `the mesh of link "shell"`)
}

// A URDF that parses but that PyBullet cannot build (a joint whose parent
// link does not exist) fails as the tool's execution, with what PyBullet
// said.
func TestAURDFPyBulletRefusesSaysWhy(t *testing.T) {
	file := writeFile(t, "broken/orphan.urdf", `<robot name="orphan">
  <link name="a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="revolute"><parent link="nowhere"/><child link="b"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>`)
	got := refused(t, protocol.ToolExecutionError, physics.ToolRunSimulation, map[string]any{"urdf_file": file, "duration_s": 1.0, "ground": false})
	mustContain(t, "an orphan joint", got, "PyBullet cannot load", "orphan.urdf", "Cannot find parent link for a joint j", "check_urdf")
	t.Log(got)
}

// Without PyBullet the tools and the health check say how to install it;
// without the Python, which Python was looked for.
func TestWithoutPyBulletTheToolIsUnavailable(t *testing.T) {
	ws := setup(t)
	urdf := pendulumURDF(t)
	// A real Python that ignores its site-packages (-S), where PyBullet is.
	bare := filepath.Join(t.TempDir(), "python-without-site")
	if err := os.WriteFile(bare, []byte("#!/bin/sh\nexec python3 -S \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, py := range []string{bare, "/nonexistent/python3"} {
		a := physics.New(ws, physics.Options{Python: py})
		raw, _ := json.Marshal(map[string]any{"urdf_file": urdf, "duration_s": 1.0})
		_, err := a.Call(ctx(t), physics.ToolRunSimulation, raw)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.ToolUnavailable || pe.ToolID != physics.ToolRunSimulation {
			t.Fatalf("%s: want TOOL_UNAVAILABLE naming the tool, got %v", py, err)
		}
		mustContain(t, py, pe.Details, "pip install pybullet==3.2.7", physics.EnvPython)
		if _, err := a.Health(ctx(t)); !errors.As(err, &pe) || pe.Code != protocol.ToolUnavailable {
			t.Errorf("%s: health says %v, want TOOL_UNAVAILABLE", py, err)
		}
	}
	st, err := physics.New(ws, physics.Options{}).Health(ctx(t))
	if err != nil || st.Status != "healthy" {
		t.Fatalf("with PyBullet: health %+v, %v", st, err)
	}
	mustContain(t, "the health version", st.Version, "PyBullet 3.2.7")
}
