package constraint_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/adapters/twin/twintest"
	"github.com/metaforge/metaforge/twin"
)

// direct calls the project, twin and constraint tools as the worker does;
// no call names a session, so only a call's project_id scopes it.
type direct struct{ twintest.Direct }

func newDirect(t *testing.T) (direct, *twin.MemoryStore) {
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mem := twin.NewMemoryStore()
	return direct{twintest.New(t, &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs})}, mem
}

func (d direct) call(toolID string, args map[string]any) map[string]any {
	raw, _ := json.Marshal(args)
	return d.Call(adapters.CallInfo{CallID: toolID + "-" + string(raw), Caller: "local", Client: "test"}, toolID, args)
}

// constraint.validate checks a proposed set and writes nothing.
func TestConstraintValidateWritesNothing(t *testing.T) {
	c, mem := newDirect(t)
	pid := c.call("project.create", map[string]any{"name": "Validate Me"})["project_id"].(string)
	c.call("twin.record_constraint_set", map[string]any{"project_id": pid, "name": "Mass budget", "constraints": []any{
		map[string]any{"name": "light", "metric": "mass", "operator": "<=", "limit": 1.0, "unit": "kg", "verification_method": "inspection"}}})
	ctx := context.Background()
	countNodes := func() int {
		n := 0
		for _, typ := range []string{"constraint_set", "evidence", "component_selection", "cad_model"} {
			nodes, _ := mem.NodesByType(ctx, pid, typ)
			n += len(nodes)
		}
		return n
	}
	itemsBefore, _ := mem.Items(ctx, pid)
	nodesBefore := countNodes()

	proposed := []any{
		map[string]any{"name": "heavy enough", "metric": "mass", "operator": ">=", "limit": 2000.0, "unit": "g", "verification_method": "test"},
		map[string]any{"name": "half", "metric": "tip_deflection", "limit": 0.5},
		map[string]any{"name": "impossible", "metric": "mass", "operator": "<=", "limit": -1.0, "unit": "kg", "verification_method": "analysis"},
		map[string]any{"name": "far", "metric": "length", "operator": "<=", "limit": 3.0, "unit": "furlongs", "verification_method": "inspection"},
		map[string]any{"name": "HALF", "expression": "deflection small"},
		map[string]any{"name": "rail", "metric": "supply_voltage", "operator": ">=", "limit": 3.0, "unit": "mA", "verification_method": "test"},
		map[string]any{"name": "exact", "metric": "pin_count", "operator": "==", "limit": 8.0, "unit": "1", "verification_method": "inspection"},
	}
	out := c.call("constraint.validate", map[string]any{"project_id": pid, "name": "Structure", "constraints": proposed})
	if out["valid"] != false || out["written"] != false || out["requirement_count"] != 7.0 || out["checkable_count"] != 4.0 {
		t.Errorf("valid/written/counts = %v/%v/%v/%v, want false/false/7/4 (heavy enough, impossible, rail, exact)",
			out["valid"], out["written"], out["requirement_count"], out["checkable_count"])
	}
	rows := twintest.RowsBy(t, out["requirements"], "name")
	codes := func(name string) []string {
		var cs []string
		issues, _ := rows[name]["issues"].([]any)
		for _, is := range issues {
			cs = append(cs, is.(map[string]any)["code"].(string))
		}
		return cs
	}
	if r := rows["half"]; r["checkable"] != false || !reflect.DeepEqual(r["missing"], []any{"expression or metric+operator+limit",
		"unit (a limit without a unit cannot be compared to a quantity)", "verification_method"}) || !reflect.DeepEqual(codes("half"), []string{"partial_binding"}) {
		t.Errorf("half = %v", r)
	}
	if !reflect.DeepEqual(codes("impossible"), []string{"never_met"}) ||
		!strings.Contains(rows["impossible"]["issues"].([]any)[0].(map[string]any)["message"].(string), "mass is never negative, so <= -1 kg can never be met") {
		t.Errorf("impossible = %v", rows["impossible"])
	}
	if rows["far"]["checkable"] != false || !reflect.DeepEqual(codes("far"), []string{"unknown_unit"}) {
		t.Errorf("far = %v", rows["far"])
	}
	if !reflect.DeepEqual(codes("rail"), []string{"unit_metric_mismatch"}) ||
		rows["rail"]["issues"].([]any)[0].(map[string]any)["message"] != "metric supply_voltage reads as voltage, but mA measures current; check the unit" {
		t.Errorf("rail = %v", rows["rail"])
	}
	if !reflect.DeepEqual(codes("exact"), []string{"exact_equality"}) || rows["exact"]["checkable"] != true {
		t.Errorf("exact = %v", rows["exact"])
	}
	if !reflect.DeepEqual(codes("HALF"), []string{"expression_not_checked"}) {
		t.Errorf("HALF = %v", rows["HALF"])
	}
	dups := out["duplicates"].([]any)
	if len(dups) != 1 || dups[0].(map[string]any)["kind"] != "same_name" ||
		!reflect.DeepEqual(dups[0].(map[string]any)["requirements"], []any{"half", "HALF"}) {
		t.Errorf("duplicates = %v", dups)
	}
	conflicts := out["conflicts"].([]any)
	if len(conflicts) != 2 {
		t.Fatalf("conflicts = %v, want heavy enough against impossible (this set) and against light (the current set)", conflicts)
	}
	inSet, withCurrent := conflicts[0].(map[string]any), conflicts[1].(map[string]any)
	if inSet["kind"] != "contradictory_bounds" || inSet["requirement"] != "heavy enough" ||
		!reflect.DeepEqual(inSet["with"], map[string]any{"requirement": "impossible", "constraint_set": "(this set)"}) {
		t.Errorf("in-set conflict = %v", inSet)
	}
	if withCurrent["kind"] != "contradictory_bounds" || withCurrent["requirement"] != "heavy enough" ||
		!reflect.DeepEqual(withCurrent["with"], map[string]any{"requirement": "light", "constraint_set": "CS-MASS-BUDGET@1"}) ||
		withCurrent["detail"] != `mass >= 2000 g ("heavy enough") and mass <= 1 kg ("light") cannot both hold` {
		t.Errorf("conflict with the current set = %v", withCurrent)
	}
	if !reflect.DeepEqual(out["conflicts_checked_against"], []any{"CS-MASS-BUDGET@1"}) || out["project_id"] != pid {
		t.Errorf("checked against = %v", out["conflicts_checked_against"])
	}

	// Revising the mass budget itself: its current revision is what the
	// proposal replaces, so it is no conflict.
	rev := c.call("constraint.validate", map[string]any{"project_id": pid, "name": "mass BUDGET", "constraints": []any{proposed[0]}})
	if rev["valid"] != true || rev["revises"] != "CS-MASS-BUDGET" || len(rev["conflicts"].([]any)) != 0 ||
		!reflect.DeepEqual(rev["conflicts_checked_against"], []any{}) {
		t.Errorf("revising the budget = %v", rev)
	}
	// A session with no project checks the set on its own, and says so.
	alone := c.call("constraint.validate", map[string]any{"constraints": []any{proposed[0],
		map[string]any{"name": "also light", "metric": "mass", "operator": "<", "limit": 2.0, "unit": "kg", "verification_method": "test"}}})
	notes, _ := alone["notes"].([]any)
	if _, has := alone["conflicts_checked_against"]; has || len(notes) != 2 || !strings.Contains(notes[1].(string), "no project") ||
		len(alone["conflicts"].([]any)) != 1 || alone["conflicts"].([]any)[0].(map[string]any)["detail"] != `mass >= 2000 g ("heavy enough") and mass < 2 kg ("also light") cannot both hold` {
		t.Errorf("no project = %v", alone)
	}

	itemsAfter, _ := mem.Items(ctx, pid)
	if len(itemsAfter) != len(itemsBefore) || countNodes() != nodesBefore {
		t.Fatalf("constraint.validate wrote: %d items (was %d), %d nodes (was %d)", len(itemsAfter), len(itemsBefore), countNodes(), nodesBefore)
	}
}
