package twin_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/twin"
)

// edgeList is a walk's edges as "TYPE from->to" with node ids replaced by
// the names given.
func edgeList(out map[string]any, names map[string]string) []string {
	got := []string{}
	for _, e := range out["edges"].([]any) {
		em := e.(map[string]any)
		got = append(got, fmt.Sprintf("%s %s->%s", em["type"], names[em["from"].(string)], names[em["to"].(string)]))
	}
	return got
}

func TestThreadForWalksTheWayItIsAsked(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	c.call("project.create", map[string]any{"name": "Thread Link"})
	cad := c.call("twin.commit_geometry", map[string]any{"name": "Link", "step_base64": step("l1")})
	cs := c.call("twin.record_constraint_set", map[string]any{"name": "Link requirements", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"}}})
	ev := c.call("twin.record_evidence", map[string]any{"name": "FEA", "kind": "simulation", "metric": "tip_deflection", "value": 0.2, "unit": "mm",
		"valid_against": []any{"CAD-LINK"}, "verifies": []any{"CS-LINK-REQUIREMENTS"}})
	names := map[string]string{cad["node_id"].(string): "cad", cs["node_id"].(string): "cs", ev["node_id"].(string): "ev"}

	// The default walk from a requirement goes the wrong way for it, and
	// says so.
	out := c.call("twin.thread_for", map[string]any{"item_key": "CS-LINK-REQUIREMENTS"})
	if out["direction"] != "outgoing" || out["depth"] != float64(2) || out["node_count"] != float64(1) || out["edge_count"] != float64(0) {
		t.Fatalf("default walk = %v", out)
	}
	note, _ := out["note"].(string)
	if !strings.Contains(note, "nothing is reached from CS-LINK-REQUIREMENTS@1 walking outgoing edges (depth 2)") ||
		!strings.Contains(note, `Walk direction "incoming" or "both"`) || !strings.Contains(note, "twin.what_verifies") {
		t.Errorf("note = %q", note)
	}

	in := c.call("twin.thread_for", map[string]any{"item_key": "CS-LINK-REQUIREMENTS", "direction": "incoming", "depth": 1})
	if got := edgeList(in, names); !reflect.DeepEqual(got, []string{"VERIFIES ev->cs"}) {
		t.Errorf("incoming depth 1 edges = %v", got)
	}
	if _, has := in["note"]; has || in["node_count"] != float64(2) {
		t.Errorf("incoming walk = %v", in)
	}

	both := c.call("twin.thread_for", map[string]any{"node_id": cs["node_id"], "direction": "both", "depth": 2})
	if got := edgeList(both, names); !reflect.DeepEqual(got, []string{"VERIFIES ev->cs", "VALID_AGAINST ev->cad"}) {
		t.Errorf("both depth 2 edges = %v", got)
	}
	var order []string
	for _, n := range both["nodes"].([]any) {
		nm := n.(map[string]any)
		order = append(order, fmt.Sprintf("%s@%v", names[nm["node_id"].(string)], nm["depth"]))
	}
	if !reflect.DeepEqual(order, []string{"cs@0", "ev@1", "cad@2"}) {
		t.Errorf("nodes = %v", order)
	}

	only := c.call("twin.thread_for", map[string]any{"node_id": ev["node_id"], "edge_types": []any{"VALID_AGAINST"}})
	if got := edgeList(only, names); !reflect.DeepEqual(got, []string{"VALID_AGAINST ev->cad"}) {
		t.Errorf("VALID_AGAINST only = %v", got)
	}
	alone := c.call("twin.thread_for", map[string]any{"node_id": ev["node_id"], "direction": "incoming"})
	if n, _ := alone["note"].(string); !strings.Contains(n, `nothing points at evidence "FEA"`) || !strings.Contains(n, `Walk direction "outgoing"`) {
		t.Errorf("incoming into evidence: note = %q", n)
	}

	_, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "twin.thread_for", Arguments: map[string]any{"node_id": cs["node_id"], "depth": 6}})
	if err == nil || !strings.Contains(err.Error(), "depth") {
		t.Errorf("depth 6 = %v, want a protocol error naming depth", err)
	}
	_, err = c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "twin.thread_for", Arguments: map[string]any{"node_id": cs["node_id"], "direction": "up"}})
	if err == nil || !strings.Contains(err.Error(), "direction") {
		t.Errorf("direction up = %v, want a protocol error naming direction", err)
	}
	if msg := c.refused("twin.thread_for", map[string]any{}); !strings.Contains(msg, "Missing: node_id or item_key") {
		t.Errorf("no start = %q", msg)
	}
}

func TestWhatVerifiesARequirement(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	c.call("project.create", map[string]any{"name": "Verify Hinge"})
	c.call("twin.commit_geometry", map[string]any{"name": "Hinge", "step_base64": step("h1")})
	c.call("twin.record_constraint_set", map[string]any{"name": "Hinge requirements", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"},
		map[string]any{"name": "light", "metric": "mass", "operator": "<=", "limit": 50, "unit": "g", "verification_method": "inspection"}}})

	empty := c.call("twin.what_verifies", map[string]any{"item_key": "CS-HINGE-REQUIREMENTS"})
	if empty["verified"] != false || empty["related_count"] != float64(0) || len(empty["evidence"].([]any)) != 0 || len(empty["claims"].([]any)) != 0 {
		t.Fatalf("nothing recorded = %v", empty)
	}
	note, _ := empty["note"].(string)
	if !strings.Contains(note, "nothing verifies CS-HINGE-REQUIREMENTS: no VERIFIES or SUPPORTS edge points into CS-HINGE-REQUIREMENTS@1 (walked incoming edges)") ||
		!strings.Contains(note, "twin.record_evidence") {
		t.Errorf("empty note = %q", note)
	}
	walked := empty["walked"].(map[string]any)
	if walked["direction"] != "incoming" || !reflect.DeepEqual(strs(walked["edges"]), []string{"VERIFIES", "SUPPORTS"}) {
		t.Errorf("walked = %v", walked)
	}

	// Evidence that breaks the requirement does not verify it.
	heavy := c.call("twin.record_evidence", map[string]any{"name": "Weighed", "kind": "inspection", "metric": "mass", "value": 0.08, "unit": "kg",
		"valid_against": []any{"CAD-HINGE"}, "verifies": []any{"CS-HINGE-REQUIREMENTS"}})
	out := c.call("twin.what_verifies", map[string]any{"item_key": "CS-HINGE-REQUIREMENTS@1"})
	if out["verified"] != false || out["related_count"] != float64(1) {
		t.Fatalf("violating evidence only = %v", out)
	}
	e := out["evidence"].([]any)[0].(map[string]any)
	if e["node_id"] != heavy["node_id"] || e["kind"] != "inspection" || e["metric"] != "mass" || e["value"] != 0.08 || e["stale"] != false ||
		e["checks"].([]any)[0].(map[string]any)["verdict"] != "violates" {
		t.Errorf("evidence entry = %v", e)
	}
	if n, _ := out["note"].(string); !strings.Contains(n, "1 current evidence breaking a requirement") {
		t.Errorf("note = %q", n)
	}

	c.call("twin.record_evidence", map[string]any{"name": "FEA", "kind": "simulation", "metric": "tip_deflection", "value": 0.3, "unit": "mm",
		"valid_against": []any{"CAD-HINGE"}, "verifies": []any{"CS-HINGE-REQUIREMENTS"}})
	out = c.call("twin.what_verifies", map[string]any{"item_key": "CS-HINGE-REQUIREMENTS"})
	if out["verified"] != true || out["related_count"] != float64(2) {
		t.Fatalf("with current satisfying evidence = %v", out)
	}
	if _, has := out["note"]; has {
		t.Errorf("a verified requirement has a note: %v", out["note"])
	}

	// The part moves on: the evidence is stale and nothing verifies.
	c.call("twin.commit_geometry", map[string]any{"name": "Hinge", "step_base64": step("h2")})
	out = c.call("twin.what_verifies", map[string]any{"item_key": "CS-HINGE-REQUIREMENTS"})
	if out["verified"] != false || out["related_count"] != float64(2) {
		t.Fatalf("after CAD-HINGE@2 = %v", out)
	}
	if n, _ := out["note"].(string); !strings.Contains(n, "2 evidence computed against older revisions of what it pinned (stale)") {
		t.Errorf("note = %q", n)
	}

	// A new revision of the requirements that leaves stiff alone keeps
	// evidence on stiff; evidence on a changed requirement no longer counts.
	c.call("twin.record_evidence", map[string]any{"name": "FEA rev 2", "kind": "simulation", "metric": "tip_deflection", "value": 0.35, "unit": "mm",
		"valid_against": []any{"CAD-HINGE@2"}, "verifies": []any{"CS-HINGE-REQUIREMENTS@1"}})
	c.call("twin.record_constraint_set", map[string]any{"name": "Hinge requirements", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"},
		map[string]any{"name": "light", "metric": "mass", "operator": "<=", "limit": 90, "unit": "g", "verification_method": "inspection"}}})
	out = c.call("twin.what_verifies", map[string]any{"item_key": "CS-HINGE-REQUIREMENTS"})
	if out["verified"] != true || out["head_ref"] != "CS-HINGE-REQUIREMENTS@2" || out["requirement"].(map[string]any)["item_ref"] != "CS-HINGE-REQUIREMENTS@2" {
		t.Fatalf("after CS@2 = %v", out)
	}
	if into := strs(out["walked"].(map[string]any)["into"]); !reflect.DeepEqual(into, []string{"CS-HINGE-REQUIREMENTS@2", "CS-HINGE-REQUIREMENTS@1"}) {
		t.Errorf("walked into = %v", into)
	}
	exact := c.call("twin.what_verifies", map[string]any{"item_key": "CS-HINGE-REQUIREMENTS@2"})
	if exact["verified"] != false || exact["related_count"] != float64(0) {
		t.Errorf("CS@2 alone = %v: nothing points at revision 2 itself", exact)
	}
}

func TestWhereUsedGroupsByEdge(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	c.call("project.create", map[string]any{"name": "Where Wheel"})
	c.call("twin.commit_geometry", map[string]any{"name": "Wheel", "step_base64": step("w1")})
	c.call("twin.commit_geometry", map[string]any{"name": "Wheel", "step_base64": step("w2")})
	c.call("twin.commit_geometry", map[string]any{"name": "Spacer", "step_base64": step("s1")})
	dec := c.call("twin.record_decision", map[string]any{"name": "Rubber tyre", "decision": "rubber", "depends_on": []any{"CAD-WHEEL@1"}})
	ev := c.call("twin.record_evidence", map[string]any{"name": "Spin test", "kind": "test", "valid_against": []any{"CAD-WHEEL"}})
	rel := c.call("twin.record_engineering_entity", map[string]any{"entity_type": "release_approval", "name": "Cart release",
		"parent_refs": []any{map[string]any{"ref": "CAD-WHEEL@2", "edge": "CONTAINS"}}})

	all := c.call("twin.where_used", map[string]any{"item_key": "CAD-WHEEL"})
	if all["related_count"] != float64(3) || all["head_ref"] != "CAD-WHEEL@2" {
		t.Fatalf("where_used CAD-WHEEL = %v", all)
	}
	groups := all["used_by"].(map[string]any)
	dep := groups["DEPENDS_ON"].([]any)
	con := groups["CONTAINS"].([]any)
	val := groups["VALID_AGAINST"].([]any)
	if len(dep) != 1 || len(con) != 1 || len(val) != 1 || len(groups["USES"].([]any)) != 0 {
		t.Fatalf("groups = %v", groups)
	}
	d := dep[0].(map[string]any)
	if d["node_id"] != dec["node_id"] || d["item_ref"] != "DEC-RUBBER-TYRE@1" || d["uses"] != "CAD-WHEEL@1" || d["uses_current"] != false || d["is_current_revision"] != true {
		t.Errorf("DEPENDS_ON entry = %v", d)
	}
	if cm := con[0].(map[string]any); cm["node_id"] != rel["node_id"] || cm["node_type"] != "release_approval" || cm["uses"] != "CAD-WHEEL@2" || cm["uses_current"] != true {
		t.Errorf("CONTAINS entry = %v", cm)
	}
	if vm := val[0].(map[string]any); vm["node_id"] != ev["node_id"] || vm["uses"] != "CAD-WHEEL@2" || vm["stale"] != false {
		t.Errorf("VALID_AGAINST entry = %v", vm)
	}

	rev2 := c.call("twin.where_used", map[string]any{"item_key": "CAD-WHEEL@2"})
	if rev2["related_count"] != float64(2) || len(rev2["used_by"].(map[string]any)["DEPENDS_ON"].([]any)) != 0 {
		t.Errorf("where_used CAD-WHEEL@2 = %v, want the release and the evidence only", rev2)
	}

	unused := c.call("twin.where_used", map[string]any{"item_key": "CAD-SPACER"})
	if unused["related_count"] != float64(0) {
		t.Fatalf("where_used CAD-SPACER = %v", unused)
	}
	if n, _ := unused["note"].(string); !strings.Contains(n, "nothing uses CAD-SPACER: no DEPENDS_ON, CONTAINS, USES or VALID_AGAINST edge points into CAD-SPACER@1") {
		t.Errorf("note = %q", n)
	}
	if msg := c.refused("twin.where_used", map[string]any{"item_key": "CAD-NOPE"}); !strings.Contains(msg, "CAD-NOPE names no item") {
		t.Errorf("unknown part = %q", msg)
	}
}

func TestFindByProperty(t *testing.T) {
	s, be := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	p := c.call("project.create", map[string]any{"name": "Find Props"})
	pid := p["project_id"].(string)
	a1 := c.call("twin.commit_geometry", map[string]any{"name": "Arm", "step_base64": step("a1"), "material": "6061-T6", "properties": map[string]any{"volume_mm3": 12500}})
	a2 := c.call("twin.commit_geometry", map[string]any{"name": "Arm", "step_base64": step("a2"), "material": "7075-T6", "properties": map[string]any{"volume_mm3": 12500}})
	c.call("twin.commit_geometry", map[string]any{"name": "Base", "step_base64": step("b1"), "material": "Steel", "properties": map[string]any{"volume_mm3": 99000}})
	ev := c.call("twin.record_evidence", map[string]any{"name": "FEA", "kind": "simulation", "valid_against": []any{"CAD-ARM"},
		"data": map[string]any{"solver": "CalculiX", "converged": true}})
	dec := c.call("twin.record_decision", map[string]any{"name": "Arm alloy", "decision": "7075", "depends_on": []any{"CAD-ARM@1", "CAD-BASE"}})

	ids := func(out map[string]any) []string {
		got := []string{}
		for _, n := range out["nodes"].([]any) {
			got = append(got, n.(map[string]any)["node_id"].(string))
		}
		return got
	}
	old := c.call("twin.find_by_property", map[string]any{"key": "material", "value": " 6061-t6 "})
	if old["count"] != float64(0) || old["truncated"] != false {
		t.Fatalf("6061-T6 among current revisions = %v, want none: the head is 7075-T6", old)
	}
	if n, _ := old["note"].(string); !strings.Contains(n, "no node has material") || !strings.Contains(n, "current revisions and records") {
		t.Errorf("note = %q", n)
	}
	hist := c.call("twin.find_by_property", map[string]any{"key": "material", "value": "6061-T6", "all_revisions": true})
	if got := ids(hist); !reflect.DeepEqual(got, []string{a1["node_id"].(string)}) {
		t.Fatalf("6061-T6 in all revisions = %v", hist)
	}
	if n := hist["nodes"].([]any)[0].(map[string]any); n["item_ref"] != "CAD-ARM@1" || n["is_current_revision"] != false || n["value"] != "6061-T6" {
		t.Errorf("entry = %v", n)
	}
	if got := ids(c.call("twin.find_by_property", map[string]any{"key": "volume_mm3", "value": 12500})); !reflect.DeepEqual(got, []string{a2["node_id"].(string)}) {
		t.Errorf("volume_mm3 = 12500: %v", got)
	}
	if got := ids(c.call("twin.find_by_property", map[string]any{"key": "volume_mm3", "value": "12500.0", "node_type": "cad_model", "all_revisions": true})); !reflect.DeepEqual(got, []string{a1["node_id"].(string), a2["node_id"].(string)}) {
		t.Errorf("volume_mm3 = \"12500.0\" in cad_model revisions: %v", got)
	}
	if got := ids(c.call("twin.find_by_property", map[string]any{"key": "data.solver", "value": "calculix"})); !reflect.DeepEqual(got, []string{ev["node_id"].(string)}) {
		t.Errorf("data.solver: %v", got)
	}
	if got := ids(c.call("twin.find_by_property", map[string]any{"key": "data.converged", "value": true, "node_type": "evidence"})); !reflect.DeepEqual(got, []string{ev["node_id"].(string)}) {
		t.Errorf("data.converged: %v", got)
	}
	if got := ids(c.call("twin.find_by_property", map[string]any{"key": "data.converged", "value": false})); len(got) != 0 {
		t.Errorf("data.converged = false: %v", got)
	}
	if got := ids(c.call("twin.find_by_property", map[string]any{"key": "depends_on", "value": "CAD-BASE@1"})); !reflect.DeepEqual(got, []string{dec["node_id"].(string)}) {
		t.Errorf("a list property holding CAD-BASE@1: %v", got)
	}
	if got := ids(c.call("twin.find_by_property", map[string]any{"key": "name", "value": "base"})); len(got) != 1 {
		t.Errorf("name = base: %v", got)
	}

	// More than 200 matches: the first 200, and truncated says so.
	for i := 0; i < 205; i++ {
		if _, err := be.mem.RecordNode(context.Background(), twin.RecordWrite{ProjectID: pid, Type: "evidence", Name: fmt.Sprintf("bulk %d", i),
			Properties: map[string]any{"kind": "bulk"}}); err != nil {
			t.Fatal(err)
		}
	}
	bulk := c.call("twin.find_by_property", map[string]any{"key": "kind", "value": "bulk"})
	if bulk["count"] != float64(200) || bulk["truncated"] != true || len(bulk["nodes"].([]any)) != 200 {
		t.Errorf("bulk = count %v truncated %v", bulk["count"], bulk["truncated"])
	}
	for _, n := range bulk["nodes"].([]any) {
		if name := n.(map[string]any)["name"].(string); !strings.HasPrefix(name, "bulk ") {
			t.Fatalf("bulk match %q", name)
		}
	}
}
