package twin_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/adapters/twin/twintest"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/twin"
)

func TestChoosingThroughMCP(t *testing.T) {
	s, be := theStack(t)
	choosing(t, client{t, s.ConnectHTTP(t, nil)}, be.Store)
}

func TestChoosingThroughMCPOnNeo4j(t *testing.T) {
	b := neo4jBackend(t, false)
	s := mcptest.Start(t, twinadapter.New(b)...)
	choosing(t, client{t, s.ConnectHTTP(t, nil)}, b.Store)
}

// readDecisions reads the decisions resource: each decision's head by
// name.
func readDecisions(t *testing.T, c client, pid string) map[string]map[string]any {
	t.Helper()
	res, err := c.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "metaforge://twin/decisions/" + pid})
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &out); err != nil {
		t.Fatal(err)
	}
	return twintest.RowsBy(t, out["decisions"], "name")
}

// alternativesOf is a decision node's alternatives, option -> reason.
func alternativesOf(t *testing.T, node map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	props := node["properties"].(map[string]any)
	for _, a := range props["alternatives"].([]any) {
		alt := a.(map[string]any)
		out[alt["option"].(string)] = alt["reason"].(string)
	}
	return out
}

// choosing walks a concept trade study and a component selection through
// the MCP server, then reads both back as decisions (twin.get_node and the
// decisions resource) with their alternatives; hostile calls are refused
// and write nothing.
func choosing(t *testing.T, c client, store twin.Store) {
	pid := c.call("project.create", map[string]any{"name": "Arm choices"})["project_id"].(string)
	entity := func(name string, scores map[string]any) string {
		return c.call("twin.record_engineering_entity", map[string]any{"entity_type": "concept_option", "name": name,
			"properties": map[string]any{"criteria_scores": scores}})["node_id"].(string)
	}
	// By hand, weights 3, 1 normalised to 0.75, 0.25:
	//   belt   0.75*7 + 0.25*4 = 6.25
	//   gear   0.75*5 + 0.25*9 = 6.0
	//   direct stiffness only: no_data for cost, not ranked
	belt := entity("Belt drive", map[string]any{"stiffness": 7, "cost": 4})
	gear := entity("Gear drive", map[string]any{"stiffness": 5, "cost": 9})
	direct := entity("Direct drive", map[string]any{"stiffness": 10})

	out := c.call("twin.select_concept", map[string]any{"options": []any{belt, gear, direct}, "weights": map[string]any{"stiffness": 3, "cost": 1},
		"name": "Elbow drive", "rationale": "stiffness first"})
	sel := out["selected"].(map[string]any)
	if sel["node_id"] != belt || math.Abs(sel["weighted_score"].(float64)-6.25) > 1e-9 || out["chosen_by"] != "ranking" {
		t.Fatalf("select_concept = %v", out)
	}
	if w := out["weights"].(map[string]any); math.Abs(w["stiffness"].(float64)-0.75) > 1e-12 || math.Abs(w["cost"].(float64)-0.25) > 1e-12 ||
		!strings.Contains(out["normalisation"].(string), "normalised to sum to 1") {
		t.Errorf("weights = %v (%v)", w, out["normalisation"])
	}
	opts := twintest.RowsBy(t, out["options"], "node_id")
	if d := opts[direct]; d["status"] != "no_data" || d["weighted_score"] != nil || d["rank"] != float64(0) {
		t.Errorf("direct drive = %v, want no_data, no score, unranked", d)
	}
	if !strings.Contains(strings.Join(strs(out["warnings"]), "\n"), `"Direct drive"`) {
		t.Errorf("warnings = %v, want the unscored option named", out["warnings"])
	}
	dec := out["decision"].(map[string]any)
	if dec["item_ref"] != "DEC-ELBOW-DRIVE@1" {
		t.Fatalf("decision = %v", dec)
	}
	got := c.call("twin.get_node", map[string]any{"node_id": dec["node_id"]})
	alts := alternativesOf(t, got["node"].(map[string]any))
	if len(alts) != 2 || alts["Gear drive ("+gear+")"] != `weighted score 6 against 6.25 for "Belt drive" (rank 2)` ||
		!strings.HasPrefix(alts["Direct drive ("+direct+")"], "not ranked: no_data for cost") {
		t.Errorf("concept decision's alternatives = %v", alts)
	}
	var linked bool
	for _, r := range got["related"].([]any) {
		rel := r.(map[string]any)
		linked = linked || rel["edge"] == "GENERATED_FROM" && rel["node_id"] == belt && rel["direction"] == "outgoing"
	}
	if !linked {
		t.Errorf("the decision is not GENERATED_FROM the chosen option: %v", got["related"])
	}

	// A component selection where one candidate lacks a required figure.
	// By hand, against stall_torque >= 1.2 N*m and unit_cost <= 30 USD:
	//   S1 torque 1.5: +0.3 N*m (25%); cost 20: +10 (33.33%): meets all, tightest 25%
	//   S2 torque: none given: no_data; cost 12: +18 (60%): not a pass
	comp := c.call("twin.select_component", map[string]any{"name": "Elbow servo", "quantity": 2, "requirements": []any{
		map[string]any{"spec": "stall_torque", "threshold": 1.2, "unit": "N*m", "direction": ">="},
		map[string]any{"spec": "unit_cost", "threshold": 30, "unit": "USD", "direction": "<="},
	}, "candidates": []any{
		map[string]any{"mpn": "S1", "manufacturer": "Acme", "specs": map[string]any{"stall_torque": "1.5 N*m", "unit_cost": "$20", "category": "servo"}},
		map[string]any{"mpn": "S2", "manufacturer": "Bolt", "specs": map[string]any{"unit_cost": 12, "category": "servo"}},
	}})
	if comp["selected_meets_requirements"] != true || comp["chosen_by"] != "rank" || comp["selected"].(map[string]any)["mpn"] != "S1" {
		t.Fatalf("select_component = %v", comp)
	}
	cands := twintest.RowsBy(t, comp["candidates"], "mpn")
	s2 := cands["S2"]
	m0 := s2["margins"].([]any)[0].(map[string]any)
	if m0["status"] != "no_data" || m0["margin"] != nil || s2["passes"] != float64(1) || s2["no_data"] != float64(1) || s2["meets_all"] != false {
		t.Errorf("S2 = %v, want stall_torque no_data (no margin), one pass, not meeting all", s2)
	}
	s1 := cands["S1"]["margins"].([]any)
	if m := s1[0].(map[string]any); math.Abs(m["margin"].(float64)-0.3) > 1e-9 || math.Abs(m["margin_pct"].(float64)-25) > 1e-9 || m["status"] != "pass" {
		t.Errorf("S1 torque = %v, want +0.3 N*m, 25%%", m)
	}
	if m := s1[1].(map[string]any); math.Abs(m["margin"].(float64)-10) > 1e-9 || math.Abs(m["margin_pct"].(float64)-100.0/3) > 1e-6 {
		t.Errorf("S1 cost = %v, want +10 USD, 33.33%%", m)
	}
	bom := comp["bom_item"].(map[string]any)
	if bom["item_ref"] != "BOM-ELBOW-SERVO@1" || bom["mpn"] != "S1" || bom["quantity"] != float64(2) {
		t.Errorf("bom_item = %v", bom)
	}
	bomNode := c.call("twin.get_node", map[string]any{"item_key": "BOM-ELBOW-SERVO"})["node"].(map[string]any)
	if specs := bomNode["properties"].(map[string]any)["specs"].(map[string]any); specs["unit_cost"] != "$20" || specs["category"] != "servo" {
		t.Errorf("BOM specs = %v, want unit_cost and category kept", specs)
	}
	cdec := comp["decision"].(map[string]any)
	cgot := c.call("twin.get_node", map[string]any{"node_id": cdec["node_id"]})
	calts := alternativesOf(t, cgot["node"].(map[string]any))
	if r := calts["S2 (Bolt)"]; !strings.HasPrefix(r, "no_data for stall_torque: stall_torque no_data (>= 1.2 N*m required); unit_cost 12 USD against <= 30: margin 18 USD (60%), pass") {
		t.Errorf("component decision's alternatives = %v", calts)
	}
	linked = false
	for _, r := range cgot["related"].([]any) {
		rel := r.(map[string]any)
		linked = linked || rel["edge"] == "GENERATED_FROM" && rel["node_id"] == bom["node_id"]
	}
	if !linked {
		t.Errorf("the component decision is not GENERATED_FROM the BOM item: %v", cgot["related"])
	}

	// Both read back through the decisions resource.
	decs := readDecisions(t, c, pid)
	if d := decs["Elbow drive"]; d == nil || len(alternativesOf(t, d)) != 2 {
		t.Errorf("decisions resource: Elbow drive = %v", d)
	}
	if d := decs["Component selection: Elbow servo"]; d == nil || len(alternativesOf(t, d)) != 1 {
		t.Errorf("decisions resource: Component selection: Elbow servo = %v", d)
	}

	// Hostile calls: refused, nothing written.
	before, _ := store.NodesByType(context.Background(), pid, "decision")
	boms, _ := store.NodesByType(context.Background(), pid, "component_selection")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"twin.select_concept", map[string]any{"options": []any{belt}, "weights": map[string]any{"cost": 1}}, "options"},
		{"twin.select_concept", map[string]any{"options": []any{belt, gear}, "weights": map[string]any{"cost": -1}}, "weights"},
		{"twin.select_concept", map[string]any{"options": []any{belt, gear}, "weights": map[string]any{"cost": 1, "stiffness": 1}, "choice": "n-0000000000000000"}, "choice"},
		{"twin.select_concept", map[string]any{"options": []any{belt, bom["node_id"]}, "weights": map[string]any{"cost": 1}}, "not a concept_option"},
		{"twin.select_component", map[string]any{"name": "x", "candidates": []any{map[string]any{"mpn": "S1"}}, "requirements": []any{
			map[string]any{"spec": "mass", "threshold": 1, "unit": "g", "direction": "<="}}}, "candidates"},
		{"twin.select_component", map[string]any{"name": "x", "candidates": []any{map[string]any{"mpn": "S1"}, map[string]any{"mpn": "S2"}},
			"requirements": []any{map[string]any{"spec": "mass", "threshold": 1, "unit": "g", "direction": "=="}}}, "direction"},
		{"twin.select_component", map[string]any{"name": "x", "candidates": []any{map[string]any{"mpn": "S1"}, map[string]any{"mpn": "S2"}},
			"requirements": []any{map[string]any{"spec": "mass", "threshold": 1, "unit": "g", "direction": "<="}}}, "no candidate meets every requirement"},
		{"twin.select_component", map[string]any{"name": "x", "candidates": []any{map[string]any{"mpn": "S1", "specs": map[string]any{"mass": []any{1}}},
			map[string]any{"mpn": "S2"}}, "requirements": []any{map[string]any{"spec": "mass", "threshold": 1, "unit": "g", "direction": "<="}}}, "specs"},
		{"twin.select_component", map[string]any{"name": "x", "candidates": []any{map[string]any{"mpn": "S1", "specs": map[string]any{"mass": 1}},
			map[string]any{"mpn": "S2"}}, "requirements": []any{map[string]any{"spec": "mass", "threshold": 1, "unit": "g", "direction": "<="}},
			"item_key": "BOM-ELBOW-SERVO@7"}, ""},
	} {
		res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		var text string
		if err != nil {
			text = err.Error()
		} else if res.IsError {
			text = res.Content[0].(*mcp.TextContent).Text
		} else {
			t.Errorf("%s %v: accepted, want a refusal", tc.tool, tc.args)
			continue
		}
		if !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: %q, want it to say %q", tc.tool, tc.args, text, tc.want)
		}
	}
	after, _ := store.NodesByType(context.Background(), pid, "decision")
	afterBOM, _ := store.NodesByType(context.Background(), pid, "component_selection")
	if len(after) != len(before) || len(afterBOM) != len(boms) {
		t.Errorf("hostile calls wrote %d decisions and %d BOM revisions", len(after)-len(before), len(afterBOM)-len(boms))
	}
}
