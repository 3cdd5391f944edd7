package twin_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func TestDecisionPinsWhatItDependsOn(t *testing.T) {
	s, be := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	p := c.call("project.create", map[string]any{"name": "Decisions Lever"})
	pid := p["project_id"].(string)
	c.call("twin.commit_geometry", map[string]any{"name": "Arm", "step_base64": step("a1")})
	c.call("twin.commit_geometry", map[string]any{"name": "Arm", "step_base64": step("a2")})
	cs := c.call("twin.record_constraint_set", map[string]any{"name": "Arm requirements", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"}}})
	if cs["item_ref"] != "CS-ARM-REQUIREMENTS@1" {
		t.Fatalf("constraint set = %v", cs)
	}

	dec := c.call("twin.record_decision", map[string]any{"name": "Use 6061", "decision": "machine the arm from 6061-T6",
		"rationale":    "meets CS-ARM-REQUIREMENTS@1 stiff at the lowest mass",
		"alternatives": []any{map[string]any{"option": "steel", "reason": "three times the mass"}, map[string]any{"option": "PLA", "reason": "creeps"}},
		"depends_on":   []any{"CAD-ARM@1", "CS-ARM-REQUIREMENTS", "CAD-ARM@1"}})
	if dec["item_ref"] != "DEC-USE-6061@1" || dec["project_id"] != pid {
		t.Fatalf("decision = %v", dec)
	}
	if got := strs(dec["depends_on"]); !reflect.DeepEqual(got, []string{"CAD-ARM@1", "CS-ARM-REQUIREMENTS@1"}) {
		t.Errorf("depends_on = %v, want CAD-ARM@1 as given, the bare CS pinned to its head @1, and the repeat once", got)
	}
	node := c.call("twin.get_node", map[string]any{"node_id": dec["node_id"]})
	props := node["node"].(map[string]any)["properties"].(map[string]any)
	alts := props["alternatives"].([]any)
	if props["decision"] != "machine the arm from 6061-T6" || len(alts) != 2 || alts[0].(map[string]any)["option"] != "steel" ||
		alts[0].(map[string]any)["reason"] != "three times the mass" {
		t.Errorf("decision properties = %v", props)
	}
	walk := c.call("twin.thread_for", map[string]any{"node_id": dec["node_id"], "depth": 1, "edge_types": []any{"DEPENDS_ON"}})
	edges := walk["edges"].([]any)
	if len(edges) != 2 {
		t.Fatalf("DEPENDS_ON edges = %v, want 2", edges)
	}
	var pinned []string
	for _, e := range edges {
		pinned = append(pinned, e.(map[string]any)["properties"].(map[string]any)["ref"].(string))
	}
	if !reflect.DeepEqual(pinned, []string{"CAD-ARM@1", "CS-ARM-REQUIREMENTS@1"}) {
		t.Errorf("edge refs = %v", pinned)
	}

	// Unknown revisions and items, and records, are errors that write nothing.
	if msg := c.refused("twin.record_decision", map[string]any{"name": "Use 6061", "decision": "x", "depends_on": []any{"CS-ARM-REQUIREMENTS", "CAD-ARM@7"}}); !strings.Contains(msg, "depends_on CAD-ARM@7") || !strings.Contains(msg, "CAD-ARM has no revision 7 (its head is CAD-ARM@2)") {
		t.Errorf("unknown revision = %q", msg)
	}
	if msg := c.refused("twin.record_decision", map[string]any{"name": "Other", "decision": "x", "depends_on": []any{"CAD-NOPE"}}); !strings.Contains(msg, "CAD-NOPE names no item") {
		t.Errorf("unknown item = %q", msg)
	}
	ev := c.call("twin.record_evidence", map[string]any{"name": "FEA", "kind": "simulation", "valid_against": []any{"CAD-ARM"}})
	if msg := c.refused("twin.record_decision", map[string]any{"name": "Other", "decision": "x", "depends_on": []any{ev["node_id"]}}); !strings.Contains(msg, "is a evidence record, not a revision of an item") {
		t.Errorf("record as depends_on = %q", msg)
	}
	decs, _ := be.mem.NodesByType(context.Background(), pid, "decision")
	if len(decs) != 1 {
		t.Fatalf("refused decisions wrote: %d decision nodes, want 1", len(decs))
	}

	// null is "not given"; the same name is the next revision.
	dec2 := c.call("twin.record_decision", map[string]any{"name": "Use 6061", "decision": "machine from 6061-T6, anodised",
		"depends_on": nil, "item_key": "DEC-USE-6061@1", "change_reason": "finish decided"})
	if dec2["item_ref"] != "DEC-USE-6061@2" || len(dec2["depends_on"].([]any)) != 0 {
		t.Errorf("second decision = %v", dec2)
	}
}
