//go:build unix

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// simObserved is what sim_page.mjs saw.
type simObserved struct {
	ListRows     []string `json:"listRows"`
	Colours      int      `json:"distinctColours"`
	LegendMax    string   `json:"legendMax"`
	LegendMaxRaw string   `json:"legendMaxData"`
	Tip          struct {
		Screen  map[string]any `json:"screen"`
		Disp    string         `json:"disp"`
		Node    string         `json:"node"`
		Side    string         `json:"side"`
		Text    string         `json:"text"`
		Surface []float64      `json:"point"`
	} `json:"tip"`
	Info          string   `json:"info"`
	ScaleAfter    string   `json:"scaleAddress"`
	CompareSides  int      `json:"compareSides"`
	CompareLegend string   `json:"compareLegendMax"`
	CameraSynced  bool     `json:"cameraSynced"`
	NotStored     string   `json:"notStored"`
	Screenshots   []string `json:"screenshots"`
	PageErrors    []string `json:"pageErrors"`
	ConsoleErrors []string `json:"consoleErrors"`
}

// The /sim page in headless Chromium (WebGL on SwiftShader) over a real
// metaforge serve and a real CalculiX run of the cantilever: 200 x 20 x 5
// mm aluminium, clamped at x = 0, 50 N down on x = 200. The project's
// results list it; its page draws a colour map (the canvas holds far more
// than a blank's colours), the legend's top is run_fea's peak von Mises
// to 3 significant figures, and the real mouse at the tip reads run_fea's
// tip displacement within 1%. Compared with a second run at twice the
// load, both draw with one scale (topped by the larger peak) and one
// camera; a result whose field is not stored says so.
func TestSimPage(t *testing.T) {
	began := time.Now()
	mark := func(what string) { t.Logf("%s at %s", what, time.Since(began).Round(time.Millisecond)) }
	fixtures, _ := filepath.Abs(filepath.Join("..", "adapters", "calculix", "testdata"))
	r := startPageRig(t, "METAFORGE_ALLOWED_ROOTS="+fixtures)
	mark("serve up")

	step, err := os.ReadFile(filepath.Join(fixtures, "beam.step"))
	if err != nil {
		t.Fatal(err)
	}
	project := r.call("project.create", map[string]any{"name": "sim-page"})["project_id"].(string)
	cad := r.call("twin.commit_geometry", map[string]any{"project_id": project, "name": "cantilever", "step_base64": base64.StdEncoding.EncodeToString(step),
		"material": "aluminum_6061_t6"})
	mesh := r.call("gmsh.generate_mesh", map[string]any{"input_file": filepath.Join(fixtures, "beam.step"), "element_order": 2, "mesh_size_mm": 2.5})
	fixed, loaded := endFaces(t, mesh)
	solve := func(force float64) (map[string]any, string) {
		out, id := callWithID(t, r, "calculix.run_fea", map[string]any{"mesh_file": mesh["mesh_file"], "material": "aluminum_6061_t6",
			"fixed_node_set": fixed, "load_node_set": loaded, "load_force_n": force, "load_direction": []float64{0, 0, -1}})
		for _, metric := range []string{"max_von_mises_mpa", "max_displacement_mm"} {
			r.call("twin.record_evidence", map[string]any{"project_id": project, "name": fmt.Sprintf("tip load %g N %s", force, metric), "kind": "simulation",
				"metric": strings.TrimSuffix(strings.TrimSuffix(metric, "_mpa"), "_mm"), "value": out[metric], "valid_against": []string{cad["item_ref"].(string)},
				"data": map[string]any{"tool_id": "calculix.run_fea", "call_id": id}})
		}
		return out, id
	}
	fea, feaID := solve(50)
	_, heavierID := solve(100)
	mark("two cantilever runs solved and recorded")
	// The mesh call has no field: its page says so.
	_, meshID := callWithID(t, r, "gmsh.list_named_faces", map[string]any{"mesh_file": mesh["mesh_file"]})

	peak := fea["max_von_mises_mpa"].(float64)
	tipDisp := fea["max_displacement_mm"].(float64)
	var tipAt [3]float64
	for i, v := range fea["max_displacement_at_mm"].([]any) {
		tipAt[i] = v.(float64)
	}
	// A point on the tip face (x = 200), a quarter of the way from the
	// corner that moves most to the face's centre: the whole end moves by
	// the same amount to within 0.1%.
	point := [3]float64{200, tipAt[1] + 0.25*(10-tipAt[1]), tipAt[2] + 0.25*(2.5-tipAt[2])}

	pointJSON, _ := json.Marshal(point)
	var o simObserved
	runPageScript(t, r, 3*time.Minute, &o, "sim_page.mjs", project, feaID, heavierID, meshID, string(pointJSON))
	mark("the page checked")
	t.Logf("colours %d, legend max %q (peak %.6g MPa), tip probe %q (run_fea %.6g mm) at %v, compare legend %q; %s",
		o.Colours, o.LegendMax, peak, o.Tip.Disp, tipDisp, o.Tip.Screen, o.CompareLegend, o.Info)

	if len(o.ListRows) != 2 || !strings.Contains(o.ListRows[0], heavierID) || !strings.Contains(o.ListRows[1], feaID) {
		t.Errorf("the project's results list, newest first: %q", o.ListRows)
	}
	if o.Colours < 200 {
		t.Errorf("the canvas holds %d distinct colours; a drawn colour map has hundreds", o.Colours)
	}
	legend, err := parseNumber(o.LegendMax)
	if err != nil || !sameTo3(legend, peak) {
		t.Errorf("the legend's maximum reads %q; run_fea's peak von Mises is %.6g MPa (to 3 significant figures)", o.LegendMax, peak)
	}
	disp, err := parseNumber(o.Tip.Disp)
	if err != nil || math.Abs(disp-tipDisp) > 0.01*tipDisp || o.Tip.Side != "a" {
		t.Errorf("the probe at the tip reads %q mm (%s); run_fea's tip displacement is %.6g mm", o.Tip.Disp, o.Tip.Text, tipDisp)
	}
	if !strings.Contains(o.Info, "surface triangles drawn (at most 100000)") {
		t.Errorf("the page does not say what it drew: %q", o.Info)
	}
	if !strings.Contains(o.ScaleAfter, "scale=") {
		t.Errorf("the deformation scale is not in the address: %q", o.ScaleAfter)
	}
	// Twice the load, twice the peak: the shared scale's top is the
	// heavier run's peak, about 2 x 50 N's.
	both, err := parseNumber(o.CompareLegend)
	if o.CompareSides != 2 || err != nil || math.Abs(both-2*peak) > 0.01*2*peak || !o.CameraSynced {
		t.Errorf("compare: %d sides, shared legend top %q (want about %.4g), camera synced %v", o.CompareSides, o.CompareLegend, 2*peak, o.CameraSynced)
	}
	if !strings.HasPrefix(o.NotStored, "Field not stored") || !strings.Contains(o.NotStored, "gmsh.list_named_faces") {
		t.Errorf("a result without a field: %q", o.NotStored)
	}
	if len(o.PageErrors) > 0 || len(o.ConsoleErrors) > 0 {
		t.Errorf("page errors %v, console errors %v", o.PageErrors, o.ConsoleErrors)
	}
	for _, s := range o.Screenshots {
		if st, err := os.Stat(s); err != nil || st.Size() < 10_000 {
			t.Errorf("screenshot %s: %v", s, err)
		}
	}
	t.Logf("screenshots: %s", strings.Join(o.Screenshots, ", "))
}

// callWithID calls a tool through the rig's agent and returns its result
// and its _meta.callId.
func callWithID(t *testing.T, r *crashRig, tool string, args map[string]any) (map[string]any, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, res, err := callToolJSON(ctx, r.session, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.Meta["callId"].(string)
	if len(id) != 16 {
		t.Fatalf("%s: callId %q", tool, id)
	}
	return out, id
}

// parseNumber reads a number the page printed ("117.4", "9.31 mm").
func parseNumber(s string) (float64, error) {
	var x float64
	_, err := fmt.Sscan(strings.TrimSpace(s), &x)
	return x, err
}

// sameTo3 says whether a and b agree to 3 significant figures: within
// half a unit of the third.
func sameTo3(a, b float64) bool {
	unit := math.Pow(10, math.Floor(math.Log10(math.Abs(b)))-2)
	return math.Abs(a-b) <= unit/2
}
