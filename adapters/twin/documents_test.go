package twin_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

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
