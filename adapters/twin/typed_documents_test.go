package twin_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/twin"
)

func TestTypedDocumentsThroughMCP(t *testing.T) {
	s, be := theStack(t)
	typedDocuments(t, client{t, s.ConnectHTTP(t, nil)}, be.Store)
}

func TestTypedDocumentsThroughMCPOnNeo4j(t *testing.T) {
	b := neo4jBackend(t, false)
	s := mcptest.Start(t, twinadapter.New(b)...)
	typedDocuments(t, client{t, s.ConnectHTTP(t, nil)}, b.Store)
}

// Every typed document kind the twin knows has its tool.
func TestEveryTypedDocumentHasATool(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	served := map[string]bool{}
	for tool, err := range c.cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		served[tool.Name] = true
	}
	for _, kind := range twin.TypedDocumentTypes() {
		if !served["twin.commit_"+kind] {
			t.Errorf("no tool twin.commit_%s serves the typed document kind %s", kind, kind)
		}
	}
}

// typedDocuments writes each typed document twice through the MCP server
// (a revision, then the next), reads one back, and sends hostile
// arguments that must be refused with nothing written.
func typedDocuments(t *testing.T, c client, store twin.Store) {
	pid := c.call("project.create", map[string]any{"name": "Arm documents"})["project_id"].(string)
	c.call("twin.commit_geometry", map[string]any{"name": "Bracket", "step_base64": step("b1")})
	c.call("twin.record_component_selection", map[string]any{"name": "Elbow servo", "mpn": "DS3218"})

	drawing := map[string]any{"title": "Bracket drawing", "part_ref": "CAD-BRACKET", "dimensions": []any{
		map[string]any{"feature": "overall length", "nominal": 120, "unit": "mm", "plus_tolerance": 0.2, "minus_tolerance": 0.1},
		map[string]any{"feature": "bore", "nominal": 8, "unit": "mm", "plus_tolerance": 0.015, "minus_tolerance": 0},
	}, "gdt": []any{map[string]any{"characteristic": "perpendicularity", "feature": "bore", "tolerance": 0.02, "unit": "mm", "datums": []any{"A"}}},
		"surface_finish": map[string]any{"ra": 0.8, "unit": "um"},
		"inspection":     []any{map[string]any{"characteristic": "bore", "method": "bore gauge", "sampling": "100%"}}}
	docs := []struct {
		tool, kind, key string
		args            map[string]any
		// revise changes the arguments for the second call.
		revise func(map[string]any)
	}{
		{"twin.commit_compliance_checklist", "compliance_checklist", "DOC-CE-CHECKLIST", map[string]any{"title": "CE checklist", "scope": "EU",
			"items": []any{map[string]any{"standard": "EN 60204-1", "clause": "10.7", "status": "open"}}},
			func(a map[string]any) {
				a["items"] = []any{map[string]any{"standard": "EN 60204-1", "clause": "10.7", "status": "compliant", "evidence": "e-stop test TR-3"}}
			}},
		{"twin.commit_design_sketch", "design_sketch", "DOC-MOUNT-SKETCH", map[string]any{"title": "Mount sketch", "intent": "hold the servo",
			"description": "an L bracket", "concerns": []any{"CAD-BRACKET"}},
			func(a map[string]any) {
				a["entities"] = []any{map[string]any{"kind": "line", "points": []any{[]any{0, 0}, []any{40, 0}}}}
			}},
		{"twin.commit_hazard_analysis", "hazard_analysis", "DOC-ARM-HAZARDS", map[string]any{"title": "Arm hazards", "hazards": []any{
			map[string]any{"hazard": "pinch", "cause": "elbow closes", "severity": 4, "likelihood": 3, "mitigation": "torque limit"}}},
			func(a map[string]any) { a["hazards"].([]any)[0].(map[string]any)["likelihood"] = 2 }},
		{"twin.commit_procurement_record", "procurement_record", "DOC-BUY-LIST", map[string]any{"title": "Buy list", "lines": []any{
			map[string]any{"mpn": "DS3218", "supplier": "Digi-Key", "quantity": 4, "unit_price": 12.5, "lead_time_days": 5},
			map[string]any{"mpn": "608ZZ", "supplier": "SKF", "quantity": 8, "unit_price": 1.25, "lead_time_days": 14}}},
			func(a map[string]any) { a["lines"].([]any)[0].(map[string]any)["po"] = "PO-1" }},
		{"twin.commit_technical_drawing", "technical_drawing", "DOC-BRACKET-DRAWING", drawing,
			func(a map[string]any) { a["drawing_number"], a["change_reason"] = "DWG-7", "numbered" }},
	}
	for _, d := range docs {
		first := c.call(d.tool, d.args)
		if first["item_ref"] != d.key+"@1" || first["document_type"] != d.kind || first["project_id"] != pid {
			t.Errorf("%s = %v, want %s@1", d.tool, first, d.key)
			continue
		}
		d.revise(d.args)
		second := c.call(d.tool, d.args)
		if second["item_ref"] != d.key+"@2" {
			t.Errorf("%s again = %v, want %s@2", d.tool, second, d.key)
		}
		hist := c.call("twin.item_history", map[string]any{"item_key": d.key})
		if revs, _ := hist["revisions"].([]any); len(revs) != 2 {
			t.Errorf("%s history = %v", d.key, hist)
		}
	}

	// Read back: the procurement record's total and links, the drawing's
	// part, the sketch's concerns.
	buy := c.call("twin.get_node", map[string]any{"item_key": "DOC-BUY-LIST"})
	props := buy["node"].(map[string]any)["properties"].(map[string]any)
	// By hand: 4 x 12.5 + 8 x 1.25 = 50 + 10 = 60 USD; longest lead 14 days (608ZZ).
	sum := props["summary"].(map[string]any)
	if math.Abs(sum["total"].(float64)-60) > 1e-9 || sum["longest_lead_time_days"] != 14.0 || strs(sum["lines_without_po"])[0] != "608ZZ" {
		t.Errorf("procurement summary = %v", sum)
	}
	if got := strs(props["concerns"]); len(got) != 1 || got[0] != "BOM-ELBOW-SERVO@1" {
		t.Errorf("procurement concerns = %v", got)
	}
	if !strings.Contains(props["text"].(string), "| DS3218 | Digi-Key | 4 | 12.5 | 50 | 5 | PO-1 |") {
		t.Errorf("procurement text = %s", props["text"])
	}
	ce := c.call("twin.get_node", map[string]any{"item_key": "DOC-CE-CHECKLIST"})["node"].(map[string]any)["properties"].(map[string]any)
	if !strings.Contains(ce["text"].(string), "Compliance checklist for EU.") || ce["content"].(map[string]any)["scope"] != "EU" {
		t.Errorf("checklist = %v", ce)
	}
	dw := c.call("twin.get_node", map[string]any{"item_key": "DOC-BRACKET-DRAWING"})
	var drawn bool
	for _, r := range dw["related"].([]any) {
		rel := r.(map[string]any)
		drawn = drawn || rel["edge"] == "CONCERNS" && rel["item_ref"] == "CAD-BRACKET@1"
	}
	if !drawn || !strings.Contains(dw["node"].(map[string]any)["properties"].(map[string]any)["text"].(string), "| overall length | 120 | +0.2 / -0.1 | 119.9 to 120.2 | mm |") {
		t.Errorf("drawing = %v", dw)
	}

	// Hostile arguments: refused by the schema or the rules, nothing written.
	before, _ := store.NodesByType(context.Background(), pid, "document")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"twin.commit_hazard_analysis", map[string]any{"title": "h", "hazards": []any{
			map[string]any{"hazard": "h", "cause": "c", "severity": 9, "likelihood": 1, "mitigation": "m"}}}, "severity"},
		{"twin.commit_hazard_analysis", map[string]any{"title": "h", "hazards": []any{}}, "hazards"},
		{"twin.commit_hazard_analysis", map[string]any{"title": "h", "hazards": []any{
			map[string]any{"hazard": "h", "cause": "c", "severity": 2, "likelihood": 2, "mitigation": "m", "residual_severity": 3, "residual_likelihood": 1}}}, "worse than before"},
		{"twin.commit_compliance_checklist", map[string]any{"title": "c", "items": []any{
			map[string]any{"standard": "EN 1", "clause": "1", "status": "compliant"}}}, "gives no evidence"},
		{"twin.commit_compliance_checklist", map[string]any{"title": "c", "items": []any{
			map[string]any{"standard": "EN 1", "clause": "1", "status": "fine", "evidence": "x"}}}, "status"},
		{"twin.commit_procurement_record", map[string]any{"title": "p", "lines": []any{
			map[string]any{"mpn": "a", "supplier": "s", "quantity": 1, "unit_price": -3, "lead_time_days": 1}}}, "unit_price"},
		{"twin.commit_procurement_record", map[string]any{"title": "p", "lines": []any{
			map[string]any{"mpn": "a", "supplier": "s", "quantity": 1, "lead_time_days": 1}}}, "unit_price"},
		{"twin.commit_procurement_record", map[string]any{"title": "p", "lines": []any{
			map[string]any{"mpn": "a", "supplier": "s", "quantity": 1, "unit_price": 1, "lead_time_days": 1, "discount": "all of it"}}}, "discount"},
		{"twin.commit_technical_drawing", map[string]any{"title": "d", "part_ref": "CAD-NOPE", "dimensions": drawing["dimensions"], "inspection": drawing["inspection"]}, "CAD-NOPE"},
		{"twin.commit_technical_drawing", map[string]any{"title": "d", "part_ref": "CAD-BRACKET", "dimensions": []any{
			map[string]any{"feature": "l", "nominal": 5, "unit": "mm", "plus_tolerance": 0.1, "minus_tolerance": 6}}, "inspection": drawing["inspection"]}, "lower limit"},
		{"twin.commit_technical_drawing", map[string]any{"title": "d", "part_ref": "CAD-BRACKET", "dimensions": drawing["dimensions"],
			"gdt":        []any{map[string]any{"characteristic": "flatness", "feature": "f", "tolerance": 0.1, "unit": "mm", "datums": []any{"A"}}},
			"inspection": drawing["inspection"]}, "takes no datum"},
		{"twin.commit_design_sketch", map[string]any{"title": "s", "intent": "i", "entities": []any{
			map[string]any{"kind": "arc", "points": []any{[]any{0, 0}, []any{1, 1}, []any{2, 2}}}}}, "lie on one line"},
		{"twin.commit_design_sketch", map[string]any{"title": "s", "intent": "i"}, "entities"},
		// A typed document over another kind, and free text over a typed one.
		{"twin.commit_design_sketch", map[string]any{"title": "Arm hazards", "intent": "i", "description": "d"}, "is a hazard_analysis"},
		{"twin.record_document", map[string]any{"document_type": "note", "title": "Arm hazards", "text": "overwrite"}, "is a hazard_analysis"},
		{"twin.commit_hazard_analysis", map[string]any{"title": "h", "concerns": []any{"CAD-NOPE"}, "hazards": []any{
			map[string]any{"hazard": "h", "cause": "c", "severity": 2, "likelihood": 2, "mitigation": "m"}}}, "concerns CAD-NOPE"},
	} {
		res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		var text string
		switch {
		case err != nil:
			text = err.Error()
		case res.IsError:
			text = res.Content[0].(*mcp.TextContent).Text
		default:
			t.Errorf("%s %v: accepted, want a refusal", tc.tool, tc.args)
			continue
		}
		if !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: %q, want it to say %q", tc.tool, tc.args, text, tc.want)
		}
	}
	if after, _ := store.NodesByType(context.Background(), pid, "document"); len(after) != len(before) {
		t.Errorf("hostile calls wrote %d document revisions", len(after)-len(before))
	}
}
