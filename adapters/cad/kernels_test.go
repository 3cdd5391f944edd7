package cad_test

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/metaforge/metaforge/adapters/cad"
)

// part is one shape with its dimensions and its closed forms: volume,
// area and the bounding box's half extents (every part is centred).
type part struct {
	shape  string
	params map[string]any
	volume float64
	area   float64
	half   [3]float64
}

// parts covers every shape_type cad.create_parametric offers; the test
// refuses a shape added to the schema without its closed form here.
var parts = []part{
	// 100 x 50 x 20 block.
	{shape: "box", params: map[string]any{"length": 100, "width": 50, "height": 20},
		volume: 100 * 50 * 20, area: 2 * (100*50 + 100*20 + 50*20), half: [3]float64{50, 25, 10}},
	// 100 x 60 x 5 plate with four 6 mm holes: V = L W t - 4 pi d^2/4 t;
	// A = 2 (L W - 4 pi d^2/4) + 2 (L + W) t + 4 pi d t.
	{shape: "plate", params: map[string]any{"length": 100, "width": 60, "thickness": 5, "hole_diameter": 6, "hole_margin": 10},
		volume: 100*60*5 - 4*math.Pi*9*5, area: 2*(100*60-4*math.Pi*9) + 2*(160)*5 + 4*math.Pi*6*5, half: [3]float64{50, 30, 2.5}},
	// Tube D 20, d 8, h 50: V = pi/4 (D^2 - d^2) h; A = 2 pi/4 (D^2 - d^2) + pi (D + d) h.
	{shape: "cylinder", params: map[string]any{"diameter": 20, "height": 50, "bore_diameter": 8},
		volume: math.Pi / 4 * (400 - 64) * 50, area: math.Pi/2*(400-64) + math.Pi*28*50, half: [3]float64{10, 10, 25}},
	// Open box 100 x 60 x 40, walls and floor 2: V = L W H - (L-2w)(W-2w)(H-w);
	// A = outer sides 2(L+W)H + bottom L W + rim (L W - 96 x 56) + inner
	// walls 2(96 + 56)(H - w) + inner floor 96 x 56.
	{shape: "enclosure", params: map[string]any{"length": 100, "width": 60, "height": 40, "wall_thickness": 2},
		volume: 100*60*40 - 96*56*38, area: 2*(160)*40 + 6000 + (6000 - 96*56) + 2*(96+56)*38 + 96*56, half: [3]float64{50, 30, 20}},
	// L bracket: base 50 x 5 along X, upright 5 thick reaching 50 along Z,
	// 40 along Y, no holes. Profile area L t + t (H - t) = 475; its
	// perimeter is its bounding rectangle's, 2 (L + H) = 200. V = 475 x 40;
	// A = 2 x 475 + 200 x 40.
	{shape: "bracket", params: map[string]any{"length": 50, "width": 40, "height": 50, "thickness": 5, "hole_diameter": 0},
		volume: 475 * 40, area: 2*475 + 200*40, half: [3]float64{25, 20, 25}},
}

// The same part through cad.create_parametric on each kernel agrees in
// volume, area and bounding box to 0.1%, and each matches its closed
// form to 0.1% (a curved face is exact in both kernels' B-rep).
func TestSamePartOnBothKernels(t *testing.T) {
	reg, _ := catalog(t)
	m, _, _ := reg.Tool(cad.ToolCreateParametric)
	var schema struct {
		Properties struct {
			ShapeType struct {
				Enum []string `json:"enum"`
			} `json:"shape_type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(m.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	var tested []string
	for _, p := range parts {
		tested = append(tested, p.shape)
	}
	for _, s := range schema.Properties.ShapeType.Enum {
		if !slices.Contains(tested, s) {
			t.Errorf("shape_type %s has no part in this test", s)
		}
	}
	for _, p := range parts {
		t.Run(p.shape, func(t *testing.T) {
			byKernel := map[string]map[string]any{}
			for _, k := range cad.Kernels {
				out := mustRun(t, reg, cad.ToolCreateParametric, map[string]any{"shape_type": p.shape, "parameters": p.params, "kernel": k})
				if out["kernel"] != k {
					t.Errorf("kernel %s: the answer names kernel %v", k, out["kernel"])
				}
				byKernel[k] = out
				near(t, k+" volume vs closed form", num(t, out, "volume_mm3"), p.volume, 1e-3)
				near(t, k+" area vs closed form", num(t, out, "surface_area_mm2"), p.area, 1e-3)
				for i := range 3 {
					near(t, k+" bbox min vs closed form", num(t, out, "bounding_box", "min", i), -p.half[i], 1e-3)
					near(t, k+" bbox max vs closed form", num(t, out, "bounding_box", "max", i), p.half[i], 1e-3)
				}
			}
			cq, fc := byKernel[cad.KernelCadQuery], byKernel[cad.KernelFreeCAD]
			near(t, "freecad vs cadquery volume", num(t, fc, "volume_mm3"), num(t, cq, "volume_mm3"), 1e-3)
			near(t, "freecad vs cadquery area", num(t, fc, "surface_area_mm2"), num(t, cq, "surface_area_mm2"), 1e-3)
			for _, end := range []string{"min", "max"} {
				for i := range 3 {
					near(t, "freecad vs cadquery bbox "+end, num(t, fc, "bounding_box", end, i), num(t, cq, "bounding_box", end, i), 1e-3)
				}
			}
		})
	}
}
