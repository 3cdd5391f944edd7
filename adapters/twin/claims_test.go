package twin_test

import (
	"context"
	"strings"
	"testing"
)

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
