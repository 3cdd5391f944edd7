package twin_test

import (
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
)

// Baselines, gates, releases and promotion through their tools: who decides
// is the approver of the call, never an argument.
func TestReleaseTools(t *testing.T) {
	be := newBackend(t)
	d := newDirect(t, be.Backend)
	pid := d.call(call("p-1"), "project.create", map[string]any{"name": "Release tools"})["project_id"].(string)
	d.call(call("c-1"), "twin.record_constraint_set", map[string]any{"project_id": pid, "name": "Reqs", "constraints": []any{map[string]any{
		"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"}}})
	d.call(call("g-1"), "twin.commit_geometry", map[string]any{"project_id": pid, "name": "Bracket", "step_base64": step("b1")})

	if msg := d.refusal(call("b-0"), "twin.create_baseline", map[string]any{"project_id": pid, "reason": "review"}); !strings.Contains(msg, "an identified person must approve it") {
		t.Errorf("an unapproved baseline = %q", msg)
	}
	gates := d.call(call("l-1"), "twin.list_maturity_gates", map[string]any{"project_id": pid})
	g8 := gates["gates"].([]any)[5].(map[string]any)
	if g8["gate"] != "G8" || g8["passed"] != false || len(gates["baselines"].([]any)) != 0 {
		t.Fatalf("G8 before anything = %v", g8)
	}
	msg := d.refusal(call("r-0"), "twin.create_release_package", map[string]any{"project_id": pid})
	for _, want := range []string{"Configuration baseline fixed (no_data)", "Verification coverage complete (no_data)", "Release approval recorded (no_data)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("release refusal %q does not name %q", msg, want)
		}
	}

	ev := d.call(call("v-1"), "twin.record_evidence", map[string]any{"project_id": pid, "name": "FEA", "kind": "simulation", "metric": "tip_deflection",
		"value": 0.2, "unit": "mm", "valid_against": []any{"CAD-BRACKET"}})
	bl := d.call(approved("b-1", "alice"), "twin.create_baseline", map[string]any{"project_id": pid, "reason": "release candidate"})
	if bl["approved_by"] != "alice" || bl["approver_verified"] != true || bl["item_count"] != 2.0 {
		t.Fatalf("baseline = %v", bl)
	}
	ra := d.call(call("e-1"), "twin.record_engineering_entity", map[string]any{"project_id": pid, "entity_type": "release_approval", "name": "Ship it"})
	d.call(approved("a-1", "alice"), "twin.approve_engineering_entity", map[string]any{"project_id": pid, "node_id": ra["node_id"]})
	rel := d.call(call("r-1"), "twin.create_release_package", map[string]any{"project_id": pid, "reason": "first"})
	if rel["version"] != 1.0 || rel["baseline_id"] != bl["baseline_id"] || rel["evidence"].([]any)[0] != ev["node_id"] ||
		rel["counts"].(map[string]any)["hierarchy"] != 1.0 {
		t.Fatalf("release = %v", rel)
	}

	claim := d.call(call("cl-1"), "twin.record_claim", map[string]any{"project_id": pid, "claim": "stiff enough", "requirement_ref": "CS-REQS",
		"requirement_name": "stiff", "evidence_refs": []any{ev["node_id"]}})
	args := map[string]any{"project_id": pid, "required_claim_ids": []any{claim["node_id"]}, "maturity_level": "prototype"}
	if msg := d.refusal(call("pr-0"), "twin.attempt_promotion", args); !strings.Contains(msg, "an identified person must approve it") {
		t.Errorf("an unapproved promotion = %q", msg)
	}
	withDecider := map[string]any{"project_id": pid, "required_claim_ids": []any{claim["node_id"]}, "maturity_level": "prototype", "decided_by": "mallory"}
	if _, err := d.Try(approved("pr-x", "alice"), "twin.attempt_promotion", withDecider); err == nil || !strings.Contains(err.Error(), "decided_by") {
		t.Errorf("a supplied decided_by = %v", err)
	}
	pr := d.call(approved("pr-1", "bob"), "twin.attempt_promotion", args)
	if pr["promoted"] != true || pr["decided_by"] != "bob" || pr["evidence"].([]any)[0] != ev["node_id"] {
		t.Fatalf("promotion = %v", pr)
	}
	args["reject"], args["comment"] = true, "not yet"
	if veto := d.call(approved("pr-2", "bob"), "twin.attempt_promotion", args); veto["promoted"] != false {
		t.Fatalf("veto = %v", veto)
	}
	gates = d.call(call("l-2"), "twin.list_maturity_gates", map[string]any{"project_id": pid})
	if len(gates["promotions"].([]any)) != 2 || len(gates["release_packages"].([]any)) != 1 || gates["gates"].([]any)[5].(map[string]any)["passed"] != true {
		t.Fatalf("gates after = %v", gates)
	}
	for tool, human := range map[string]bool{"twin.create_baseline": true, "twin.attempt_promotion": true, "twin.create_release_package": false} {
		if ann, ok := adapters.AnnotationsFor(tool); !ok || ann.HumanAuthority != human || ann.ReadOnly {
			t.Errorf("%s annotations = %+v", tool, ann)
		}
	}
}
