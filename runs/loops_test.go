package runs_test

import (
	"math"
	"sort"
	"strings"
	"testing"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/internal/materials"
)

// analyticMinimum is the least value of the tube's parameter (wall or
// height) meeting the deflection and stress limits, solved in the test by
// bisection on the closed form to 1e-12 mm, independently of the loop:
// I(v) >= F L^3 / (3 E d) and F L (h/2) / I(v) <= yield / sf.
func analyticMinimum(param string, w, h, t, l, f, e, yield, d, sf, lo, hi float64) float64 {
	ok := func(v float64) bool {
		hh, tt := h, t
		if param == "height_mm" {
			hh = v
		} else {
			tt = v
		}
		i := (w*hh*hh*hh - (w-2*tt)*math.Pow(hh-2*tt, 3)) / 12
		return f*l*l*l/(3*e*i) <= d && f*l*(hh/2)/i <= yield/sf
	}
	for hi-lo > 1e-12 {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// A design loop over a tube's wall on the embedded Temporal server: its
// winner matches the closed-form optimum within the tolerance in at most
// ceil(log2(range/tolerance)) halvings, every candidate is a persisted
// iteration, a second start finds the first, an unconverged loop cannot be
// approved, and a converged one records who approved it.
func TestDesignLoopOverWallAndHeight(t *testing.T) {
	h := newHarness(t)
	geom := h.call("twin.commit_geometry", map[string]any{"project_id": h.project, "name": "tube", "step_base64": stepBase64,
		"material": "aluminium_6061", "properties": map[string]any{"bounding_box": map[string]any{"size": []float64{300, 40, 20}}, "wall_thickness_mm": 2}})
	wp := geom["node_id"].(string)
	start := func(tool string, args map[string]any) map[string]any {
		args["project_id"], args["work_product_id"] = h.project, wp
		return h.call(tool, args)
	}
	state := func(r map[string]any) map[string]any { return r["state"].(map[string]any) }

	args := map[string]any{"load_n": 100.0, "deflection_limit_mm": 2.0, "sf_limit": 2.0, "min_mm": 0.5, "max_mm": 9.5, "tolerance_mm": 0.001}
	first := start("twin.start_design_loop", args)
	st := state(first)
	if st["status"] != "converged" || first["duplicate"] != false {
		t.Fatalf("wall loop: %v", first)
	}
	// aluminium_6061: E 68.9 GPa, yield 276 MPa (the materials table).
	want := analyticMinimum("wall", 40, 20, 0, 300, 100, 68900, 276, 2, 2, 0.5, 9.5)
	got := st["winner"].(map[string]any)["value"].(float64)
	if got < want || got-want > 0.001 {
		t.Fatalf("wall: loop %.6f mm, closed-form optimum %.6f mm, tolerance 0.001 mm", got, want)
	}
	its := st["iterations"].([]any)
	bound := beam.IterationsFor(9.5-0.5, 0.001)
	if len(its)-2 > bound {
		t.Fatalf("wall: %d halvings, more than ceil(log2(range/tolerance)) = %d", len(its)-2, bound)
	}
	if first["max_iterations"].(float64) != float64(bound) {
		t.Fatalf("the budget is not echoed: %v", first["max_iterations"])
	}
	t.Logf("wall loop: %.6f mm (optimum %.6f mm) after %d candidates", got, want, len(its))

	// The same loop again is the same loop: nothing runs, nothing is written.
	again := start("twin.start_design_loop", map[string]any{"load_n": 100.0, "deflection_limit_mm": 2.0, "sf_limit": 2.0, "min_mm": 0.5,
		"max_mm": 9.5, "tolerance_mm": 0.001})
	if again["duplicate"] != true || again["loop_id"] != first["loop_id"] {
		t.Fatalf("a second start: %v", again)
	}
	nodes, err := h.facts.Store.NodesByType(h.ctx, h.project, "design_loop_iteration")
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != len(its) {
		t.Fatalf("%d iterations persisted for %d evaluated", len(nodes), len(its))
	}

	// Approve: the converged winner, by an identified person.
	loopID := first["loop_id"].(string)
	if _, err := h.callAs("twin.approve_design_loop", map[string]any{"loop_id": loopID}, ""); err == nil {
		t.Fatal("an approval naming nobody was recorded")
	}
	approved, err := h.callAs("twin.approve_design_loop", map[string]any{"loop_id": loopID, "comment": "lightest that holds"}, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if approved["approved_by"] != "alice" {
		t.Fatalf("approval: %v", approved)
	}
	var done map[string]any
	for i := 0; i < 200; i++ {
		done = h.call("twin.get_design_loop", map[string]any{"loop_id": loopID})
		if done["source"] == "twin" {
			break
		}
	}
	if done["status"] != "approved" || done["approved_by"] != "alice" || len(done["iterations"].([]any)) != len(its) {
		t.Fatalf("the loop in the twin after approval: %v", done)
	}
	h.recordWorkflow("design-loop-"+loopID, "designloop", "wall_approved.json")
	// The Temporal UI finds the loop by its project.
	resp, err := h.temporal.Client.ListWorkflow(h.ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: h.temporal.Namespace,
		Query: "WorkflowType = 'DesignLoop' AND MfProject = '" + h.project + "'"})
	if err != nil || len(resp.GetExecutions()) == 0 {
		t.Fatalf("visibility does not list the loop by MfProject: %v %v", resp, err)
	}

	// Infeasible, proven: approving it is refused.
	bad := start("twin.start_design_loop", map[string]any{"load_n": 100.0, "deflection_limit_mm": 1e-6, "min_mm": 0.5, "max_mm": 9.5})
	if state(bad)["status"] != "infeasible" {
		t.Fatalf("an impossible deflection limit: %v", bad)
	}
	if _, err := h.callAs("twin.approve_design_loop", map[string]any{"loop_id": bad["loop_id"]}, "alice"); err == nil ||
		!strings.Contains(err.Error(), "did not converge") {
		t.Fatalf("approving an infeasible loop: %v", err)
	}
	h.recordWorkflow("design-loop-"+bad["loop_id"].(string), "designloop", "wall_infeasible.json")

	// A budget too small for the tolerance ends out of budget, echoed.
	short := start("twin.start_design_loop", map[string]any{"load_n": 100.0, "deflection_limit_mm": 2.0, "sf_limit": 2.0, "min_mm": 0.5,
		"max_mm": 9.5, "tolerance_mm": 0.001, "max_iterations": 3})
	if ss := state(short); ss["status"] != "out_of_budget" || short["max_iterations"] != 3.0 || len(ss["iterations"].([]any)) != 5 {
		t.Fatalf("a budget of 3 halvings: %v", short)
	}

	// The same machinery over the height, the wall held at 2 mm.
	hl := start("twin.start_tube_height_design_loop", map[string]any{"load_n": 100.0, "deflection_limit_mm": 2.0, "sf_limit": 2.0,
		"min_mm": 5, "max_mm": 80, "tolerance_mm": 0.001})
	hs := state(hl)
	wantH := analyticMinimum("height_mm", 40, 0, 2, 300, 100, 68900, 276, 2, 2, 5, 80)
	gotH := hs["winner"].(map[string]any)["value"].(float64)
	if hs["status"] != "converged" || gotH < wantH || gotH-wantH > 0.001 || hs["parameter_name"] != "height_mm" {
		t.Fatalf("height loop: %v (optimum %.6f mm)", hs, wantH)
	}
	t.Logf("height loop: %.6f mm (optimum %.6f mm)", gotH, wantH)
}

// twin.evaluate_metric: tier 0 decides when its margin is clear of its
// band; inside the band it escalates to a real CalculiX run (a child
// ToolCall), whose deflection agrees with tier 0 within the band; each
// tier is recorded as evidence with its tier.
func TestEvaluateMetricEscalatesToCalculiX(t *testing.T) {
	h := newHarness(t, solverAdapters(t)...)
	bar := h.call("cadquery.create_parametric", map[string]any{"shape_type": "box", "parameters": map[string]any{"length": 100, "width": 20, "height": 20}})
	step := h.call("cadquery.export_geometry", map[string]any{"input_file": bar["cad_file"], "output_format": "step"})
	props := h.call("cadquery.get_properties", map[string]any{"input_file": bar["cad_file"]})
	wp := h.call("twin.commit_geometry", map[string]any{"project_id": h.project, "name": "bar", "step_base64": step["step_base64"],
		"material": "aluminium_6061", "properties": map[string]any{"bounding_box": props["bounding_box"]}})["node_id"].(string)
	mesh := h.call("gmsh.generate_mesh", map[string]any{"input_file": bar["cad_file"], "element_order": 2, "mesh_size_mm": 4})
	fixed, loaded := endFaces(mesh)
	// F L^3 / (3 E I) for 200 N on the 100 x 20 x 20 mm aluminium bar.
	closed := 200 * 1e6 / (3 * 68900 * (20 * 8000.0 / 12))
	eval := func(limit float64, tier2 bool) map[string]any {
		args := map[string]any{"project_id": h.project, "work_product_id": wp, "metric": "tip_deflection", "load_n": 200, "limit_mm": limit}
		if tier2 {
			args["tier2"] = map[string]any{"mesh_file": mesh["mesh_file"], "fixed_node_set": fixed, "load_node_set": loaded}
		}
		return h.call("twin.evaluate_metric", args)
	}

	clear := eval(1.0, true)
	t0 := clear["tier0"].(map[string]any)
	if clear["escalated"] != false || math.Abs(t0["value_mm"].(float64)-closed) > 1e-9 || clear["verdict"] != "pass" {
		t.Fatalf("a limit far above the estimate: %v", clear)
	}
	// 0.08 mm is 10% above the estimate, inside its 20% band.
	noMesh := eval(0.08, false)
	if noMesh["escalated"] != true || !strings.Contains(noMesh["tier2_status"].(string), "not attempted") {
		t.Fatalf("inside the band without tier2 input: %v", noMesh)
	}
	close := eval(0.08, true)
	t2, ok := close["tier2"].(map[string]any)
	if close["escalated"] != true || !ok {
		t.Fatalf("inside the band: %v", close)
	}
	band := close["tier0"].(map[string]any)["band_mm"].(float64)
	if d := math.Abs(t2["value_mm"].(float64) - closed); d > band {
		t.Fatalf("tier 2 %.5f mm against tier 0 %.5f mm: outside the band of %.5f mm", t2["value_mm"], closed, band)
	}
	t.Logf("tier 0 %.5f mm, tier 2 (CalculiX) %.5f mm, agreement %.2f%%, band 20%%", closed, t2["value_mm"], close["agreement_pct"])
	resp, err := h.temporal.Client.ListWorkflow(h.ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: h.temporal.Namespace,
		Query: "WorkflowType = 'EvaluateMetric' AND MfProject = '" + h.project + "'"})
	if err != nil || len(resp.GetExecutions()) != 3 {
		t.Fatalf("visibility lists the evaluations by MfProject: %v %v", resp, err)
	}
	// Recorded in the order they ran: tier 0 alone, the escalation not
	// attempted, the escalation to CalculiX.
	execs := resp.GetExecutions()
	sort.Slice(execs, func(i, j int) bool { return execs[i].GetStartTime().AsTime().Before(execs[j].GetStartTime().AsTime()) })
	for i, name := range []string{"tier0_decides.json", "escalation_not_attempted.json", "escalated_to_calculix.json"} {
		h.recordWorkflow(execs[i].GetExecution().GetWorkflowId(), "evaluatemetric", name)
	}
	ev, err := h.facts.Store.GetNode(h.ctx, t2["evidence_id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := ev.Properties["data"].(map[string]any); data == nil || data["tier"] != 2.0 && data["tier"] != 2 {
		t.Fatalf("tier-2 evidence does not name its tier: %v", ev.Properties)
	}
}

// twin.evaluate_thermal_metric: a real steady conduction solve as a child
// ToolCall, its peak recorded as evidence pinned to the work product, the
// cross check against the bar's hand calculation T_sink + Q L / (k A), and
// the rating.
func TestEvaluateThermalMetric(t *testing.T) {
	h := newHarness(t, solverAdapters(t)...)
	bar := h.call("cadquery.create_parametric", map[string]any{"shape_type": "box", "parameters": map[string]any{"length": 100, "width": 20, "height": 20}})
	step := h.call("cadquery.export_geometry", map[string]any{"input_file": bar["cad_file"], "output_format": "step"})
	props := h.call("cadquery.get_properties", map[string]any{"input_file": bar["cad_file"]})
	wp := h.call("twin.commit_geometry", map[string]any{"project_id": h.project, "name": "bar", "step_base64": step["step_base64"],
		"material": "aluminium_6061", "properties": map[string]any{"bounding_box": props["bounding_box"]}})["node_id"].(string)
	mesh := h.call("gmsh.generate_mesh", map[string]any{"input_file": bar["cad_file"], "element_order": 2, "mesh_size_mm": 5})
	sink, source := endFaces(mesh)
	out := h.call("twin.evaluate_thermal_metric", map[string]any{"project_id": h.project, "work_product_id": wp, "mesh_file": mesh["mesh_file"],
		"heat_source_node_set": source, "heat_load_w": 5, "sink_node_set": sink, "sink_temperature_c": 20, "rated_max_temp_c": 25,
		"cross_check": true})
	mat, err := materials.Lookup("aluminium_6061")
	if err != nil {
		t.Fatal(err)
	}
	want := 20 + 5*0.1/(mat.ConductivityWMK*0.02*0.02)
	peak := out["peak_temperature_c"].(float64)
	if math.Abs(peak-want) > 0.02*(want-20) || out["cross_check_passed"] != true || out["within_rating"] != false {
		t.Fatalf("thermal evaluation: %v (hand calculation %.3f °C, tolerance 2%% of the rise)", out, want)
	}
	ev, err := h.facts.Store.GetNode(h.ctx, out["evidence_id"].(string))
	if err != nil || ev.Properties["metric"] != "peak_temperature" || ev.Properties["unit"] != "°C" {
		t.Fatalf("the evidence: %v %v", ev.Properties, err)
	}
	t.Logf("peak %.3f °C, hand calculation %.3f °C", peak, want)
	resp, err := h.temporal.Client.ListWorkflow(h.ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: h.temporal.Namespace,
		Query: "WorkflowType = 'EvaluateThermal' AND MfProject = '" + h.project + "'"})
	if err != nil || len(resp.GetExecutions()) != 1 {
		t.Fatalf("visibility lists the evaluation by MfProject: %v %v", resp, err)
	}
	h.recordWorkflow(resp.GetExecutions()[0].GetExecution().GetWorkflowId(), "evaluatethermal", "cross_checked.json")
}
