package twin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestEngineeringEntities(t *testing.T) {
	s, be := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	p := c.call("project.create", map[string]any{"name": "Entities Phone Stand"})
	pid := p["project_id"].(string)
	c.call("twin.commit_geometry", map[string]any{"name": "Stand", "step_base64": step("s1")})

	in1 := c.call("twin.record_engineering_entity", map[string]any{"entity_type": "intent", "name": "Hold a phone", "description": "at reading angle"})
	in2 := c.call("twin.record_engineering_entity", map[string]any{"entity_type": "intent", "name": "Hold a phone", "description": "at 60 degrees",
		"change_reason": "angle fixed"})
	if in1["item_ref"] != "INT-HOLD-A-PHONE@1" || in2["item_ref"] != "INT-HOLD-A-PHONE@2" || in2["entity_type"] != "intent" {
		t.Fatalf("intents = %v, %v", in1, in2)
	}
	risk := c.call("twin.record_engineering_entity", map[string]any{"entity_type": "risk", "name": "Tips over", "parent_refs": []any{"INT-HOLD-A-PHONE"},
		"properties": map[string]any{"likelihood": "medium", "impact": "high"}})
	parents := risk["parent_refs"].([]any)
	if _, isItem := risk["item_ref"]; isItem || len(parents) != 1 || parents[0].(map[string]any)["ref"] != "INT-HOLD-A-PHONE@2" ||
		parents[0].(map[string]any)["edge"] != "RELATES_TO" {
		t.Fatalf("risk = %v", risk)
	}
	node := c.call("twin.get_node", map[string]any{"node_id": risk["node_id"]})
	if n := node["node"].(map[string]any); n["node_type"] != "risk" || n["properties"].(map[string]any)["impact"] != "high" {
		t.Errorf("risk node = %v", n)
	}
	rel := c.call("twin.record_engineering_entity", map[string]any{"entity_type": "release_approval", "name": "Release A",
		"parent_refs": []any{map[string]any{"ref": "CAD-STAND", "edge": "CONTAINS"}, map[string]any{"ref": in2["node_id"]}}})
	got := rel["parent_refs"].([]any)
	if len(got) != 2 || got[0].(map[string]any)["edge"] != "CONTAINS" || got[0].(map[string]any)["ref"] != "CAD-STAND@1" ||
		got[1].(map[string]any)["edge"] != "RELATES_TO" {
		t.Errorf("release parent_refs = %v", got)
	}

	if msg := c.refused("twin.record_engineering_entity", map[string]any{"entity_type": "risk", "name": "x", "item_key": "RISK-X"}); !strings.Contains(msg, "a risk is a record, not a revision of an item") {
		t.Errorf("item_key on a record = %q", msg)
	}
	if msg := c.refused("twin.record_engineering_entity", map[string]any{"entity_type": "budget", "name": "Mass", "properties": map[string]any{"metric": "mass", "unit": "kg"}}); !strings.Contains(msg, "a budget needs system_total") {
		t.Errorf("budget without a total = %q", msg)
	}
	if msg := c.refused("twin.record_engineering_entity", map[string]any{"entity_type": "risk", "name": "x", "parent_refs": []any{"OBJ-NOPE"}}); !strings.Contains(msg, "parent_refs OBJ-NOPE") {
		t.Errorf("unknown parent = %q", msg)
	}
	if risks, _ := be.mem.NodesByType(context.Background(), pid, "risk"); len(risks) != 1 {
		t.Errorf("%d risks stored, want 1", len(risks))
	}
	// A schema violation is a protocol error naming the field.
	_, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "twin.record_engineering_entity", Arguments: map[string]any{"entity_type": "wish", "name": "x"}})
	if err == nil || !strings.Contains(err.Error(), "entity_type") {
		t.Errorf("unknown entity_type = %v", err)
	}
}
