package freecad

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Each op on real FreeCAD, its volume against a closed form.

func within(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s: volume %.4f, want %.4f within %.3g%%", what, got, want, rel*100)
	}
}

func volumeOf(out map[string]any) float64 { return out["volume_mm3"].(float64) }

func rect(x, y, w, h float64) map[string]any {
	return map[string]any{"type": "rectangle", "x": x, "y": y, "width": w, "height": h}
}

func circle(cx, cy, r float64) map[string]any {
	return map[string]any{"type": "circle", "cx": cx, "cy": cy, "r": r}
}

// block pads a 40 x 30 x 20 block from the XY plane, its corner at x0, y0.
func block(t *testing.T, d *Documents, s string, x0, y0 float64) {
	t.Helper()
	sk := apply(t, d, s, "create_sketch", map[string]any{"plane": "XY", "geometry": []any{rect(x0, y0, 40, 30)}})
	apply(t, d, s, "pad_sketch", map[string]any{"sketch": sk["obj_id"], "length": 20})
}

// faceAt names the face of feature whose centre lies at height z.
func faceAt(t *testing.T, d *Documents, s, feature string, z float64) string {
	t.Helper()
	out := apply(t, d, s, "execute_code", map[string]any{"code": "shape = doc.getObject('" + feature + "').Shape\n" +
		"result = ['Face%d' % (i + 1) for i, f in enumerate(shape.Faces) if abs(f.CenterOfMass.z - " + strconv.FormatFloat(z, 'g', -1, 64) + ") < 1e-6]"})
	faces := out["result"].([]any)
	if len(faces) != 1 {
		t.Fatalf("%s has %d faces at z = %v: %v", feature, len(faces), z, faces)
	}
	return faces[0].(string)
}

func TestRevolveLoftSweep(t *testing.T) {
	d := newDocs(t)

	// A 10 x 30 rectangle from x = 10 to 20 turned about the sketch's
	// vertical axis: a tube of radii 10 and 20, 30 tall:
	// pi (20^2 - 10^2) 30 = 9000 pi.
	open(t, d, "rev", "")
	sk := apply(t, d, "rev", "create_sketch", map[string]any{"plane": "XY", "geometry": []any{rect(10, 0, 10, 30)}})
	out := apply(t, d, "rev", "revolve_sketch", map[string]any{"sketch": sk["obj_id"], "axis": "V_Axis"})
	within(t, "revolve", volumeOf(out), 9000*math.Pi, 1e-3)

	// A ruled loft from a 20 x 20 square to a 10 x 10 one 30 above it: a
	// frustum of a pyramid, h/3 (A1 + A2 + sqrt(A1 A2)) = 10 (400 + 100 + 200) = 7000.
	open(t, d, "loft", "")
	a := apply(t, d, "loft", "create_sketch", map[string]any{"plane": "XY", "geometry": []any{rect(-10, -10, 20, 20)}})
	b := apply(t, d, "loft", "create_sketch", map[string]any{"plane": "XY", "offset": 30, "geometry": []any{rect(-5, -5, 10, 10)}})
	out = apply(t, d, "loft", "loft_sketches", map[string]any{"sketches": []any{a["obj_id"], b["obj_id"]}, "ruled": true})
	within(t, "loft", volumeOf(out), 7000, 1e-3)

	// A circle of radius 2 swept along a straight 50 mm path: pi 2^2 50 = 200 pi.
	open(t, d, "sweep", "")
	p := apply(t, d, "sweep", "create_sketch", map[string]any{"plane": "XY", "geometry": []any{circle(0, 0, 2)}})
	path := apply(t, d, "sweep", "create_sketch", map[string]any{"plane": "XZ", "geometry": []any{
		map[string]any{"type": "line", "x1": 0, "y1": 0, "x2": 0, "y2": 50}}})
	out = apply(t, d, "sweep", "sweep_sketch", map[string]any{"profile": p["obj_id"], "path": path["obj_id"]})
	within(t, "sweep", volumeOf(out), 200*math.Pi, 1e-3)
}

func TestShellChamferAndSketchOnAFace(t *testing.T) {
	d := newDocs(t)

	// The block hollowed with 2 mm walls, open at the top: the cavity is
	// (40-4) x (30-4) x (20-2) with sharp corners (an inward offset of a
	// convex box): 24000 - 36*26*18 = 24000 - 16848 = 7152.
	open(t, d, "shell", "")
	block(t, d, "shell", 0, 0)
	top := faceAt(t, d, "shell", "Pad", 20)
	out := apply(t, d, "shell", "shell_solid", map[string]any{"faces": []any{top}, "thickness": 2})
	within(t, "shell", volumeOf(out), 7152, 1e-3)

	// The top 4 edges chamfered by 2: at depth u below the top's chamfer
	// line the section loses 40*30 - (40-2u)(30-2u) = 140u - 4u^2, so
	// the chamfer takes the integral over 0..2: 70*4 - 4*8/3 = 269.333;
	// V = 24000 - 269.333 = 23730.667.
	open(t, d, "chamfer", "")
	block(t, d, "chamfer", 0, 0)
	out = apply(t, d, "chamfer", "chamfer", map[string]any{"selector": ">Z", "size": 2})
	if n := len(out["edges"].([]any)); n != 4 {
		t.Errorf(">Z picked %d edges, want the top face's 4", n)
	}
	within(t, "chamfer", volumeOf(out), 24000-(280-32.0/3), 1e-3)

	// A 10 mm boss of radius 2 padded from a sketch on the top face:
	// 24000 + pi 2^2 10 = 24000 + 40 pi.
	open(t, d, "face", "")
	block(t, d, "face", 0, 0)
	top = faceAt(t, d, "face", "Pad", 20)
	sk := apply(t, d, "face", "create_sketch", map[string]any{"face": map[string]any{"feature": "Pad", "face": top},
		"geometry": []any{circle(0, 0, 2)}})
	out = apply(t, d, "face", "pad_sketch", map[string]any{"sketch": sk["obj_id"], "length": 10})
	within(t, "pad on a face", volumeOf(out), 24000+40*math.Pi, 1e-3)
	desc := apply(t, d, "face", "describe_model", nil)
	if !strings.Contains(string(mustJSON(desc)), `"tip":"Pad001"`) {
		t.Errorf("the body's tip is not the boss Pad001: %s", mustJSON(desc))
	}
}

func TestPatterns(t *testing.T) {
	d := newDocs(t)

	// A hole of radius 2 at (5, 5) repeated 4 times over 30 mm along X
	// (x = 5, 15, 25, 35, all inside the 40 mm block): 24000 - 4 pi 2^2 20.
	open(t, d, "lin", "")
	block(t, d, "lin", 0, 0)
	h := apply(t, d, "lin", "create_sketch", map[string]any{"plane": "XY", "offset": 20, "geometry": []any{circle(5, 5, 2)}})
	pocket := apply(t, d, "lin", "pocket_sketch", map[string]any{"sketch": h["obj_id"], "through_all": true})
	out := apply(t, d, "lin", "linear_pattern", map[string]any{"features": []any{pocket["obj_id"]}, "direction": "X", "length": 30, "occurrences": 4})
	within(t, "linear pattern", volumeOf(out), 24000-4*math.Pi*4*20, 1e-3)

	// The block centred on the origin, a hole at (10, 0) repeated 4 times
	// about Z: (10,0), (0,10), (-10,0), (0,-10), all inside: the same volume.
	open(t, d, "polar", "")
	block(t, d, "polar", -20, -15)
	h = apply(t, d, "polar", "create_sketch", map[string]any{"plane": "XY", "offset": 20, "geometry": []any{circle(10, 0, 2)}})
	pocket = apply(t, d, "polar", "pocket_sketch", map[string]any{"sketch": h["obj_id"], "through_all": true})
	out = apply(t, d, "polar", "polar_pattern", map[string]any{"features": []any{pocket["obj_id"]}, "axis": "Z", "occurrences": 4})
	within(t, "polar pattern", volumeOf(out), 24000-4*math.Pi*4*20, 1e-3)
}

// A supplier's STEP opens with its parts' labels, and part_colors gives
// each part its own colour in an exported STEP.
func TestOpenASTEPKeepsLabels(t *testing.T) {
	d := newDocs(t)
	open(t, d, "make", "")
	apply(t, d, "make", "execute_code", map[string]any{"code": "" +
		"plate = doc.addObject('Part::Box', 'Plate'); plate.Label = 'Plate'; plate.Length, plate.Width, plate.Height = 10, 20, 5\n" +
		"pin = doc.addObject('Part::Cylinder', 'Pin'); pin.Label = 'Pin'; pin.Radius, pin.Height = 3, 10\n" +
		"pin.Placement.Base = App.Vector(50, 0, 0)\n"})
	path := filepath.Join(t.TempDir(), "supplier.step")
	apply(t, d, "make", "export_model", map[string]any{"path": path,
		"part_colors": map[string]any{"Plate": []any{1, 0, 0}, "Pin": []any{0, 0, 1}}})
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"COLOUR_RGB('',1.000000,0.000000,0.000000)", "COLOUR_RGB('',0.000000,0.000000,1.000000)"} {
		if !strings.Contains(string(text), c) {
			t.Errorf("the STEP has no %s", c)
		}
	}

	opened := open(t, d, "supplier", path)
	// Plate 10 x 20 x 5 = 1000; Pin pi 3^2 10 = 90 pi.
	want := map[string]float64{"Plate": 1000, "Pin": 90 * math.Pi}
	for _, o := range opened["objects"].([]any) {
		o := o.(map[string]any)
		if v, ok := want[o["label"].(string)]; ok {
			within(t, "imported "+o["label"].(string), o["volume_mm3"].(float64), v, 1e-6)
			delete(want, o["label"].(string))
		}
	}
	if len(want) > 0 {
		t.Errorf("the opened STEP lacks the labels %v: %s", want, mustJSON(opened))
	}
}
