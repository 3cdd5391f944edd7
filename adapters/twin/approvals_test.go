package twin_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/adapters/twin/twintest"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/twin"
)

// direct calls the twin's tools as the worker does, with the call's info
// in the context: what a held call carries once a person approved it.
type direct struct{ twintest.Direct }

func newDirect(t *testing.T, b *twinadapter.Backend) direct { return direct{twintest.New(t, b)} }

func (d direct) call(ci adapters.CallInfo, toolID string, args map[string]any) map[string]any {
	return d.Call(ci, toolID, args)
}

func (d direct) refusal(ci adapters.CallInfo, toolID string, args map[string]any) string {
	return d.Refusal(ci, toolID, args)
}

func call(id string) adapters.CallInfo {
	return adapters.CallInfo{CallID: id, Caller: "local", Client: "test"}
}

func approved(id, by string) adapters.CallInfo {
	ci := call(id)
	ci.ApprovedBy, ci.ApproverVerified = by, true
	return ci
}

// A waiver or release package is approved only by an identified person:
// the approval records who, and links to what it approves.
func TestApproveEngineeringEntity(t *testing.T) {
	be := newBackend(t)
	d := newDirect(t, be.Backend)
	ctx := context.Background()
	pid := d.call(call("p-1"), "project.create", map[string]any{"name": "Approvals"})["project_id"].(string)
	other := d.call(call("p-2"), "project.create", map[string]any{"name": "Elsewhere"})["project_id"].(string)
	entity := func(id, typ, name string, props map[string]any) string {
		args := map[string]any{"project_id": pid, "entity_type": typ, "name": name}
		if props != nil {
			args["properties"] = props
		}
		return d.call(call(id), "twin.record_engineering_entity", args)["node_id"].(string)
	}
	waiver := entity("e-1", "waiver", "Accept FEA by hand calc", map[string]any{"waives": []any{"simulation_meets_requirements"}})
	risk := entity("e-2", "risk", "Tips over", nil)
	foreign := d.call(call("e-3"), "twin.record_engineering_entity", map[string]any{"project_id": other, "entity_type": "waiver", "name": "Theirs"})["node_id"].(string)

	args := map[string]any{"project_id": pid, "node_id": waiver, "comment": "hand calc reviewed"}
	if msg := d.refusal(call("a-0"), "twin.approve_engineering_entity", args); !strings.Contains(msg, "an identified person must approve it through the approvals queue") {
		t.Errorf("unapproved call = %q", msg)
	}
	if nodes, _ := be.mem.NodesByType(ctx, pid, "approval"); len(nodes) != 0 {
		t.Fatalf("a refused approval wrote %d approvals", len(nodes))
	}

	out := d.call(approved("a-1", "alice@example.com"), "twin.approve_engineering_entity", args)
	if out["node_id"] != waiver || out["entity_type"] != "waiver" || out["approved_by"] != "alice@example.com" ||
		out["approver_verified"] != true || out["approvals"] != 1.0 {
		t.Errorf("approval = %v", out)
	}
	ap, err := be.mem.GetNode(ctx, out["approval_node_id"].(string))
	if err != nil || ap.Type != "approval" || ap.ProjectID != pid || !reflect.DeepEqual(ap.Properties,
		map[string]any{"approved_by": "alice@example.com", "approver_verified": true, "comment": "hand calc reviewed"}) {
		t.Errorf("approval node = %+v (%v)", ap, err)
	}
	edges, _ := be.mem.Neighbors(ctx, waiver, twin.Incoming, "APPROVES")
	if len(edges) != 1 || edges[0].Node.ID != ap.ID {
		t.Errorf("APPROVES edges into the waiver = %v", edges)
	}

	// The same call again (a retried activity) writes nothing new; another
	// approval adds one.
	if again := d.call(approved("a-1", "alice@example.com"), "twin.approve_engineering_entity", args); again["approval_node_id"] != ap.ID || again["approvals"] != 1.0 {
		t.Errorf("retried approval = %v", again)
	}
	if second := d.call(approved("a-2", "bob"), "twin.approve_engineering_entity", map[string]any{"project_id": pid, "node_id": waiver}); second["approvals"] != 2.0 {
		t.Errorf("second approval = %v", second)
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"project_id": pid, "node_id": risk}, "is a risk, not a waiver"},
		{map[string]any{"project_id": pid, "node_id": foreign}, "is in another project"},
		{map[string]any{"project_id": pid, "node_id": "n-0000000000000000"}, "does not exist"},
	} {
		if msg := d.refusal(approved("a-x", "alice"), "twin.approve_engineering_entity", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("approve %v = %q, want %q", tc.args["node_id"], msg, tc.want)
		}
	}
	if ann, ok := adapters.AnnotationsFor("twin.approve_engineering_entity"); !ok || !ann.HumanAuthority || ann.ReadOnly || ann.Destructive {
		t.Errorf("annotations = %+v (%v), want a human-authority write", ann, ok)
	}
}

// FlowFacts reads the node counts, the requirement rows and the approved
// waivers a gate is judged against.
func TestFlowFacts(t *testing.T) {
	be := newBackend(t)
	d := newDirect(t, be.Backend)
	ctx := context.Background()
	pid := d.call(call("p-1"), "project.create", map[string]any{"name": "Flow Facts"})["project_id"].(string)
	d.call(call("c-1"), "twin.record_constraint_set", map[string]any{"project_id": pid, "name": "Bracket", "constraints": []any{
		map[string]any{"name": "fits", "metric": "envelope_x", "operator": "<=", "limit": 120.0, "unit": "mm", "verification_method": "inspection"},
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "simulation"},
		map[string]any{"name": "strong", "metric": "max_von_mises", "operator": "<=", "limit": 100.0, "unit": "MPa", "verification_method": "simulation"},
		map[string]any{"name": "vague", "description": "looks right"},
	}})
	d.call(call("g-1"), "twin.commit_geometry", map[string]any{"project_id": pid, "name": "Bracket", "step_base64": step("b1"),
		"properties": map[string]any{"bounding_box": map[string]any{"size": []any{100.0, 40.0, 30.0}}}})
	d.call(call("g-2"), "twin.commit_geometry", map[string]any{"project_id": pid, "name": "Bracket", "step_base64": step("b2"),
		"properties": map[string]any{"bounding_box": map[string]any{"size": []any{110.0, 40.0, 30.0}}}})
	d.call(call("v-1"), "twin.record_evidence", map[string]any{"project_id": pid, "name": "FEA stress", "kind": "simulation",
		"metric": "max_von_mises", "value": 1.5e8, "unit": "Pa", "valid_against": []any{"CAD-BRACKET"}})
	entity := func(id, typ, name string, props map[string]any) string {
		return d.call(call(id), "twin.record_engineering_entity", map[string]any{"project_id": pid, "entity_type": typ, "name": name,
			"properties": props})["node_id"].(string)
	}
	waiver := entity("e-1", "waiver", "Stress accepted", map[string]any{"waives": []any{"simulation_meets_requirements", "strong"}})
	entity("e-2", "waiver", "Not yet approved", map[string]any{"waives": []any{"all_requirements_pass"}})
	release := entity("e-3", "release_approval", "Release A", map[string]any{})
	d.call(approved("a-1", "alice"), "twin.approve_engineering_entity", map[string]any{"project_id": pid, "node_id": waiver})
	d.call(approved("a-2", "bob"), "twin.approve_engineering_entity", map[string]any{"project_id": pid, "node_id": waiver})
	d.call(approved("a-3", "carol"), "twin.approve_engineering_entity", map[string]any{"project_id": pid, "node_id": release})

	facts, err := be.FlowFacts(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	if want := []flows.TypeCount{{Type: "approval", Count: 3}, {Type: "cad_model", Count: 1}, {Type: "constraint_set", Count: 1},
		{Type: "evidence", Count: 1}, {Type: "release_approval", Count: 1}, {Type: "waiver", Count: 2}}; !reflect.DeepEqual(facts.NodeTypes, want) {
		t.Errorf("node types = %+v, want %+v", facts.NodeTypes, want)
	}
	if want := []flows.Waiver{{ID: waiver, Name: "Stress accepted", Waives: []string{"simulation_meets_requirements", "strong"}, ApprovedBy: "alice"}}; !reflect.DeepEqual(facts.Waivers, want) {
		t.Errorf("waivers = %+v, want %+v", facts.Waivers, want)
	}
	f := func(v float64) *float64 { return &v }
	want := []flows.Requirement{
		{Name: "fits", ConstraintSet: "CS-BRACKET@1", Metric: "envelope_x", Operator: "<=", Limit: f(120), Unit: "mm", Value: f(110),
			Status: "pass", SourceKind: "cad_model"},
		{Name: "stiff", ConstraintSet: "CS-BRACKET@1", Metric: "tip_deflection", Operator: "<=", Limit: f(0.5), Unit: "mm", Status: "no_data",
			Missing: []string{"evidence with metric tip_deflection and a value in mm (or a component selection with a tip_deflection spec)"}},
		{Name: "strong", ConstraintSet: "CS-BRACKET@1", Metric: "max_von_mises", Operator: "<=", Limit: f(100), Unit: "MPa", Value: f(150),
			Status: "fail", SourceKind: "evidence"},
		{Name: "vague", ConstraintSet: "CS-BRACKET@1", Status: "no_data",
			Missing: []string{"metric", "operator (one of <=, <, >=, >, ==)", "limit", "unit"}},
	}
	if !reflect.DeepEqual(facts.Requirements, want) {
		got, _ := json.MarshalIndent(facts.Requirements, "", " ")
		t.Errorf("requirements = %s", got)
	}
	if _, err := be.FlowFacts(ctx, "no-such-project"); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("an unknown project = %v", err)
	}
}

// FlowFacts gives the latest evidence of each checked metric, with its
// freshness and its findings described; other metrics are not read.
func TestFlowFactsChecks(t *testing.T) {
	be := newBackend(t)
	d := newDirect(t, be.Backend)
	ctx := context.Background()
	pid := d.call(call("p-1"), "project.create", map[string]any{"name": "Checks"})["project_id"].(string)
	d.call(call("g-1"), "twin.commit_geometry", map[string]any{"project_id": pid, "name": "Board", "step_base64": step("b1")})
	evidence := func(id, metric string, v float64, data map[string]any) string {
		return d.call(call(id), "twin.record_evidence", map[string]any{"project_id": pid, "name": metric, "kind": "analysis",
			"metric": metric, "value": v, "unit": "1", "valid_against": []any{"CAD-BOARD"}, "data": data})["node_id"].(string)
	}
	evidence("v-1", "erc_errors", 2, map[string]any{"tool_id": "kicad.run_erc", "call_id": "c1"})
	drc := evidence("v-2", "drc_errors", 1, map[string]any{"tool_id": "kicad.run_drc", "call_id": "c2", "findings_total": 80.0,
		"findings": []any{map[string]any{"rule": "clearance", "description": "Clearance violation", "severity": "error",
			"location": map[string]any{"x_mm": 10.0, "y_mm": 20.0}}}})
	erc := evidence("v-3", "ERC errors", 0, map[string]any{"tool_id": "kicad.run_erc", "call_id": "c3"})
	evidence("v-4", "erc_warnings", 4, nil)

	facts, err := be.FlowFacts(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	f := func(v float64) *float64 { return &v }
	want := []flows.CheckEvidence{
		{Metric: "drc_errors", EvidenceID: drc, Name: "drc_errors", Value: f(1), Unit: "1", ToolID: "kicad.run_drc", CallID: "c2",
			Findings: []string{"clearance: Clearance violation (error) at (10, 20) mm"}, FindingsTotal: 80},
		{Metric: "erc_errors", EvidenceID: erc, Name: "ERC errors", Value: f(0), Unit: "1", ToolID: "kicad.run_erc", CallID: "c3"},
	}
	if !reflect.DeepEqual(facts.Checks, want) {
		got, _ := json.MarshalIndent(facts.Checks, "", " ")
		t.Fatalf("checks = %s", got)
	}
	// A new revision of the board makes both stale.
	d.call(call("g-2"), "twin.commit_geometry", map[string]any{"project_id": pid, "name": "Board", "step_base64": step("b2")})
	facts, err = be.FlowFacts(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range facts.Checks {
		if !c.Stale || !reflect.DeepEqual(c.StaleAgainst, []string{"CAD-BOARD@1 (now CAD-BOARD@2)"}) {
			t.Errorf("%s after CAD-BOARD@2: stale %v against %q", c.Metric, c.Stale, c.StaleAgainst)
		}
	}
}
