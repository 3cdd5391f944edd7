package digitaltwin_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// list turns a JSON array from a result into strings, for comparison.
func strs(v any) []string {
	out := []string{}
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

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

func TestPRDIsOneItemAndReportsStrayValues(t *testing.T) {
	s, be := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	p := c.call("project.create", map[string]any{"name": "Stray Widget"})
	pid := p["project_id"].(string)
	c.call("twin.record_constraint_set", map[string]any{"name": "Widget requirements", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"},
		map[string]any{"name": "light", "metric": "mass", "operator": "<=", "limit": 0.2, "unit": "kg", "verification_method": "inspection"},
	}})

	text := "The widget holds a 5 kg load with under 0.5 mm deflection, weighs at most 200 g, draws 2 W and costs $20. " +
		"It fits in 150 x 100 mm. Out of scope: v2.0 features, M3 screws."
	prd := c.call("twin.record_document", map[string]any{"document_type": "prd", "title": "Widget PRD", "text": text})
	if prd["item_ref"] != "PRD-STRAY-WIDGET@1" || prd["document_type"] != "prd" {
		t.Fatalf("prd = %v", prd)
	}
	want := []string{"5 kg", "2 W", "$20", "150 mm", "100 mm"}
	if got := strs(prd["stray_requirement_values"]); !reflect.DeepEqual(got, want) {
		t.Errorf("stray values = %v, want %v (0.5 mm and 200 g = 0.2 kg are stated by requirements)", got, want)
	}
	if got := strs(prd["requirement_refs"]); !reflect.DeepEqual(got, []string{"CS-WIDGET-REQUIREMENTS@1"}) {
		t.Errorf("requirement_refs = %v", got)
	}
	warn, _ := prd["requirement_warning"].(string)
	if !strings.Contains(warn, "5 kg, 2 W, $20, 150 mm, 100 mm") || !strings.Contains(warn, "no requirement in CS-WIDGET-REQUIREMENTS@1 states them") ||
		!strings.Contains(warn, "record them with twin.record_constraint_set") {
		t.Errorf("requirement_warning = %q", warn)
	}
	if home, _ := prd["requirements_home"].(string); !strings.Contains(home, "Requirement values") || !strings.Contains(home, "twin.record_constraint_set") {
		t.Errorf("requirements_home = %q", home)
	}
	stored := c.call("twin.get_node", map[string]any{"node_id": prd["node_id"]})
	if stored["node"].(map[string]any)["properties"].(map[string]any)["text"] != text {
		t.Errorf("the prd text was not kept as written")
	}

	// The requirements now state 2 W; a prd with another title is revision
	// 2 of the same item, and has nothing stray.
	c.call("twin.record_constraint_set", map[string]any{"name": "Widget requirements", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"},
		map[string]any{"name": "power", "metric": "power", "operator": "<=", "limit": 2000, "unit": "mW", "verification_method": "test"},
	}})
	prd2 := c.call("twin.record_document", map[string]any{"document_type": "prd", "title": "Widget product requirements, v2",
		"text": "It draws 2 W from USB and deflects under 0.5 mm."})
	if prd2["item_key"] != "PRD-STRAY-WIDGET" || prd2["revision"] != float64(2) || prd2["item_ref"] != "PRD-STRAY-WIDGET@2" {
		t.Fatalf("second prd = %v, want PRD-STRAY-WIDGET@2", prd2)
	}
	if _, ok := prd2["stray_requirement_values"]; ok {
		t.Errorf("2 W (= 2000 mW) and 0.5 mm are stated, yet: %v", prd2["stray_requirement_values"])
	}
	if _, ok := prd2["requirement_warning"]; ok {
		t.Errorf("requirement_warning without strays: %v", prd2["requirement_warning"])
	}
	if got := strs(prd2["requirement_refs"]); !reflect.DeepEqual(got, []string{"CS-WIDGET-REQUIREMENTS@2"}) {
		t.Errorf("requirement_refs = %v, want the current revision", got)
	}
	items, _ := be.mem.Items(context.Background(), pid)
	prds := 0
	for _, it := range items {
		if it.ItemType == "prd" {
			prds++
		}
	}
	if prds != 1 {
		t.Errorf("%d prd items, want 1", prds)
	}
	if msg := c.refused("twin.record_document", map[string]any{"document_type": "prd", "title": "x", "text": "y", "item_key": "PRD-OTHER"}); !strings.Contains(msg, "this project's prd is PRD-STRAY-WIDGET (head PRD-STRAY-WIDGET@2)") {
		t.Errorf("a second prd key = %q", msg)
	}

	// Other document types are ordinary documents, keyed by title.
	note := c.call("twin.record_document", map[string]any{"document_type": "note", "title": "Test plan", "text": "Load to 5 kg."})
	if note["item_ref"] != "DOC-TEST-PLAN@1" || note["document_type"] != "note" {
		t.Errorf("note = %v", note)
	}
	if _, ok := note["requirements_home"]; ok {
		t.Errorf("a note carries requirements_home: %v", note)
	}
}

// The scan reads the ways values are written, and leaves words alone.
func TestPRDScanReadsValuesAsWritten(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	c.call("project.create", map[string]any{"name": "Scan Study"})
	prd := c.call("twin.record_document", map[string]any{"document_type": "prd", "title": "Scan", "text": "Runs on 3.3V at 20% duty, " +
		"down to -20 °C, from a 5000 mAh cell, for $1,200. Travel is 10-20 mm. Put 2 in the box by 5 pm; use M3 screws and firmware v2.0."})
	want := []string{"3.3V", "20%", "-20 °C", "5000 mAh", "$1,200", "10 mm", "20 mm"}
	if got := strs(prd["stray_requirement_values"]); !reflect.DeepEqual(got, want) {
		t.Errorf("stray values = %v, want %v", got, want)
	}
	if got := strs(prd["requirement_refs"]); len(got) != 0 {
		t.Errorf("requirement_refs = %v, want none", got)
	}
	if warn, _ := prd["requirement_warning"].(string); !strings.Contains(warn, "no constraint set is recorded in this project yet") {
		t.Errorf("requirement_warning = %q", warn)
	}
	if prd["item_key"] != "PRD-SCAN-STUDY" {
		t.Errorf("prd key = %v", prd["item_key"])
	}
}

func TestClaimStatusIsComputedLive(t *testing.T) {
	s, be := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	p := c.call("project.create", map[string]any{"name": "Claims Bracket"})
	pid := p["project_id"].(string)
	c.call("twin.commit_geometry", map[string]any{"name": "Bracket", "step_base64": step("b1")})
	c.call("twin.record_constraint_set", map[string]any{"name": "Bracket requirements", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"},
		map[string]any{"name": "light", "metric": "mass", "operator": "<=", "limit": 0.2, "unit": "kg", "verification_method": "inspection"},
	}})

	none := c.call("twin.record_claim", map[string]any{"claim": "the bracket is stiff enough", "requirement_ref": "CS-BRACKET-REQUIREMENTS",
		"requirement_name": "Stiff"})
	if none["status"] != "no_data" || none["requirement_ref"] != "CS-BRACKET-REQUIREMENTS@1" || none["requirement_name"] != "stiff" {
		t.Fatalf("claim without evidence = %v", none)
	}
	if r := strs(none["reasons"]); !strings.Contains(r[0], "no data is not a pass") {
		t.Errorf("no_data reasons = %v", r)
	}

	ev1 := c.call("twin.record_evidence", map[string]any{"name": "FEA rev 1", "kind": "simulation", "metric": "tip_deflection", "value": 0.31,
		"unit": "mm", "valid_against": []any{"CAD-BRACKET@1"}, "verifies": []any{"CS-BRACKET-REQUIREMENTS"}})
	ok := c.call("twin.record_claim", map[string]any{"claim": "tip deflection under 0.5 mm", "requirement_ref": "CS-BRACKET-REQUIREMENTS@1",
		"requirement_name": "stiff", "evidence_refs": []any{ev1["node_id"]}})
	if ok["status"] != "supported" {
		t.Fatalf("claim on current satisfying evidence = %v", ok)
	}
	check := ok["evidence"].([]any)[0].(map[string]any)["checks"].([]any)[0].(map[string]any)
	if check["verdict"] != "satisfies" || check["limit"] != "<= 0.5 mm" || check["requirement"] != "stiff" {
		t.Errorf("check = %v", check)
	}
	// The status is not stored.
	stored := c.call("twin.get_node", map[string]any{"node_id": ok["node_id"]})
	if _, has := stored["node"].(map[string]any)["properties"].(map[string]any)["status"]; has {
		t.Errorf("the claim's status was stored: %v", stored["node"])
	}

	// A new revision of the part the evidence was computed on: the claim
	// goes stale, read live.
	c.call("twin.commit_geometry", map[string]any{"name": "Bracket", "step_base64": step("b2"), "change_reason": "thinner"})
	claims := claimsByID(c.call("twin.what_verifies", map[string]any{"item_key": "CS-BRACKET-REQUIREMENTS"}))
	stale := claims[ok["node_id"].(string)]
	if stale["status"] != "stale" || !strings.Contains(strings.Join(strs(stale["reasons"]), " "), "CAD-BRACKET@1 (now CAD-BRACKET@2)") {
		t.Errorf("claim after CAD-BRACKET@2 = %v, want stale naming the pin", stale)
	}
	if claims[none["node_id"].(string)]["status"] != "no_data" {
		t.Errorf("no-evidence claim read back as %v", claims[none["node_id"].(string)]["status"])
	}

	// Current evidence that breaks the limit contradicts; a value in metres
	// is converted before it is compared.
	ev2 := c.call("twin.record_evidence", map[string]any{"name": "FEA rev 2", "kind": "simulation", "metric": "tip_deflection", "value": 0.8,
		"unit": "mm", "valid_against": []any{"CAD-BRACKET@2"}})
	bad := c.call("twin.record_claim", map[string]any{"claim": "still stiff", "requirement_ref": "CS-BRACKET-REQUIREMENTS",
		"requirement_name": "stiff", "evidence_refs": []any{ev2["node_id"]}})
	if bad["status"] != "contradicted" || !strings.Contains(strings.Join(strs(bad["reasons"]), " "), `gives tip_deflection = 0.8 mm, which breaks requirement "stiff" (<= 0.5 mm)`) {
		t.Errorf("claim on violating evidence = %v", bad)
	}
	ev3 := c.call("twin.record_evidence", map[string]any{"name": "Test rev 2", "kind": "test", "metric": "tip_deflection", "value": 0.0004,
		"unit": "m", "valid_against": []any{"CAD-BRACKET@2"}})
	metres := c.call("twin.record_claim", map[string]any{"claim": "0.4 mm measured", "requirement_ref": "CS-BRACKET-REQUIREMENTS",
		"requirement_name": "stiff", "evidence_refs": []any{ev3["node_id"]}})
	if metres["status"] != "supported" {
		t.Errorf("0.0004 m against <= 0.5 mm = %v, want supported", metres)
	}

	// Bad claims name the problem and write nothing.
	if msg := c.refused("twin.record_claim", map[string]any{"claim": "x", "requirement_ref": "CS-BRACKET-REQUIREMENTS", "requirement_name": "cheap"}); !strings.Contains(msg, `has no requirement of that name; it has "stiff", "light"`) {
		t.Errorf("unknown requirement name = %q", msg)
	}
	if msg := c.refused("twin.record_claim", map[string]any{"claim": "x", "requirement_ref": "CAD-BRACKET"}); !strings.Contains(msg, "is a cad_model, not a constraint set") {
		t.Errorf("claim against a part = %q", msg)
	}
	if msg := c.refused("twin.record_claim", map[string]any{"claim": "x", "requirement_ref": "CS-BRACKET-REQUIREMENTS", "evidence_refs": []any{stale["node_id"]}}); !strings.Contains(msg, "is a claim, not evidence") {
		t.Errorf("claim citing a claim = %q", msg)
	}
	if nodes, _ := be.mem.NodesByType(context.Background(), pid, "claim"); len(nodes) != 4 {
		t.Errorf("%d claims stored, want 4", len(nodes))
	}

	// The requirement itself changes: a claim about the old limit is stale
	// even though its evidence is current.
	c.call("twin.record_constraint_set", map[string]any{"name": "Bracket requirements", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.3, "unit": "mm", "verification_method": "analysis"},
		map[string]any{"name": "light", "metric": "mass", "operator": "<=", "limit": 0.2, "unit": "kg", "verification_method": "inspection"},
	}})
	after := claimsByID(c.call("twin.what_verifies", map[string]any{"item_key": "CS-BRACKET-REQUIREMENTS"}))
	changed := after[metres["node_id"].(string)]
	if changed["status"] != "stale" || !strings.Contains(strings.Join(strs(changed["reasons"]), " "), `requirement "stiff" changed`) {
		t.Errorf("claim after the limit moved = %v", changed)
	}
}

func claimsByID(out map[string]any) map[string]map[string]any {
	m := map[string]map[string]any{}
	for _, c := range out["claims"].([]any) {
		cm := c.(map[string]any)
		m[cm["node_id"].(string)] = cm
	}
	return m
}

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
	rel := c.call("twin.record_engineering_entity", map[string]any{"entity_type": "release_package", "name": "Release A",
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
