package twin_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/twin/twintest"
)

// The committed geometry is a source of values: the head cad_model's
// bounding box, wall thickness, mass and material are held against the
// envelope, thickness, mass and material requirements, and a revision that
// outgrows the envelope fails it.
func TestConstraintViolationsReadTheCommittedGeometry(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	pid := c.call("project.create", map[string]any{"name": "Geometry Checks Bracket"})["project_id"].(string)
	c.call("twin.record_constraint_set", map[string]any{"project_id": pid, "name": "Bracket design", "constraints": []any{
		map[string]any{"name": "fits", "metric": "envelope_x", "operator": "<=", "limit": 120.0, "unit": "mm", "verification_method": "inspection"},
		map[string]any{"name": "narrow", "metric": "width", "operator": "<=", "limit": 5.0, "unit": "cm", "verification_method": "inspection"},
		map[string]any{"name": "thick walls", "metric": "wall_thickness", "operator": ">=", "limit": 3.0, "unit": "mm", "verification_method": "inspection"},
		map[string]any{"name": "strong material", "metric": "yield_strength", "operator": ">=", "limit": 200.0, "unit": "MPa", "verification_method": "analysis"},
		map[string]any{"name": "light", "metric": "mass", "operator": "<=", "limit": 0.2, "unit": "kg", "verification_method": "inspection"},
		map[string]any{"name": "stiff material", "metric": "youngs_modulus", "operator": ">=", "limit": 60.0, "unit": "GPa", "verification_method": "analysis"},
		map[string]any{"name": "tip", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "simulation"},
	}})
	props := func(bbox any) map[string]any {
		return map[string]any{"bounding_box": bbox, "thickness_mm": 4.0, "mass_kg": 0.1}
	}
	cad := c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Bracket", "step_base64": step("bracket 1"),
		"material": "aluminium_6061", "properties": props(map[string]any{"size": []any{100.0, 40.0, 30.0}})})
	if cad["item_ref"] != "CAD-BRACKET@1" {
		t.Fatalf("commit = %v", cad)
	}

	out := c.call("twin.constraint_violations", map[string]any{"project_id": pid})
	rows := twintest.RowsBy(t, out["requirements"], "requirement")
	want := map[string]struct {
		value    float64
		property string
	}{
		"fits":            {100, "properties.bounding_box x"},
		"narrow":          {4, "properties.bounding_box y"},
		"thick walls":     {4, "properties.thickness_mm"},
		"strong material": {276, "the yield strength of material aluminum_6061_t6 (materials table)"},
		"light":           {0.1, "properties.mass_kg"},
		"stiff material":  {68.9, "the Young's modulus of material aluminum_6061_t6 (materials table)"},
	}
	for name, w := range want {
		r := rows[name]
		src, _ := r["source"].(map[string]any)
		if r["status"] != "pass" || r["value"] != w.value || src["kind"] != "cad_model" || src["item_ref"] != "CAD-BRACKET@1" ||
			src["node_id"] != cad["node_id"] || src["property"] != w.property || !reflect.DeepEqual(r["cad_models"], []any{"CAD-BRACKET@1"}) {
			t.Errorf("%s = %v, want a pass on %v from CAD-BRACKET@1 (%s)", name, r, w.value, w.property)
		}
	}
	if src := rows["narrow"]["source"].(map[string]any); src["as_recorded"] != "40 mm" {
		t.Errorf("narrow as recorded = %v, want 40 mm", src["as_recorded"])
	}
	if r := rows["tip"]; r["status"] != "no_data" || strings.Contains(r["missing"].([]any)[0].(string), "cad_model") {
		t.Errorf("tip = %v: no cad_model gives a deflection", r)
	}
	if !reflect.DeepEqual(out["summary"], map[string]any{"requirements": 7.0, "pass": 6.0, "fail": 0.0, "no_data": 1.0, "stale": 0.0}) {
		t.Errorf("summary = %v", out["summary"])
	}

	// Revision 2 outgrows the envelope: the head is what is checked, and
	// it is never stale.
	c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Bracket", "step_base64": step("bracket 2"),
		"material": "aluminium_6061", "change_reason": "longer arm",
		"properties": props(map[string]any{"min": []any{-10.0, 0.0, 0.0}, "max": []any{120.5, 40.0, 30.0}})})
	out = c.call("twin.constraint_violations", map[string]any{"project_id": pid})
	rows = twintest.RowsBy(t, out["requirements"], "requirement")
	if r := rows["fits"]; r["status"] != "fail" || r["value"] != 130.5 || r["margin"] != -10.5 ||
		r["source"].(map[string]any)["item_ref"] != "CAD-BRACKET@2" {
		t.Errorf("fits after revision 2 = %v, want a fail at 130.5 mm from CAD-BRACKET@2", r)
	}
	if s := out["summary"].(map[string]any); s["fail"] != 1.0 || s["pass"] != 5.0 || s["stale"] != 0.0 {
		t.Errorf("summary after revision 2 = %v", s)
	}

	// An unknown material is named, and not compared; a mass from volume
	// and a known material stands in for a missing mass_kg.
	c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Bracket", "step_base64": step("bracket 3"),
		"material": "unobtainium", "properties": map[string]any{"bounding_box": map[string]any{"x": 100.0, "y": 40.0, "z": 30.0}, "thickness_mm": 4.0}})
	out = c.call("twin.constraint_violations", map[string]any{"project_id": pid})
	rows = twintest.RowsBy(t, out["requirements"], "requirement")
	r := rows["strong material"]
	missing, _ := r["missing"].([]any)
	if r["status"] != "no_data" || len(missing) != 2 || !strings.Contains(missing[0].(string), "a committed cad_model with a material from the materials table") ||
		!strings.HasPrefix(missing[1].(string), `a known material on cad_model CAD-BRACKET@3 (its material "unobtainium" is not in the materials table`) {
		t.Errorf("strong material with an unknown material = %v", r)
	}
	if r := rows["light"]; r["status"] != "no_data" || !strings.Contains(r["missing"].([]any)[0].(string),
		"or a committed cad_model with properties.mass_kg (or volume_mm3 and a known material)") {
		t.Errorf("light with no mass = %v", r)
	}
	if r := rows["fits"]; r["status"] != "pass" || r["value"] != 100.0 {
		t.Errorf("fits from {x,y,z} = %v", r)
	}

	// Every cad_model's head counts: a steel lid of 10 cm3 gives a mass
	// (volume x density) and a yield strength; the unknown material is
	// still named as not compared.
	c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Lid", "step_base64": step("lid 1"),
		"material": "steel", "properties": map[string]any{"volume_mm3": 10000.0}})
	out = c.call("twin.constraint_violations", map[string]any{"project_id": pid})
	rows = twintest.RowsBy(t, out["requirements"], "requirement")
	if r := rows["light"]; r["status"] != "pass" || r["value"] != 0.0785 || r["source"].(map[string]any)["item_ref"] != "CAD-LID@1" ||
		!strings.Contains(r["source"].(map[string]any)["property"].(string), "volume_mm3 x the density of material steel") {
		t.Errorf("light from the lid's volume = %v, want 0.0785 kg", r)
	}
	r = rows["strong material"]
	notes, _ := r["not_compared"].([]any)
	if r["status"] != "pass" || r["value"] != 250.0 || len(notes) != 1 || !strings.Contains(notes[0].(string), `"unobtainium"`) {
		t.Errorf("strong material with the lid = %v", r)
	}
}
