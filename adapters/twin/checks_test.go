package twin_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/twin/twintest"
)

// Every requirement in the current constraint sets gets a status from what
// is recorded: pass, fail, stale or no_data, and no_data is not a pass.
func TestConstraintViolationsPassFailStaleNoData(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	pid := c.call("project.create", map[string]any{"name": "Gripper Checks"})["project_id"].(string)
	arm := c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Arm", "step_base64": step("arm 1")})
	c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Cover", "step_base64": step("cover 1")})
	if arm["item_ref"] != "CAD-ARM@1" {
		t.Fatalf("arm = %v", arm)
	}
	reqs := c.call("twin.record_constraint_set", map[string]any{"project_id": pid, "name": "Arm requirements", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"},
		map[string]any{"name": "strong", "metric": "max_von_mises", "operator": "<=", "limit": 200.0, "unit": "MPa", "verification_method": "simulation"},
		map[string]any{"name": "light", "metric": "mass", "operator": "<=", "limit": 1.2, "unit": "kg", "verification_method": "inspection"},
		map[string]any{"name": "no resonance", "metric": "first_mode_frequency", "operator": ">=", "limit": 50.0, "unit": "Hz", "verification_method": "analysis"},
		map[string]any{"name": "cool", "metric": "max_temperature", "operator": "<=", "limit": 85.0, "unit": "°C", "verification_method": "test"},
		map[string]any{"name": "looks nice", "description": "an industrial designer likes it"},
		map[string]any{"name": "iq", "metric": "quiescent_current", "operator": "<=", "limit": 50.0, "unit": "uA", "verification_method": "inspection"},
	}})
	other := c.call("twin.record_constraint_set", map[string]any{"project_id": pid, "name": "Coarse requirements", "constraints": []any{
		map[string]any{"name": "coarse", "metric": "tip_deflection", "operator": "<=", "limit": 2.0, "unit": "mm", "verification_method": "analysis"},
	}})

	// stiff: 0.31 mm against the current arm, for the arm requirements only.
	stiff := c.call("twin.record_evidence", map[string]any{"project_id": pid, "name": "FEA deflection", "kind": "simulation",
		"metric": "tip_deflection", "value": 0.31, "unit": "mm", "valid_against": []any{"CAD-ARM@1"}, "verifies": []any{reqs["item_ref"]}})
	// coarse: 0.9 mm, verifying the coarse set only; it would fail stiff.
	coarse := c.call("twin.record_evidence", map[string]any{"project_id": pid, "name": "Hand calc deflection", "kind": "calculation",
		"metric": "Tip Deflection", "value": 900.0, "unit": "um", "valid_against": []any{"CAD-ARM"}, "verifies": []any{other["item_ref"]}})
	// strong: 250 MPa, recorded in Pa.
	strong := c.call("twin.record_evidence", map[string]any{"project_id": pid, "name": "FEA stress", "kind": "simulation",
		"metric": "max_von_mises", "value": 2.5e8, "unit": "Pa", "valid_against": []any{"CAD-ARM@1"}})
	// light: weighed against cover @1, which then gets a revision 2.
	light := c.call("twin.record_evidence", map[string]any{"project_id": pid, "name": "Weighing", "kind": "test",
		"metric": "mass", "value": 900.0, "unit": "g", "valid_against": []any{"CAD-COVER@1"}})
	c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Cover", "step_base64": step("cover 2"), "change_reason": "vents"})
	// cool: a value without a unit is not compared.
	cool := c.call("twin.record_evidence", map[string]any{"project_id": pid, "name": "Thermal test", "kind": "test",
		"metric": "max_temperature", "value": 70.0, "valid_against": []any{"CAD-ARM@1"}})
	// iq: from the chosen part's datasheet.
	c.call("twin.record_component_selection", map[string]any{"project_id": pid, "name": "Sensor LDO", "mpn": "TPS7A02",
		"specs": map[string]any{"quiescent_current": "75 uA"}})

	out := c.call("twin.constraint_violations", map[string]any{"project_id": pid})
	if !reflect.DeepEqual(out["summary"], map[string]any{"requirements": 8.0, "pass": 2.0, "fail": 2.0, "no_data": 3.0, "stale": 1.0}) {
		t.Errorf("summary = %v", out["summary"])
	}
	if out["all_pass"] != false || !reflect.DeepEqual(out["checked_against"], []any{"CS-ARM-REQUIREMENTS@1", "CS-COARSE-REQUIREMENTS@1"}) {
		t.Errorf("all_pass = %v, checked_against = %v", out["all_pass"], out["checked_against"])
	}
	rows := twintest.RowsBy(t, out["requirements"], "requirement")
	status := map[string]string{}
	for name, r := range rows {
		status[name] = r["status"].(string)
	}
	if !reflect.DeepEqual(status, map[string]string{"stiff": "pass", "coarse": "pass", "strong": "fail", "iq": "fail", "light": "stale",
		"no resonance": "no_data", "cool": "no_data", "looks nice": "no_data"}) {
		t.Errorf("statuses = %v", status)
	}

	if r := rows["stiff"]; r["value"] != 0.31 || r["margin"] != 0.19 || r["margin_pct"] != 38.0 || r["satisfied"] != true ||
		!reflect.DeepEqual(r["evidence"], []any{stiff["node_id"]}) || r["constraint_set"] != "CS-ARM-REQUIREMENTS@1" || r["unit"] != "mm" {
		t.Errorf("stiff = %v, want 0.31 mm from its own evidence only (margin 0.19, 38%%)", r)
	}
	if r := rows["coarse"]; r["value"] != 0.9 || r["margin"] != 1.1 || !reflect.DeepEqual(r["evidence"], []any{coarse["node_id"]}) ||
		r["source"].(map[string]any)["as_recorded"] != "900 um" {
		t.Errorf("coarse = %v, want 0.9 mm (900 um) from the evidence that verifies its set", r)
	}
	if r := rows["strong"]; r["value"] != 250.0 || r["margin"] != -50.0 || r["margin_pct"] != -25.0 || r["satisfied"] != false ||
		!reflect.DeepEqual(r["evidence"], []any{strong["node_id"]}) {
		t.Errorf("strong = %v, want 250 MPa, margin -50", r)
	}
	if r := rows["iq"]; r["value"] != 75.0 || r["margin"] != -25.0 || !reflect.DeepEqual(r["selections"], []any{"BOM-SENSOR-LDO@1"}) ||
		r["source"].(map[string]any)["kind"] != "component_selection" {
		t.Errorf("iq = %v, want 75 uA from BOM-SENSOR-LDO@1", r)
	}
	r := rows["light"]
	staleEv := r["stale_evidence"].([]any)[0].(map[string]any)
	against := staleEv["stale_against"].([]any)[0].(map[string]any)
	if r["value"] != 0.9 || staleEv["node_id"] != light["node_id"] || against["pinned"] != "CAD-COVER@1" || against["head"] != "CAD-COVER@2" ||
		!strings.Contains(r["detail"].(string), "rerun it against the current revision") {
		t.Errorf("light = %v, want stale: 0.9 kg against CAD-COVER@1, head @2", r)
	}
	if r := rows["no resonance"]; !reflect.DeepEqual(r["missing"], []any{
		"evidence with metric first_mode_frequency and a value in Hz (or a component selection with a first_mode_frequency spec)"}) || r["value"] != nil {
		t.Errorf("no resonance = %v", r)
	}
	if m := rows["cool"]["missing"].([]any); len(m) != 2 || m[1] != "a unit on evidence "+cool["node_id"].(string)+" (its value 70 cannot be compared to a limit in °C)" {
		t.Errorf("cool missing = %v", m)
	}
	if r := rows["looks nice"]; !reflect.DeepEqual(r["missing"], []any{"metric", "operator (one of <=, <, >=, >, ==)", "limit", "unit"}) || r["limit"] != nil {
		t.Errorf("looks nice = %v", r)
	}
	var violations []string
	for _, v := range out["violations"].([]any) {
		violations = append(violations, v.(map[string]any)["requirement"].(string))
	}
	if !reflect.DeepEqual(violations, []string{"strong", "iq"}) {
		t.Errorf("violations = %v, want strong and iq", violations)
	}
}

func TestConstraintViolationsNeedSomethingToPass(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	pid := c.call("project.create", map[string]any{"name": "Empty Checks"})["project_id"].(string)
	out := c.call("twin.constraint_violations", map[string]any{"project_id": pid})
	if out["all_pass"] != false || !strings.Contains(out["note"].(string), "nothing passed") ||
		!reflect.DeepEqual(out["summary"], map[string]any{"requirements": 0.0, "pass": 0.0, "fail": 0.0, "no_data": 0.0, "stale": 0.0}) {
		t.Errorf("empty project = %v", out)
	}
	c.call("twin.record_constraint_set", map[string]any{"project_id": pid, "name": "Only one", "constraints": []any{
		map[string]any{"name": "light", "metric": "mass", "operator": "<=", "limit": 1.0, "unit": "kg", "verification_method": "inspection"}}})
	c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Plate", "step_base64": step("plate")})
	c.call("twin.record_evidence", map[string]any{"project_id": pid, "name": "CAD mass", "kind": "analysis", "metric": "mass",
		"value": 1.0, "unit": "kg", "valid_against": []any{"CAD-PLATE@1"}})
	out = c.call("twin.constraint_violations", map[string]any{"project_id": pid})
	row := out["requirements"].([]any)[0].(map[string]any)
	if out["all_pass"] != true || row["status"] != "pass" || row["margin"] != 0.0 || row["margin_pct"] != 0.0 {
		t.Errorf("mass exactly at its limit = %v, want a pass with margin 0", out)
	}
}
