package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters/cadquery"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/twin/neo4jtest"
)

// armRig is the whole server path for the robot arm: a real MCP client over
// Streamable HTTP, the embedded Temporal and its workers, the twin and
// CadQuery adapters, and GET /v1/bom on the same HTTP server.
type armRig struct {
	t       *testing.T
	st      *mcptest.Stack
	cs      *mcp.ClientSession
	project string
}

func newArmRig(t *testing.T, store twin.Store, sessions twin.SessionBindings) *armRig {
	t.Helper()
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	backend := &twinadapter.Backend{Store: store, Sessions: sessions, Blobs: blobs}
	cq := cadquery.New(workspace.New(t.TempDir()), cadquery.Options{})
	t.Cleanup(func() { _ = cq.Close() })
	st := mcptest.StartWithTwinConfigured(t, backend, func(o *mcpserver.Options) {
		o.Routes = []mcpserver.Routes{runs.BOM{Twin: store}}
	}, append(twinadapter.New(backend), cq)...)
	r := &armRig{t: t, st: st, cs: st.ConnectHTTP(t, nil)}
	r.project = r.call("project.create", map[string]any{"name": "robot-arm-" + newID()})["project_id"].(string)
	return r
}

// callResult runs a tool through MCP: its structured result, or its
// refusal's text.
func (r *armRig) callResult(tool string, args map[string]any) (map[string]any, string) {
	r.t.Helper()
	if _, ok := args["project_id"]; !ok && r.project != "" && strings.HasPrefix(tool, "twin.") {
		args["project_id"] = r.project
	}
	res, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		r.t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		return nil, res.Content[0].(*mcp.TextContent).Text
	}
	var out map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &out)
	return out, ""
}

func (r *armRig) call(tool string, args map[string]any) map[string]any {
	r.t.Helper()
	out, refused := r.callResult(tool, args)
	if refused != "" {
		r.t.Fatalf("%s refused: %s", tool, refused)
	}
	return out
}

// model makes a box with CadQuery, measures it in material and commits it
// with its measured mass: the cad_model's item ref.
func (r *armRig) model(name string, length, width, height float64, material string) string {
	r.t.Helper()
	box := r.call("cadquery.create_parametric", map[string]any{"shape_type": "box",
		"parameters": map[string]any{"length": length, "width": width, "height": height}})
	step := r.call("cadquery.export_geometry", map[string]any{"input_file": box["cad_file"], "output_format": "step"})
	props := r.call("cadquery.get_properties", map[string]any{"input_file": box["cad_file"], "material": material})
	if props["mass_kg"] == nil {
		r.t.Fatalf("%s: CadQuery measured no mass: %v", name, props)
	}
	return r.call("twin.commit_geometry", map[string]any{"name": name, "step_base64": step["step_base64"], "material": material,
		"properties": map[string]any{"mass_kg": props["mass_kg"], "volume_mm3": props["volume"], "bounding_box": props["bounding_box"]}})["item_ref"].(string)
}

// get reads a /v1 route of the rig's server.
func (r *armRig) get(path string) (int, map[string]any) {
	r.t.Helper()
	res, err := http.Get(r.st.URL() + path)
	if err != nil {
		r.t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// jsonAt walks a decoded JSON value by keys and indexes.
func jsonAt(v any, steps ...any) any {
	for _, s := range steps {
		switch k := s.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func num(v any) float64 {
	f, ok := v.(float64)
	if !ok {
		return math.NaN()
	}
	return f
}

// Densities of the materials table, kg/mm^3 (kg/m^3 x 1e-9).
const (
	aluminium = 2700e-9 // aluminum_6061_t6
	steel     = 7850e-9 // steel
	copper    = 8890e-9 // copper_c110
)

// The robot arm through MCP on both stores: a product of three
// subsystems and seven parts realised by CadQuery boxes with measured
// masses, four BOM items with costs, quantities 2 and 4; the roll-up
// against hand sums, a part without a mass named as no_data, a cycle
// refused, a model replaced, and GET /v1/bom flat and hierarchical.
func TestRobotArmHierarchyThroughMCP(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		mem := twin.NewMemoryStore()
		robotArm(t, newArmRig(t, mem, mem))
	})
	t.Run("neo4j", func(t *testing.T) {
		uri, user, password := neo4jtest.URI(t, neo4jtest.PortE2E)
		store, err := twin.OpenNeo4j(context.Background(), uri, user, password)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close(context.Background()) })
		robotArm(t, newArmRig(t, store, store))
	})
}

func robotArm(t *testing.T, r *armRig) {
	// Parts, their masses by hand (volume mm^3 x density):
	//   base plate 150 x 150 x 10 aluminium: 225000 x 2.7e-6  = 0.6075 kg
	//   servo (three models)  40 x 20 x 40 steel: 32000 x 7.85e-6 = 0.2512 kg
	//   link 250 x 40 x 20 aluminium: 200000 x 2.7e-6          = 0.54 kg
	//   gripper plate 80 x 50 x 6 aluminium: 24000 x 2.7e-6    = 0.0648 kg
	//   screw 10 x 5 x 5 steel: 250 x 7.85e-6                  = 0.0019625 kg
	plateKg, servoKg, linkKg := 150*150*10*aluminium, 40*20*40*steel, 250*40*20*aluminium
	gripperKg, screwKg := 80*50*6*aluminium, 10*5*5*steel
	models := map[string]string{
		"Base plate":     r.model("Base plate", 150, 150, 10, "aluminum_6061_t6"),
		"Base servo":     r.model("Base servo", 40, 20, 40, "steel"),
		"Shoulder servo": r.model("Shoulder servo", 40, 20, 40, "steel"),
		"Link":           r.model("Link", 250, 40, 20, "aluminum_6061_t6"),
		"Wrist servo":    r.model("Wrist servo", 40, 20, 40, "steel"),
		"Gripper plate":  r.model("Gripper plate", 80, 50, 6, "aluminum_6061_t6"),
		"Screw":          r.model("Screw", 10, 5, 5, "steel"),
	}
	boms := map[string]string{}
	for _, b := range []map[string]any{
		{"name": "Servo", "mpn": "DS3225", "manufacturer": "DSServo", "specs": map[string]any{"unit_cost": map[string]any{"value": 89.5, "unit": "USD"}, "category": "actuator"}},
		{"name": "Aluminium plate", "mpn": "AL6061-PLATE", "manufacturer": "Metals4U", "specs": map[string]any{"unit_cost": "$45.00", "category": "raw material"}},
		{"name": "Link tube", "mpn": "AL-TUBE-40x20", "manufacturer": "Metals4U", "specs": map[string]any{"Unit Cost": "12.50 USD"}},
		{"name": "M3 screw", "mpn": "ISO4762-M3x10", "manufacturer": "Bossard", "specs": map[string]any{"unit_cost": "$0.12", "category": "Fastener"}},
	} {
		boms[b["name"].(string)] = r.call("twin.record_component_selection", b)["item_ref"].(string)
	}

	r.call("twin.record_hierarchy_node", map[string]any{"name": "Robot arm", "level": "product", "description": "a three-axis desktop arm"})
	for _, sub := range []string{"Base", "Shoulder", "Wrist"} {
		r.call("twin.record_hierarchy_node", map[string]any{"name": sub, "level": "subsystem", "parent": "HN-ROBOT-ARM"})
	}
	for _, p := range []struct {
		name, parent, bom string
		qty               int
	}{
		{"Base plate", "HN-BASE", "Aluminium plate", 1},
		{"Base servo", "HN-BASE", "Servo", 1},
		{"Shoulder servo", "HN-SHOULDER", "Servo", 1},
		{"Link", "HN-SHOULDER", "Link tube", 2},
		{"Wrist servo", "HN-WRIST", "Servo", 1},
		{"Gripper plate", "HN-WRIST", "Aluminium plate", 1},
		{"Screw", "HN-WRIST", "M3 screw", 4},
	} {
		out := r.call("twin.record_hierarchy_node", map[string]any{"name": p.name, "level": "part", "parent": p.parent, "quantity": p.qty,
			"realized_by": models[p.name], "instance_of": boms[p.bom], "placement": map[string]any{"z_mm": 10}})
		if out["parent"] != p.parent+"@1" || out["quantity"] != float64(p.qty) || out["realized_by"] != models[p.name] || out["instance_of"] != boms[p.bom] {
			t.Fatalf("record %s = %v", p.name, out)
		}
	}

	// Mass by hand: Base 0.6075 + 0.2512 = 0.8587; Shoulder 0.2512 + 2 x
	// 0.54 = 1.3312; Wrist 0.2512 + 0.0648 + 4 x 0.0019625 = 0.32385;
	// arm 0.8587 + 1.3312 + 0.32385 = 2.51375 kg. CadQuery measures a
	// box's volume exactly to well within the tolerance, 1e-6 kg.
	baseKg, shoulderKg, wristKg := plateKg+servoKg, servoKg+2*linkKg, servoKg+gripperKg+4*screwKg
	armKg := baseKg + shoulderKg + wristKg
	if math.Abs(armKg-2.51375) > 1e-12 {
		t.Fatalf("the hand sum is %g, not 2.51375", armKg)
	}
	// Cost by hand: servos 3 x 89.50 = 268.50, plates 2 x 45 = 90, links
	// 2 x 12.50 = 25, screws 4 x 0.12 = 0.48: 383.98 USD.
	const armUSD = 3*89.50 + 2*45 + 2*12.50 + 4*0.12
	const tolKg, tolUSD = 1e-6, 1e-9
	roll := r.call("twin.compute_hierarchy_rollup", map[string]any{"root": "HN-ROBOT-ARM"})
	root := roll["root"]
	if got := num(jsonAt(root, "mass_kg", "value")); math.Abs(got-armKg) > tolKg {
		t.Errorf("arm mass = %v, want %g", jsonAt(root, "mass_kg"), armKg)
	}
	if got := num(jsonAt(root, "cost_usd", "value")); math.Abs(got-armUSD) > tolUSD {
		t.Errorf("arm cost = %v, want %g", jsonAt(root, "cost_usd"), armUSD)
	}
	for i, want := range []struct {
		name    string
		kg, usd float64
	}{{"Base", baseKg, 89.5 + 45}, {"Shoulder", shoulderKg, 89.5 + 2*12.5}, {"Wrist", wristKg, 89.5 + 45 + 4*0.12}} {
		sub := jsonAt(root, "children", i)
		if jsonAt(sub, "name") != want.name || math.Abs(num(jsonAt(sub, "mass_kg", "value"))-want.kg) > tolKg ||
			math.Abs(num(jsonAt(sub, "cost_usd", "value"))-want.usd) > tolUSD {
			t.Errorf("subsystem %d = %v, want %s %g kg %g USD", i, sub, want.name, want.kg, want.usd)
		}
	}
	screw := jsonAt(root, "children", 2, "children", 2)
	if jsonAt(screw, "name") != "Screw" || jsonAt(screw, "quantity") != 4.0 || jsonAt(screw, "total_quantity") != 4.0 ||
		math.Abs(num(jsonAt(screw, "mass_kg", "value"))-screwKg) > tolKg || jsonAt(screw, "placement", "z_mm") != 10.0 {
		t.Errorf("screw = %v", screw)
	}

	// A part without a mass: a cable harness whose committed model
	// records none. It is no_data, named on the wrist and on the arm, and
	// the arm's known part is a lower bound, not a total.
	bare := r.call("twin.commit_geometry", map[string]any{"name": "Cable harness", "step_base64": boxStep(r, 300, 10, 10)})["item_ref"].(string)
	r.call("twin.record_hierarchy_node", map[string]any{"name": "Cable harness", "level": "part", "parent": "HN-WRIST", "realized_by": bare})
	roll = r.call("twin.compute_hierarchy_rollup", map[string]any{"root": "HN-ROBOT-ARM"})
	for _, at := range []any{jsonAt(roll, "root"), jsonAt(roll, "root", "children", 2)} {
		m := jsonAt(at, "mass_kg")
		if jsonAt(m, "value") != nil || jsonAt(m, "no_data", 0, "name") != "Cable harness" || jsonAt(m, "no_data", 0, "ref") != "HN-CABLE-HARNESS@1" ||
			!strings.Contains(jsonAt(m, "no_data", 0, "reason").(string), "CAD-CABLE-HARNESS@1 gives no mass") {
			t.Errorf("%v's mass with a harness of no mass = %v", jsonAt(at, "name"), m)
		}
	}
	if got := num(jsonAt(roll, "root", "mass_kg", "known_partial_sum")); math.Abs(got-armKg) > tolKg {
		t.Errorf("the arm's known partial mass = %g, want %g", got, armKg)
	}

	// The hierarchy resource shows the same roll-up.
	res, err := r.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "metaforge://twin/hierarchy/" + r.project})
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	_ = json.Unmarshal([]byte(res.Contents[0].Text), &h)
	if jsonAt(h, "roots", 0, "ref") != "HN-ROBOT-ARM@1" || jsonAt(h, "roots", 0, "mass_kg", "no_data", 0, "name") != "Cable harness" ||
		math.Abs(num(jsonAt(h, "roots", 0, "cost_usd", "known_partial_sum"))-armUSD) > tolUSD {
		t.Errorf("hierarchy resource = %v", h)
	}

	// A cycle is refused, naming it, and writes nothing.
	if _, msg := r.callResult("twin.record_hierarchy_node", map[string]any{"name": "Shoulder", "parent": "HN-LINK"}); !strings.Contains(msg,
		"that would make a cycle (Shoulder (HN-SHOULDER@1) > Link (HN-LINK@1) > Shoulder (HN-SHOULDER@1))") {
		t.Errorf("cycle = %q", msg)
	}
	if hist := r.call("twin.item_history", map[string]any{"item_key": "HN-SHOULDER"}); len(hist["revisions"].([]any)) != 1 {
		t.Errorf("the refused cycle revised the shoulder: %v", hist)
	}

	// Realising the harness by a measured model replaces the model: the
	// roll-up changes, and the position's history shows both. Harness
	// 300 x 10 x 10 copper: 30000 x 8.89e-6 = 0.2667 kg.
	measured := r.model("Cable harness", 300, 10, 10, "copper_c110")
	re := r.call("twin.realize_hierarchy_node", map[string]any{"node": "HN-CABLE-HARNESS@1", "realized_by": measured})
	if measured != "CAD-CABLE-HARNESS@2" || re["item_ref"] != "HN-CABLE-HARNESS@2" || jsonAt(re, "replaced", "realized_by") != "CAD-CABLE-HARNESS@1" ||
		re["realized_by"] != measured || re["parent"] != "HN-WRIST@1" {
		t.Fatalf("realize = %v", re)
	}
	harnessKg := 300 * 10 * 10 * copper
	roll = r.call("twin.compute_hierarchy_rollup", map[string]any{"root": "HN-ROBOT-ARM"})
	if got := num(jsonAt(roll, "root", "mass_kg", "value")); math.Abs(got-(armKg+harnessKg)) > tolKg || math.Abs(harnessKg-0.2667) > 1e-12 {
		t.Errorf("arm mass after realising the harness = %v, want %g", jsonAt(roll, "root", "mass_kg"), armKg+harnessKg)
	}
	hist := r.call("twin.item_history", map[string]any{"item_key": "HN-CABLE-HARNESS"})
	revs := hist["revisions"].([]any)
	if len(revs) != 2 || jsonAt(revs, 1, "change_reason") != "realized by CAD-CABLE-HARNESS@2" {
		t.Errorf("harness history = %v", revs)
	}
	for i, want := range []string{"CAD-CABLE-HARNESS@1", "CAD-CABLE-HARNESS@2"} {
		node := r.call("twin.get_node", map[string]any{"item_key": fmt.Sprintf("HN-CABLE-HARNESS@%d", i+1)})
		if !strings.Contains(fmt.Sprint(node), want) {
			t.Errorf("HN-CABLE-HARNESS@%d does not show it was realised by %s: %v", i+1, want, node)
		}
	}

	// GET /v1/bom flat: one line per BOM item, quantities multiplied
	// down CONTAINS, by item ref.
	code, flat := r.get("/v1/bom?project=" + r.project + "&view=flat")
	if code != http.StatusOK || jsonAt(flat, "view") != "flat" || jsonAt(flat, "tree") != nil {
		t.Fatalf("GET /v1/bom flat = %d %v", code, flat)
	}
	lines := flat["lines"].([]any)
	want := []struct {
		ref, name, mpn, manufacturer, category string
		qty                                    float64
		unit, extended                         float64
	}{
		{boms["Aluminium plate"], "Aluminium plate", "AL6061-PLATE", "Metals4U", "raw material", 2, 45, 90},
		{boms["Link tube"], "Link tube", "AL-TUBE-40x20", "Metals4U", "", 2, 12.5, 25},
		{boms["M3 screw"], "M3 screw", "ISO4762-M3x10", "Bossard", "Fastener", 4, 0.12, 0.48},
		{boms["Servo"], "Servo", "DS3225", "DSServo", "actuator", 3, 89.5, 268.5},
	}
	if len(lines) != len(want) {
		t.Fatalf("flat lines = %v", lines)
	}
	for i, w := range want {
		l := lines[i].(map[string]any)
		if l["item_ref"] != w.ref || l["name"] != w.name || l["mpn"] != w.mpn || l["manufacturer"] != w.manufacturer ||
			fmt.Sprint(l["category"]) != fmt.Sprint(map[bool]any{true: nil, false: w.category}[w.category == ""]) ||
			l["total_quantity"] != w.qty || math.Abs(num(l["unit_cost_usd"])-w.unit) > tolUSD || math.Abs(num(l["extended_cost_usd"])-w.extended) > tolUSD {
			t.Errorf("flat line %d = %v, want %+v", i, l, w)
		}
	}
	if math.Abs(num(flat["total_cost_usd"])-armUSD) > tolUSD {
		t.Errorf("flat total = %v, want %g", flat["total_cost_usd"], armUSD)
	}

	// Hierarchical: the tree with each position's quantity and what one
	// arm holds of it.
	code, tree := r.get("/v1/bom?project=" + r.project + "&view=hierarchical")
	if code != http.StatusOK || jsonAt(tree, "lines") != nil || len(tree["tree"].([]any)) != 1 {
		t.Fatalf("GET /v1/bom hierarchical = %d %v", code, tree)
	}
	arm := jsonAt(tree, "tree", 0)
	if jsonAt(arm, "ref") != "HN-ROBOT-ARM@1" || jsonAt(arm, "quantity") != 1.0 || len(jsonAt(arm, "children").([]any)) != 3 {
		t.Fatalf("arm = %v", arm)
	}
	type row struct {
		sub, part, bom string
		qty            float64
		extended       float64
	}
	rows := []row{
		{"Base", "Base plate", boms["Aluminium plate"], 1, 45},
		{"Base", "Base servo", boms["Servo"], 1, 89.5},
		{"Shoulder", "Shoulder servo", boms["Servo"], 1, 89.5},
		{"Shoulder", "Link", boms["Link tube"], 2, 25},
		{"Wrist", "Wrist servo", boms["Servo"], 1, 89.5},
		{"Wrist", "Gripper plate", boms["Aluminium plate"], 1, 45},
		{"Wrist", "Screw", boms["M3 screw"], 4, 0.48},
		{"Wrist", "Cable harness", "", 1, 0},
	}
	k := map[string]int{}
	subs := map[string]int{"Base": 0, "Shoulder": 1, "Wrist": 2}
	for _, w := range rows {
		sub := jsonAt(arm, "children", subs[w.sub])
		pos := jsonAt(sub, "children", k[w.sub])
		k[w.sub]++
		if jsonAt(sub, "name") != w.sub || jsonAt(sub, "quantity") != 1.0 || jsonAt(sub, "bom_item") != nil ||
			jsonAt(pos, "name") != w.part || jsonAt(pos, "quantity") != w.qty || jsonAt(pos, "total_quantity") != w.qty {
			t.Errorf("%s/%s = %v", w.sub, w.part, pos)
			continue
		}
		if w.bom == "" {
			if jsonAt(pos, "bom_item") != nil {
				t.Errorf("%s has a BOM item: %v", w.part, pos)
			}
			continue
		}
		if jsonAt(pos, "bom_item", "item_ref") != w.bom || jsonAt(pos, "bom_item", "total_quantity") != w.qty ||
			math.Abs(num(jsonAt(pos, "bom_item", "extended_cost_usd"))-w.extended) > tolUSD {
			t.Errorf("%s's BOM item = %v", w.part, jsonAt(pos, "bom_item"))
		}
	}
	// A category, any case: the screws alone, under their branch.
	code, fast := r.get("/v1/bom?project=" + r.project + "&view=hierarchical&category=fastener")
	if code != http.StatusOK || jsonAt(fast, "tree", 0, "children", 0, "name") != "Wrist" || jsonAt(fast, "tree", 0, "children", 1) != nil ||
		jsonAt(fast, "tree", 0, "children", 0, "children", 0, "name") != "Screw" || jsonAt(fast, "tree", 0, "children", 0, "children", 1) != nil ||
		math.Abs(num(fast["total_cost_usd"])-0.48) > tolUSD {
		t.Errorf("fasteners = %d %v", code, fast)
	}
	for _, bad := range []struct {
		query string
		code  int
		want  string
	}{
		{"", http.StatusBadRequest, "?project=PROJECT_ID"},
		{"?project=" + r.project + "&view=tree", http.StatusBadRequest, "pass view=flat"},
		{"?project=" + r.project + "&viewing=flat", http.StatusBadRequest, "unknown parameter viewing"},
		{"?project=no-such-project", http.StatusNotFound, "no project no-such-project"},
	} {
		if code, out := r.get("/v1/bom" + bad.query); code != bad.code || !strings.Contains(fmt.Sprint(out["error"]), bad.want) {
			t.Errorf("GET /v1/bom%s = %d %v, want %d saying %q", bad.query, code, out, bad.code, bad.want)
		}
	}
}

// boxStep is a CadQuery box's STEP, base64, committed without measuring it.
func boxStep(r *armRig, length, width, height float64) string {
	box := r.call("cadquery.create_parametric", map[string]any{"shape_type": "box",
		"parameters": map[string]any{"length": length, "width": width, "height": height}})
	return r.call("cadquery.export_geometry", map[string]any{"input_file": box["cad_file"], "output_format": "step"})["step_base64"].(string)
}
