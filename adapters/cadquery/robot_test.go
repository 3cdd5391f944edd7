package cadquery_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Aluminium 6061-T6 in the materials table, kg/m^3.
const aluminiumDensity = 2700

// twoLinkArm is the arm: a 200 x 40 x 20 mm link from x = 0 to
// 200 and a 150 x 30 x 20 mm link from 200 to 350 (create_parametric
// centres each box on the origin, so x moves it by half its length),
// joined at x = 200 by a revolute joint about Z of +-90 degrees.
func twoLinkArm(link1, link2 string) obj {
	return obj{
		"robot_name": "arm",
		"material":   "aluminum_6061_t6",
		"parts": []obj{
			{"name": "link1", "file": link1, "x": 100},
			{"name": "link2", "file": link2, "x": 275},
		},
		"joints": []obj{{
			"name": "elbow", "type": "revolute", "base": "link1", "follower": "link2",
			"origin": []float64{200, 0, 0}, "axis": []float64{0, 0, 1},
			"limits": obj{"lower": -90, "upper": 90, "effort": 2, "velocity": 90},
		}},
	}
}

func TestRobotTwoLinkArmURDF(t *testing.T) {
	a, _ := warm(t)
	link1 := part(t, a, "box", map[string]float64{"length": 200, "width": 40, "height": 20})
	link2 := part(t, a, "box", map[string]float64{"length": 150, "width": 30, "height": 20})

	data, res := call(t, a, cadquery.ToolExportURDFAssembly, twoLinkArm(link1, link2))
	file := data["output_file"].(string)
	if filepath.Base(file) != "arm.urdf" {
		t.Errorf("output_file %s, want arm.urdf", file)
	}
	dir := filepath.Dir(file)
	wantFiles := []string{file, filepath.Join(dir, "link1.stl"), filepath.Join(dir, "link2.stl")}
	if !slices.Equal(res.OutputFiles, wantFiles) || len(data["files"].([]any)) != 3 {
		t.Errorf("OutputFiles %v, files %v; want %v", res.OutputFiles, data["files"], wantFiles)
	}
	out := checkURDF(t, file)
	mustContain(t, "check_urdf", out, "robot name is: arm", "root Link: link1", "child(1):  link2")

	robot := readURDF(t, file)
	if robot.Name != "arm" || len(robot.Links) != 2 || len(robot.Joints) != 1 {
		t.Fatalf("robot %q with %d links and %d joints, want arm with 2 and 1", robot.Name, len(robot.Links), len(robot.Joints))
	}
	// Each box, in metres, with its centre of mass in its link frame: link1's
	// frame is the assembly's, link2's sits at the joint (x = 200 mm).
	boxes := []struct {
		name    string
		a, b, c float64
		com     [3]float64
	}{
		{"link1", 0.200, 0.040, 0.020, [3]float64{0.100, 0, 0}},
		{"link2", 0.150, 0.030, 0.020, [3]float64{0.075, 0, 0}},
	}
	for i, box := range boxes {
		link := robot.Links[i]
		if link.Name != box.name {
			t.Fatalf("link %d is %q, want %q", i, link.Name, box.name)
		}
		m := aluminiumDensity * box.a * box.b * box.c
		const tol = 1e-3 // 0.1%, the figure
		near(t, box.name+" mass", link.Inertial.Mass.Value, m, tol)
		near(t, box.name+" result mass_kg", num(t, data, "links", i, "mass_kg"), m, tol)
		// Solid box about its centre: Ixx = m (b^2 + c^2) / 12, and so on;
		// its principal axes are the link's, so no products of inertia.
		in := link.Inertial.Inertia
		near(t, box.name+" ixx", in.IXX, m*(box.b*box.b+box.c*box.c)/12, tol)
		near(t, box.name+" iyy", in.IYY, m*(box.a*box.a+box.c*box.c)/12, tol)
		near(t, box.name+" izz", in.IZZ, m*(box.a*box.a+box.b*box.b)/12, tol)
		for what, v := range map[string]float64{"ixy": in.IXY, "ixz": in.IXZ, "iyz": in.IYZ} {
			if math.Abs(v) > 1e-9*in.IXX {
				t.Errorf("%s %s = %g, want 0", box.name, what, v)
			}
		}
		com := vec3(t, link.Inertial.Origin.XYZ)
		for k := range 3 {
			if math.Abs(com[k]-box.com[k]) > 1e-9 {
				t.Errorf("%s centre of mass %v, want %v (m, link frame)", box.name, com, box.com)
			}
		}
		if link.Inertial.Origin.RPY != "0 0 0" {
			t.Errorf("%s inertial rpy %q, want 0 0 0", box.name, link.Inertial.Origin.RPY)
		}
		// Visual and collision name the link's STL beside the URDF; it
		// spans the box in metres, in the link frame.
		if link.Visual.Mesh.Filename != box.name+".stl" || link.Collision.Mesh.Filename != box.name+".stl" {
			t.Errorf("%s meshes %q, %q; want %s.stl", box.name, link.Visual.Mesh.Filename, link.Collision.Mesh.Filename, box.name)
		}
		lo, hi := stlBounds(t, filepath.Join(dir, box.name+".stl"))
		wantLo := [3]float64{box.com[0] - box.a/2, -box.b / 2, -box.c / 2}
		wantHi := [3]float64{box.com[0] + box.a/2, box.b / 2, box.c / 2}
		for k := range 3 {
			if math.Abs(lo[k]-wantLo[k]) > 1e-6 || math.Abs(hi[k]-wantHi[k]) > 1e-6 { // float32 corners
				t.Errorf("%s mesh spans %v to %v, want %v to %v (m)", box.name, lo, hi, wantLo, wantHi)
				break
			}
		}
	}

	j := robot.Joints[0]
	if j.Name != "elbow" || j.Type != "revolute" || j.Parent.Link != "link1" || j.Child.Link != "link2" {
		t.Errorf("joint %+v", j)
	}
	if o := vec3(t, j.Origin.XYZ); o != [3]float64{0.2, 0, 0} {
		t.Errorf("joint origin %v, want [0.2 0 0] (m, in link1's frame)", o)
	}
	if ax := vec3(t, j.Axis.XYZ); ax != [3]float64{0, 0, 1} {
		t.Errorf("joint axis %v, want [0 0 1]", ax)
	}
	// +-90 degrees is +-pi/2 rad; 90 deg/s is pi/2 rad/s.
	if j.Limit == nil {
		t.Fatal("the revolute joint has no <limit>")
	}
	near(t, "limit lower", j.Limit.Lower, -math.Pi/2, 1e-12)
	near(t, "limit upper", j.Limit.Upper, math.Pi/2, 1e-12)
	near(t, "limit velocity", j.Limit.Velocity, math.Pi/2, 1e-12)
	near(t, "limit effort", j.Limit.Effort, 2, 1e-12)
	if got := data["joints"].([]any)[0].(map[string]any); got["type"] != "revolute" || got["parent"] != "link1" {
		t.Errorf("result joint %v", got)
	}

	// The same call writes the same bytes.
	again, _ := call(t, a, cadquery.ToolExportURDFAssembly, twoLinkArm(link1, link2))
	for _, name := range []string{"arm.urdf", "link1.stl", "link2.stl"} {
		first, _ := os.ReadFile(filepath.Join(dir, name))
		second, _ := os.ReadFile(filepath.Join(filepath.Dir(again["output_file"].(string)), name))
		if len(first) == 0 || !bytes.Equal(first, second) {
			t.Errorf("%s differs between two identical calls", name)
		}
	}

	// The xacro variant: the same description, the xacro namespace on <robot>.
	args := twoLinkArm(link1, link2)
	args["xacro"] = true
	data, _ = call(t, a, cadquery.ToolExportURDFAssembly, args)
	xfile := data["output_file"].(string)
	if filepath.Base(xfile) != "arm.urdf.xacro" || data["xacro"] != true {
		t.Errorf("xacro output_file %s, xacro %v", xfile, data["xacro"])
	}
	mustContain(t, "check_urdf of the xacro file", checkURDF(t, xfile), "root Link: link1", "child(1):  link2")
	body, err := os.ReadFile(xfile)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the xacro file", string(body), `<robot name="arm" xmlns:xacro="http://www.ros.org/wiki/xacro">`)
	if readURDF(t, xfile).Links[1].Inertial.Inertia != robot.Links[1].Inertial.Inertia {
		t.Error("the xacro file's inertia differs from the URDF's")
	}
}

func TestRobotSingleLinkURDF(t *testing.T) {
	a, _ := warm(t)
	box := part(t, a, "box", map[string]float64{"length": 200, "width": 40, "height": 20})
	data, res := call(t, a, cadquery.ToolExportURDF, obj{"file": box, "material": "aluminium", "robot_name": "bar", "output_path": "bar_description"})
	file := data["output_file"].(string)
	if filepath.Base(file) != "bar_description.urdf" || len(res.OutputFiles) != 2 {
		t.Errorf("output_file %s, OutputFiles %v", file, res.OutputFiles)
	}
	mustContain(t, "check_urdf", checkURDF(t, file), "robot name is: bar", "root Link: base_link has 0 child(ren)")
	link := readURDF(t, file).Links[0]
	m := aluminiumDensity * 0.2 * 0.04 * 0.02
	near(t, "mass", link.Inertial.Mass.Value, m, 1e-3)
	near(t, "izz", link.Inertial.Inertia.IZZ, m*(0.2*0.2+0.04*0.04)/12, 1e-3)
	// The part's own frame: create_parametric centred the box on it.
	for k, c := range vec3(t, link.Inertial.Origin.XYZ) {
		if math.Abs(c) > 1e-9 {
			t.Errorf("centre of mass[%d] = %g, want 0", k, c)
		}
	}
}

// A rotated part's products of inertia, derived by hand. A box of sides
// a, b, c along its own u, v, w axes has integral(u^2 dm) = m a^2/12 and
// so on, and integral(u v dm) = 0 about its centre. Yawed by t about Z:
// x = u cos t - v sin t, y = u sin t + v cos t, so integral(x y dm) =
// sin t cos t (integral(u^2) - integral(v^2)) = m sin t cos t (a^2 - b^2)/12,
// and URDF's ixy = -integral(x y dm) is negative for a long box at 30
// degrees. Pitched by t about Y: x = u cos t + w sin t, z = -u sin t +
// w cos t, integral(x z dm) = m sin t cos t (c^2 - a^2)/12, so ixz =
// m sin t cos t (a^2 - c^2)/12, positive.
func TestRobotProductsOfInertiaHaveURDFSign(t *testing.T) {
	a, _ := warm(t)
	base := part(t, a, "box", map[string]float64{"length": 50, "width": 50, "height": 10})
	bar := part(t, a, "box", map[string]float64{"length": 100, "width": 20, "height": 10})
	data, _ := call(t, a, cadquery.ToolExportURDFAssembly, obj{
		"robot_name": "tilted",
		"material":   "steel",
		"parts": []obj{
			{"name": "base", "file": base},
			{"name": "yawed", "file": bar, "rz": 30, "x": 50, "y": 7, "z": 3},
			{"name": "pitched", "file": bar, "ry": 30, "x": -60, "z": 40},
		},
		"joints": []obj{
			{"name": "fix_yawed", "type": "fixed", "base": "base", "follower": "yawed", "origin": []float64{20, 0, 0}},
			{"name": "fix_pitched", "type": "fixed", "base": "base", "follower": "pitched", "origin": []float64{-60, 0, 30}},
		},
	})
	file := data["output_file"].(string)
	mustContain(t, "check_urdf", checkURDF(t, file), "root Link: base has 2 child(ren)")
	robot := readURDF(t, file)
	const steel = 7850.0
	la, lb, lc := 0.100, 0.020, 0.010
	m := steel * la * lb * lc
	s, c := math.Sin(math.Pi/6), math.Cos(math.Pi/6)
	iu, iv, iw := m*(lb*lb+lc*lc)/12, m*(la*la+lc*lc)/12, m*(la*la+lb*lb)/12 // about the box's own axes

	yawed := robot.Links[1].Inertial
	if robot.Links[1].Name != "yawed" {
		t.Fatalf("link 1 is %q", robot.Links[1].Name)
	}
	const tol = 1e-3
	ixy := -m * s * c * (la*la - lb*lb) / 12
	near(t, "yawed ixy", yawed.Inertia.IXY, ixy, tol)
	near(t, "yawed ixx", yawed.Inertia.IXX, iu*c*c+iv*s*s, tol)
	near(t, "yawed iyy", yawed.Inertia.IYY, iu*s*s+iv*c*c, tol)
	near(t, "yawed izz", yawed.Inertia.IZZ, iw, tol)
	if yawed.Inertia.IXY >= 0 || math.Abs(yawed.Inertia.IXZ) > 1e-9*iu || math.Abs(yawed.Inertia.IYZ) > 1e-9*iu {
		t.Errorf("yawed products %+v: want ixy < 0, ixz = iyz = 0", yawed.Inertia)
	}
	// Its centre is at (50, 7, 3) mm; its link frame at (20, 0, 0) mm.
	for k, want := range [3]float64{0.030, 0.007, 0.003} {
		if got := vec3(t, yawed.Origin.XYZ)[k]; math.Abs(got-want) > 1e-9 {
			t.Errorf("yawed centre of mass[%d] = %g, want %g", k, got, want)
		}
	}

	pitched := robot.Links[2].Inertial
	ixz := m * s * c * (la*la - lc*lc) / 12
	near(t, "pitched ixz", pitched.Inertia.IXZ, ixz, tol)
	near(t, "pitched ixx", pitched.Inertia.IXX, iu*c*c+iw*s*s, tol)
	near(t, "pitched izz", pitched.Inertia.IZZ, iu*s*s+iw*c*c, tol)
	if pitched.Inertia.IXZ <= 0 || math.Abs(pitched.Inertia.IXY) > 1e-9*iu {
		t.Errorf("pitched products %+v: want ixz > 0, ixy = 0", pitched.Inertia)
	}
	if j := robot.Joints[1]; j.Type != "fixed" || j.Axis != nil || j.Limit != nil || vec3(t, j.Origin.XYZ) != [3]float64{-0.06, 0, 0.03} {
		t.Errorf("fixed joint %+v: want no axis or limit, origin (-0.06, 0, 0.03)", j)
	}
}

func TestRobotURDFRefusalsWriteNothing(t *testing.T) {
	a, ws := warm(t)
	box := part(t, a, "box", map[string]float64{"length": 10, "width": 10, "height": 10})
	parts := []obj{{"name": "a", "file": box}, {"name": "b", "file": box, "x": 10}}
	joint := func(typ string, extra obj) []obj {
		j := obj{"name": "j", "type": typ, "base": "a", "follower": "b", "origin": []float64{5, 0, 0}, "axis": []float64{1, 0, 0}}
		for k, v := range extra {
			j[k] = v
		}
		return []obj{j}
	}
	cases := []struct {
		name string
		args obj
		says []string
	}{
		{"ball", obj{"parts": parts, "joints": joint("ball", nil)}, []string{`joint "j" is a ball joint`, "URDF", "export_sdf_assembly"}},
		{"cylindrical", obj{"parts": parts, "joints": joint("cylindrical", nil)}, []string{`joint "j" is cylindrical`, "URDF", "slider and a revolute"}},
		{"slider without limits", obj{"parts": parts, "joints": joint("slider", nil)}, []string{`"j"`, "slider without limits"}},
		{"limits without effort", obj{"parts": parts, "joints": joint("slider", obj{"limits": obj{"lower": 0, "upper": 5, "velocity": 10}})},
			[]string{`joint "j"`, "without effort", "limits.effort"}},
		{"two roots", obj{"parts": parts}, []string{`"a", "b"`, "exactly one root"}},
		{"a cycle", obj{"parts": append(slices.Clone(parts), obj{"name": "c", "file": box}), "joints": []obj{
			{"name": "bc", "type": "fixed", "base": "b", "follower": "c", "origin": []float64{0, 0, 0}},
			{"name": "cb", "type": "fixed", "base": "c", "follower": "b", "origin": []float64{0, 0, 0}},
		}}, []string{"cycle", "b -> c -> b"}},
		{"an unknown part", obj{"parts": parts, "joints": []obj{{"name": "j", "type": "fixed", "base": "a", "follower": "arm2", "origin": []float64{0, 0, 0}}}},
			[]string{"joints[0].follower", `"arm2"`, "names no part"}},
	}
	before := callFolders(t, ws)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.args["material"] = "steel"
			details := callErr(t, a, cadquery.ToolExportURDFAssembly, c.args, protocol.InvalidParams)
			mustContain(t, "the error", details, c.says...)
			if n := callFolders(t, ws); n != before {
				t.Errorf("a refused call left %d call folders", n-before)
			}
		})
	}

	// A part with no solid fails in the kernel, after the first link's
	// mesh was written: that is removed too.
	face, _ := call(t, a, cadquery.ToolExecuteScript, obj{"script": "result = cq.Face.makePlane(10, 10)"})
	before = callFolders(t, ws)
	details := callErr(t, a, cadquery.ToolExportURDFAssembly, obj{"material": "steel",
		"parts":  []obj{{"name": "a", "file": box}, {"name": "flat", "file": face["cad_file"]}},
		"joints": []obj{{"name": "j", "type": "fixed", "base": "a", "follower": "flat", "origin": []float64{0, 0, 0}}},
	}, protocol.ToolExecutionError)
	mustContain(t, "the error", details, "part flat holds no closed solid")
	if n := callFolders(t, ws); n != before {
		t.Errorf("a failed export left %d call folders behind", n-before)
	}
}

// checkURDF runs liburdfdom's check_urdf on file, which must pass, and
// returns what it printed.
func checkURDF(t *testing.T, file string) string {
	t.Helper()
	bin, err := exec.LookPath("check_urdf")
	if err != nil {
		t.Fatal("check_urdf is not on PATH: install liburdfdom-tools (apt-get install liburdfdom-tools); every URDF is checked by it")
	}
	out, err := exec.Command(bin, file).CombinedOutput()
	if err != nil {
		t.Fatalf("check_urdf %s failed (%v):\n%s", file, err, out)
	}
	return string(out)
}

// The parts of URDF the tests read.
type (
	urdfRobot struct {
		Name   string      `xml:"name,attr"`
		Links  []urdfLink  `xml:"link"`
		Joints []urdfJoint `xml:"joint"`
	}
	urdfOrigin struct {
		XYZ string `xml:"xyz,attr"`
		RPY string `xml:"rpy,attr"`
	}
	urdfGeometry struct {
		Mesh struct {
			Filename string `xml:"filename,attr"`
		} `xml:"geometry>mesh"`
	}
	urdfLink struct {
		Name     string `xml:"name,attr"`
		Inertial struct {
			Origin urdfOrigin `xml:"origin"`
			Mass   struct {
				Value float64 `xml:"value,attr"`
			} `xml:"mass"`
			Inertia struct {
				IXX float64 `xml:"ixx,attr"`
				IXY float64 `xml:"ixy,attr"`
				IXZ float64 `xml:"ixz,attr"`
				IYY float64 `xml:"iyy,attr"`
				IYZ float64 `xml:"iyz,attr"`
				IZZ float64 `xml:"izz,attr"`
			} `xml:"inertia"`
		} `xml:"inertial"`
		Visual    urdfGeometry `xml:"visual"`
		Collision urdfGeometry `xml:"collision"`
	}
	urdfJoint struct {
		Name   string     `xml:"name,attr"`
		Type   string     `xml:"type,attr"`
		Origin urdfOrigin `xml:"origin"`
		Parent struct {
			Link string `xml:"link,attr"`
		} `xml:"parent"`
		Child struct {
			Link string `xml:"link,attr"`
		} `xml:"child"`
		Axis *struct {
			XYZ string `xml:"xyz,attr"`
		} `xml:"axis"`
		Limit *struct {
			Lower    float64 `xml:"lower,attr"`
			Upper    float64 `xml:"upper,attr"`
			Effort   float64 `xml:"effort,attr"`
			Velocity float64 `xml:"velocity,attr"`
		} `xml:"limit"`
	}
)

func readURDF(t *testing.T, file string) urdfRobot {
	t.Helper()
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var r urdfRobot
	if err := xml.Unmarshal(body, &r); err != nil {
		t.Fatalf("%s does not parse: %v", file, err)
	}
	return r
}

func vec3(t *testing.T, s string) [3]float64 {
	t.Helper()
	f := strings.Fields(s)
	if len(f) != 3 {
		t.Fatalf("%q is not three numbers", s)
	}
	var v [3]float64
	for i := range v {
		var err error
		if v[i], err = strconv.ParseFloat(f[i], 64); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
	}
	return v
}

// stlBounds reads a binary STL (the size its triangle count implies, no
// "solid" text header) and returns the corners of its bounding box.
func stlBounds(t *testing.T, path string) (lo, hi [3]float64) {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) < 84 || bytes.HasPrefix(body, []byte("solid")) {
		t.Fatalf("%s is not a binary STL", path)
	}
	n := int(binary.LittleEndian.Uint32(body[80:]))
	if n == 0 || len(body) != 84+50*n {
		t.Fatalf("%s: %d bytes for %d triangles, want %d", path, len(body), n, 84+50*n)
	}
	lo, hi = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := range n {
		rec := body[84+50*i:]
		for v := 1; v <= 3; v++ { // the normal first, then three corners
			for k := range 3 {
				c := float64(math.Float32frombits(binary.LittleEndian.Uint32(rec[12*v+4*k:])))
				lo[k], hi[k] = min(lo[k], c), max(hi[k], c)
			}
		}
	}
	return lo, hi
}

// The launch file is Python ROS 2 would run; ROS 2 is not here, so it is
// checked as Python: it parses, defines generate_launch_description, and
// starts the nodes asked for from the packages that have them.
func TestRobotROS2Launch(t *testing.T) {
	a, ws := warm(t)
	box := part(t, a, "box", map[string]float64{"length": 20, "width": 20, "height": 20})
	urdf, _ := call(t, a, cadquery.ToolExportURDF, obj{"file": box, "material": "pla", "robot_name": "cube"})
	urdfFile := urdf["output_file"].(string)

	data, res := call(t, a, cadquery.ToolGenerateROS2Launch, obj{"urdf_file": urdfFile, "gui": true, "rviz": true})
	file := data["output_file"].(string)
	if filepath.Base(file) != "display.launch.py" || len(res.OutputFiles) != 1 || res.OutputFiles[0] != file {
		t.Errorf("output_file %s, OutputFiles %v", file, res.OutputFiles)
	}
	if data["ran"] != false || data["robot_name"] != "cube" || data["urdf_file"] != urdfFile {
		t.Errorf("ran %v, robot_name %v, urdf_file %v", data["ran"], data["robot_name"], data["urdf_file"])
	}
	mustContain(t, "not_run_reason", data["not_run_reason"].(string), "never launches it", "ros2 launch "+file)
	launch := parseLaunch(t, file)
	wantNodes := []string{"robot_state_publisher/robot_state_publisher", "joint_state_publisher_gui/joint_state_publisher_gui", "rviz2/rviz2"}
	if !slices.Equal(launch.Nodes, wantNodes) || launch.URDFFile != urdfFile || !slices.Contains(launch.Functions, "generate_launch_description") {
		t.Errorf("launch file: nodes %v, URDF_FILE %q, functions %v; want %v, %q", launch.Nodes, launch.URDFFile, launch.Functions, wantNodes, urdfFile)
	}
	if !slices.Contains(launch.Imports, "launch.LaunchDescription") || !slices.Contains(launch.Imports, "launch_ros.actions.Node") {
		t.Errorf("imports %v", launch.Imports)
	}

	// An installed package's copy of a xacro file, expanded by xacro.
	xacro, _ := call(t, a, cadquery.ToolExportURDF, obj{"file": box, "material": "pla", "robot_name": "cube", "xacro": true})
	data, _ = call(t, a, cadquery.ToolGenerateROS2Launch, obj{"urdf_file": xacro["output_file"], "package_name": "cube_description", "output_path": "cube"})
	file = data["output_file"].(string)
	launch = parseLaunch(t, file)
	if filepath.Base(file) != "cube.py" || !slices.Equal(launch.Nodes, []string{"robot_state_publisher/robot_state_publisher", "joint_state_publisher/joint_state_publisher"}) {
		t.Errorf("%s: nodes %v", file, launch.Nodes)
	}
	for _, imp := range []string{"ament_index_python.packages.get_package_share_directory", "launch.substitutions.Command", "launch_ros.parameter_descriptions.ParameterValue"} {
		if !slices.Contains(launch.Imports, imp) {
			t.Errorf("the xacro launch file does not import %s: %v", imp, launch.Imports)
		}
	}
	body, _ := os.ReadFile(file)
	mustContain(t, "the xacro launch file", string(body), `get_package_share_directory("cube_description"), "urdf", "cube.urdf.xacro"`)

	sdf := filepath.Join(ws.Root, "model.sdf")
	if err := os.WriteFile(sdf, []byte(`<?xml version="1.0"?><sdf version="1.9"><model name="m"/></sdf>`), 0o644); err != nil {
		t.Fatal(err)
	}
	before := callFolders(t, ws)
	for _, c := range []struct {
		args obj
		says []string
	}{
		{obj{"urdf_file": sdf}, []string{"not a URDF", "root element is <sdf>, not <robot>"}},
		{obj{"urdf_file": box}, []string{"not a URDF", "does not parse as XML"}},
		{obj{"urdf_file": urdfFile, "package_name": "My-Robot"}, []string{"package_name", "not a ROS package name"}},
		{obj{"urdf_file": urdfFile, "output_path": "launch.xml"}, []string{"output_path", "must end in .py"}},
	} {
		details := callErr(t, a, cadquery.ToolGenerateROS2Launch, c.args, protocol.InvalidParams)
		mustContain(t, "the error", details, c.says...)
	}
	if n := callFolders(t, ws); n != before {
		t.Errorf("refused calls left %d call folders", n-before)
	}
}

type launchSummary struct {
	Nodes     []string `json:"nodes"` // package/executable
	URDFFile  string   `json:"urdf_file"`
	Imports   []string `json:"imports"`
	Functions []string `json:"functions"`
}

// parseLaunch parses a launch file with Python's own parser and returns
// what it starts.
func parseLaunch(t *testing.T, file string) launchSummary {
	t.Helper()
	const script = `
import ast, json, sys
tree = ast.parse(open(sys.argv[1], encoding="utf-8").read(), sys.argv[1])
compile(tree, sys.argv[1], "exec")
out = {"nodes": [], "urdf_file": "", "imports": [], "functions": [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]}
for n in ast.walk(tree):
    if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Node":
        kw = {k.arg: ast.literal_eval(k.value) for k in n.keywords if k.arg in ("package", "executable")}
        out["nodes"].append(kw["package"] + "/" + kw["executable"])
    if isinstance(n, ast.ImportFrom):
        out["imports"] += [n.module + "." + a.name for a in n.names]
    if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "URDF_FILE" and isinstance(n.value, ast.Constant):
        out["urdf_file"] = n.value.value
print(json.dumps(out))
`
	out, err := exec.Command("python3", "-c", script, file).CombinedOutput()
	if err != nil {
		t.Fatalf("%s is not valid Python: %v\n%s", file, err, out)
	}
	var s launchSummary
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("%s: %v\n%s", file, err, out)
	}
	return s
}

// The schemas the registry checks before a call take the robots the
// tests send and refuse what Call would refuse.
func TestRobotSchemas(t *testing.T) {
	a := cadquery.New(workspace.New(t.TempDir()), cadquery.Options{Python: "/nonexistent/python3"})
	defer a.Close()
	reg := adapters.NewRegistry()
	if err := reg.Register(a); err != nil {
		t.Fatal(err)
	}
	arm, err := json.Marshal(twoLinkArm("l1.step", "l2.step"))
	if err != nil {
		t.Fatal(err)
	}
	good := map[string][]string{
		cadquery.ToolExportURDFAssembly: {string(arm),
			`{"parts": [{"name": "a", "file": "a.step", "material": "steel"}], "xacro": true, "output_path": "a.urdf.xacro"}`},
		cadquery.ToolExportURDF:         {`{"file": "a.step", "material": "pla"}`},
		cadquery.ToolGenerateROS2Launch: {`{"urdf_file": "a.urdf", "gui": true, "rviz": true, "package_name": "a_description"}`},
	}
	bad := map[string][]string{
		cadquery.ToolExportURDFAssembly: {
			`{"parts": []}`,
			`{"parts": [{"name": "link 1", "file": "a.step"}]}`,
			`{"parts": [{"name": "a", "file": "a.step"}], "joints": [{"name": "j", "type": "hinge", "base": "a", "follower": "b", "origin": [0, 0, 0]}]}`,
			`{"parts": [{"name": "a", "file": "a.step"}], "joints": [{"name": "j", "type": "fixed", "base": "a", "follower": "b"}]}`,
			`{"parts": [{"name": "a", "file": "a.step"}], "joints": [{"name": "j", "type": "revolute", "base": "a", "follower": "b", "origin": [0, 0, 0], "axis": [0, 1]}]}`,
			`{"parts": [{"name": "a", "file": "a.step"}], "joints": [{"name": "j", "type": "slider", "base": "a", "follower": "b", "origin": [0, 0, 0], "limits": {"lower": 0, "upper": 1, "effort": -1}}]}`,
			`{"parts": [{"name": "a", "file": "a.step"}], "robot_name": "my robot"}`,
		},
		cadquery.ToolExportURDF:         {`{"file": "a.step"}`, `{"file": "a.step", "material": "pla", "output_path": "../a.urdf"}`},
		cadquery.ToolGenerateROS2Launch: {`{}`, `{"urdf_file": "a.urdf", "package_name": "A"}`},
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
