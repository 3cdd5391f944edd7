package twin_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/twin"
)

// An arm's joints through MCP, on the durable path: recorded on its
// assembly position, ordered into a bring-up checklist, turned into a
// firmware scaffold with a recorded pin mapping, and wired; a cyclic joint
// graph refused with nothing written.
func TestAssemblyToolsThroughMCP(t *testing.T) {
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mem := twin.NewMemoryStore()
	assemblyToolsThroughMCP(t, &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs})
}

func TestAssemblyToolsThroughMCPOnNeo4j(t *testing.T) {
	assemblyToolsThroughMCP(t, neo4jBackend(t, false))
}

func assemblyToolsThroughMCP(t *testing.T, be *twinadapter.Backend) {
	s := mcptest.StartWithTwin(t, be, twinadapter.New(be)...)
	c := client{t, s.ConnectHTTP(t, nil)}
	pid := c.call("project.create", map[string]any{"name": "Jointed Arm"})["project_id"].(string)

	// The arm: three joints listed out of order, anchors in each base's
	// frame (mm), each moving part drawing power.
	joint := func(name, typ, base, follower string, anchor []float64, lower, upper float64) map[string]any {
		return map[string]any{"name": name, "type": typ, "base": base, "follower": follower, "anchor_mm": anchor,
			"lower_limit": lower, "upper_limit": upper}
	}
	robot := c.call("twin.record_hierarchy_node", map[string]any{"project_id": pid, "name": "Robot", "level": "product"})
	arm := c.call("twin.record_hierarchy_node", map[string]any{"project_id": pid, "name": "Arm", "level": "assembly",
		"parent": robot["item_key"], "joints": []any{
			joint("elbow", "revolute", "upper_arm", "forearm", []float64{0, 0, 300}, -135, 135),
			joint("shoulder", "revolute", "base", "upper_arm", []float64{0, 0, 120}, -10, 100),
			joint("wrist", "revolute", "forearm", "hand", []float64{200, 0, 0}, -90, 90),
		}})
	for _, p := range []struct {
		name      string
		peak, avg float64
	}{{"base", 0, 0}, {"upper_arm", 60, 15}, {"forearm", 40, 10}, {"hand", 15, 3}} {
		c.call("twin.record_hierarchy_node", map[string]any{"project_id": pid, "name": p.name, "level": "part", "parent": arm["item_key"],
			"power": map[string]any{"peak_w": p.peak, "average_w": p.avg, "dissipation_w": p.avg}})
	}

	cl := c.call("twin.create_bringup_checklist", map[string]any{"project_id": pid, "assembly_ref": arm["item_key"]})
	steps := cl["steps"].([]any)
	want := []string{
		"Step 1: attach upper_arm to base via shoulder (revolute joint)",
		"Step 2: attach forearm to upper_arm via elbow (revolute joint)",
		"Step 3: attach hand to forearm via wrist (revolute joint)",
	}
	if len(steps) != len(want) {
		t.Fatalf("checklist = %v", cl)
	}
	for i, w := range want {
		if got := steps[i].(map[string]any)["text"]; got != w {
			t.Errorf("step %d = %q, want %q", i+1, got, w)
		}
	}
	node := c.call("twin.get_node", map[string]any{"node_id": cl["node_id"]})
	if !strings.Contains(asJSON(t, node), "Step 3: attach hand to forearm via wrist") {
		t.Errorf("the checklist read back = %v", node)
	}

	mapping := asJSON(t, map[string]any{"reference": "J2", "pins": []any{
		map[string]any{"pin": "1", "net": "+48V"}, map[string]any{"pin": "2", "net": "GND"},
		map[string]any{"pin": "3", "net": "CAN_H"}, map[string]any{"pin": "4", "net": "CAN_L"}}})
	pins := c.call("twin.record_document", map[string]any{"project_id": pid, "document_type": "spec", "title": "J2 pin mapping", "text": mapping})
	sc := c.call("twin.create_firmware_scaffold", map[string]any{"project_id": pid, "assembly_ref": arm["item_key"], "pin_mapping_ref": pins["item_key"]})
	can := sc["can_nodes"].([]any)
	for i, name := range []string{"shoulder", "elbow", "wrist"} {
		row := can[i].(map[string]any)
		if row["joint"] != name || row["can_id"] != float64(i+1) {
			t.Errorf("CAN node %d = %v, want %s with id %d", i, row, name, i+1)
		}
	}
	if sc["pinmap_csv"] != "reference,pin,pin_name,net\nJ2,1,,+48V\nJ2,2,,GND\nJ2,3,,CAN_H\nJ2,4,,CAN_L\n" ||
		!strings.Contains(sc["header"].(string), "{\"elbow\", 2, 1, -135.0f, 135.0f},\n") ||
		!strings.Contains(sc["header"].(string), "#define PIN_48V 1\n") {
		t.Errorf("scaffold = %v", sc)
	}
	header := c.call("twin.get_node", map[string]any{"node_id": sc["firmware_header"].(map[string]any)["node_id"]})
	if !strings.Contains(asJSON(t, header), "joint_config_t") {
		t.Errorf("the header read back = %v", header)
	}

	// Cables along the chain: shoulder 120, elbow 120+300, wrist 420+200
	// mm, 4 conductors each: 4*(120+420+620) = 4640 mm of wire.
	h := c.call("twin.get_harness_estimate", map[string]any{"project_id": pid, "assembly_ref": arm["node_id"]})
	lengths := map[string]float64{"shoulder": 120, "elbow": 420, "wrist": 620}
	for _, e := range h["harness"].([]any) {
		row := e.(map[string]any)
		if got := row["length_mm"].(float64); math.Abs(got-lengths[row["joint"].(string)]) > 1e-9 || row["conductors"] != 4.0 {
			t.Errorf("harness %v", row)
		}
	}
	if math.Abs(h["total_conductor_mm"].(float64)-4640) > 1e-9 {
		t.Errorf("total conductor = %v", h["total_conductor_mm"])
	}
	// Power: the arm's parts draw 0+60+40+15 = 115 W peak and
	// 0+15+10+3 = 28 W on average, and the robot is the arm.
	tree := h["power_tree"].(map[string]any)
	peak := tree["power"].(map[string]any)["peak_w"].(map[string]any)["value"]
	avg := tree["power"].(map[string]any)["average_w"].(map[string]any)["value"]
	if tree["name"] != "Robot" || peak != 115.0 || avg != 28.0 {
		t.Errorf("power tree = %v", tree)
	}

	// A cycle: refused naming it, and no checklist written.
	ctx := context.Background()
	before, err := be.Store.NodesByType(ctx, pid, twin.BringupChecklistNodeType)
	if err != nil {
		t.Fatal(err)
	}
	loop := c.call("twin.record_hierarchy_node", map[string]any{"project_id": pid, "name": "Linkage", "level": "assembly", "joints": []any{
		joint("a", "revolute", "crank", "coupler", []float64{10, 0, 0}, 0, 90),
		joint("b", "revolute", "coupler", "rocker", []float64{10, 0, 0}, 0, 90),
		joint("c", "revolute", "rocker", "crank", []float64{10, 0, 0}, 0, 90),
	}})
	msg := c.refused("twin.create_bringup_checklist", map[string]any{"project_id": pid, "assembly_ref": loop["item_key"]})
	if !strings.Contains(msg, "the joint graph has a cycle: crank -> coupler -> rocker -> crank (joints a, b, c)") {
		t.Errorf("cyclic checklist = %q", msg)
	}
	if msg := c.refused("twin.create_firmware_scaffold", map[string]any{"project_id": pid, "assembly_ref": loop["item_key"], "pin_mapping_ref": pins["item_key"]}); !strings.Contains(msg, "has a cycle") {
		t.Errorf("cyclic scaffold = %q", msg)
	}
	after, err := be.Store.NodesByType(ctx, pid, twin.BringupChecklistNodeType)
	if err != nil || len(after) != len(before) {
		t.Errorf("checklists after a refusal: %d, before %d (%v)", len(after), len(before), err)
	}
	// A joint of an unknown type fails the schema, saying which types
	// there are; a joint on itself is refused by the rules, naming it.
	_, err = c.cs.CallTool(ctx, mcpCall("twin.record_hierarchy_node", map[string]any{"project_id": pid, "name": "Bad", "level": "assembly",
		"joints": []any{joint("hinge", "hinge", "a", "b", []float64{0, 0, 0}, 0, 1)}}))
	if err == nil || !strings.Contains(err.Error(), "joints.type: enum: hinge does not equal any of: [revolute continuous prismatic fixed]") {
		t.Errorf("bad joint type = %v", err)
	}
	if msg := c.refused("twin.record_hierarchy_node", map[string]any{"project_id": pid, "name": "Bad", "level": "assembly", "joints": []any{
		joint("self", "fixed", "plate", "plate", []float64{0, 0, 0}, 0, 1)}}); !strings.Contains(msg, `joint "self" has "plate" as both base and follower`) {
		t.Errorf("a joint on itself = %q", msg)
	}
}

// asJSON is v as JSON text.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
