package twin_test

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/twin"
)

// aluminium 6061-T6 in the materials table.
const (
	alE       = 68900.0 // MPa
	alYield   = 276.0   // MPa
	alDensity = 2700.0  // kg/m^3
)

// tubeI is I of a b x h tube of wall t, mm^4.
func tubeI(b, h, t float64) float64 { return (b*h*h*h - (b-2*t)*math.Pow(h-2*t, 3)) / 12 }

// wallFor is the wall at which a b x h tube's I reaches I0, by bisection
// to 1e-13 mm (I grows with the wall).
func wallFor(b, h, I0 float64) float64 {
	lo, hi := 0.0, math.Min(b, h)/2
	for hi-lo > 1e-13 {
		mid := (lo + hi) / 2
		if tubeI(b, h, mid) >= I0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// commitTube commits a cad_model with a bounding box and the given extra
// properties.
func commitTube(d direct, id, pid, name, material string, size []any, props map[string]any) map[string]any {
	p := map[string]any{"bounding_box": map[string]any{"size": size}}
	for k, v := range props {
		p[k] = v
	}
	args := map[string]any{"project_id": pid, "name": name, "step_base64": step(name + " " + id), "properties": p}
	if material != "" {
		args["material"] = material
	}
	return d.call(call(id), "twin.commit_geometry", args)
}

func nodeProps(t *testing.T, d direct, id string) (map[string]any, map[string]any) {
	t.Helper()
	out := d.call(call("read-"+id), "twin.get_node", map[string]any{"node_id": id})
	return out, out["node"].(map[string]any)["properties"].(map[string]any)
}

// The minimum wall of a 300 x 40 x 20 mm aluminium tube under 100 N with a
// 2 mm deflection limit and a safety factor of 2 is the closed form's;
// the search is evidence pinned to the revision, the winner a decision
// SUPPORTED_BY it; the same call again writes nothing; a new revision of
// the part makes the evidence stale.
func TestOptimizeParameterFindsTheMinimumWall(t *testing.T) {
	optimizeWall(t, newBackend(t).Backend)
}

// The same on a real Neo4j server: the search's nested data, the second
// write's idempotency key and the SUPPORTED_BY edge.
func TestOptimizeParameterOnNeo4j(t *testing.T) {
	optimizeWall(t, neo4jBackend(t, false))
}

func optimizeWall(t *testing.T, be *twinadapter.Backend) {
	d := newDirect(t, be)
	ctx := context.Background()
	pid := d.call(call("p"), "project.create", map[string]any{"name": "Boom"})["project_id"].(string)
	cad := commitTube(d, "g1", pid, "Boom Tube", "aluminium_6061", []any{300.0, 40.0, 20.0}, map[string]any{"wall_thickness_mm": 2.0})
	if cad["item_ref"] != "CAD-BOOM-TUBE@1" {
		t.Fatalf("commit = %v", cad)
	}

	const F, L, b, h, dLim, sf = 100.0, 300.0, 40.0, 20.0, 2.0, 2.0
	tDeflection := wallFor(b, h, F*L*L*L/(3*alE*dLim))
	tStress := wallFor(b, h, F*L*(h/2)*sf/alYield)
	want := math.Max(math.Max(tDeflection, tStress), 0.5)

	args := map[string]any{"project_id": pid, "work_product_id": "CAD-BOOM-TUBE", "load_n": F, "deflection_limit_mm": dLim, "sf_limit": sf}
	out := d.call(call("opt-1"), "twin.optimize_parameter", args)
	wall, _ := out["wall_thickness_mm"].(float64)
	limit := beam.IterationsFor(h/2-0.01-0.5, 0.01)
	t.Logf("closed form %.6f mm (deflection %.6f, stress %.6f); search %v mm in %v iterations (limit %d)", want, tDeflection, tStress, wall, out["iterations"], limit)
	if out["status"] != "converged" || math.Abs(wall-want) > 0.01 || wall < want {
		t.Fatalf("status %v, wall %v: want converged at %.6f within tolerance_mm and not below it (%v)", out["status"], wall, want, out)
	}
	if it := out["iterations"].(float64); it > float64(limit) || out["max_iterations"] != float64(limit) {
		t.Errorf("iterations %v, max_iterations %v: want at most and exactly ceil(log2(range/tol)) = %d", it, out["max_iterations"], limit)
	}
	if m, wantM := out["mass_kg"].(float64), (b*h-(b-2*wall)*(h-2*wall))*L*1e-9*alDensity; math.Abs(m-wantM) > 1e-12 {
		t.Errorf("mass %v, want %v", m, wantM)
	}
	cands := out["candidates"].([]any)
	if len(cands) != int(out["iterations"].(float64))+2 || out["formulas"].(map[string]any)["tip_deflection_mm"] == nil {
		t.Errorf("candidates %d for %v iterations (want the two bounds too), formulas %v", len(cands), out["iterations"], out["formulas"])
	}
	search := out["search"].(map[string]any)
	if search["min_mm"] != 0.5 || search["max_mm"] != 9.99 || search["tolerance_mm"] != 0.01 {
		t.Errorf("default search range %v, want [0.5, 9.99] to 0.01", search)
	}

	// The evidence: the whole search, pinned to the revision.
	evNode, ev := nodeProps(t, d, out["evidence_id"].(string))
	data := ev["data"].(map[string]any)
	if ev["kind"] != "analysis" || ev["metric"] != "optimized_wall_thickness_mm" || ev["value"] != wall || ev["unit"] != "mm" ||
		data["status"] != "converged" || len(data["candidates"].([]any)) != len(cands) || evNode["stale"] != false {
		t.Errorf("evidence %v (stale %v)", ev, evNode["stale"])
	}
	if !reflect.DeepEqual(out["valid_against"], []any{"CAD-BOOM-TUBE@1"}) {
		t.Errorf("valid_against %v", out["valid_against"])
	}

	// The decision: every other candidate rejected with its reason,
	// resting on the revision and supported by the evidence.
	_, dec := nodeProps(t, d, out["decision_id"].(string))
	if out["decision_ref"] != "DEC-WALL-THICKNESS-OF-CAD-BOOM-TUBE@1" || !strings.HasPrefix(dec["decision"].(string), "wall_thickness_mm = ") ||
		!reflect.DeepEqual(dec["depends_on"], []any{"CAD-BOOM-TUBE@1"}) {
		t.Errorf("decision %v: %v", out["decision_ref"], dec)
	}
	alts := dec["alternatives"].([]any)
	if len(alts) != len(cands)-1 {
		t.Errorf("%d alternatives for %d candidates", len(alts), len(cands))
	}
	var deflected, heavier int
	for _, a := range alts {
		r := a.(map[string]any)["reason"].(string)
		switch {
		case strings.HasPrefix(r, "tip deflection ") && strings.Contains(r, "> limit 2 mm"):
			deflected++
		case strings.HasPrefix(r, "heavier: mass "):
			heavier++
		default:
			t.Errorf("alternative %v: want a deflection or a mass reason (the stress needs only %.3f mm)", a, tStress)
		}
		if !strings.HasPrefix(a.(map[string]any)["option"].(string), "wall ") {
			t.Errorf("alternative %v", a)
		}
	}
	if deflected == 0 || heavier == 0 {
		t.Errorf("alternatives %v: want both too-flexible and heavier walls", alts)
	}
	if !strings.Contains(dec["rationale"].(string), out["evidence_id"].(string)) {
		t.Errorf("rationale does not cite the evidence: %v", dec["rationale"])
	}
	sup, err := be.Store.Neighbors(ctx, out["decision_id"].(string), twin.Outgoing, "SUPPORTED_BY")
	if err != nil || len(sup) != 1 || sup[0].Node.ID != out["evidence_id"] {
		t.Errorf("SUPPORTED_BY %v %v, want the evidence", sup, err)
	}

	// The same call again (a retried activity) writes nothing new.
	again := d.call(call("opt-1"), "twin.optimize_parameter", args)
	evs, _ := be.Store.NodesByType(ctx, pid, "evidence")
	decs, _ := be.Store.NodesByType(ctx, pid, "decision")
	if again["evidence_id"] != out["evidence_id"] || again["decision_id"] != out["decision_id"] || len(evs) != 1 || len(decs) != 1 {
		t.Errorf("a repeated call: evidence %v decision %v, %d evidence and %d decisions", again["evidence_id"], again["decision_id"], len(evs), len(decs))
	}

	// A budget too small to converge: the best feasible wall, no decision.
	short := d.call(call("opt-2"), "twin.optimize_parameter", map[string]any{"project_id": pid, "work_product_id": "CAD-BOOM-TUBE@1",
		"load_n": F, "deflection_limit_mm": dLim, "sf_limit": sf, "max_iterations": 2})
	if short["status"] != "out_of_budget" || short["iterations"] != 2.0 || short["max_iterations"] != 2.0 || short["decision_id"] != nil ||
		!(short["wall_thickness_mm"].(float64) >= want) {
		t.Errorf("out of budget = %v", short)
	}

	// Infeasible: no wall holds 1e-6 mm. Evidence of the search, no decision.
	inf := d.call(call("opt-3"), "twin.optimize_parameter", map[string]any{"project_id": pid, "work_product_id": cad["node_id"],
		"load_n": F, "deflection_limit_mm": 1e-6})
	if inf["status"] != "infeasible" || inf["decision_id"] != nil || inf["wall_thickness_mm"] != nil || inf["evidence_id"] == nil ||
		!strings.Contains(inf["reason"].(string), "even the thickest wall") {
		t.Errorf("infeasible = %v", inf)
	}
	if _, ev := nodeProps(t, d, inf["evidence_id"].(string)); ev["value"] != nil || ev["data"].(map[string]any)["status"] != "infeasible" {
		t.Errorf("infeasible evidence = %v", ev)
	}
	if decs, _ := be.Store.NodesByType(ctx, pid, "decision"); len(decs) != 1 {
		t.Errorf("%d decisions after an infeasible and an unconverged search, want still 1", len(decs))
	}

	// A new revision of the part makes the search stale.
	commitTube(d, "g2", pid, "Boom Tube", "aluminium_6061", []any{300.0, 40.0, 20.0}, map[string]any{"wall_thickness_mm": 1.0})
	evNode, _ = nodeProps(t, d, out["evidence_id"].(string))
	against, _ := evNode["stale_against"].([]any)
	if evNode["stale"] != true || len(against) != 1 || against[0].(map[string]any)["head"] != "CAD-BOOM-TUBE@2" {
		t.Errorf("after revision 2 the evidence = stale %v against %v", evNode["stale"], evNode["stale_against"])
	}
}

// What the tube model needs and the part lacks is named, with how to
// record it, and nothing is written.
func TestOptimizeParameterNamesWhatTheTubeLacks(t *testing.T) {
	be := newBackend(t)
	d := newDirect(t, be.Backend)
	pid := d.call(call("p"), "project.create", map[string]any{"name": "Bare"})["project_id"].(string)
	commitTube(d, "g1", pid, "Bare Tube", "aluminium_6061", []any{300.0, 40.0, 20.0}, nil)
	args := map[string]any{"project_id": pid, "work_product_id": "CAD-BARE-TUBE", "load_n": 100.0, "deflection_limit_mm": 2.0}
	if msg := d.refusal(call("o1"), "twin.optimize_parameter", args); !strings.Contains(msg, "record wall_thickness_mm") || !strings.Contains(msg, "twin.commit_geometry") {
		t.Errorf("no wall = %q", msg)
	}
	d.call(call("g2"), "twin.commit_geometry", map[string]any{"project_id": pid, "name": "Blob", "step_base64": step("blob")})
	msg := d.refusal(call("o2"), "twin.rank_sensitivity", map[string]any{"project_id": pid, "work_product_id": "CAD-BLOB", "metric": "mass", "limit": 1.0})
	for _, want := range []string{"record bounding_box", "record wall_thickness_mm", "record material"} {
		if !strings.Contains(msg, want) {
			t.Errorf("a bare part: %q does not say %q", msg, want)
		}
	}
	if evs, _ := be.mem.NodesByType(context.Background(), pid, "evidence"); len(evs) != 0 {
		t.Errorf("refusals wrote %d evidence", len(evs))
	}

	// The exported reader, as a workflow activity calls it: an item ref is
	// found in the one project that has it.
	commitTube(d, "g3", pid, "Good Tube", "steel", []any{500.0, 30.0, 60.0}, map[string]any{"min_wall_thickness_mm": 3.0})
	tube, err := be.TubeGeometry(context.Background(), "CAD-GOOD-TUBE")
	if err != nil || tube.ItemRef != "CAD-GOOD-TUBE@1" || tube.ProjectID != pid || tube.LengthMM != 500 || tube.WidthMM != 30 ||
		tube.HeightMM != 60 || tube.WallMM != 3 || tube.Mat.Name != "steel" || tube.Material != "steel" {
		t.Errorf("TubeGeometry = %+v %v", tube, err)
	}
	byID, err := be.TubeGeometry(context.Background(), tube.WorkProductID)
	if err != nil || byID != tube {
		t.Errorf("by node id = %+v %v", byID, err)
	}
}

// For a long thin tube the tip deflection's margin is more sensitive to
// the length (delta ~ L^3) than to the wall (delta ~ 1/I, I about linear in
// a thin wall); lengthening loses margin, thickening gains it. For mass, a
// swap to steel outweighs a 1% wall change.
func TestRankSensitivity(t *testing.T) {
	be := newBackend(t)
	d := newDirect(t, be.Backend)
	pid := d.call(call("p"), "project.create", map[string]any{"name": "Mast"})["project_id"].(string)
	commitTube(d, "g1", pid, "Mast", "aluminium_6061", []any{1000.0, 20.0, 20.0}, map[string]any{"wall_thickness_mm": 1.0})
	const F, L, b, h, wall, limit = 10.0, 1000.0, 20.0, 20.0, 1.0, 15.0

	out := d.call(call("s1"), "twin.rank_sensitivity", map[string]any{"project_id": pid, "work_product_id": "CAD-MAST", "metric": "tip_deflection",
		"load_n": F, "limit": limit})
	I := tubeI(b, h, wall)
	delta := F * L * L * L / (3 * alE * I)
	if v := out["value"].(float64); math.Abs(v-delta) > 1e-9 || math.Abs(out["margin"].(float64)-(limit-delta)) > 1e-9 {
		t.Errorf("value %v margin %v, want %v and %v", out["value"], out["margin"], delta, limit-delta)
	}
	rows := out["ranking"].([]any)
	if len(rows) != 2 || out["most_sensitive"] != "length_mm" {
		t.Fatalf("ranking %v", rows)
	}
	first, second := rows[0].(map[string]any), rows[1].(map[string]any)
	dIdt := (2*math.Pow(h-2*wall, 3) + 6*(b-2*wall)*math.Pow(h-2*wall, 2)) / 12
	for _, c := range []struct {
		row        map[string]any
		name       string
		derivative float64 // d margin / d parameter, mm per mm
		deltaStep  float64 // the margin's change for +1%
	}{
		{first, "length_mm", -3 * delta / L, -delta * (math.Pow(1.01, 3) - 1)},
		{second, "wall_thickness_mm", delta * dIdt / I, delta - F*L*L*L/(3*alE*tubeI(b, h, wall*1.01))},
	} {
		got, dm := c.row["derivative"].(float64), c.row["delta_margin"].(float64)
		// A central difference is off by O(step^2): (1%)^2 of the value's scale.
		if c.row["parameter"] != c.name || math.Abs(got-c.derivative) > 1e-3*math.Abs(c.derivative) || math.Abs(dm-c.deltaStep) > 1e-9 {
			t.Errorf("%s: derivative %v (want %v), delta %v (want %v): %v", c.name, got, c.derivative, dm, c.deltaStep, c.row)
		}
	}
	if !(first["derivative"].(float64) < 0 && second["derivative"].(float64) > 0) {
		t.Errorf("signs: a longer tube loses margin, a thicker wall gains it: %v", rows)
	}
	_, ev := nodeProps(t, d, out["evidence_id"].(string))
	if ev["metric"] != "sensitivity_tip_deflection" || ev["kind"] != "analysis" || len(ev["data"].(map[string]any)["ranking"].([]any)) != 2 ||
		!reflect.DeepEqual(out["valid_against"], []any{"CAD-MAST@1"}) {
		t.Errorf("evidence %v, valid_against %v", ev, out["valid_against"])
	}

	mass := d.call(call("s2"), "twin.rank_sensitivity", map[string]any{"project_id": pid, "work_product_id": "CAD-MAST", "metric": "mass",
		"limit": 1.0, "candidate_materials": []any{"steel", "aluminium_6061"}})
	area := b*h - (b-2*wall)*(h-2*wall)
	m := area * L * 1e-9 * alDensity
	var order []string
	for _, r := range mass["ranking"].([]any) {
		row := r.(map[string]any)
		cand, _ := row["candidate"].(string)
		order = append(order, row["parameter"].(string)+":"+cand)
	}
	rs := mass["ranking"].([]any)
	if !reflect.DeepEqual(order, []string{"material:steel", "wall_thickness_mm:", "material:aluminum_6061_t6"}) {
		t.Fatalf("mass ranking %v", order)
	}
	if dm := rs[0].(map[string]any)["delta_margin"].(float64); math.Abs(dm-(m-area*L*1e-9*7850)) > 1e-12 {
		t.Errorf("steel's margin delta %v, want %v", dm, m-area*L*1e-9*7850)
	}
	if dm := rs[2].(map[string]any)["delta_margin"].(float64); dm != 0 || rs[2].(map[string]any)["note"] != "the current material" {
		t.Errorf("the current material's row = %v", rs[2])
	}
	if w := rs[1].(map[string]any); !(w["delta_margin"].(float64) < 0) || w["derivative"] == nil {
		t.Errorf("a thicker wall is heavier: %v", w)
	}
	if math.Abs(mass["value"].(float64)-m) > 1e-12 {
		t.Errorf("mass %v, want %v", mass["value"], m)
	}

	if msg := d.refusal(call("s3"), "twin.rank_sensitivity", map[string]any{"project_id": pid, "work_product_id": "CAD-MAST", "metric": "tip_deflection", "limit": 1.0}); !strings.Contains(msg, "load_n") {
		t.Errorf("no load = %q", msg)
	}
}

// Over MCP: the schemas take what the tools document, defaults and all,
// and refuse a parameter there is no search for.
func TestTubeToolsThroughMCP(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	pid := c.call("project.create", map[string]any{"name": "Tube Over MCP"})["project_id"].(string)
	c.call("twin.commit_geometry", map[string]any{"name": "Arm Tube", "step_base64": step("arm tube"), "material": "6061-T6",
		"properties": map[string]any{"bounding_box": map[string]any{"size": []any{300.0, 40.0, 20.0}}, "wall_thickness_mm": 2.0}})
	out := c.call("twin.optimize_parameter", map[string]any{"work_product_id": "CAD-ARM-TUBE@1", "parameter": "wall_thickness_mm",
		"load_n": 100, "deflection_limit_mm": 2, "tolerance_mm": 0.001, "max_iterations": 60})
	if out["project_id"] != pid || out["status"] != "converged" || out["max_iterations"] != 60.0 || out["decision_id"] == nil {
		t.Errorf("optimize over MCP = %v", out)
	}
	rank := c.call("twin.rank_sensitivity", map[string]any{"work_product_id": "CAD-ARM-TUBE", "metric": "mass", "limit": 0.5, "step_pct": 2})
	if rank["most_sensitive"] != "wall_thickness_mm" || rank["evidence_id"] == nil {
		t.Errorf("rank over MCP = %v", rank)
	}
	_, err := c.cs.CallTool(context.Background(), mcpCall("twin.optimize_parameter", map[string]any{"work_product_id": "CAD-ARM-TUBE",
		"parameter": "height_mm", "load_n": 100, "deflection_limit_mm": 2}))
	if err == nil || !strings.Contains(err.Error(), "parameter") {
		t.Errorf("parameter height_mm = %v, want -32602 naming parameter", err)
	}
}
