package cadquery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/omniverseusd"
	"github.com/metaforge/metaforge/protocol"
)

// The stages cadquery.export_usd* writes are read back by usd-core, through
// the omniverse_usd adapter's own tools: what describe_stage reports is what
// pxr read from the file, not what our writer meant to write.
var usdReader struct {
	once sync.Once
	a    *omniverseusd.Adapter
	skip string
}

// readStage runs an omniverse_usd tool on a stage; the test is skipped
// on a machine without usd-core.
func readStage(t *testing.T, toolID string, args obj) obj {
	t.Helper()
	_, ws := warm(t)
	usdReader.once.Do(func() {
		usdReader.a = omniverseusd.New(ws, omniverseusd.Options{})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := usdReader.a.Health(ctx); err != nil {
			usdReader.skip = err.Error()
		}
	})
	if usdReader.skip != "" {
		t.Skip("usd-core is not available: " + usdReader.skip)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := usdReader.a.Call(ctx, toolID, mustJSON(t, args))
	if err != nil {
		t.Fatalf("%s: %v", toolID, err)
	}
	var out obj
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// stageView is a stage as describe_stage reports it, with its prims,
// bodies, joints and meshes by path.
type stageView struct {
	desc   obj
	prims  map[string]obj
	bodies map[string]obj
	joints map[string]obj
	meshes map[string]obj
}

// stageOf checks a stage passes the minimum gate, usd-core's validators
// included, with meshes meshes, and describes it.
func stageOf(t *testing.T, file string, meshes int) stageView {
	t.Helper()
	gate := readStage(t, omniverseusd.ToolValidateUSDMinimum, obj{"file": file, "min_meshes": meshes})
	if gate["passed"] != true {
		t.Errorf("validate_usd_minimum of %s: %v", file, gate["checks"])
	}
	// usd-core's own UsdPhysics validators ran and found nothing.
	ran := false
	for _, c := range gate["checks"].([]any) {
		if c := c.(obj); c["name"] == "usd_validation" {
			ran = c["passed"] == true && regexp.MustCompile(`^5 validators ran .*: 0 errors, 0 warnings$`).MatchString(c["detail"].(string))
			if !ran {
				t.Errorf("usd-core's validators on %s: %v", file, c)
			}
		}
	}
	if !ran {
		t.Errorf("validate_usd_minimum ran no usd_validation check on %s", file)
	}
	desc := readStage(t, omniverseusd.ToolDescribeStage, obj{"file": file})
	v := stageView{desc: desc, prims: byPath(desc, "prims"), bodies: byPath(desc, "rigid_bodies"),
		joints: byPath(desc, "joints"), meshes: byPath(desc, "meshes")}
	if desc["up_axis"] != "Z" || desc["up_axis_authored"] != true || desc["meters_per_unit"] != 1.0 ||
		desc["meters_per_unit_authored"] != true || desc["kilograms_per_unit"] != 1.0 {
		t.Errorf("stage units: up %v (%v), metersPerUnit %v (%v), kilogramsPerUnit %v", desc["up_axis"], desc["up_axis_authored"],
			desc["meters_per_unit"], desc["meters_per_unit_authored"], desc["kilograms_per_unit"])
	}
	return v
}

func byPath(desc obj, key string) map[string]obj {
	out := map[string]obj{}
	for _, e := range desc[key].([]any) {
		out[e.(obj)["path"].(string)] = e.(obj)
	}
	return out
}

func floats(t *testing.T, v any) []float64 {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("want a list of numbers, got %v", v)
	}
	out := make([]float64, len(list))
	for i, x := range list {
		out[i] = x.(float64)
	}
	return out
}

// m3 is a 3x3 matrix, m[row][col].
type m3 [3][3]float64

func (a m3) mul(b m3) m3 {
	var c m3
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

func (a m3) transpose() m3 {
	var c m3
	for i := range 3 {
		for j := range 3 {
			c[i][j] = a[j][i]
		}
	}
	return c
}

// quatMatrix is the rotation of quaternion (w, x, y, z), normalised
// (pxr stores quatf, whose length is 1 only to float precision).
func quatMatrix(q []float64) m3 {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	w, x, y, z := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	return m3{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
}

// tensorOf is the inertia tensor a UsdPhysics body states: R diag(d) R^T,
// R the rotation of physics:principalAxes (its columns the principal
// axes in the body's frame), d physics:diagonalInertia.
func tensorOf(t *testing.T, body obj) m3 {
	t.Helper()
	d := floats(t, body["diagonal_inertia"])
	r := quatMatrix(floats(t, body["principal_axes_wxyz"]))
	return r.mul(m3{{d[0], 0, 0}, {0, d[1], 0}, {0, 0, d[2]}}).mul(r.transpose())
}

func rotX(deg float64) m3 {
	s, c := math.Sincos(deg * math.Pi / 180)
	return m3{{1, 0, 0}, {0, c, -s}, {0, s, c}}
}

func rotZ(deg float64) m3 {
	s, c := math.Sincos(deg * math.Pi / 180)
	return m3{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}
}

// boxTensor is a solid box's inertia about its centre along its own axes:
// Ixx = m (b^2 + c^2) / 12 and so on, sides a, b, c along X, Y, Z (m).
func boxTensor(m, a, b, c float64) m3 {
	return m3{{m * (b*b + c*c) / 12, 0, 0}, {0, m * (a*a + c*c) / 12, 0}, {0, 0, m * (a*a + b*b) / 12}}
}

// sameTensor compares two inertia tensors entry by entry, within tol of
// the largest moment.
func sameTensor(t *testing.T, what string, got, want m3, tol float64) {
	t.Helper()
	scale := math.Max(want[0][0], math.Max(want[1][1], want[2][2]))
	for i := range 3 {
		for j := range 3 {
			if math.Abs(got[i][j]-want[i][j]) > tol*scale {
				t.Errorf("%s[%d][%d] = %.9g, want %.9g (tolerance %g of %.6g)", what, i, j, got[i][j], want[i][j], tol, scale)
			}
		}
	}
}

func sameVec(t *testing.T, what string, got []float64, want []float64, tol float64) {
	t.Helper()
	for k := range want {
		if len(got) != len(want) || math.Abs(got[k]-want[k]) > tol {
			t.Errorf("%s = %v, want %v (tolerance %g)", what, got, want, tol)
			return
		}
	}
}

// usdArm is the two-link arm for USD: link1 200 x 40 x 20 mm from
// x = 0 to 200, link2 150 x 30 x 20 mm from 200 to 350, of aluminium
// 6061-T6, joined at x = 200 mm by joint (revolute about Z by default).
func usdArm(link1, link2 string, joint obj) obj {
	j := obj{"name": "elbow", "type": "revolute", "base": "link1", "follower": "link2", "origin": []float64{200, 0, 0}, "axis": []float64{0, 0, 1}}
	for k, v := range joint {
		if v == nil {
			delete(j, k)
		} else {
			j[k] = v
		}
	}
	return obj{
		"name":     "arm",
		"material": "aluminum_6061_t6",
		"parts":    []obj{{"name": "link1", "file": link1, "x": 100}, {"name": "link2", "file": link2, "x": 275}},
		"joints":   []obj{j},
	}
}

// exportUSD runs a USD export as the server would: the arguments checked
// against the tool's input schema first, then the call.
func exportUSD(t *testing.T, a *cadquery.Adapter, toolID string, args obj) (obj, *adapters.Result) {
	t.Helper()
	reg := adapters.NewRegistry()
	if err := reg.Register(a); err != nil {
		t.Fatal(err)
	}
	if err := reg.ValidateArguments(toolID, mustJSON(t, args)); err != nil {
		t.Fatalf("%s: the input schema refuses the arguments: %v", toolID, err)
	}
	return call(t, a, toolID, args)
}

func TestRobotTwoLinkArmUSD(t *testing.T) {
	a, _ := warm(t)
	link1 := part(t, a, "box", map[string]float64{"length": 200, "width": 40, "height": 20})
	link2 := part(t, a, "box", map[string]float64{"length": 150, "width": 30, "height": 20})

	data, res := exportUSD(t, a, cadquery.ToolExportUSDAssembly, usdArm(link1, link2, obj{
		"limits": obj{"lower": -90, "upper": 90, "effort": 2, "velocity": 90}}))
	file := data["output_file"].(string)
	if !slices.Equal(res.OutputFiles, []string{file}) || data["default_prim"] != "/arm" {
		t.Errorf("OutputFiles %v (want only the stage %s), default_prim %v", res.OutputFiles, file, data["default_prim"])
	}
	if entries, _ := os.ReadDir(filepath.Dir(file)); len(entries) != 1 {
		t.Errorf("the call folder holds %d entries, want only the stage (the meshes are inside it)", len(entries))
	}
	mustContain(t, "not_exported", fmt.Sprint(data["not_exported"]), "joint elbow: effort and velocity limits")

	v := stageOf(t, file, 2)
	if v.desc["default_prim"] != "/arm" || v.desc["rigid_body_count"] != 2.0 || v.desc["joint_count"] != 1.0 {
		t.Errorf("default prim %v, %v rigid bodies, %v joints", v.desc["default_prim"], v.desc["rigid_body_count"], v.desc["joint_count"])
	}
	for path, want := range map[string]struct {
		typ     string
		schemas []string
	}{
		"/arm":            {"Xform", []string{"PhysicsArticulationRootAPI"}},
		"/arm/link1":      {"Xform", []string{"PhysicsRigidBodyAPI", "PhysicsMassAPI"}},
		"/arm/link2":      {"Xform", []string{"PhysicsRigidBodyAPI", "PhysicsMassAPI"}},
		"/arm/link1/mesh": {"Mesh", []string{"PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"}},
		"/arm/link2/mesh": {"Mesh", []string{"PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"}},
		"/arm/elbow":      {"PhysicsRevoluteJoint", nil},
	} {
		p := v.prims[path]
		if p == nil || p["type"] != want.typ || !slices.Equal(stringList(t, p["api_schemas"]), want.schemas) {
			t.Errorf("prim %s: %v; want a %s with %v", path, p, want.typ, want.schemas)
		}
	}

	// Each body's mass and inertia against the closed forms: mass =
	// density x volume, the box formula about its centre, which sits in
	// the link frame at half the link's length (link2's frame is at the
	// joint, x = 200 mm).
	boxes := []struct {
		name    string
		a, b, c float64
		com     []float64
		origin  []float64
	}{
		{"link1", 0.200, 0.040, 0.020, []float64{0.100, 0, 0}, []float64{0, 0, 0}},
		{"link2", 0.150, 0.030, 0.020, []float64{0.075, 0, 0}, []float64{0.200, 0, 0}},
	}
	const tol = 1e-3 // 0.1%, the figure
	for _, box := range boxes {
		body := v.bodies["/arm/"+box.name]
		if body == nil {
			t.Fatalf("no rigid body /arm/%s", box.name)
		}
		m := aluminiumDensity * box.a * box.b * box.c
		near(t, box.name+" physics:mass", body["mass"].(float64), m, tol)
		want := boxTensor(m, box.a, box.b, box.c)
		sameTensor(t, box.name+" inertia from diagonalInertia and principalAxes", tensorOf(t, body), want, tol)
		moments := floats(t, body["diagonal_inertia"])
		diag := []float64{want[0][0], want[1][1], want[2][2]}
		slices.Sort(diag)
		for k := range 3 {
			near(t, box.name+" diagonalInertia", moments[k], diag[k], tol)
		}
		sameVec(t, box.name+" centerOfMass", floats(t, body["center_of_mass"]), box.com, 1e-7) // point3f
		sameVec(t, box.name+" world position", floats(t, body["world_position"]), box.origin, 1e-12)
		if c := stringList(t, body["collision_prims"]); !slices.Equal(c, []string{"/arm/" + box.name + "/mesh"}) {
			t.Errorf("%s collision prims %v", box.name, c)
		}
		// The tessellated box: its 8 corners, 2 triangles a face.
		mesh := v.meshes["/arm/"+box.name+"/mesh"]
		if mesh["point_count"] != 8.0 || mesh["face_count"] != 12.0 || mesh["face_vertex_index_count"] != 36.0 ||
			mesh["subdivision_scheme"] != "none" || mesh["collision"] != true || mesh["approximation"] != "convexHull" {
			t.Errorf("%s mesh %v: want 8 points, 12 triangles, no subdivision, a convexHull collider", box.name, mesh)
		}
	}

	joint := v.joints["/arm/elbow"]
	if joint["type"] != "PhysicsRevoluteJoint" || joint["body0"] != "/arm/link1" || joint["body1"] != "/arm/link2" || joint["axis"] != "X" {
		t.Fatalf("joint %v: want a PhysicsRevoluteJoint from /arm/link1 to /arm/link2", joint)
	}
	sameVec(t, "elbow axis in link1's frame", floats(t, joint["axis_in_body0"]), []float64{0, 0, 1}, 1e-6)
	sameVec(t, "elbow localPos0", floats(t, joint["local_pos0"]), []float64{0.2, 0, 0}, 1e-7)
	sameVec(t, "elbow localPos1", floats(t, joint["local_pos1"]), []float64{0, 0, 0}, 0)
	// UsdPhysics revolute limits are degrees.
	near(t, "elbow lowerLimit", joint["lower_limit"].(float64), -90, 1e-6)
	near(t, "elbow upperLimit", joint["upper_limit"].(float64), 90, 1e-6)
}

func TestRobotBallJointedArmUSD(t *testing.T) {
	a, _ := warm(t)
	link1 := part(t, a, "box", map[string]float64{"length": 200, "width": 40, "height": 20})
	link2 := part(t, a, "box", map[string]float64{"length": 150, "width": 30, "height": 20})
	data, _ := exportUSD(t, a, cadquery.ToolExportUSDAssembly, usdArm(link1, link2, obj{"type": "ball", "name": "shoulder", "axis": nil}))
	if len(data["not_exported"].([]any)) != 0 {
		t.Errorf("not_exported %v, want nothing", data["not_exported"])
	}
	v := stageOf(t, data["output_file"].(string), 2)
	joint := v.joints["/arm/shoulder"]
	if joint["type"] != "PhysicsSphericalJoint" || joint["body0"] != "/arm/link1" || joint["body1"] != "/arm/link2" {
		t.Fatalf("joint %v: want a PhysicsSphericalJoint from /arm/link1 to /arm/link2", joint)
	}
	if joint["lower_limit"] != nil || joint["cone_angle0_limit"] != -1.0 {
		t.Errorf("a ball joint given no limits: lower %v, cone %v (want none, and UsdPhysics's -1: free)", joint["lower_limit"], joint["cone_angle0_limit"])
	}
	sameVec(t, "shoulder localPos0", floats(t, joint["local_pos0"]), []float64{0.2, 0, 0}, 1e-7)
	m := aluminiumDensity * 0.150 * 0.030 * 0.020
	near(t, "link2 mass", v.bodies["/arm/link2"]["mass"].(float64), m, 1e-3)
}

// An arbitrary joint axis is physics:axis X with the joint frame turned
// onto it. The quaternion our writer computes and writes in full double
// precision turns X onto the axis to 1e-12; pxr reads physics:localRot0
// as quatf (UsdPhysics's type), so what usd-core gives back carries
// float32 rounding: 8 ulps of 1.2e-7 bound it, 1e-6. The slider along -X
// takes the half-turn branch; its limits are metres.
func TestRobotUSDArbitraryAxes(t *testing.T) {
	a, _ := warm(t)
	box := part(t, a, "box", map[string]float64{"length": 100, "width": 20, "height": 20})
	data, _ := exportUSD(t, a, cadquery.ToolExportUSDAssembly, obj{
		"name": "axes", "material": "steel",
		"parts": []obj{{"name": "base", "file": box}, {"name": "arm", "file": box, "x": 100}, {"name": "slide", "file": box, "x": 200}},
		"joints": []obj{
			{"name": "diagonal", "type": "revolute", "base": "base", "follower": "arm", "origin": []float64{50, 0, 0}, "axis": []float64{1, 1, 0}},
			{"name": "back", "type": "slider", "base": "arm", "follower": "slide", "origin": []float64{150, 0, 0}, "axis": []float64{-2, 0, 0},
				"limits": obj{"lower": -10, "upper": 25}},
		},
	})
	file := data["output_file"].(string)
	axes := map[string][]float64{"diagonal": {1 / math.Sqrt2, 1 / math.Sqrt2, 0}, "back": {-1, 0, 0}}

	// The result's quaternion, and the one written in the file's text.
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range data["joints"].([]any) {
		name := j.(obj)["name"].(string)
		sameVec(t, name+" axis from the result's local_rot_wxyz", turnX(floats(t, j.(obj)["local_rot_wxyz"])), axes[name], 1e-12)
		sameVec(t, name+" axis from the file's physics:localRot0", turnX(writtenQuat(t, string(text), name)), axes[name], 1e-12)
	}

	v := stageOf(t, file, 3)
	for name, want := range axes {
		joint := v.joints["/axes/"+name]
		if joint == nil || joint["axis"] != "X" {
			t.Fatalf("joint %s: %v", name, joint)
		}
		sameVec(t, name+" axis from usd-core's localRot0 (quatf)", turnX(floats(t, joint["local_rot0_wxyz"])), want, 1e-6)
		sameVec(t, name+" axis_in_body0", floats(t, joint["axis_in_body0"]), want, 1e-6)
		sameVec(t, name+" axis from localRot1", turnX(floats(t, joint["local_rot1_wxyz"])), want, 1e-6)
	}
	back := v.joints["/axes/back"]
	if back["type"] != "PhysicsPrismaticJoint" {
		t.Errorf("back is %v, want PhysicsPrismaticJoint", back["type"])
	}
	near(t, "back lowerLimit (m)", back["lower_limit"].(float64), -0.010, 1e-6)
	near(t, "back upperLimit (m)", back["upper_limit"].(float64), 0.025, 1e-6)
	if d := v.joints["/axes/diagonal"]; d["lower_limit"] != nil || d["upper_limit"] != nil {
		t.Errorf("a revolute joint without limits got %v..%v; none is made up", d["lower_limit"], d["upper_limit"])
	}
}

// turnX is X turned by the unit quaternion q (w, x, y, z).
func turnX(q []float64) []float64 {
	r := quatMatrix(q)
	return []float64{r[0][0], r[1][0], r[2][0]}
}

// writtenQuat reads joint's physics:localRot0 from the .usda text.
func writtenQuat(t *testing.T, text, joint string) []float64 {
	t.Helper()
	re := regexp.MustCompile(`def Physics\w+Joint "` + joint + `"[^}]*\}[^}]*\}[^}]*quatf physics:localRot0 = \(([^)]*)\)`)
	m := re.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no physics:localRot0 for joint %s in the stage text", joint)
	}
	var q []float64
	for _, s := range regexp.MustCompile(`,\s*`).Split(m[1], -1) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		q = append(q, f)
	}
	return q
}

// A part turned so its principal axes are not the link's keeps its full
// tensor: R diag(diagonalInertia) R^T, R from principalAxes, equals the
// box's tensor turned as the part was (rx 20, then rz 30 degrees about
// the global axes: Rz Rx D Rx^T Rz^T). Within 1e-5 of the largest moment:
// usd-core reads the moments as float3 and the axes as quatf.
func TestRobotUSDRotatedPartKeepsItsTensor(t *testing.T) {
	a, _ := warm(t)
	bar := part(t, a, "box", map[string]float64{"length": 100, "width": 20, "height": 10})
	data, _ := exportUSD(t, a, cadquery.ToolExportUSDAssembly, obj{
		"name": "turned", "material": "steel",
		"parts": []obj{{"name": "bar", "file": bar, "rx": 20, "rz": 30}},
	})
	m := 7850 * 0.100 * 0.020 * 0.010
	r := rotZ(30).mul(rotX(20))
	want := r.mul(boxTensor(m, 0.100, 0.020, 0.010)).mul(r.transpose())
	if math.Abs(want[0][1]) < 1e-3*want[2][2] {
		t.Fatalf("the turned bar's tensor has no products of inertia: the test proves nothing")
	}
	v := stageOf(t, data["output_file"].(string), 1)
	body := v.bodies["/turned/bar"]
	near(t, "mass", body["mass"].(float64), m, 1e-3)
	sameTensor(t, "tensor rebuilt from the stage", tensorOf(t, body), want, 1e-5)
	if v.prims["/turned"]["api_schemas"] != nil && len(v.prims["/turned"]["api_schemas"].([]any)) != 0 {
		t.Errorf("a robot without joints has no articulation: %v", v.prims["/turned"]["api_schemas"])
	}
	// The model's own tensor, as the result reports it, agrees.
	var model m3
	for i, row := range data["links"].([]any)[0].(obj)["inertia_kg_m2"].([]any) {
		for j, x := range row.([]any) {
			model[i][j] = x.(float64)
		}
	}
	sameTensor(t, "the model's tensor", model, want, 1e-9)
}

func TestRobotSingleBodyUSD(t *testing.T) {
	a, _ := warm(t)
	box := part(t, a, "box", map[string]float64{"length": 200, "width": 40, "height": 20})
	data, _ := exportUSD(t, a, cadquery.ToolExportUSD, obj{"file": box, "material": "aluminium", "name": "bar",
		"output_path": "bar_asset", "collision_approximation": "convexDecomposition"})
	if filepath.Base(data["output_file"].(string)) != "bar_asset.usda" {
		t.Errorf("output_file %v", data["output_file"])
	}
	v := stageOf(t, data["output_file"].(string), 1)
	body := v.bodies["/bar/base_link"]
	if body == nil || v.desc["default_prim"] != "/bar" || v.desc["joint_count"] != 0.0 {
		t.Fatalf("bodies %v, default prim %v", v.bodies, v.desc["default_prim"])
	}
	m := aluminiumDensity * 0.2 * 0.04 * 0.02
	near(t, "mass", body["mass"].(float64), m, 1e-3)
	sameTensor(t, "inertia", tensorOf(t, body), boxTensor(m, 0.2, 0.04, 0.02), 1e-3)
	sameVec(t, "centre of mass", floats(t, body["center_of_mass"]), []float64{0, 0, 0}, 1e-9)
	if a := v.meshes["/bar/base_link/mesh"]["approximation"]; a != "convexDecomposition" {
		t.Errorf("approximation %v, want convexDecomposition", a)
	}
}

func TestRobotUSDRefusalsWriteNothing(t *testing.T) {
	a, ws := warm(t)
	link1 := part(t, a, "box", map[string]float64{"length": 200, "width": 40, "height": 20})
	link2 := part(t, a, "box", map[string]float64{"length": 150, "width": 30, "height": 20})
	before := callFolders(t, ws)
	details := callErr(t, a, cadquery.ToolExportUSDAssembly, usdArm(link1, link2, obj{"type": "cylindrical"}), protocol.InvalidParams)
	mustContain(t, "the error", details, `joint "elbow" is cylindrical`, "UsdPhysics", "slider and a revolute joint")
	args := usdArm(link1, link2, nil)
	args["collision_approximation"] = "sphereFill"
	mustContain(t, "the error", callErr(t, a, cadquery.ToolExportUSDAssembly, args, protocol.InvalidParams), "collision_approximation")
	reg := adapters.NewRegistry()
	if err := reg.Register(a); err != nil {
		t.Fatal(err)
	}
	if err := reg.ValidateArguments(cadquery.ToolExportUSDAssembly, mustJSON(t, args)); err == nil {
		t.Error("the input schema takes collision_approximation sphereFill")
	}
	args = usdArm(link1, link2, nil)
	args["output_path"] = "arm.usdc"
	mustContain(t, "the error", callErr(t, a, cadquery.ToolExportUSDAssembly, args, protocol.InvalidParams), "must end in .usda")
	if n := callFolders(t, ws); n != before {
		t.Errorf("refused calls left %d call folders", n-before)
	}

	// A part with no solid fails in the kernel after the first link's
	// mesh was made: nothing is left.
	face, _ := call(t, a, cadquery.ToolExecuteScript, obj{"script": "result = cq.Face.makePlane(10, 10)"})
	before = callFolders(t, ws)
	details = callErr(t, a, cadquery.ToolExportUSDAssembly, obj{"material": "steel",
		"parts":  []obj{{"name": "a", "file": link1}, {"name": "flat", "file": face["cad_file"]}},
		"joints": []obj{{"name": "j", "type": "fixed", "base": "a", "follower": "flat", "origin": []float64{0, 0, 0}}},
	}, protocol.ToolExecutionError)
	mustContain(t, "the error", details, "part flat holds no closed solid")
	if n := callFolders(t, ws); n != before {
		t.Errorf("a failed export left %d call folders behind", n-before)
	}
}

func stringList(t *testing.T, v any) []string {
	t.Helper()
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = x.(string)
	}
	return out
}
