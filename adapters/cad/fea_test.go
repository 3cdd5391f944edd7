package cad_test

import (
	"math"
	"testing"

	"github.com/metaforge/metaforge/adapters/cad"
	"github.com/metaforge/metaforge/adapters/calculix"
)

// The cantilever of calculix's section tests (issue 20), made as a part
// by each kernel: a plate 200 x 20 x 5 mm (x from -100 to 100) of
// aluminium 6061-T6, E = 68.9 GPa from the materials table, clamped at
// x = -100 and loaded with P = 50 N along -z spread over the free end.
// Euler-Bernoulli, with b = 20, h = 5:
//
//	I = b h^3 / 12 = 208.33 mm^4
//	tip deflection = P L^3 / (3 E I) = 9.289 mm
//
// Meshed by cad.generate_mesh in quadratic tetrahedra (C3D10) at 2.5 mm,
// two elements through the thickness, which calculix's reference test
// finds within 3% of the beam's deflection; L / h = 40, so shear adds
// about 3 (h/L)^2 ~ 0.2% and the beam theory holds.
const (
	cantP, cantL, cantB, cantH = 50.0, 200.0, 20.0, 5.0
	cantE                      = 68900.0 // MPa
	cantTolerance              = 0.03
)

func TestCantileverFromBothKernelsMatchesBeamTheory(t *testing.T) {
	reg, _ := catalog(t)
	want := cantP * math.Pow(cantL, 3) / (3 * cantE * cantB * math.Pow(cantH, 3) / 12)
	for _, k := range cad.Kernels {
		t.Run(k, func(t *testing.T) {
			part := mustRun(t, reg, cad.ToolCreateParametric, map[string]any{"kernel": k, "shape_type": "plate",
				"parameters": map[string]any{"length": cantL, "width": cantB, "thickness": cantH}, "material": "aluminum_6061_t6",
				"output_path": "cantilever_" + k + ".step"})
			near(t, "plate volume", num(t, part, "volume_mm3"), cantL*cantB*cantH, 1e-3)
			mesh := mustRun(t, reg, cad.ToolGenerateMesh, map[string]any{"kernel": k, "input_file": part["cad_file"],
				"element_order": 2, "mesh_size_mm": 2.5, "output_name": "cantilever_" + k})
			if mesh["kernel"] != k || mesh["element_type"] != "C3D10" {
				t.Fatalf("mesh: kernel %v, element_type %v", mesh["kernel"], mesh["element_type"])
			}
			// freecad's member bakes placements into the STEP it meshes;
			// cadquery's (gmsh) meshes the STEP as it is.
			if baked := mesh["placement_baked"] == true; baked != (k == cad.KernelFreeCAD) {
				t.Errorf("%s: placement_baked %v", k, mesh["placement_baked"])
			}
			fixed, loaded := endFaces(t, mesh)
			fea := mustRun(t, reg, calculix.ToolRunFEA, map[string]any{"mesh_file": mesh["mesh_file"], "material": "aluminum_6061_t6",
				"fixed_node_set": fixed, "load_node_set": loaded, "load_force_n": cantP, "load_direction": []float64{0, 0, -1}})
			got := num(t, fea, "max_deflection_along_load_mm")
			t.Logf("%s: tip deflection %.4f mm (beam theory %.4f), %v C3D10 elements", k, got, want, fea["mesh_elements"])
			if math.Abs(got-want)/want > cantTolerance {
				t.Errorf("%s: tip deflection %.4f mm, want %.4f within %g%%", k, got, want, cantTolerance*100)
			}
		})
	}
}

// endFaces picks the clamped and loaded faces by position, as calculix's
// fixtures do: the face whose centroid has the smallest x, and the one
// with the largest. Each must be the whole end, 20 x 5 mm at x = -/+100.
func endFaces(t *testing.T, mesh map[string]any) (fixed, loaded string) {
	t.Helper()
	sets, _ := mesh["surface_sets"].(map[string]any)
	lo, hi := math.Inf(1), math.Inf(-1)
	for name := range sets {
		x := num(t, sets, name, "centroid_mm", 0)
		if x < lo {
			fixed, lo = name, x
		}
		if x > hi {
			loaded, hi = name, x
		}
	}
	near(t, "clamped face x", lo, -cantL/2, 1e-6)
	near(t, "loaded face x", hi, cantL/2, 1e-6)
	near(t, "clamped face area", num(t, sets, fixed, "area_mm2"), cantB*cantH, 1e-3)
	near(t, "loaded face area", num(t, sets, loaded, "area_mm2"), cantB*cantH, 1e-3)
	return fixed, loaded
}
