package twin_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/twin/twintest"
	"github.com/metaforge/metaforge/twin"
)

// The worked example of a component selection: the TPS62840 chosen for a rail that needs
// quiescent current <= 50 uA has 75 uA. The selection is still recorded,
// and says so. Around it, every way a requirement is held or not held.
func TestComponentSelectionHoldsSpecsAgainstRequirements(t *testing.T) {
	s, be := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	pid := c.call("project.create", map[string]any{"name": "Sensor Node Power"})["project_id"].(string)
	cs := c.call("twin.record_constraint_set", map[string]any{"project_id": pid, "name": "Power requirements", "constraints": []any{
		map[string]any{"name": "iq", "metric": "quiescent_current", "operator": "<=", "limit": 50.0, "unit": "uA", "target_node_type": "component", "verification_method": "inspection"},
		map[string]any{"name": "vout", "metric": "output_voltage", "operator": "<=", "limit": 3.6, "unit": "V", "verification_method": "test"},
		map[string]any{"name": "fsw", "metric": "switching_frequency", "operator": ">=", "limit": 1.0, "unit": "MHz", "verification_method": "inspection"},
		map[string]any{"name": "duty", "metric": "duty_cycle", "operator": "==", "limit": 100.0, "unit": "%", "verification_method": "inspection"},
		map[string]any{"name": "cost", "metric": "unit_cost", "operator": "<=", "limit": 1.5, "unit": "$", "verification_method": "inspection"},
		map[string]any{"name": "thin", "metric": "height", "operator": "<=", "limit": 1.0, "unit": "mm", "verification_method": "inspection"},
		map[string]any{"name": "low noise", "description": "quiet enough for the ADC", "target_node_type": "component"},
		map[string]any{"name": "ripple", "metric": "output_ripple", "operator": "<=", "limit": 10.0, "unit": "mV", "target_node_type": "bom", "verification_method": "test"},
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "target_node_type": "cad_model", "verification_method": "analysis"},
	}})
	if cs["item_ref"] != "CS-POWER-REQUIREMENTS@1" {
		t.Fatalf("constraint set = %v", cs)
	}

	sel := c.call("twin.record_component_selection", map[string]any{"project_id": pid, "name": "Main buck", "mpn": "TPS62840",
		"manufacturer": "Texas Instruments", "quantity": 2, "specs": map[string]any{
			"Quiescent Current":   "75 uA", // matches metric quiescent_current: case, spaces
			"output-voltage":      "3300 mV",
			"switching_frequency": 2,
			"duty_cycle":          map[string]any{"value": 100, "unit": "%"},
			"unit_cost":           "1.20 EUR",
			"height":              "see datasheet",
			"package":             "SOT-563",
		}})
	if sel["item_ref"] != "BOM-MAIN-BUCK@1" || sel["mpn"] != "TPS62840" || sel["quantity"] != float64(2) {
		t.Fatalf("selection = %v", sel)
	}
	if !reflect.DeepEqual(sel["violates"], []any{"iq"}) {
		t.Errorf("violates = %v, want [iq]", sel["violates"])
	}
	if !reflect.DeepEqual(sel["checked_against"], []any{"CS-POWER-REQUIREMENTS@1"}) {
		t.Errorf("checked_against = %v", sel["checked_against"])
	}
	margins := twintest.RowsBy(t, sel["requirement_margins"], "requirement")
	if len(margins) != 4 {
		t.Errorf("requirement_margins has %d rows, want iq, vout, fsw, duty: %v", len(margins), sel["requirement_margins"])
	}
	want := map[string]map[string]any{
		// The worked example, exactly.
		"iq": {"requirement": "iq", "constraint_set": "CS-POWER-REQUIREMENTS@1", "metric": "quiescent_current", "operator": "<=",
			"limit": 50.0, "unit": "uA", "spec": "Quiescent Current", "spec_value": 75.0, "satisfied": false, "margin": -25.0, "margin_pct": -50.0},
		// 3300 mV against a limit in V: converted, 0.3 V of slack.
		"vout": {"requirement": "vout", "constraint_set": "CS-POWER-REQUIREMENTS@1", "metric": "output_voltage", "operator": "<=",
			"limit": 3.6, "unit": "V", "spec": "output-voltage", "spec_value": 3.3, "spec_as_given": "3300 mV", "satisfied": true,
			"margin": 0.3, "margin_pct": 8.33333333333},
		// A bare 2 is read as 2 MHz, and flagged.
		"fsw": {"requirement": "fsw", "constraint_set": "CS-POWER-REQUIREMENTS@1", "metric": "switching_frequency", "operator": ">=",
			"limit": 1.0, "unit": "MHz", "spec": "switching_frequency", "spec_value": 2.0, "satisfied": true, "margin": 1.0,
			"margin_pct": 100.0, "unit_assumed": true},
		// == has no margin at all.
		"duty": {"requirement": "duty", "constraint_set": "CS-POWER-REQUIREMENTS@1", "metric": "duty_cycle", "operator": "==",
			"limit": 100.0, "unit": "%", "spec": "duty_cycle", "spec_value": 100.0, "satisfied": true},
	}
	for name, w := range want {
		if !reflect.DeepEqual(margins[name], w) {
			t.Errorf("margin %s =\n %v\nwant\n %v", name, margins[name], w)
		}
	}

	unchecked := twintest.RowsBy(t, sel["unchecked_requirements"], "requirement")
	if len(unchecked) != 4 {
		t.Errorf("unchecked_requirements has %d rows, want cost, thin, low noise, ripple (stiff targets a cad_model and names no spec): %v",
			len(unchecked), sel["unchecked_requirements"])
	}
	for name, reason := range map[string]string{"cost": "incompatible_units", "thin": "spec_not_numeric",
		"low noise": "requirement_not_bound", "ripple": "no_matching_spec"} {
		if unchecked[name]["reason"] != reason || unchecked[name]["constraint_set"] != "CS-POWER-REQUIREMENTS@1" {
			t.Errorf("unchecked %s = %v, want reason %s", name, unchecked[name], reason)
		}
	}
	if d := unchecked["cost"]["detail"].(string); !strings.Contains(d, "1.2 EUR") || !strings.Contains(d, "different currencies") {
		t.Errorf("cost detail = %q, want it to name the spec and the currencies", d)
	}
	if d := unchecked["thin"]["detail"].(string); !strings.Contains(d, `"see datasheet"`) {
		t.Errorf("thin detail = %q", d)
	}
	if !reflect.DeepEqual(unchecked["low noise"]["missing"], []any{"metric", "operator (one of <=, <, >=, >, ==)", "limit", "unit"}) {
		t.Errorf("low noise missing = %v", unchecked["low noise"]["missing"])
	}
	if d := unchecked["ripple"]["detail"].(string); !strings.Contains(d, "no spec is named output_ripple") {
		t.Errorf("ripple detail = %q", d)
	}
	if _, listed := unchecked["stiff"]; listed {
		t.Errorf("stiff (a cad_model requirement no spec names) is listed: %v", unchecked["stiff"])
	}

	// Recorded although it violates, with what it was checked against.
	ctx := context.Background()
	revs, err := be.mem.Revisions(ctx, pid, "BOM-MAIN-BUCK")
	if err != nil || len(revs) != 1 {
		t.Fatalf("revisions of BOM-MAIN-BUCK: %d, %v; want 1", len(revs), err)
	}
	props := revs[0].Properties
	if revs[0].Type != "component_selection" || props["mpn"] != "TPS62840" || props["manufacturer"] != "Texas Instruments" ||
		props["specs"].(map[string]any)["Quiescent Current"] != "75 uA" {
		t.Errorf("stored selection = %+v", revs[0])
	}
	check := props["requirement_check"].(map[string]any)
	if !reflect.DeepEqual(check["violates"], []string{"iq"}) || !reflect.DeepEqual(check["checked_against"], []string{"CS-POWER-REQUIREMENTS@1"}) {
		t.Errorf("stored requirement_check = %v", check)
	}
	edges, _ := be.mem.Neighbors(ctx, revs[0].ID, twin.Outgoing, twin.EdgeConstrains)
	if len(edges) != 1 || edges[0].Node.ID != cs["node_id"] || edges[0].Edge.Properties["ref"] != "CS-POWER-REQUIREMENTS@1" {
		t.Errorf("CONSTRAINED_BY edges = %+v, want one to the constraint set", edges)
	}

	// Choosing a better part for the same role is the next revision, and
	// now meets the requirement it violated.
	next := c.call("twin.record_component_selection", map[string]any{"project_id": pid, "name": "Main buck", "mpn": "TPS62843",
		"item_key": "BOM-MAIN-BUCK@1", "change_reason": "iq over budget", "specs": map[string]any{"quiescent_current": "60 nA"}})
	if next["item_ref"] != "BOM-MAIN-BUCK@2" || !reflect.DeepEqual(next["violates"], []any{}) {
		t.Fatalf("second selection = %v", next)
	}
	iq := twintest.RowsBy(t, next["requirement_margins"], "requirement")["iq"]
	if iq["spec_value"] != 0.06 || iq["margin"] != 49.94 || iq["margin_pct"] != 99.88 || iq["satisfied"] != true || iq["spec_as_given"] != "60 nA" {
		t.Errorf("iq with 60 nA = %v, want 0.06 uA, margin 49.94, 99.88%%", iq)
	}
}

// A refused selection says what to fix and writes nothing.
func TestComponentSelectionRefusalsWriteNothing(t *testing.T) {
	s, be := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	pid := c.call("project.create", map[string]any{"name": "Refused Selections"})["project_id"].(string)
	if msg := c.refused("twin.record_component_selection", map[string]any{"project_id": pid, "name": "LDO", "mpn": "TLV755",
		"specs": map[string]any{"Dropout": "200 mV", "dropout": "0.2 V"}}); !strings.Contains(msg, `specs "Dropout" and "dropout" name the same metric (dropout); keep one`) {
		t.Errorf("duplicate spec = %q", msg)
	}
	if msg := c.refused("twin.record_component_selection", map[string]any{"project_id": pid, "name": "LDO", "mpn": "TLV755",
		"for_item": "CAD-NOPE"}); !strings.Contains(msg, "for_item CAD-NOPE") || !strings.Contains(msg, "names no item") {
		t.Errorf("unknown for_item = %q", msg)
	}
	if msg := c.refused("twin.record_component_selection", map[string]any{"project_id": pid, "name": "LDO", "mpn": "   "}); !strings.Contains(msg, "mpn is blank") {
		t.Errorf("blank mpn = %q", msg)
	}
	items, err := be.mem.Items(context.Background(), pid)
	if err != nil || len(items) != 0 {
		t.Fatalf("refused selections wrote %d items (%v), want none", len(items), err)
	}
	// for_item links the part to what it is for.
	board := c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Sensor board", "step_base64": step("board")})
	sel := c.call("twin.record_component_selection", map[string]any{"project_id": pid, "name": "LDO", "mpn": "TLV755",
		"for_item": "CAD-SENSOR-BOARD"})
	if sel["for_item"] != "CAD-SENSOR-BOARD@1" || !reflect.DeepEqual(sel["checked_against"], []any{}) || !reflect.DeepEqual(sel["requirement_margins"], []any{}) {
		t.Errorf("selection for the board = %v", sel)
	}
	deps, _ := be.mem.Neighbors(context.Background(), sel["node_id"].(string), twin.Outgoing, twin.EdgeDependsOn)
	if len(deps) != 1 || deps[0].Node.ID != board["node_id"] || deps[0].Edge.Properties["as"] != "for_item" {
		t.Errorf("for_item edge = %+v", deps)
	}
}
