//go:build unix

package e2e

import (
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The /twin page in headless Chromium on a real metaforge serve: a stand
// (a base plate and two columns, boxes made and measured by CadQuery,
// committed as STEP, with costs from BOM items, and a system architecture
// giving the column an interface). The structure tab shows the roll-ups
// the test computes by hand, each position's owner and interfaces; the
// model tab draws the stand in 3D (WebGL on SwiftShader: the canvas is
// read back and is not blank); a tab the page does not have is named.
// Screenshots of both tabs go to E2E_SCREENSHOTS.
func TestTwinPage(t *testing.T) {
	r := startPageRig(t)
	project := r.call("project.create", map[string]any{"name": "twin-page"})["project_id"].(string)
	model := func(name string, l, w, h float64, material string) string {
		box := r.call("cadquery.create_parametric", map[string]any{"shape_type": "box",
			"parameters": map[string]any{"length": l, "width": w, "height": h}})
		step := r.call("cadquery.export_geometry", map[string]any{"input_file": box["cad_file"], "output_format": "step"})
		props := r.call("cadquery.get_properties", map[string]any{"input_file": box["cad_file"], "material": material})
		return r.call("twin.commit_geometry", map[string]any{"project_id": project, "name": name, "step_base64": step["step_base64"],
			"material": material, "properties": map[string]any{"mass_kg": props["mass_kg"], "volume_mm3": props["volume"]}})["item_ref"].(string)
	}
	// By hand: plate 100 x 60 x 10 mm of aluminium 6061 (2700 kg/m^3):
	// 0.162 kg; column 20 x 20 x 80 mm of steel (7850 kg/m^3): 0.2512 kg,
	// two of them; the stand 0.6644 kg. Cost 45 + 2 x 12.50 = 70 USD.
	plateKg, columnKg := 100*60*10*2700e-9, 20*20*80*7850e-9
	standKg, standUSD := plateKg+2*columnKg, 45+2*12.5
	plate := model("Base plate", 100, 60, 10, "aluminum_6061_t6")
	column := model("Column", 20, 20, 80, "steel")
	bom := func(name, cost string) string {
		return r.call("twin.record_component_selection", map[string]any{"project_id": project, "name": name, "mpn": name,
			"manufacturer": "Metals4U", "specs": map[string]any{"unit_cost": cost}})["item_ref"].(string)
	}
	plateBOM, columnBOM := bom("Plate stock", "$45.00"), bom("Column stock", "12.50 USD")
	standOut := r.call("twin.record_hierarchy_node", map[string]any{"project_id": project, "name": "Stand", "level": "product"})
	r.call("twin.record_hierarchy_node", map[string]any{"project_id": project, "name": "Base plate", "level": "part", "parent": "HN-STAND",
		"realized_by": plate, "instance_of": plateBOM})
	r.call("twin.record_hierarchy_node", map[string]any{"project_id": project, "name": "Column", "level": "part", "parent": "HN-STAND",
		"quantity": 2, "realized_by": column, "instance_of": columnBOM, "placement": map[string]any{"x_mm": 30, "z_mm": 10}})
	r.call("twin.commit_system_architecture", map[string]any{"project_id": project,
		"subsystems": []map[string]any{{"name": "stand", "hierarchy_node": "HN-STAND"}, {"name": "column", "hierarchy_node": "HN-COLUMN"}},
		"interfaces": []map[string]any{{"name": "column mount", "from": "column", "to": "stand", "kind": "mechanical"}}})
	standNode, _ := standOut["node_id"].(string)
	if standNode == "" {
		t.Fatalf("twin.record_hierarchy_node answered no node id: %v", standOut)
	}

	var o struct {
		Rows []struct {
			Key, Mass, Cost, Owner, Interfaces, Quantity string
		} `json:"rows"`
		Model struct {
			Parts     string  `json:"parts"`
			Triangles string  `json:"triangles"`
			Inked     float64 `json:"inkedFraction"`
			Dark      float64 `json:"darkFraction"`
			Width     int     `json:"width"`
			Renderer  string  `json:"renderer"`
		} `json:"model"`
		ModelAddress  string   `json:"modelAddress"`
		SelectedType  string   `json:"selectedType"`
		UnknownTab    string   `json:"unknownTab"`
		PageErrors    []string `json:"pageErrors"`
		ConsoleErrors []string `json:"consoleErrors"`
		Shots         []string `json:"screenshots"`
	}
	runPageScript(t, r, 2*time.Minute, &o, "twin_page.mjs", project, standNode)
	rows := map[string]int{}
	for i, row := range o.Rows {
		rows[row.Key] = i
	}
	want := []struct {
		key       string
		kg, usd   float64
		qty, ifcs string
	}{{"HN-STAND", standKg, standUSD, "1", "1"}, {"HN-BASE-PLATE", plateKg, 45, "1", "0"}, {"HN-COLUMN", columnKg, 12.5, "2", "1"}}
	if len(o.Rows) != len(want) {
		t.Fatalf("the structure tab shows %d rows, want %d: %+v", len(o.Rows), len(want), o.Rows)
	}
	for _, w := range want {
		i, ok := rows[w.key]
		if !ok {
			t.Errorf("no row for %s: %+v", w.key, o.Rows)
			continue
		}
		row := o.Rows[i]
		kg, _ := strconv.ParseFloat(row.Mass, 64)
		usd, _ := strconv.ParseFloat(row.Cost, 64)
		// CadQuery measures a box's volume to far better than 1 mg.
		if math.Abs(kg-w.kg) > 1e-6 || math.Abs(usd-w.usd) > 1e-9 || row.Quantity != w.qty || row.Interfaces != w.ifcs ||
			row.Owner != "agent:metaforge-e2e-crash" {
			t.Errorf("%s: mass %s kg, cost %s USD, qty %s, interfaces %s, owner %q; want %g kg, %g USD, qty %s, %s interfaces, owner agent:metaforge-e2e-crash",
				w.key, row.Mass, row.Cost, row.Quantity, row.Interfaces, row.Owner, w.kg, w.usd, w.qty, w.ifcs)
		}
	}
	// The 3D view: two parts drawn, a good part of the canvas covered
	// and the edges drawn dark.
	if o.Model.Parts != "2" || o.Model.Triangles == "" || o.Model.Triangles == "0" {
		t.Errorf("the model tab drew parts %q, triangles %q", o.Model.Parts, o.Model.Triangles)
	}
	if o.Model.Inked < 0.05 || o.Model.Dark < 0.0003 || o.Model.Width < 300 {
		t.Errorf("the canvas (%d px wide, %s) is %.2f%% drawn and %.3f%% dark: the model was not rendered",
			o.Model.Width, o.Model.Renderer, 100*o.Model.Inked, 100*o.Model.Dark)
	}
	u, _ := url.Parse(o.ModelAddress)
	if u == nil || u.Query().Get("tab") != "model" || u.Query().Get("node") != standNode || o.SelectedType != "hierarchy_node" {
		t.Errorf("after choosing the stand the address is %q and the selected node's type %q", o.ModelAddress, o.SelectedType)
	}
	if !strings.Contains(o.UnknownTab, `There is no "asm" tab on this page`) || !strings.Contains(o.UnknownTab, "structure") {
		t.Errorf("an unknown tab says %q", o.UnknownTab)
	}
	if len(o.PageErrors) > 0 || len(o.ConsoleErrors) > 0 {
		t.Errorf("the page threw %v, logged errors %v", o.PageErrors, o.ConsoleErrors)
	}
	for _, s := range o.Shots {
		if st, err := os.Stat(s); err != nil || st.Size() < 10_000 {
			t.Errorf("screenshot %s: %v", s, err)
		}
	}
	t.Logf("canvas %.1f%% drawn, %.2f%% edges, %s triangles, renderer %s; screenshots %v", 100*o.Model.Inked, 100*o.Model.Dark,
		o.Model.Triangles, o.Model.Renderer, o.Shots)
}
