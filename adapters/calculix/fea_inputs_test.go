package calculix

import (
	"errors"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/protocol"
)

// A modal run given a load says it ignored it, rather than leaving the
// caller to think the load changed the frequencies.
func TestModalSaysItIgnoresTheLoad(t *testing.T) {
	ws, mesh := barMesh(t)
	var r FEAResult
	if err := call(t, New(ws), ToolRunFEA, map[string]any{"mesh_file": mesh, "analysis_type": "modal", "material": "steel",
		"fixed_node_set": "Face1", "load_node_set": "Face2", "load_force_n": 1000, "num_modes": 1}, &r); err != nil {
		t.Fatal(err)
	}
	if !hasWarning(r.Warnings, "load_node_set and load_force_n ignored", "natural frequencies") || len(r.FrequenciesHz) != 1 {
		t.Errorf("modal with a load: warnings %q, frequencies %v", r.Warnings, r.FrequenciesHz)
	}
	// Without a load, no such warning; and C3D10 draws no locking warning.
	if err := call(t, New(ws), ToolRunFEA, map[string]any{"mesh_file": mesh, "analysis_type": "modal", "material": "steel",
		"fixed_node_set": "Face1", "num_modes": 1}, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("a plain modal run of a C3D10 bar: warnings %q", r.Warnings)
	}
}

// Sections asked where none can be cut are a clear error, and nothing runs.
func TestSectionDistancesBadInput(t *testing.T) {
	ws, m := fixtureMesh(t, "beam.step", 2, 5)
	for name, c := range map[string]struct {
		args map[string]any
		want []string
	}{
		"past the part":  {map[string]any{"section_distances_mm": []float64{20, 250}}, []string{"section_distances_mm[1] 250", "between 0 and 200"}},
		"at the support": {map[string]any{"section_distances_mm": []float64{0}}, []string{"section_distances_mm[0] 0"}},
		"modal":          {map[string]any{"analysis_type": "modal", "section_distances_mm": []float64{20}}, []string{"section_distances_mm is for static_stress"}},
	} {
		args := map[string]any{"mesh_file": m.path, "material": "aluminum_6061_t6", "fixed_node_set": m.fixed, "load_node_set": m.loaded, "load_force_n": 1}
		for k, v := range c.args {
			args[k] = v
		}
		err := call(t, New(ws), ToolRunFEA, args, nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams {
			t.Errorf("%s: want INVALID_PARAMS, got %v", name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", name, err, w)
			}
		}
	}
	// Two stations: the stress falls linearly to the tip, 6 P (L - x)/(b h^2).
	var r FEAResult
	if err := call(t, New(ws), ToolRunFEA, map[string]any{"mesh_file": m.path, "material": "aluminum_6061_t6", "fixed_node_set": m.fixed,
		"load_node_set": m.loaded, "load_force_n": beamP, "section_distances_mm": []float64{50, 150}}, &r); err != nil {
		t.Fatal(err)
	}
	for i, x := range []float64{50, 150} {
		s := r.SectionStress[i]
		if s.DistanceMM != x || s.Basis != "the distance the call asked for" || abs(s.LinearizedPeakMPa-beamSectionStress(x)) > 0.01*beamSectionStress(x) {
			t.Errorf("section at %g mm: %+v, want %.2f MPa within 1%%", x, s, beamSectionStress(x))
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
