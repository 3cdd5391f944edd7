package omniverseusd_test

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/omniverseusd"
	"github.com/metaforge/metaforge/protocol"
)

// gltfDoc is the part of a GLB's JSON chunk the tests read, parsed here
// independently of the converter's Python reader.
type gltfDoc struct {
	Scene  int `json:"scene"`
	Scenes []struct {
		Nodes []int `json:"nodes"`
	} `json:"scenes"`
	Nodes []struct {
		Name        *string   `json:"name"`
		Children    []int     `json:"children"`
		Mesh        *int      `json:"mesh"`
		Matrix      []float64 `json:"matrix"`
		Translation []float64 `json:"translation"`
		Rotation    []float64 `json:"rotation"`
		Scale       []float64 `json:"scale"`
	} `json:"nodes"`
	Meshes []struct {
		Primitives []struct {
			Attributes map[string]int `json:"attributes"`
		} `json:"primitives"`
	} `json:"meshes"`
	Accessors []struct {
		Count int `json:"count"`
	} `json:"accessors"`
}

func readGLB(t *testing.T, path string) gltfDoc {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) < 20 || string(body[:4]) != "glTF" || binary.LittleEndian.Uint32(body[16:20]) != 0x4E4F534A {
		t.Fatalf("%s is not a GLB with a JSON chunk", path)
	}
	n := binary.LittleEndian.Uint32(body[12:16])
	var doc gltfDoc
	if err := json.Unmarshal(body[20:20+n], &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// mat4 is a column-vector transform, m[row][col]: p' = m p.
type mat4 [4][4]float64

func identity() mat4 { return mat4{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}} }

func (a mat4) mul(b mat4) mat4 {
	var c mat4
	for i := range 4 {
		for j := range 4 {
			for k := range 4 {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

// local is a glTF node's transform as glTF 2.0 defines it: its matrix
// (stored column by column), or T * R * S.
func (d gltfDoc) local(i int) mat4 {
	n := d.Nodes[i]
	if len(n.Matrix) == 16 {
		var m mat4
		for c := range 4 {
			for r := range 4 {
				m[r][c] = n.Matrix[4*c+r]
			}
		}
		return m
	}
	m := identity()
	if len(n.Translation) == 3 {
		t := identity()
		t[0][3], t[1][3], t[2][3] = n.Translation[0], n.Translation[1], n.Translation[2]
		m = m.mul(t)
	}
	if len(n.Rotation) == 4 {
		m = m.mul(rotation(n.Rotation[3], n.Rotation[0], n.Rotation[1], n.Rotation[2]))
	}
	if len(n.Scale) == 3 {
		s := identity()
		s[0][0], s[1][1], s[2][2] = n.Scale[0], n.Scale[1], n.Scale[2]
		m = m.mul(s)
	}
	return m
}

// rotation is the matrix of the unit quaternion (w, x, y, z).
func rotation(w, x, y, z float64) mat4 {
	return mat4{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y), 0},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x), 0},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y), 0},
		{0, 0, 0, 1},
	}
}

// worlds is every scene node's world transform, by node index.
func (d gltfDoc) worlds() map[int]mat4 {
	out := map[int]mat4{}
	var walk func(i int, parent mat4)
	walk = func(i int, parent mat4) {
		out[i] = parent.mul(d.local(i))
		for _, c := range d.Nodes[i].Children {
			walk(c, out[i])
		}
	}
	for _, r := range d.Scenes[d.Scene].Nodes {
		walk(r, identity())
	}
	return out
}

// points is how many vertices node i's mesh has, over its primitives.
func (d gltfDoc) points(i int) int {
	if d.Nodes[i].Mesh == nil {
		return 0
	}
	n := 0
	for _, p := range d.Meshes[*d.Nodes[i].Mesh].Primitives {
		n += d.Accessors[p.Attributes["POSITION"]].Count
	}
	return n
}

// armScript builds a CadQuery assembly with named parts, one turned and
// one whose name is no USD identifier, and writes it as GLB with the
// writer cadquery.export_geometry's glb uses (OpenCASCADE's, through
// CadQuery's exportGLTF), in millimetres.
const armScript = `from cadquery.occ_impl.exporters.assembly import exportGLTF
arm = cq.Assembly(name="arm")
arm.add(cq.Workplane().box(200, 40, 20), name="link1", loc=cq.Location(cq.Vector(100, 0, 0)), color=cq.Color(0.8, 0.8, 0.85))
arm.add(cq.Workplane().box(150, 30, 20), name="link 2", loc=cq.Location(cq.Vector(275, 0, 30), cq.Vector(0, 0, 1), 30))
arm.add(cq.Workplane().cylinder(10, 5), name="tool.tip", loc=cq.Location(cq.Vector(350, 0, 30)))
assert exportGLTF(arm, "arm.glb", binary=True, tolerance=0.1, angularTolerance=0.1)
result = arm
`

func TestConvertGLBKeepsNamesTransformsAndVertices(t *testing.T) {
	script, _ := call(t, cadquery.ToolExecuteScript, obj{"script": armScript})
	glbFile := filepath.Join(filepath.Dir(script["cad_file"].(string)), "arm.glb")
	doc := readGLB(t, glbFile)

	conv, res := call(t, omniverseusd.ToolConvertGLBToUSD, obj{"file": glbFile, "output_path": "arm.usda", "length_unit": "mm"})
	stage := conv["output_file"].(string)
	if filepath.Base(stage) != "arm.usda" || len(res.OutputFiles) != 1 || res.OutputFiles[0] != stage {
		t.Fatalf("output_file %s, OutputFiles %v", stage, res.OutputFiles)
	}
	if conv["up_axis"] != "Y" || conv["meters_per_unit"] != 0.001 || conv["default_prim"] != "/Scene" || conv["format"] != "usda" {
		t.Errorf("stage metadata: %v", conv)
	}

	desc, _ := call(t, omniverseusd.ToolDescribeStage, obj{"file": stage, "max_prims": 1000})
	if desc["up_axis"] != "Y" || desc["meters_per_unit"] != 0.001 || desc["default_prim"] != "/Scene" {
		t.Errorf("describe_stage: up %v, metersPerUnit %v, default prim %v", desc["up_axis"], desc["meters_per_unit"], desc["default_prim"])
	}
	prims := map[string]obj{}
	for _, p := range desc["prims"].([]any) {
		prims[p.(obj)["path"].(string)] = p.(obj)
	}
	meshPoints := map[string]int{}
	for _, m := range desc["meshes"].([]any) {
		meshPoints[m.(obj)["path"].(string)] = int(m.(obj)["point_count"].(float64))
	}

	// Every node of the GLB is an Xform with its name, its world
	// transform and its vertices.
	worlds := doc.worlds()
	nodes := conv["nodes"].([]any)
	if len(nodes) != len(worlds) || int(conv["node_count"].(float64)) != len(worlds) {
		t.Fatalf("%d nodes converted, the GLB's scene has %d", len(nodes), len(worlds))
	}
	byName := map[string]string{}
	totalPoints := 0
	for _, n := range nodes {
		node := n.(obj)
		i := int(node["index"].(float64))
		name := *doc.Nodes[i].Name
		path := node["path"].(string)
		byName[name] = path
		if node["name"] != name {
			t.Errorf("node %d: name %v, the GLB says %q", i, node["name"], name)
		}
		prim := prims[path]
		if prim == nil || prim["type"] != "Xform" || prim["display_name"] != name {
			t.Errorf("node %d (%s): prim %v; want an Xform with displayName %q", i, path, prim, name)
			continue
		}
		// USD's matrix is the transpose of glTF's (row vectors).
		want := worlds[i]
		got := prim["world_transform"].([]any)
		for r := range 4 {
			for c := range 4 {
				if v := got[r].([]any)[c].(float64); math.Abs(v-want[c][r]) > 1e-9 {
					t.Errorf("%s world_transform[%d][%d] = %.12g, the GLB composes to %.12g", path, r, c, v, want[c][r])
				}
			}
		}
		points := 0
		for _, m := range node["mesh_prims"].([]any) {
			points += meshPoints[m.(string)]
		}
		if points != doc.points(i) || int(node["point_count"].(float64)) != doc.points(i) {
			t.Errorf("%s: %d points in its meshes (%v reported), the GLB's mesh has %d", path, points, node["point_count"], doc.points(i))
		}
		totalPoints += doc.points(i)
	}
	if int(conv["point_count"].(float64)) != totalPoints {
		t.Errorf("point_count %v, the GLB has %d", conv["point_count"], totalPoints)
	}
	for name, path := range map[string]string{"arm": "/Scene/arm", "link1": "/Scene/arm/link1", "link 2": "/Scene/arm/link_2", "tool.tip": "/Scene/arm/tool_tip"} {
		if byName[name] != path {
			t.Errorf("part %q is at %q, want %q", name, byName[name], path)
		}
	}

	// The placement, in closed form: CadQuery turns the assembly -90
	// degrees about X (Z up to glTF's Y up), so "link 2", placed at
	// (275, 0, 30) mm and turned 30 degrees about Z, sits at (275, 30, 0)
	// with its X axis along (cos 30, 0, -sin 30).
	link2 := prims["/Scene/arm/link_2"]["world_transform"].([]any)
	wantRows := [][]float64{{math.Cos(math.Pi / 6), 0, -math.Sin(math.Pi / 6), 0}, {-math.Sin(math.Pi / 6), 0, -math.Cos(math.Pi / 6), 0}, {0, 1, 0, 0}, {275, 30, 0, 1}}
	for r, row := range wantRows {
		for c, w := range row {
			if v := link2[r].([]any)[c].(float64); math.Abs(v-w) > 1e-9 {
				t.Errorf("link_2 world_transform[%d][%d] = %.12g, want %.12g", r, c, v, w)
			}
		}
	}

	// The converted stage passes the gate with every mesh counted.
	meshes := int(conv["mesh_count"].(float64))
	if meshes != int(desc["mesh_count"].(float64)) || meshes != len(meshPoints) {
		t.Errorf("mesh_count %d, describe_stage counts %v (%d listed)", meshes, desc["mesh_count"], len(meshPoints))
	}
	gate, _ := call(t, omniverseusd.ToolValidateUSDMinimum, obj{"file": stage, "min_meshes": meshes})
	if gate["passed"] != true {
		t.Errorf("validate_usd_minimum: %v", gate["checks"])
	}
}

// A single part through cadquery.export_geometry's glb: one node, named
// after the file, as written in metres by default.
func TestConvertExportGeometryGLB(t *testing.T) {
	part, _ := call(t, cadquery.ToolCreateParametric, obj{"shape_type": "box", "parameters": obj{"length": 30, "width": 20, "height": 10}})
	glbOut, _ := call(t, cadquery.ToolExportGeometry, obj{"input_file": part["cad_file"], "output_format": "glb", "output_path": "bracket.glb"})
	doc := readGLB(t, glbOut["output_file"].(string))
	conv, _ := call(t, omniverseusd.ToolConvertGLBToUSD, obj{"file": glbOut["output_file"], "output_path": "bracket.usdc"})
	if conv["format"] != "usdc" || conv["meters_per_unit"] != 1.0 {
		t.Errorf("format %v, meters_per_unit %v", conv["format"], conv["meters_per_unit"])
	}
	// OpenCASCADE writes an unnamed root node (turning Z up to Y up)
	// holding the part's node, named after the file.
	nodes := conv["nodes"].([]any)
	if len(nodes) != 2 || nodes[0].(obj)["name"] != nil || nodes[0].(obj)["path"] != "/Scene/node_0" ||
		nodes[1].(obj)["name"] != "bracket" || nodes[1].(obj)["path"] != "/Scene/node_0/bracket" {
		t.Fatalf("nodes %v", nodes)
	}
	if got, want := int(conv["point_count"].(float64)), doc.points(0)+doc.points(1); got != want {
		t.Errorf("point_count %d, the GLB has %d", got, want)
	}
	desc, _ := call(t, omniverseusd.ToolDescribeStage, obj{"file": conv["output_file"]})
	if int(desc["mesh_count"].(float64)) != int(conv["mesh_count"].(float64)) {
		t.Errorf("the .usdc has %v meshes, %v were written", desc["mesh_count"], conv["mesh_count"])
	}
}

func TestConvertRefusals(t *testing.T) {
	before := callFolders(t)
	text := writeFile(t, "scene.glb", `{"asset": {"version": "2.0"}}`)
	details := callErr(t, omniverseusd.ToolConvertGLBToUSD, obj{"file": text}, protocol.ToolExecutionError)
	mustContain(t, "the error", details, "is not a binary glTF file", "text .gltf")

	empty := writeFile(t, "empty.glb", glbBytes(`{"asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}], "nodes": [{"name": "lonely"}]}`))
	details = callErr(t, omniverseusd.ToolConvertGLBToUSD, obj{"file": empty}, protocol.ToolExecutionError)
	mustContain(t, "the error", details, "has no triangle meshes in its scene")

	after := callFolders(t)
	for name := range after {
		if !before[name] {
			entries, _ := os.ReadDir(filepath.Join(shared.ws.Root, "calls", name))
			t.Errorf("a failed call left the folder %s with %d entries", name, len(entries))
		}
	}

	step := writeFile(t, "part.step", "ISO-10303-21;")
	mustContain(t, "the error", callErr(t, omniverseusd.ToolConvertGLBToUSD, obj{"file": step}, protocol.InvalidParams),
		"is not a binary glTF file (.glb)")
	mustContain(t, "the error", callErr(t, omniverseusd.ToolConvertGLBToUSD, obj{"file": text, "output_path": "scene.obj"}, protocol.InvalidParams),
		".usda or .usdc or .usd")
	callErr(t, omniverseusd.ToolConvertGLBToUSD, obj{"file": text, "length_unit": "inch"}, protocol.InvalidParams)
}

// glbBytes is a GLB holding only the JSON chunk json.
func glbBytes(doc string) string {
	for len(doc)%4 != 0 {
		doc += " "
	}
	b := make([]byte, 20, 20+len(doc))
	copy(b, "glTF")
	binary.LittleEndian.PutUint32(b[4:], 2)
	binary.LittleEndian.PutUint32(b[8:], uint32(20+len(doc)))
	binary.LittleEndian.PutUint32(b[12:], uint32(len(doc)))
	binary.LittleEndian.PutUint32(b[16:], 0x4E4F534A)
	return string(append(b, doc...))
}
