package freecad_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/freecad"
	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/internal/workspace"
)

// One adapter and workspace serve the tests; each call runs its own
// FreeCAD process, so they share nothing else.
var shared struct {
	once sync.Once
	ws   *workspace.Workspace
	a    *freecad.Adapter
	reg  *adapters.Registry
	dir  string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

func setup(t *testing.T) (*freecad.Adapter, *workspace.Workspace) {
	t.Helper()
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "freecad-test-")
		if err != nil {
			panic(err)
		}
		shared.dir = dir
		shared.ws = workspace.New(dir)
		if err := os.MkdirAll(shared.ws.Root, 0o755); err != nil {
			panic(err)
		}
		shared.a = freecad.New(shared.ws, freecad.Options{Mesher: gmsh.New(shared.ws)})
		shared.reg = adapters.NewRegistry()
		if err := shared.reg.Register(shared.a); err != nil {
			panic(err)
		}
	})
	return shared.a, shared.ws
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// call runs a tool as the server would: arguments checked against its
// input schema, then the adapter's Call.
func call(t *testing.T, tool string, args map[string]any) map[string]any {
	t.Helper()
	out, err := try(t, tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return out
}

func try(t *testing.T, tool string, args map[string]any) (map[string]any, error) {
	t.Helper()
	a, _ := setup(t)
	raw, _ := json.Marshal(args)
	if err := shared.reg.ValidateArguments(tool, raw); err != nil {
		return nil, err
	}
	res, err := a.Call(ctx(t), tool, raw)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	for _, f := range res.OutputFiles {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: output file %s is missing or empty: %v", tool, f, err)
		}
	}
	return out, nil
}

func num(t *testing.T, v any, path ...any) float64 {
	t.Helper()
	for _, k := range path {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %q", path, k)
			}
			v = m[k]
		case int:
			s, ok := v.([]any)
			if !ok || k >= len(s) {
				t.Fatalf("%v: not an array of more than %d", path, k)
			}
			v = s[k]
		}
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v: want a number, got %v", path, v)
	}
	return f
}

// near checks got against want within a relative tolerance (absolute when
// want is 0).
func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	scale := math.Abs(want)
	if scale == 0 {
		scale = 1
	}
	if math.Abs(got-want) > tol*scale {
		t.Errorf("%s = %.10g, want %.10g (tolerance %g)", what, got, want, tol)
	}
}

// bboxIs checks a {min, max} bounding box against its closed form, to
// 1e-6 mm.
func bboxIs(t *testing.T, what string, box any, lo, hi [3]float64) {
	t.Helper()
	for i := range 3 {
		if g := num(t, box, "min", i); math.Abs(g-lo[i]) > 1e-6 {
			t.Errorf("%s min[%d] = %g, want %g", what, i, g, lo[i])
		}
		if g := num(t, box, "max", i); math.Abs(g-hi[i]) > 1e-6 {
			t.Errorf("%s max[%d] = %g, want %g", what, i, g, hi[i])
		}
	}
}

// freecadScript runs a Python script with FreeCAD, as the test's own
// supplier would make a file.
func freecadScript(t *testing.T, script string) {
	t.Helper()
	py := os.Getenv(freecad.EnvPython)
	if py == "" {
		py = freecad.DefaultPython
	}
	lib := os.Getenv(freecad.EnvLib)
	if lib == "" {
		lib = freecad.DefaultLib
	}
	cmd := exec.Command(py, "-c", script)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+lib, "FREECAD_USER_HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("FreeCAD script failed: %v\n%s", err, out)
	}
}

// Closed forms of the supplier's three parts.
const (
	baseVolume = 40.0 * 30 * 10                // box 40 x 30 x 10
	pinVolume  = math.Pi * 5 * 5 * 20          // cylinder r 5, h 20
	capVolume  = 4.0 / 3 * math.Pi * 8 * 8 * 8 // sphere r 8
)

var pinColour = [3]float64{0.8, 0.2, 0.1}

// supplierStep writes a STEP with three labelled parts, made by FreeCAD,
// the Pin coloured by STEP styling written into the file (headless
// FreeCAD writes no colours), and returns its path in the workspace.
func supplierStep(t *testing.T) string {
	t.Helper()
	_, ws := setup(t)
	path := filepath.Join(ws.Root, "supplier.step")
	freecadScript(t, `
import FreeCAD, Part, Import
doc = FreeCAD.newDocument("supplier")
for name, shape in (("Base", Part.makeBox(40, 30, 10)),
                    ("Pin", Part.makeCylinder(5, 20, FreeCAD.Vector(50, 0, 0))),
                    ("Cap", Part.makeSphere(8, FreeCAD.Vector(100, 0, 0)))):
    o = doc.addObject("Part::Feature", name)
    o.Shape = shape
    o.Label = name
doc.recompute()
Import.export(doc.Objects, "`+path+`")
`)
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	// The Pin's solid: the MANIFOLD_SOLID_BREP of the representation its
	// product's SHAPE_DEFINITION_REPRESENTATION names.
	pin := stepEntityOf(t, text, "PRODUCT('Pin'")
	solid := pinSolid(t, text, pin)
	style := "#9001 = STYLED_ITEM('color',(#9002),#" + solid + ");\n" +
		"#9002 = PRESENTATION_STYLE_ASSIGNMENT((#9003));\n" +
		"#9003 = SURFACE_STYLE_USAGE(.BOTH.,#9004);\n" +
		"#9004 = SURFACE_SIDE_STYLE('',(#9005));\n" +
		"#9005 = SURFACE_STYLE_FILL_AREA(#9006);\n" +
		"#9006 = FILL_AREA_STYLE('',(#9007));\n" +
		"#9007 = FILL_AREA_STYLE_COLOUR('',#9008);\n" +
		"#9008 = COLOUR_RGB('',0.8,0.2,0.1);\n"
	end := strings.LastIndex(text, "ENDSEC;")
	if err := os.WriteFile(path, []byte(text[:end]+style+text[end:]), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// stepEntityOf is the id of the entity whose text starts with prefix.
func stepEntityOf(t *testing.T, text, prefix string) string {
	t.Helper()
	i := strings.Index(text, "= "+prefix)
	if i < 0 {
		t.Fatalf("no %s in the STEP", prefix)
	}
	j := strings.LastIndex(text[:i], "#")
	return strings.TrimSpace(text[j+1 : i])
}

// pinSolid follows PRODUCT <- FORMATION <- DEFINITION <- SHAPE <-
// SHAPE_DEFINITION_REPRESENTATION -> representation -> its solid.
func pinSolid(t *testing.T, text, product string) string {
	t.Helper()
	ref := func(kind, arg string) string { // the entity of kind whose text has #arg
		for _, line := range strings.Split(text, ";") {
			if strings.Contains(line, "= "+kind+"(") && (strings.Contains(line, "#"+arg+")") || strings.Contains(line, "#"+arg+",")) {
				return strings.TrimSpace(line[strings.Index(line, "#")+1 : strings.Index(line, "=")])
			}
		}
		t.Fatalf("no %s naming #%s", kind, arg)
		return ""
	}
	pdf := ref("PRODUCT_DEFINITION_FORMATION", product)
	pd := ref("PRODUCT_DEFINITION", pdf)
	pds := ref("PRODUCT_DEFINITION_SHAPE", pd)
	for _, line := range strings.Split(text, ";") {
		if strings.Contains(line, "= SHAPE_DEFINITION_REPRESENTATION(#"+pds+",") {
			rep := strings.TrimSuffix(strings.TrimSpace(line[strings.LastIndex(line, "#")+1:]), ")")
			for _, l := range strings.Split(text, ";") {
				if strings.Contains(l, "= MANIFOLD_SOLID_BREP(") && strings.Contains(text, "#"+rep+" = ADVANCED_BREP_SHAPE_REPRESENTATION") {
					id := strings.TrimSpace(l[strings.Index(l, "#")+1 : strings.Index(l, "=")])
					repLine := text[strings.Index(text, "#"+rep+" = "):]
					repLine = repLine[:strings.Index(repLine, ";")]
					if strings.Contains(repLine, "#"+id+")") || strings.Contains(repLine, "#"+id+",") {
						return id
					}
				}
			}
		}
	}
	t.Fatal("the Pin's solid was not found")
	return ""
}

func partsByLabel(t *testing.T, out map[string]any) map[string]map[string]any {
	t.Helper()
	by := map[string]map[string]any{}
	for _, p := range out["parts"].([]any) {
		m := p.(map[string]any)
		by[m["label"].(string)] = m
	}
	return by
}

func checkSupplierParts(t *testing.T, what string, out map[string]any) {
	t.Helper()
	if out["kernel"] != "freecad" {
		t.Errorf("%s: kernel = %v", what, out["kernel"])
	}
	by := partsByLabel(t, out)
	if len(by) != 3 || num(t, out, "part_count") != 3 {
		t.Fatalf("%s: want the parts Base, Pin, Cap; got %v", what, out["parts"])
	}
	for label, want := range map[string]float64{"Base": baseVolume, "Pin": pinVolume, "Cap": capVolume} {
		p, ok := by[label]
		if !ok {
			t.Fatalf("%s: no part %q in %v", what, label, out["parts"])
		}
		near(t, what+" "+label+" volume", num(t, p, "volume_mm3"), want, 1e-3)
	}
	near(t, what+" Base area", num(t, by["Base"], "surface_area_mm2"), 2*(40*30+40*10+30*10), 1e-3)
	near(t, what+" Cap area", num(t, by["Cap"], "surface_area_mm2"), 4*math.Pi*64, 1e-3)
	bboxIs(t, what+" Pin", by["Pin"]["bounding_box"], [3]float64{45, -5, 0}, [3]float64{55, 5, 20})
	near(t, what+" total volume", num(t, out, "total_volume_mm3"), baseVolume+pinVolume+capVolume, 1e-3)
	colour, ok := by["Pin"]["color"].([]any)
	if !ok || len(colour) != 3 {
		t.Fatalf("%s: the Pin's colour is %v, want %v", what, by["Pin"]["color"], pinColour)
	}
	for i := range 3 {
		near(t, what+" Pin colour", colour[i].(float64), pinColour[i], 1e-6)
	}
	if by["Base"]["color"] != nil || by["Cap"]["color"] != nil {
		t.Errorf("%s: Base and Cap have no colour in the file, got %v and %v", what, by["Base"]["color"], by["Cap"]["color"])
	}
}

func TestSupplierStepKeepsLabelsVolumesAndColour(t *testing.T) {
	step := supplierStep(t)
	checkSupplierParts(t, "describe_step_file", call(t, freecad.ToolDescribeStepFile, map[string]any{"input_file": step}))

	imported := call(t, freecad.ToolImportStep, map[string]any{"input_file": step})
	checkSupplierParts(t, "import_step", imported)
	doc := imported["output_file"].(string)
	if !strings.HasSuffix(doc, "supplier.FCStd") {
		t.Errorf("output_file = %s, want supplier.FCStd in the call's folder", doc)
	}
	// The document it wrote has them too, read back by another process.
	checkSupplierParts(t, "describe of the .FCStd", call(t, freecad.ToolDescribeStepFile, map[string]any{"input_file": doc}))
	pin := call(t, freecad.ToolMeasure, map[string]any{"input_file": doc, "part": "Pin"})
	near(t, "measure Pin volume", num(t, pin, "volume_mm3"), pinVolume, 1e-3)
	for i, want := range []float64{50, 0, 10} { // the cylinder's centre
		near(t, "measure Pin centre of mass", num(t, pin, "center_of_mass", i), want, 1e-6)
	}
}

func TestMeasureDistanceBetweenParts(t *testing.T) {
	_, ws := setup(t)
	path := filepath.Join(ws.Root, "gap.step")
	// Two 10 mm cubes, the second 10 mm beyond the first along X.
	freecadScript(t, `
import FreeCAD, Part, Import
doc = FreeCAD.newDocument("gap")
a = doc.addObject("Part::Feature", "A"); a.Shape = Part.makeBox(10, 10, 10); a.Label = "Left"
b = doc.addObject("Part::Feature", "B"); b.Shape = Part.makeBox(10, 10, 10, FreeCAD.Vector(20, 0, 0)); b.Label = "Right"
doc.recompute()
Import.export([a, b], "`+path+`")
`)
	out := call(t, freecad.ToolMeasure, map[string]any{"input_file": path, "part": "Left", "to_part": "Right"})
	near(t, "distance_mm", num(t, out, "distance_mm"), 10, 1e-9)
	near(t, "Left volume", num(t, out, "volume_mm3"), 1000, 1e-9)
	whole := call(t, freecad.ToolMeasure, map[string]any{"input_file": path})
	near(t, "whole volume", num(t, whole, "volume_mm3"), 2000, 1e-9)
	bboxIs(t, "whole", whole["bounding_box"], [3]float64{0, 0, 0}, [3]float64{30, 10, 10})
	near(t, "whole centre of mass x", num(t, whole, "center_of_mass", 0), 15, 1e-9)

	_, err := try(t, freecad.ToolMeasure, map[string]any{"input_file": path, "part": "Middle"})
	mustFail(t, err, `part "Middle" is not a part of`, `"Left", "Right"`)
}

func cube(t *testing.T, side float64) string {
	t.Helper()
	out := call(t, freecad.ToolCreateParametric, map[string]any{"shape_type": "box",
		"parameters": map[string]any{"length": side, "width": side, "height": side}, "output_path": "cube.step"})
	return out["cad_file"].(string)
}

func TestBooleanOfTwoBoxes(t *testing.T) {
	a := cube(t, 20) // [-10, 10]^3
	moved := call(t, freecad.ToolTransformObject, map[string]any{"input_file": a, "translate": []float64{10, 0, 0}})
	b := moved["output_file"].(string) // [0, 20] x [-10, 10]^2
	for _, c := range []struct {
		op        string
		vol, area float64
		lo, hi    [3]float64
	}{
		{"union", 30 * 20 * 20, 2 * (30*20 + 30*20 + 20*20), [3]float64{-10, -10, -10}, [3]float64{20, 10, 10}},
		{"subtract", 10 * 20 * 20, 2 * (10*20 + 10*20 + 20*20), [3]float64{-10, -10, -10}, [3]float64{0, 10, 10}},
		{"intersect", 10 * 20 * 20, 2 * (10*20 + 10*20 + 20*20), [3]float64{0, -10, -10}, [3]float64{10, 10, 10}},
	} {
		out := call(t, freecad.ToolBooleanOperation, map[string]any{"input_file_a": a, "input_file_b": b, "operation": c.op})
		near(t, c.op+" volume", num(t, out, "result_volume"), c.vol, 1e-9)
		near(t, c.op+" area", num(t, out, "result_area"), c.area, 1e-9)
		bboxIs(t, c.op, out["bounding_box"], c.lo, c.hi)
		if out["solid_count"] != 1.0 || out["kernel"] != "freecad" || out["operation"] != c.op {
			t.Errorf("%s: solid_count %v, kernel %v, operation %v", c.op, out["solid_count"], out["kernel"], out["operation"])
		}
	}
}

func TestPropertiesOfACube(t *testing.T) {
	a := cube(t, 20)
	out := call(t, freecad.ToolGetProperties, map[string]any{"input_file": a, "material": "steel"})
	near(t, "volume", num(t, out, "volume"), 8000, 1e-9)
	near(t, "area", num(t, out, "area"), 2400, 1e-9)
	for i := range 3 {
		near(t, "center_of_mass", num(t, out, "center_of_mass", i), 0, 1e-9)
		// A cube of side s about its centre, unit density: V (s^2 + s^2) / 12.
		near(t, "inertia diagonal", num(t, out, "inertia", i, i), 8000*(400+400)/12.0, 1e-9)
	}
	near(t, "inertia off-diagonal", num(t, out, "inertia", 0, 1), 0, 1e-6)
	// Steel, 7850 kg/m^3 = 7.85e-6 kg/mm^3.
	near(t, "mass_kg", num(t, out, "mass_kg"), 8000*7.85e-6, 1e-9)
	if out["material"] != "steel" || out["kernel"] != "freecad" {
		t.Errorf("material %v, kernel %v", out["material"], out["kernel"])
	}
}

func TestExportEachFormat(t *testing.T) {
	a := cube(t, 20)
	step := call(t, freecad.ToolExportGeometry, map[string]any{"input_file": a, "output_format": "step", "output_path": "again.step"})
	if step["step_base64"] == "" || step["format"] != "step" || num(t, step, "file_size_bytes") <= 0 {
		t.Errorf("step export: %v", step)
	}
	near(t, "re-read STEP volume", num(t, call(t, freecad.ToolGetProperties, map[string]any{"input_file": step["output_file"]}), "volume"), 8000, 1e-9)

	brep := call(t, freecad.ToolExportGeometry, map[string]any{"input_file": a, "output_format": "brep"})
	near(t, "re-read BREP volume", num(t, call(t, freecad.ToolGetProperties, map[string]any{"input_file": brep["output_file"]}), "volume"), 8000, 1e-9)

	stl := call(t, freecad.ToolExportGeometry, map[string]any{"input_file": a, "output_format": "stl"})
	body, err := os.ReadFile(stl["output_file"].(string))
	if err != nil {
		t.Fatal(err)
	}
	triangles := int(binary.LittleEndian.Uint32(body[80:84]))
	if triangles < 12 || len(body) != 84+50*triangles {
		t.Fatalf("binary STL: %d triangles in %d bytes; a cube has at least 12, and the file 84 + 50 per triangle", triangles, len(body))
	}
	area := 0.0
	for i := range triangles {
		rec := body[84+50*i:]
		var v [3][3]float64
		for k := range 3 {
			for j := range 3 {
				v[k][j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(rec[12+12*k+4*j:])))
			}
		}
		u := [3]float64{v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]}
		w := [3]float64{v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2]}
		cx, cy, cz := u[1]*w[2]-u[2]*w[1], u[2]*w[0]-u[0]*w[2], u[0]*w[1]-u[1]*w[0]
		area += math.Sqrt(cx*cx+cy*cy+cz*cz) / 2
	}
	near(t, "STL area (flat faces triangulate exactly)", area, 2400, 1e-6)
	near(t, "STL re-measured volume", num(t, call(t, freecad.ToolGetProperties, map[string]any{"input_file": stl["output_file"]}), "volume"), 8000, 1e-6)

	obj := call(t, freecad.ToolExportGeometry, map[string]any{"input_file": a, "output_format": "obj", "tolerance": 0.05})
	text, err := os.ReadFile(obj["output_file"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(text), "\nf "); n < 12 {
		t.Errorf("OBJ has %d faces, want at least a cube's 12 triangles", n)
	}
}

func TestTransformRotatesThenTranslates(t *testing.T) {
	out := call(t, freecad.ToolCreateParametric, map[string]any{"shape_type": "box",
		"parameters": map[string]any{"length": 100, "width": 50, "height": 20}})
	moved := call(t, freecad.ToolTransformObject, map[string]any{"input_file": out["cad_file"],
		"rotate": map[string]any{"axis": []float64{0, 0, 1}, "angle_deg": 90}, "translate": []float64{10, 0, 0}})
	// [-50, 50] x [-25, 25] turned a quarter about Z is [-25, 25] x [-50, 50], then 10 along X.
	bboxIs(t, "transformed", moved["bounding_box"], [3]float64{-15, -50, -10}, [3]float64{35, 50, 10})
	near(t, "volume kept", num(t, moved, "volume_mm3"), 100*50*20, 1e-9)
	near(t, "placement angle", num(t, moved, "placement", "rotation", "angle_deg"), 90, 1e-9)
	near(t, "placement x", num(t, moved, "placement", "position", 0), 10, 1e-9)
	// The file written is where the result says: measured again.
	again := call(t, freecad.ToolMeasure, map[string]any{"input_file": moved["output_file"]})
	bboxIs(t, "re-measured", again["bounding_box"], [3]float64{-15, -50, -10}, [3]float64{35, 50, 10})

	// About a centre: a quarter turn about the Z axis through (50, 0, 0)
	// takes the box's centre from the origin to (50, -50, 0).
	turned := call(t, freecad.ToolTransformObject, map[string]any{"input_file": out["cad_file"],
		"rotate": map[string]any{"axis": []float64{0, 0, 1}, "angle_deg": 90, "center": []float64{50, 0, 0}}})
	bboxIs(t, "turned about (50, 0, 0)", turned["bounding_box"], [3]float64{25, -100, -10}, [3]float64{75, 0, 10})
}

func TestGenerateMeshBakesAndDelegatesToGmsh(t *testing.T) {
	a := cube(t, 20)
	for _, c := range []struct {
		order int
		typ   string
	}{{1, "C3D4"}, {2, "C3D10"}} {
		out := call(t, freecad.ToolGenerateMesh, map[string]any{"input_file": a, "element_order": c.order, "mesh_size_mm": 5})
		if out["element_type"] != c.typ || out["kernel"] != "freecad" || out["placement_baked"] != true {
			t.Errorf("order %d: element_type %v, kernel %v, placement_baked %v", c.order, out["element_type"], out["kernel"], out["placement_baked"])
		}
		if num(t, out, "nodes") <= 0 || num(t, out, "elements") <= 0 {
			t.Errorf("order %d: %v nodes, %v elements", c.order, out["nodes"], out["elements"])
		}
		if sets, _ := out["surface_sets"].(map[string]any); len(sets) != 6 {
			t.Errorf("order %d: a cube has 6 faces, surface_sets has %d", c.order, len(sets))
		}
		bboxIs(t, "mesh_bbox_mm", out["mesh_bbox_mm"], [3]float64{-10, -10, -10}, [3]float64{10, 10, 10})
		if num(t, out, "quality_metrics", "min_angle") <= 0 {
			t.Errorf("order %d: quality not measured: %v", c.order, out["quality_metrics"])
		}
		faces := call(t, freecad.ToolListNamedFaces, map[string]any{"mesh_file": out["mesh_file"]})
		if list, _ := faces["faces"].([]any); len(list) != 6 || faces["kernel"] != "freecad" {
			t.Errorf("list_named_faces: %d faces, kernel %v", len(list), faces["kernel"])
		}
	}
}

func mustFail(t *testing.T, err error, says ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want an error saying %q, got success", says)
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error does not say %q: %v", s, err)
		}
	}
}

// callFolders counts the call folders, to show a refused call wrote nothing.
func callFolders(t *testing.T, ws *workspace.Workspace) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(ws.Root, "calls"))
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

func TestBadArgumentsSayWhatToFix(t *testing.T) {
	a, ws := setup(t)
	box := cube(t, 10)
	before := callFolders(t, ws)
	direct := func(tool string, args map[string]any) error {
		raw, _ := json.Marshal(args)
		_, err := a.Call(ctx(t), tool, raw)
		return err
	}
	// The schema refuses them first, and Call again for a direct caller.
	_, err := try(t, freecad.ToolCreateParametric, map[string]any{"shape_type": "sphere"})
	mustFail(t, err, "shape_type")
	mustFail(t, direct(freecad.ToolCreateParametric, map[string]any{"shape_type": "sphere"}),
		`shape_type "sphere" is not one of box, bracket, cylinder, enclosure, plate`)
	mustFail(t, direct(freecad.ToolCreateParametric, map[string]any{"shape_type": "cylinder", "parameters": map[string]any{"diameter": 10, "bore_diameter": 12}}),
		"parameters.bore_diameter (12) must be less than parameters.diameter (10)")
	mustFail(t, direct(freecad.ToolGetProperties, map[string]any{"input_file": "nowhere/missing.step"}),
		`input_file "nowhere/missing.step" does not exist`)
	mustFail(t, direct(freecad.ToolDescribeStepFile, map[string]any{"input_file": "/etc/passwd"}),
		`input_file "/etc/passwd" is outside the allowed roots`)
	_, err = try(t, freecad.ToolExportGeometry, map[string]any{"input_file": box, "output_format": "amf"})
	mustFail(t, err, "output_format")
	mustFail(t, direct(freecad.ToolExportGeometry, map[string]any{"input_file": box, "output_format": "amf"}),
		`output_format "amf" is not one FreeCAD writes: use one of step, stl, obj, brep`)
	mustFail(t, direct(freecad.ToolExportGeometry, map[string]any{"input_file": box, "output_format": "step", "tolerance": 0.5}),
		"tolerance and angular_tolerance apply only to the mesh formats")
	mustFail(t, direct(freecad.ToolExportGeometry, map[string]any{"input_file": box, "output_format": "step", "output_path": "../escape.step"}),
		`output_path "../escape.step" must be a plain file name`)
	mustFail(t, direct(freecad.ToolImportStep, map[string]any{"input_file": box, "output_path": "x.step"}),
		`output_path "x.step" must end in .FCStd`)
	mustFail(t, direct(freecad.ToolTransformObject, map[string]any{"input_file": box}), "give rotate, translate or both")
	mustFail(t, direct(freecad.ToolTransformObject, map[string]any{"input_file": box, "rotate": map[string]any{"axis": []float64{0, 0, 0}, "angle_deg": 5}}),
		"rotate.axis [0 0 0] is the zero vector")
	mustFail(t, direct(freecad.ToolMeasure, map[string]any{"input_file": box, "to_part": "Pin"}), `to_part "Pin" needs part`)
	mustFail(t, direct("freecad.nothing", nil), `adapter freecad has no tool "freecad.nothing"`)

	// A STEP that names a file outside itself is refused before FreeCAD
	// would open that file.
	linked := filepath.Join(ws.Root, "linked.step")
	if err := os.WriteFile(linked, []byte("ISO-10303-21;\nDATA;\n#1 = DOCUMENT_FILE('/etc/passwd','/etc/passwd',$,#2,'',$);\nENDSEC;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustFail(t, direct(freecad.ToolDescribeStepFile, map[string]any{"input_file": linked}),
		`DOCUMENT_FILE names "/etc/passwd", a file outside the part for FreeCAD to read`)

	// A file FreeCAD cannot read is refused, and the call leaves nothing.
	junk := filepath.Join(ws.Root, "junk.step")
	if err := os.WriteFile(junk, []byte("not a STEP file"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustFail(t, direct(freecad.ToolExportGeometry, map[string]any{"input_file": junk, "output_format": "brep"}), "junk.step")
	if n := callFolders(t, ws); n != before {
		t.Errorf("refused calls left %d call folders behind", n-before)
	}
}

func TestHealthNamesFreeCAD(t *testing.T) {
	a, _ := setup(t)
	st, err := a.Health(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Version, "FreeCAD 0.") {
		t.Errorf("version %q does not name FreeCAD's", st.Version)
	}
	// The ten file-based tools, open and close, and the 15 ops of a
	// session's document.
	if want := 10 + 2 + len(freecad.SessionOps()); st.ToolsAvailable != want || want != 27 {
		t.Errorf("tools available: %d, want %d (27)", st.ToolsAvailable, want)
	}
}

func TestUnavailablePython(t *testing.T) {
	_, ws := setup(t)
	a := freecad.New(ws, freecad.Options{Python: "/nonexistent/python3"})
	_, err := a.Health(ctx(t))
	mustFail(t, err, "/nonexistent/python3", "freecad-python3")
}

// The same part from both kernels agrees in volume, area and bounding box
// to 0.1%, for every shape, and in mass for a material.
func TestShapesAgreeWithCadQuery(t *testing.T) {
	_, ws := setup(t)
	cq := cadquery.New(ws, cadquery.Options{})
	t.Cleanup(func() { _ = cq.Close() })
	for _, c := range []map[string]any{
		{"shape_type": "box", "parameters": map[string]any{"length": 100, "width": 50, "height": 20}, "material": "aluminium"},
		{"shape_type": "cylinder", "parameters": map[string]any{"diameter": 20, "height": 50, "bore_diameter": 8}},
		{"shape_type": "plate", "parameters": map[string]any{"hole_diameter": 6, "corner_radius": 5}},
		{"shape_type": "bracket", "parameters": map[string]any{"hole_diameter": 8}},
		{"shape_type": "enclosure"},
	} {
		fc := call(t, freecad.ToolCreateParametric, c)
		raw, _ := json.Marshal(c)
		res, err := cq.Call(ctx(t), cadquery.ToolCreateParametric, raw)
		if err != nil {
			t.Fatalf("cadquery: %v", err)
		}
		var want map[string]any
		if err := json.Unmarshal(res.Data, &want); err != nil {
			t.Fatal(err)
		}
		name := c["shape_type"].(string)
		near(t, name+" volume", num(t, fc, "volume_mm3"), num(t, want, "volume_mm3"), 1e-3)
		near(t, name+" area", num(t, fc, "surface_area_mm2"), num(t, want, "surface_area_mm2"), 1e-3)
		for _, k := range []string{"min", "max"} {
			for i := range 3 {
				near(t, name+" bbox "+k, num(t, fc, "bounding_box", k, i), num(t, want, "bounding_box", k, i), 1e-3)
			}
		}
		if c["material"] != nil {
			near(t, name+" mass_kg", num(t, fc, "mass_kg"), num(t, want, "mass_kg"), 1e-3)
		}
		for k := range want {
			if _, ok := fc[k]; !ok {
				t.Errorf("%s: cadquery's field %q is missing from freecad's result", name, k)
			}
		}
	}
	// And the closed forms of two: a 100 x 50 x 20 box and a tube.
	box := call(t, freecad.ToolCreateParametric, map[string]any{"shape_type": "box"})
	near(t, "box volume", num(t, box, "volume_mm3"), 100*50*20, 1e-9)
	near(t, "box area", num(t, box, "surface_area_mm2"), 2*(100*50+100*20+50*20), 1e-9)
	bboxIs(t, "box", box["bounding_box"], [3]float64{-50, -25, -10}, [3]float64{50, 25, 10})
	tube := call(t, freecad.ToolCreateParametric, map[string]any{"shape_type": "cylinder", "parameters": map[string]any{"bore_diameter": 8}})
	// D 20, d 8, h 50: pi/4 (D^2 - d^2) h; area 2 pi/4 (D^2 - d^2) + pi (D + d) h.
	near(t, "tube volume", num(t, tube, "volume_mm3"), math.Pi/4*(400-64)*50, 1e-9)
	near(t, "tube area", num(t, tube, "surface_area_mm2"), math.Pi/2*(400-64)+math.Pi*28*50, 1e-9)
}

// A FreeCAD part whose placement turns and moves it is meshed where the
// placement puts it: the placement is baked into the STEP gmsh meshes.
func TestGenerateMeshBakesAPlacement(t *testing.T) {
	_, ws := setup(t)
	doc := filepath.Join(ws.Root, "placed.FCStd")
	freecadScript(t, `
import FreeCAD, Part
doc = FreeCAD.newDocument("placed")
o = doc.addObject("Part::Feature", "Block")
o.Shape = Part.makeBox(10, 10, 10)
o.Placement = FreeCAD.Placement(FreeCAD.Vector(100, 0, 0), FreeCAD.Rotation(FreeCAD.Vector(0, 0, 1), 90))
doc.recompute()
doc.saveAs("`+doc+`")
`)
	// [0, 10]^3 turned a quarter about Z is [-10, 0] x [0, 10] x [0, 10], then 100 along X.
	lo, hi := [3]float64{90, 0, 0}, [3]float64{100, 10, 10}
	bboxIs(t, "measured", call(t, freecad.ToolMeasure, map[string]any{"input_file": doc})["bounding_box"], lo, hi)
	out := call(t, freecad.ToolGenerateMesh, map[string]any{"input_file": doc, "element_order": 1, "mesh_size_mm": 5})
	bboxIs(t, "mesh_bbox_mm", out["mesh_bbox_mm"], lo, hi)
	if out["placement_baked"] != true {
		t.Errorf("placement_baked = %v", out["placement_baked"])
	}
}
