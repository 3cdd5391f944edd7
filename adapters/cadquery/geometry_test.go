package cadquery_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/cadquery"
)

func TestCubeMinusThroughHole(t *testing.T) {
	a, _ := warm(t)
	cube := part(t, a, "box", map[string]float64{"length": 20, "width": 20, "height": 20})
	// Both parts are centred on the origin, so a 30 mm cylinder pierces
	// the cube's top and bottom faces.
	pin := part(t, a, "cylinder", map[string]float64{"diameter": 10, "height": 30})

	data, res := call(t, a, cadquery.ToolBooleanOperation, obj{"input_file_a": cube, "input_file_b": pin, "operation": "subtract", "output_path": "drilled"})
	want := 8000 - math.Pi*5*5*20
	near(t, "result_volume", num(t, data, "result_volume"), want, 1e-3) // 0.1%
	// Area: the cube's six faces less two holes, plus the hole's wall.
	near(t, "result_area", num(t, data, "result_area"), 6*400-2*math.Pi*25+math.Pi*10*20, 1e-3)
	if data["operation"] != "subtract" || num(t, data, "solid_count") != 1 {
		t.Errorf("operation %v, solid_count %v", data["operation"], data["solid_count"])
	}
	out := data["output_file"].(string)
	if !slices.Equal(res.OutputFiles, []string{out}) || !bytes.HasSuffix([]byte(out), []byte("/drilled.step")) {
		t.Errorf("output_file %s, OutputFiles %v: want drilled.step, listed", out, res.OutputFiles)
	}
	if body, err := os.ReadFile(out); err != nil || !bytes.HasPrefix(body, []byte("ISO-10303-21")) {
		t.Errorf("%s is not a STEP file: %v", out, err)
	}

	far := part(t, a, "box", map[string]float64{"length": 5, "width": 5, "height": 5})
	moved := assembled(t, a, []obj{{"name": "far", "file": far, "x": 100}})
	data, _ = call(t, a, cadquery.ToolBooleanOperation, obj{"input_file_a": cube, "input_file_b": moved, "operation": "intersect"})
	if num(t, data, "result_volume") != 0 || num(t, data, "solid_count") != 0 || data["bounding_box"] != nil {
		t.Errorf("an intersect of parts that do not meet: want volume 0, no solid, no bounding box; got %v", data)
	}
}

func TestPropertiesOfBox(t *testing.T) {
	a, _ := warm(t)
	box := part(t, a, "box", map[string]float64{"length": 100, "width": 10, "height": 10})
	data, res := call(t, a, cadquery.ToolGetProperties, obj{"input_file": box})
	const tol = 1e-9
	v := 100.0 * 10 * 10
	near(t, "volume", num(t, data, "volume"), v, tol)
	near(t, "area", num(t, data, "area"), 2*(100*10+100*10+10*10), tol)
	for i, want := range []float64{-50, -5, -5} {
		near(t, "bounding_box.min", num(t, data, "bounding_box", "min", i), want, tol)
		near(t, "bounding_box.max", num(t, data, "bounding_box", "max", i), -want, tol)
		near(t, "bounding_box.size", num(t, data, "bounding_box", "size", i), -2*want, tol)
		near(t, "center_of_mass", num(t, data, "center_of_mass", i), 0, tol)
	}
	// Unit density, about the centre of mass: Ixx = V(b^2+c^2)/12, ...
	diag := []float64{v * (10*10 + 10*10) / 12, v * (100*100 + 10*10) / 12, v * (100*100 + 10*10) / 12}
	for i := range 3 {
		for j := range 3 {
			if i == j {
				near(t, "inertia diagonal", num(t, data, "inertia", i, j), diag[i], tol)
			} else if got := num(t, data, "inertia", i, j); math.Abs(got) > tol*diag[0] {
				t.Errorf("inertia[%d][%d] = %g, want 0", i, j, got)
			}
		}
	}
	if _, ok := data["mass_kg"]; ok || len(res.OutputFiles) != 0 {
		t.Errorf("without a material: want no mass_kg and no files, got %v, %v", data, res.OutputFiles)
	}

	data, _ = call(t, a, cadquery.ToolGetProperties, obj{"input_file": box, "material": "steel"})
	near(t, "mass_kg", num(t, data, "mass_kg"), v*7850e-9, 1e-12)
	near(t, "inertia_kg_mm2[0][0]", num(t, data, "inertia_kg_mm2", 0, 0), diag[0]*7850e-9, 1e-12)

	// An L bracket's centre of mass is off its bounding box's centre: the
	// legs' areas weight their centroids, measured from the box's centre.
	bracket := part(t, a, "bracket", map[string]float64{"length": 50, "width": 40, "height": 50, "thickness": 5})
	data, _ = call(t, a, cadquery.ToolGetProperties, obj{"input_file": bracket})
	base, upright := 50.0*5, 5.0*45
	c := (base*25+upright*2.5)/(base+upright) - 25
	near(t, "bracket center_of_mass x", num(t, data, "center_of_mass", 0), c, 1e-9)
	near(t, "bracket center_of_mass y", num(t, data, "center_of_mass", 1), 0, 1e-9)
	near(t, "bracket center_of_mass z", num(t, data, "center_of_mass", 2), c, 1e-9)
	near(t, "bracket volume", num(t, data, "volume"), (base+upright)*40, 1e-9)
}

// An STL is measured as the solid its triangles enclose: a box's facets
// are its faces, so its figures are the box's, to rounding. A mesh that
// does not close encloses nothing and is refused.
func TestPropertiesOfSTL(t *testing.T) {
	a, ws := warm(t)
	box := part(t, a, "box", map[string]float64{"length": 40, "width": 20, "height": 10})
	exported, _ := call(t, a, cadquery.ToolExportGeometry, obj{"input_file": box, "output_format": "stl"})
	data, _ := call(t, a, cadquery.ToolGetProperties, obj{"input_file": exported["output_file"], "material": "aluminium_6061"})
	const tol = 1e-9 // relative: float rounding of the STL's single-precision corners, which are whole millimetres here
	near(t, "volume", num(t, data, "volume"), 40*20*10, tol)
	near(t, "area", num(t, data, "area"), 2*(40*20+40*10+20*10), tol)
	for i, half := range []float64{20, 10, 5} {
		near(t, "bounding_box.size", num(t, data, "bounding_box", "size", i), 2*half, tol)
		if c := num(t, data, "center_of_mass", i); math.Abs(c) > 1e-9 {
			t.Errorf("center_of_mass[%d] = %g, want 0", i, c)
		}
	}
	// Aluminium 6061, 2700 kg/m^3 = 2.7e-6 kg/mm^3: 8000 mm^3 is 21.6 g.
	near(t, "mass_kg", num(t, data, "mass_kg"), 8000*2.7e-6, 1e-9)
	if num(t, data, "solid_count") != 1 {
		t.Errorf("solid_count = %v, want 1", data["solid_count"])
	}

	// One triangle: every edge is free.
	open := make([]byte, 84+50)
	binary.LittleEndian.PutUint32(open[80:], 1)
	for i, v := range []float32{0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 10, 0} {
		binary.LittleEndian.PutUint32(open[84+4*i:], math.Float32bits(v))
	}
	path := filepath.Join(ws.Root, "open.stl")
	if err := os.MkdirAll(ws.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, open, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(a, cadquery.ToolGetProperties, obj{"input_file": path}); err == nil || !strings.Contains(err.Error(), "is an open mesh: 3 triangle edges") {
		t.Errorf("an open STL = %v, want it refused as an open mesh", err)
	}
	mesh := filepath.Join(ws.Root, "mesh.obj")
	if err := os.WriteFile(mesh, []byte("v 0 0 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(a, cadquery.ToolGetProperties, obj{"input_file": mesh}); err == nil || !strings.Contains(err.Error(), "is not a STEP (.step, .stp), BREP (.brep, .brp) or STL (.stl) file") {
		t.Errorf("an .obj = %v, want it refused naming the formats measured", err)
	}
}

func TestParametricMass(t *testing.T) {
	a, _ := warm(t)
	data, _ := call(t, a, cadquery.ToolCreateParametric, obj{"shape_type": "enclosure", "material": "steel"})
	// The defaults: 100 x 60 x 40 outside, 2 mm walls and floor.
	v := 100.0*60*40 - 96*56*38
	near(t, "volume_mm3", num(t, data, "volume_mm3"), v, 1e-9)
	near(t, "mass_kg", num(t, data, "mass_kg"), num(t, data, "volume_mm3")*7850e-9, 1e-12)
	if data["material"] != "steel" || num(t, data, "parameters_used", "wall_thickness") != 2 {
		t.Errorf("material %v, parameters_used %v", data["material"], data["parameters_used"])
	}

	data, _ = call(t, a, cadquery.ToolCreateParametric, obj{"shape_type": "plate", "parameters": obj{"hole_diameter": 6}})
	for _, key := range []string{"mass_kg", "material"} {
		if _, ok := data[key]; ok {
			t.Errorf("without a material the result has %s: %v", key, data)
		}
	}
	near(t, "plate volume", num(t, data, "volume_mm3"), 100*60*5-4*math.Pi*9*5, 1e-6)
}

// assembled places parts and returns the assembly's STEP file.
func assembled(t *testing.T, a *cadquery.Adapter, parts []obj) string {
	t.Helper()
	data, _ := call(t, a, cadquery.ToolCreateAssembly, obj{"parts": parts})
	return data["output_file"].(string)
}

func TestAssemblyInterference(t *testing.T) {
	a, _ := warm(t)
	cube := part(t, a, "box", map[string]float64{"length": 10, "width": 10, "height": 10})

	data, res := call(t, a, cadquery.ToolCreateAssembly, obj{
		"parts":    []obj{{"name": "left", "file": cube}, {"name": "right", "file": cube, "x": 5}},
		"material": "aluminum",
	})
	found := data["interferences"].([]any)
	if len(found) != 1 || data["interference_check_passed"] != false {
		t.Fatalf("two cubes overlapping by 5 mm: want one interference, got %v", data)
	}
	pair := found[0].(map[string]any)
	if pair["part_a"] != "left" || pair["part_b"] != "right" {
		t.Errorf("interference between %v and %v, want left and right", pair["part_a"], pair["part_b"])
	}
	near(t, "interference volume_mm3", num(t, pair, "volume_mm3"), 5*10*10, 1e-6)
	near(t, "volume_mm3", num(t, data, "volume_mm3"), 2000, 1e-9)
	near(t, "mass_kg", num(t, data, "mass_kg"), 2000*2700e-9, 1e-12)
	near(t, "bounding_box.size x", num(t, data, "bounding_box", "size", 0), 15, 1e-9)
	if num(t, data, "part_count") != 2 || len(res.OutputFiles) != 1 || res.OutputFiles[0] != data["output_file"] {
		t.Errorf("part_count %v, OutputFiles %v", data["part_count"], res.OutputFiles)
	}

	for _, x := range []float64{20, 10} { // apart, and faces touching
		data, _ = call(t, a, cadquery.ToolCreateAssembly, obj{
			"parts": []obj{{"name": "left", "file": cube}, {"name": "right", "file": cube, "x": x}},
		})
		if data["interference_check_passed"] != true || len(data["interferences"].([]any)) != 0 {
			t.Errorf("cubes at x=0 and x=%g: want no interference, got %v", x, data["interferences"])
		}
		if _, ok := data["mass_kg"]; ok {
			t.Errorf("without a material the result has mass_kg")
		}
	}

	// A 20 x 10 x 10 bar turned 90 degrees about Z lies along Y.
	bar := part(t, a, "box", map[string]float64{"length": 20, "width": 10, "height": 10})
	data, _ = call(t, a, cadquery.ToolCreateAssembly, obj{"parts": []obj{{"name": "bar", "file": bar, "rz": 90, "z": 7}}})
	placed := data["parts"].([]any)[0]
	for i, want := range []float64{10, 20, 10} {
		near(t, "turned bar size", num(t, placed, "bounding_box", "size", i), want, 1e-9)
	}
	near(t, "turned bar min z", num(t, placed, "bounding_box", "min", 2), 2, 1e-9)
	// X first, then Z: rx=90 turns a 20 x 10 x 4 slab's 10 mm from Y to Z
	// (20, 4, 10), then rz=90 its 20 mm from X to Y (4, 20, 10). Z first
	// would give (10, 4, 20).
	slab := part(t, a, "box", map[string]float64{"length": 20, "width": 10, "height": 4})
	data, _ = call(t, a, cadquery.ToolCreateAssembly, obj{"parts": []obj{{"name": "slab", "file": slab, "rx": 90, "rz": 90}}})
	placed = data["parts"].([]any)[0]
	for i, want := range []float64{4, 20, 10} {
		near(t, "rx then rz size", num(t, placed, "bounding_box", "size", i), want, 1e-9)
	}
}

func TestExportEveryFormat(t *testing.T) {
	a, _ := warm(t)
	cyl := part(t, a, "cylinder", map[string]float64{"diameter": 20, "height": 10})
	signature := map[string]func([]byte) bool{
		"step": func(b []byte) bool { return bytes.HasPrefix(b, []byte("ISO-10303-21")) },
		"brep": func(b []byte) bool { return bytes.Contains(b[:min(len(b), 200)], []byte("DBRep_DrawableShape")) },
		"stl": func(b []byte) bool { // binary: 80-byte header, triangle count, 50 bytes a triangle
			return len(b) > 84 && len(b) == 84+50*int(binary.LittleEndian.Uint32(b[80:84]))
		},
		"obj": func(b []byte) bool { return bytes.Contains(b, []byte("\nv ")) && bytes.Contains(b, []byte("\nf ")) },
		"amf": func(b []byte) bool { return bytes.Contains(b, []byte("<amf")) },
		"svg": func(b []byte) bool { return bytes.Contains(b, []byte("<svg")) },
		"glb": func(b []byte) bool { return bytes.HasPrefix(b, []byte("glTF")) },
	}
	for format, ok := range signature {
		t.Run(format, func(t *testing.T) {
			args := obj{"input_file": cyl, "output_format": format}
			if format == "stl" || format == "glb" || format == "obj" {
				args["tolerance"], args["angular_tolerance"] = 0.05, 0.2
			}
			data, res := call(t, a, cadquery.ToolExportGeometry, args)
			out := data["output_file"].(string)
			body, err := os.ReadFile(out)
			if err != nil || len(body) == 0 {
				t.Fatalf("%s: %v, %d bytes", out, err, len(body))
			}
			if !ok(body) {
				t.Errorf("%s does not carry the %s signature: %q", out, format, body[:min(len(body), 80)])
			}
			if num(t, data, "file_size_bytes") != float64(len(body)) || data["format"] != format {
				t.Errorf("file_size_bytes %v, format %v; the file has %d bytes", data["file_size_bytes"], data["format"], len(body))
			}
			if len(res.OutputFiles) != 1 || res.OutputFiles[0] != out {
				t.Errorf("OutputFiles %v, want [%s]", res.OutputFiles, out)
			}
			b64, has := data["step_base64"].(string)
			if format != "step" {
				if has {
					t.Errorf("step_base64 on a %s export", format)
				}
				return
			}
			if decoded, err := base64.StdEncoding.DecodeString(b64); err != nil || !bytes.Equal(decoded, body) {
				t.Errorf("step_base64 does not decode to the file's bytes (%v)", err)
			}
		})
	}
}
