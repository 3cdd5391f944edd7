package twin

import "testing"

func TestBoxSizeShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		size [3]float64
		unit string
		ok   bool
	}{
		{"size", map[string]any{"size": []any{100.0, 40.0, 30.0}}, [3]float64{100, 40, 30}, "mm", true},
		{"min max", map[string]any{"min": []any{-5.0, 0.0, 1.0}, "max": []any{5.0, 2.5, 4.0}}, [3]float64{10, 2.5, 3}, "mm", true},
		{"min max objects", map[string]any{"min": map[string]any{"x": 0.0, "y": 0.0, "z": 0.0}, "max": map[string]any{"x": 1.0, "y": 2.0, "z": 3.0}}, [3]float64{1, 2, 3}, "mm", true},
		{"xyz", map[string]any{"x": 1.0, "y": 2.0, "z": 3.0}, [3]float64{1, 2, 3}, "mm", true},
		{"xlen", map[string]any{"xlen": 1.0, "ylen": 2.0, "zlen": 3.0, "unit": "m"}, [3]float64{1, 2, 3}, "m", true},
		{"bare", []any{7.0, 8.0, 9.0}, [3]float64{7, 8, 9}, "mm", true},
		{"text", `{"size":[1,2,3]}`, [3]float64{1, 2, 3}, "mm", true},
		{"two axes", map[string]any{"size": []any{1.0, 2.0}}, [3]float64{}, "mm", false},
		{"not numbers", map[string]any{"size": []any{"a", 2.0, 3.0}}, [3]float64{}, "mm", false},
		{"inverted", map[string]any{"min": []any{5.0, 0.0, 0.0}, "max": []any{1.0, 1.0, 1.0}}, [3]float64{}, "mm", false},
		{"nothing", map[string]any{"volume": 3.0}, [3]float64{}, "mm", false},
		{"bad text", "100x40x30", [3]float64{}, "mm", false},
	} {
		size, unit, ok := boxSize(tc.in)
		if ok != tc.ok || (ok && (size != tc.size || unit != tc.unit)) {
			t.Errorf("%s: boxSize = %v %s %v, want %v %s %v", tc.name, size, unit, ok, tc.size, tc.unit, tc.ok)
		}
	}
}

func TestCadModelValueNotes(t *testing.T) {
	n := Node{ID: "n-1", Type: "cad_model", ItemKey: "CAD-A", Revision: 2, Properties: map[string]any{
		"bounding_box": "big", "mass_kg": "light", "wall_thickness_mm": 2.0, "min_wall_thickness_mm": nil, "material": "Steel"}}
	if _, ok, note := CadModelValue(n, "envelope_z"); ok || note != "a readable bounding_box on cad_model CAD-A@2 ({size:[x,y,z]}, {min:[x,y,z],max:[x,y,z]} or {x,y,z}, in mm)" {
		t.Errorf("unreadable box: ok %v, note %q", ok, note)
	}
	if _, ok, note := CadModelValue(n, "mass"); ok || note != "a numeric mass_kg on cad_model CAD-A@2 (it is light)" {
		t.Errorf("non-numeric mass: ok %v, note %q", ok, note)
	}
	if v, ok, _ := CadModelValue(n, "min_wall_thickness"); !ok || v.Value != 2 || v.From != "properties.wall_thickness_mm" {
		t.Errorf("thickness = %+v %v", v, ok)
	}
	if v, ok, _ := CadModelValue(n, "yield_strength"); !ok || v.Value != 250 || v.Unit != "MPa" {
		t.Errorf("steel yield = %+v %v", v, ok)
	}
	if _, ok, note := CadModelValue(n, "tip_deflection"); ok || note != "" {
		t.Errorf("a metric no cad_model gives: ok %v, note %q", ok, note)
	}
	n.Type = "decision"
	if _, ok, _ := CadModelValue(n, "yield_strength"); ok {
		t.Error("a decision gave a value")
	}
}
