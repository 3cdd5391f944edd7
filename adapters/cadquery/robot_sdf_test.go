package cadquery_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/gazebo"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// The SDF exports are checked by libsdformat, not by reading the XML back
// here: every file goes through metaforge-sdfcheck (deploy/sdfcheck) by
// itself and through gazebo.validate_world, and the numbers compared are
// the ones libsdformat loaded.

// sdfChecker is the libsdformat checker. Missing, the test fails saying
// how to build it: CI builds it, so its absence is a broken setup.
func sdfChecker(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(gazebo.EnvChecker); p != "" {
		if err := exec.Command(p, "--version").Run(); err != nil {
			t.Fatalf("$%s=%s does not run (%v); %s", gazebo.EnvChecker, p, err, gazebo.Install)
		}
		return p
	}
	if p, err := exec.LookPath(gazebo.CheckerName); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		if p := filepath.Join(home, ".cache", "metaforge", "bin", gazebo.CheckerName); exec.Command(p, "--version").Run() == nil {
			return p
		}
	}
	t.Fatalf("the libsdformat checker %s is not installed; %s", gazebo.CheckerName, gazebo.Install)
	return ""
}

// checkSDF runs the checker on file by itself (exit 0 is valid) and then
// gazebo.validate_world, whose answer it returns; both must say valid.
func checkSDF(t *testing.T, file string) gazebo.ValidateResult {
	t.Helper()
	out, err := exec.Command(sdfChecker(t), file).Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", gazebo.CheckerName, file, err, out)
	}
	res := validateWorld(t, file)
	if !res.Valid || len(res.Errors) != 0 {
		t.Fatalf("libsdformat rejects %s: %+v\n%s", file, res.Errors, readFile(t, file))
	}
	for _, m := range res.Messages {
		t.Errorf("libsdformat says of %s: %s: %s", filepath.Base(file), m.Level, m.Text)
	}
	return res
}

// validateWorld is gazebo.validate_world on file, read through the shared
// workspace, valid or not.
func validateWorld(t *testing.T, file string) gazebo.ValidateResult {
	t.Helper()
	_, ws := warm(t)
	g := gazebo.New(ws, gazebo.Options{Checker: sdfChecker(t)})
	res, err := g.Call(context.Background(), gazebo.ToolValidateWorld, mustJSON(t, obj{"file": file}))
	if err != nil {
		t.Fatalf("gazebo.validate_world %s: %v", file, err)
	}
	var out gazebo.ValidateResult
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func readFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sdfLink(t *testing.T, m gazebo.Model, name string) gazebo.Link {
	t.Helper()
	for _, l := range m.Links {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("model %s has no link %s", m.Name, name)
	return gazebo.Link{}
}

func sdfModel(t *testing.T, res gazebo.ValidateResult, name string) gazebo.Model {
	t.Helper()
	for _, m := range res.Models {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("libsdformat found no model %s in %s", name, res.File)
	return gazebo.Model{}
}

// armBox is one link of the arm: sides a, b, c (m) along X, Y, Z, its
// centre of mass in its link frame, and the link frame's origin in the
// model frame.
type armBox struct {
	name    string
	a, b, c float64
	com     [3]float64
	origin  [3]float64
}

// The arm, in metres: link1's frame is the assembly's, link2's
// sits at the joint (x = 200 mm).
var armBoxes = []armBox{
	{"link1", 0.200, 0.040, 0.020, [3]float64{0.100, 0, 0}, [3]float64{0, 0, 0}},
	{"link2", 0.150, 0.030, 0.020, [3]float64{0.075, 0, 0}, [3]float64{0.200, 0, 0}},
}

// checkBoxLink compares what libsdformat loaded for a box link with the
// closed forms: mass = density x a b c; a solid box about its centre,
// Ixx = m (b^2 + c^2) / 12 and so on, no products of inertia (its axes
// are the link's); the inertial pose at the centre of mass; the link's
// pose in the model frame at its origin; one visual and one collision.
func checkBoxLink(t *testing.T, l gazebo.Link, box armBox) {
	t.Helper()
	const tol = 1e-3 // 0.1%, the figure
	m := aluminiumDensity * box.a * box.b * box.c
	near(t, box.name+" mass", l.MassKg, m, tol)
	near(t, box.name+" ixx", l.Inertia.IXX, m*(box.b*box.b+box.c*box.c)/12, tol)
	near(t, box.name+" iyy", l.Inertia.IYY, m*(box.a*box.a+box.c*box.c)/12, tol)
	near(t, box.name+" izz", l.Inertia.IZZ, m*(box.a*box.a+box.b*box.b)/12, tol)
	for what, v := range map[string]float64{"ixy": l.Inertia.IXY, "ixz": l.Inertia.IXZ, "iyz": l.Inertia.IYZ} {
		if math.Abs(v) > 1e-9*l.Inertia.IXX {
			t.Errorf("%s %s = %g, want 0", box.name, what, v)
		}
	}
	for k := range 3 {
		if math.Abs(l.InertialPose.XYZ[k]-box.com[k]) > 1e-9 || math.Abs(l.InertialPose.RPY[k]) > 0 {
			t.Errorf("%s inertial pose %+v, want xyz %v, no rotation", box.name, l.InertialPose, box.com)
			break
		}
	}
	if l.PoseInModel == nil {
		t.Fatalf("libsdformat could not resolve %s's pose", box.name)
	}
	for k := range 3 {
		if math.Abs(l.PoseInModel.XYZ[k]-box.origin[k]) > 1e-12 || l.PoseInModel.RPY[k] != 0 {
			t.Errorf("%s pose in the model %+v, want xyz %v, no rotation", box.name, *l.PoseInModel, box.origin)
			break
		}
	}
	if l.VisualCount != 1 || l.CollisionCount != 1 {
		t.Errorf("%s has %d visuals and %d collisions, want 1 and 1", box.name, l.VisualCount, l.CollisionCount)
	}
}

// armWith is the arm (model arm) with one joint, elbow, at x = 200 mm
// between its links, of the type and axis in joint.
func armWith(link1, link2 string, joint obj) obj {
	arm := twoLinkArm(link1, link2)
	delete(arm, "robot_name")
	arm["model_name"] = "arm"
	j := obj{"name": "elbow", "base": "link1", "follower": "link2", "origin": []float64{200, 0, 0}}
	for k, v := range joint {
		j[k] = v
	}
	arm["joints"] = []obj{j}
	return arm
}

// The two-link arm as an SDF model, with each joint type SDF takes at the
// shared end: libsdformat loads every one, with each link's mass and
// inertia the closed forms' and the joint as the tool said.
func TestRobotTwoLinkArmSDF(t *testing.T) {
	a, _ := warm(t)
	link1 := part(t, a, "box", map[string]float64{"length": 200, "width": 40, "height": 20})
	link2 := part(t, a, "box", map[string]float64{"length": 150, "width": 30, "height": 20})

	z := []float64{0, 0, 1}
	cases := []struct {
		name  string
		joint obj
		// What libsdformat must report: the type, the axis (nil: none)
		// and the limits (rad or m; nil: libsdformat's +-1e16; +Inf: none).
		sdfType string
		axis    []float64
		limits  []float64 // lower, upper, effort, velocity
	}{
		// +-90 degrees is +-pi/2 rad, 90 deg/s pi/2 rad/s.
		{"revolute", obj{"type": "revolute", "axis": z, "limits": obj{"lower": -90, "upper": 90, "effort": 2, "velocity": 90}},
			"revolute", z, []float64{-math.Pi / 2, math.Pi / 2, 2, math.Pi / 2}},
		{"ball", obj{"type": "ball"}, "ball", nil, nil},
		{"continuous", obj{"type": "revolute", "axis": []float64{0, 0, -2}}, "continuous", []float64{0, 0, -1}, nil},
		// 0 to 50 mm is 0 to 0.05 m; left out, effort and velocity are
		// not limited (libsdformat holds infinity).
		{"slider", obj{"type": "slider", "axis": []float64{1, 0, 0}, "limits": obj{"lower": 0, "upper": 50}},
			"prismatic", []float64{1, 0, 0}, []float64{0, 0.05, math.Inf(1), math.Inf(1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, res := call(t, a, cadquery.ToolExportSDFAssembly, armWith(link1, link2, c.joint))
			file := data["output_file"].(string)
			dir := filepath.Dir(file)
			want := []string{file, filepath.Join(dir, "link1.stl"), filepath.Join(dir, "link2.stl")}
			if filepath.Base(file) != "arm.sdf" || !slices.Equal(res.OutputFiles, want) || data["sdf_version"] != "1.9" {
				t.Errorf("output_file %s, OutputFiles %v, sdf_version %v; want arm.sdf and its two meshes, 1.9", file, res.OutputFiles, data["sdf_version"])
			}
			if _, ok := data["world_name"]; ok {
				t.Errorf("a model export reports a world: %v", data["world_name"])
			}
			out := checkSDF(t, file)
			if len(out.Worlds) != 0 || len(out.Models) != 1 || out.SDFVersion != "1.9" {
				t.Fatalf("libsdformat found worlds %+v, models %+v, version %s; want one model in SDF 1.9", out.Worlds, out.Models, out.SDFVersion)
			}
			m := sdfModel(t, out, "arm")
			if len(m.Links) != 2 || len(m.Joints) != 1 || m.CanonicalLink != "" && m.CanonicalLink != "link1" {
				t.Fatalf("model %+v", m)
			}
			for i, box := range armBoxes {
				checkBoxLink(t, sdfLink(t, m, box.name), box)
				near(t, box.name+" result mass_kg", num(t, data, "links", i, "mass_kg"), aluminiumDensity*box.a*box.b*box.c, 1e-3)
			}

			j := m.Joints[0]
			if j.Name != "elbow" || j.Type != c.sdfType || j.Parent != "link1" || j.Child != "link2" {
				t.Fatalf("joint %+v, want elbow %s link1 -> link2", j, c.sdfType)
			}
			if got := data["joints"].([]any)[0].(map[string]any)["type"]; got != c.sdfType {
				t.Errorf("the result says the joint is %v, libsdformat %s", got, c.sdfType)
			}
			if c.axis == nil {
				if j.Axis != nil {
					t.Errorf("a %s joint has an axis: %+v", c.sdfType, *j.Axis)
				}
				return
			}
			if j.Axis == nil {
				t.Fatalf("the %s joint has no axis", c.sdfType)
			}
			for k := range 3 {
				if math.Abs(j.Axis.XYZInModel[k]-c.axis[k]) > 1e-12 {
					t.Errorf("axis in the model frame %v, want %v", j.Axis.XYZInModel, c.axis)
					break
				}
			}
			lim := []*float64{j.Axis.Lower, j.Axis.Upper, j.Axis.Effort, j.Axis.Velocity}
			if c.limits == nil {
				if *j.Axis.Lower > -1e15 || *j.Axis.Upper < 1e15 {
					t.Errorf("a joint given no limits has lower %g, upper %g", *j.Axis.Lower, *j.Axis.Upper)
				}
				return
			}
			for k, what := range []string{"lower", "upper", "effort", "velocity"} {
				switch {
				case math.IsInf(c.limits[k], 1) && lim[k] != nil:
					t.Errorf("limit %s = %g, want none", what, *lim[k])
				case math.IsInf(c.limits[k], 1):
				case lim[k] == nil:
					t.Errorf("limit %s is not set, want %g", what, c.limits[k])
				default:
					near(t, "limit "+what, *lim[k], c.limits[k], 1e-12)
				}
			}
		})
	}
}

// The arm in a world: gravity, a ground plane, and the arm resting on it
// (its lowest face is 10 mm below the assembly's origin, so it is raised
// 10 mm); the links as in the model file.
func TestRobotTwoLinkArmSDFWorld(t *testing.T) {
	a, _ := warm(t)
	link1 := part(t, a, "box", map[string]float64{"length": 200, "width": 40, "height": 20})
	link2 := part(t, a, "box", map[string]float64{"length": 150, "width": 30, "height": 20})
	args := armWith(link1, link2, obj{"type": "revolute", "axis": []float64{0, 0, 1}, "limits": obj{"lower": -90, "upper": 90}})
	args["world_name"] = "lab"

	data, res := call(t, a, cadquery.ToolExportSDFAssembly, args)
	file := data["output_file"].(string)
	if filepath.Base(file) != "lab.world" || data["world_name"] != "lab" || len(res.OutputFiles) != 3 {
		t.Errorf("output_file %s, world_name %v, OutputFiles %v", file, data["world_name"], res.OutputFiles)
	}
	near(t, "model_pose_m z", num(t, data, "model_pose_m", 2), 0.010, 1e-6)

	out := checkSDF(t, file)
	if len(out.Worlds) != 1 || out.Worlds[0].Name != "lab" || strings.Join(out.Worlds[0].Models, ",") != "ground_plane,arm" {
		t.Fatalf("worlds %+v, want lab holding ground_plane and arm", out.Worlds)
	}
	g := out.Worlds[0].GravityMS2
	if g[0] != 0 || g[1] != 0 || g[2] != -9.80665 {
		t.Errorf("gravity %v, want 0 0 -9.80665", g)
	}
	ground := sdfModel(t, out, "ground_plane")
	if !ground.Static || ground.World != "lab" || len(ground.Links) != 1 || ground.Links[0].CollisionCount != 1 {
		t.Errorf("ground plane %+v", ground)
	}
	arm := sdfModel(t, out, "arm")
	if arm.World != "lab" || arm.Static {
		t.Errorf("arm %+v", arm)
	}
	if p := arm.Pose.XYZ; math.Abs(p[0]) > 0 || math.Abs(p[1]) > 0 || math.Abs(p[2]-0.010) > 1e-6 {
		t.Errorf("the arm's pose in the world %v, want 0 0 0.01: its lowest face on the ground", p)
	}
	for _, box := range armBoxes {
		checkBoxLink(t, sdfLink(t, arm, box.name), box)
	}
	if j := arm.Joints[0]; j.Type != "revolute" || j.Axis == nil || j.Axis.Upper == nil || math.Abs(*j.Axis.Upper-math.Pi/2) > 1e-12 {
		t.Errorf("joint %+v", j)
	}
}

// One link, from the single-link tool: a model file, then a world.
func TestRobotSingleLinkSDF(t *testing.T) {
	a, _ := warm(t)
	box := part(t, a, "box", map[string]float64{"length": 200, "width": 40, "height": 20})
	// create_parametric centres the box on the part's origin.
	bar := armBox{"base_link", 0.200, 0.040, 0.020, [3]float64{}, [3]float64{}}

	data, _ := call(t, a, cadquery.ToolExportSDF, obj{"file": box, "material": "aluminium", "model_name": "bar"})
	if filepath.Base(data["output_file"].(string)) != "bar.sdf" {
		t.Errorf("output_file %v, want bar.sdf", data["output_file"])
	}
	m := sdfModel(t, checkSDF(t, data["output_file"].(string)), "bar")
	if len(m.Links) != 1 || len(m.Joints) != 0 {
		t.Fatalf("model %+v, want one link and no joints", m)
	}
	checkBoxLink(t, m.Links[0], bar)

	data, _ = call(t, a, cadquery.ToolExportSDF, obj{"file": box, "material": "aluminium", "model_name": "bar", "world_name": "bench", "output_path": "bench.sdf"})
	if filepath.Base(data["output_file"].(string)) != "bench.sdf" {
		t.Errorf("output_file %v, want bench.sdf", data["output_file"])
	}
	out := checkSDF(t, data["output_file"].(string))
	m = sdfModel(t, out, "bar")
	if m.World != "bench" || math.Abs(m.Pose.XYZ[2]-0.010) > 1e-6 {
		t.Errorf("model %s in world %q at %v, want in bench at z = 0.01", m.Name, m.World, m.Pose.XYZ)
	}
	checkBoxLink(t, m.Links[0], bar)
}

// A box yawed 30 degrees: its products of inertia, as libsdformat reads
// them, have the tensor's sign. Yawed by t about Z, integral(x y dm) =
// m sin t cos t (a^2 - b^2)/12 (robot_test.go derives it), and SDF's ixy,
// like URDF's, is -integral(x y dm): negative for a box long along X.
func TestRobotSDFProductsOfInertia(t *testing.T) {
	a, _ := warm(t)
	box := part(t, a, "box", map[string]float64{"length": 200, "width": 40, "height": 20})
	data, _ := call(t, a, cadquery.ToolExportSDFAssembly, obj{"material": "aluminium", "model_name": "yawed",
		"parts": []obj{{"name": "bar", "file": box, "rz": 30}}})
	l := sdfModel(t, checkSDF(t, data["output_file"].(string)), "yawed").Links[0]
	const sa, sb, sc = 0.200, 0.040, 0.020
	m := aluminiumDensity * sa * sb * sc
	th := math.Pi / 6
	s, c := math.Sin(th), math.Cos(th)
	iu, iv, iw := m*(sb*sb+sc*sc)/12, m*(sa*sa+sc*sc)/12, m*(sa*sa+sb*sb)/12 // about the box's own axes
	near(t, "ixy", l.Inertia.IXY, -m*s*c*(sa*sa-sb*sb)/12, 1e-3)
	near(t, "ixx", l.Inertia.IXX, iu*c*c+iv*s*s, 1e-3)
	near(t, "iyy", l.Inertia.IYY, iu*s*s+iv*c*c, 1e-3)
	near(t, "izz", l.Inertia.IZZ, iw, 1e-3)
	if math.Abs(l.Inertia.IXZ) > 1e-9*iw || math.Abs(l.Inertia.IYZ) > 1e-9*iw {
		t.Errorf("ixz %g, iyz %g, want 0 (yaw only)", l.Inertia.IXZ, l.Inertia.IYZ)
	}
}

// An exported arm whose joint is broken by hand (its parent names a link
// that does not exist) is invalid, with libsdformat's own error.
func TestRobotBrokenSDFJointIsInvalid(t *testing.T) {
	a, _ := warm(t)
	link1 := part(t, a, "box", map[string]float64{"length": 200, "width": 40, "height": 20})
	link2 := part(t, a, "box", map[string]float64{"length": 150, "width": 30, "height": 20})
	data, _ := call(t, a, cadquery.ToolExportSDFAssembly, armWith(link1, link2, obj{"type": "ball"}))
	file := data["output_file"].(string)
	text := readFile(t, file)
	broken := strings.Replace(text, "<parent>link1</parent>", "<parent>link0</parent>", 1)
	if broken == text {
		t.Fatalf("no <parent>link1</parent> in %s:\n%s", file, text)
	}
	brokenFile := filepath.Join(filepath.Dir(file), "broken.sdf")
	if err := os.WriteFile(brokenFile, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command(sdfChecker(t), brokenFile).Run(); err == nil {
		t.Fatalf("%s accepts a joint whose parent names no link", gazebo.CheckerName)
	}
	out := validateWorld(t, brokenFile)
	if out.Valid {
		t.Fatal("gazebo.validate_world says a joint whose parent names no link is valid")
	}
	var codes []string
	for _, e := range out.Errors {
		codes = append(codes, e.Code)
		if e.Code == "JOINT_PARENT_LINK_INVALID" && strings.Contains(e.Message, "link0") && strings.Contains(e.Message, "elbow") {
			return
		}
	}
	t.Fatalf("errors %v lack libsdformat's JOINT_PARENT_LINK_INVALID naming link0 and elbow: %+v", codes, out.Errors)
}

// Robots SDF cannot take are refused with the reason, and nothing is
// written: a cylindrical joint, and a model named as the world's ground.
func TestRobotSDFRefusalsWriteNothing(t *testing.T) {
	a, ws := warm(t)
	box := part(t, a, "box", map[string]float64{"length": 10, "width": 10, "height": 10})
	parts := []obj{{"name": "a", "file": box}, {"name": "b", "file": box, "x": 10}}
	cases := []struct {
		name string
		args obj
		says []string
	}{
		{"cylindrical", obj{"parts": parts, "joints": []obj{{"name": "j", "type": "cylindrical", "base": "a", "follower": "b",
			"origin": []float64{5, 0, 0}, "axis": []float64{1, 0, 0}}}}, []string{`joint "j" is cylindrical`, "SDF", "slider and a revolute"}},
		{"cylindrical in a world", obj{"world_name": "lab", "parts": parts, "joints": []obj{{"name": "j", "type": "cylindrical", "base": "a",
			"follower": "b", "origin": []float64{5, 0, 0}, "axis": []float64{1, 0, 0}}}}, []string{`joint "j" is cylindrical`, "SDF"}},
		{"the ground's name", obj{"world_name": "lab", "model_name": "ground_plane", "parts": parts[:1]}, []string{"ground_plane", "another name"}},
		{"a bad world name", obj{"world_name": "my lab", "parts": parts[:1]}, []string{"world_name", "letters, digits and underscores"}},
		{"a world file named .urdf", obj{"world_name": "lab", "output_path": "lab.urdf", "parts": parts[:1]}, []string{"output_path", ".world or .sdf"}},
	}
	before := callFolders(t, ws)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.args["material"] = "steel"
			details := callErr(t, a, cadquery.ToolExportSDFAssembly, c.args, protocol.InvalidParams)
			mustContain(t, "the error", details, c.says...)
			if n := callFolders(t, ws); n != before {
				t.Errorf("a refused call left %d call folders", n-before)
			}
		})
	}
}

// The SDF tools' schemas take the arm (with a ball joint, and in a world)
// and refuse what Call would refuse.
func TestRobotSDFSchemas(t *testing.T) {
	a := cadquery.New(workspace.New(t.TempDir()), cadquery.Options{Python: "/nonexistent/python3"})
	defer a.Close()
	reg := adapters.NewRegistry()
	if err := reg.Register(a); err != nil {
		t.Fatal(err)
	}
	arm := armWith("l1.step", "l2.step", obj{"type": "ball"})
	arm["world_name"] = "lab"
	good := map[string][]string{
		cadquery.ToolExportSDFAssembly: {string(mustJSON(t, arm)),
			`{"parts": [{"name": "a", "file": "a.step", "material": "steel"}], "model_name": "a", "output_path": "a.sdf"}`},
		cadquery.ToolExportSDF: {`{"file": "a.step", "material": "pla"}`,
			`{"file": "a.step", "material": "pla", "model_name": "bar", "world_name": "bench", "output_path": "bench.world"}`},
	}
	bad := map[string][]string{
		cadquery.ToolExportSDFAssembly: {
			`{"parts": []}`,
			`{"parts": [{"name": "a", "file": "a.step"}], "joints": [{"name": "j", "type": "hinge", "base": "a", "follower": "b", "origin": [0, 0, 0]}]}`,
			`{"parts": [{"name": "a", "file": "a.step"}], "world_name": "my lab"}`,
			`{"parts": [{"name": "a", "file": "a.step"}], "robot_name": "a"}`,
		},
		cadquery.ToolExportSDF: {`{"file": "a.step"}`, `{"file": "a.step", "material": "pla", "output_path": "../a.sdf"}`,
			`{"file": "a.step", "material": "pla", "xacro": true}`},
	}
	for tool, args := range good {
		for _, arg := range args {
			if err := reg.ValidateArguments(tool, []byte(arg)); err != nil {
				t.Errorf("%s: the schema refuses %s: %v", tool, arg, err)
			}
		}
	}
	for tool, args := range bad {
		for _, arg := range args {
			if err := reg.ValidateArguments(tool, []byte(arg)); err == nil {
				t.Errorf("%s: the schema accepts %s", tool, arg)
			}
		}
	}
}
