package twin_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/adapters/twin/twintest"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
)

// Verification and the built unit through MCP, on the durable path (each
// call a ToolCall workflow; twin.evaluate_metric's tier 0 its child
// evaluation): a test plan from the requirements, an architecture whose
// shoulder deflection the evaluation predicts, a built unit measured five
// times, and a sixth measurement the prediction disagrees with.
func TestVerificationThroughMCP(t *testing.T) {
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mem := twin.NewMemoryStore()
	verificationThroughMCP(t, &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs})
}

func TestVerificationThroughMCPOnNeo4j(t *testing.T) {
	verificationThroughMCP(t, neo4jBackend(t, false))
}

func verificationThroughMCP(t *testing.T, be *twinadapter.Backend) {
	be.Metrics = runs.Metrics{}
	s := mcptest.StartWithTwin(t, be, twinadapter.New(be)...)
	c := client{t, s.ConnectHTTP(t, nil)}
	ctx := context.Background()
	pid := c.call("project.create", map[string]any{"name": "Verified Arm"})["project_id"].(string)
	count := func(nodeType string) int {
		t.Helper()
		ns, err := be.Store.NodesByType(ctx, pid, nodeType)
		if err != nil {
			t.Fatal(err)
		}
		return len(ns)
	}

	// A test plan from five requirements, three of them verified by test.
	req := func(name, metric, op string, limit float64, unit, target, method string) map[string]any {
		r := map[string]any{"name": name, "metric": metric, "operator": op, "limit": limit, "unit": unit, "verification_method": method}
		if target != "" {
			r["target_node_type"] = target
		}
		return r
	}
	c.call("twin.record_constraint_set", map[string]any{"project_id": pid, "name": "Arm requirements", "constraints": []any{
		req("payload", "payload_mass", ">=", 2, "kg", "arm", "test"),
		req("stiff", "tip_deflection", "<=", 0.25, "mm", "arm", "test"),
		req("repeatable", "repeatability", "<=", 0.1, "mm", "", "test"),
		req("reach", "reach", ">=", 600, "mm", "arm", "analysis"),
		req("light", "mass", "<=", 8, "kg", "", "inspection"),
	}})
	plan := c.call("twin.generate_test_plan", map[string]any{"project_id": pid})
	cases := twintest.RowsBy(t, plan["cases"], "requirement")
	wantSteps := map[string]string{
		"payload":    "Measure payload_mass on arm; acceptance: payload_mass >= 2 kg",
		"stiff":      "Measure tip_deflection on arm; acceptance: tip_deflection <= 0.25 mm",
		"repeatable": "Measure repeatability on the unit under test; acceptance: repeatability <= 0.1 mm",
	}
	if len(cases) != 3 {
		t.Fatalf("cases = %v", plan["cases"])
	}
	for name, step := range wantSteps {
		if cases[name]["step"] != step || cases[name]["constraint_set"] != "CS-ARM-REQUIREMENTS@1" {
			t.Errorf("case %s = %v, want step %q", name, cases[name], step)
		}
	}
	if cases["stiff"]["acceptance"] != "tip_deflection <= 0.25 mm" || cases["stiff"]["limit"] != 0.25 || cases["stiff"]["unit"] != "mm" {
		t.Errorf("stiff's case = %v", cases["stiff"])
	}
	skipped := twintest.RowsBy(t, plan["skipped"], "requirement")
	if len(skipped) != 2 || skipped["reach"]["reason"] != "not_test" || skipped["light"]["detail"] != "it is verified by inspection, not test" {
		t.Errorf("skipped = %v", plan["skipped"])
	}
	if plan["summary"] != "3 case(s) planned; skipped: 2 not verified by test, 0 already planned, 0 unbound" {
		t.Errorf("summary = %v", plan["summary"])
	}
	stiffCase := c.call("twin.get_node", map[string]any{"node_id": cases["stiff"]["node_id"]})
	node := stiffCase["node"].(map[string]any)
	related := stiffCase["related"].([]any)[0].(map[string]any)
	if node["node_type"] != "verification_case" || node["properties"].(map[string]any)["step"] != wantSteps["stiff"] ||
		related["edge"] != "RELATES_TO" || related["item_ref"] != "CS-ARM-REQUIREMENTS@1" {
		t.Errorf("stiff's case as read = %v", stiffCase)
	}
	again := c.call("twin.generate_test_plan", map[string]any{"project_id": pid})
	if len(again["cases"].([]any)) != 0 || again["summary"] != "0 case(s) planned; skipped: 2 not verified by test, 3 already planned, 0 unbound" ||
		twintest.RowsBy(t, again["skipped"], "requirement")["stiff"]["case_id"] != cases["stiff"]["node_id"] || count("verification_case") != 3 {
		t.Errorf("planning again = %v", again)
	}

	// The arm link's tip deflection, predicted by tier 0: 20 N on a
	// 300 x 20 x 20 mm aluminium 6061 bar (E 68900 MPa),
	// F L^3 / (3 E I) with I = 20^4 / 12 mm^4, within a band of 10%.
	c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Arm link", "step_base64": step("link"), "material": "aluminium_6061",
		"properties": map[string]any{"bounding_box": map[string]any{"size": []any{300.0, 20.0, 20.0}}}})
	c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Arm", "step_base64": step("arm")})
	eval := c.call("twin.evaluate_metric", map[string]any{"project_id": pid, "work_product_id": "CAD-ARM-LINK", "metric": "tip_deflection",
		"load_n": 20, "limit_mm": 1.0, "band_pct": 10})
	tier0 := eval["tier0"].(map[string]any)
	predicted := 20 * math.Pow(300, 3) / (3 * 68900 * (math.Pow(20, 4) / 12))
	bandHalf := predicted * 0.10
	if math.Abs(tier0["value_mm"].(float64)-predicted) > 1e-9 || eval["escalated"] != false {
		t.Fatalf("tier 0 = %v, want %.6f mm", eval, predicted)
	}
	evidence := tier0["evidence_id"].(string)

	arch := map[string]any{"project_id": pid,
		"subsystems": []any{map[string]any{"name": "base"}, map[string]any{"name": "arm", "hierarchy_node": "CAD-ARM"}, map[string]any{"name": "controller"}},
		"interfaces": []any{
			map[string]any{"name": "shoulder", "from": "base", "to": "arm", "kind": "mechanical",
				"quantities": []any{map[string]any{"name": "tip_deflection", "unit": "mm", "predicted_by": evidence}}},
			map[string]any{"name": "power", "from": "controller", "to": "arm", "kind": "electrical",
				"quantities": []any{map[string]any{"name": "supply_current", "unit": "A"}}},
		}}
	a := c.call("twin.commit_system_architecture", arch)
	if a["item_ref"] != "ARCH-VERIFIED-ARM@1" || a["subsystem_count"] != 3.0 || a["interface_count"] != 2.0 || a["quantity_count"] != 2.0 ||
		a["subsystems"].([]any)[1].(map[string]any)["hierarchy_node"] != "CAD-ARM@1" {
		t.Fatalf("architecture = %v", a)
	}

	// Bad inputs are refused with what to fix, and write nothing.
	refuse := func(tool, want string, args map[string]any) {
		t.Helper()
		if msg := c.refused(tool, args); !strings.Contains(msg, want) {
			t.Errorf("%s refused with %q, want it to say %q", tool, msg, want)
		}
	}
	withInterface := func(edit func(in map[string]any)) map[string]any {
		in := map[string]any{"name": "wrist", "from": "arm", "to": "gripper", "kind": "mechanical",
			"quantities": []any{map[string]any{"name": "torque", "unit": "N*m"}}}
		edit(in)
		bad := map[string]any{}
		for k, v := range arch {
			bad[k] = v
		}
		bad["interfaces"] = append(append([]any{}, arch["interfaces"].([]any)...), in)
		return bad
	}
	refuse("twin.commit_system_architecture", `interface "wrist": to "gripper" is not a subsystem of this architecture (its subsystems are base, arm, controller); name one of them, or add it to subsystems`,
		withInterface(func(map[string]any) {}))
	refuse("twin.commit_system_architecture", `interface "wrist", quantity "torque": unit "bananas" does not parse`,
		withInterface(func(in map[string]any) {
			in["to"] = "controller"
			in["quantities"] = []any{map[string]any{"name": "torque", "unit": "bananas"}}
		}))
	refuse("twin.commit_system_architecture", `two interfaces are named "Shoulder"`, withInterface(func(in map[string]any) { in["name"], in["to"] = "Shoulder", "base" }))
	dup := withInterface(func(in map[string]any) { in["to"] = "base" })
	dup["subsystems"] = append(append([]any{}, arch["subsystems"].([]any)...), map[string]any{"name": "Base"})
	refuse("twin.commit_system_architecture", `two subsystems are named "Base" (and "base")`, dup)
	if revs, _ := be.Store.Revisions(ctx, pid, "ARCH-VERIFIED-ARM"); len(revs) != 1 {
		t.Errorf("refused architectures wrote: %d revisions", len(revs))
	}

	// A built unit, measured five times.
	unit := c.call("twin.register_device_instance", map[string]any{"project_id": pid, "product_ref": "CAD-ARM", "serial": "SN-0001",
		"build_date": "2026-03-14"})
	if unit["product"] != "CAD-ARM@1" || unit["serial"] != "SN-0001" || unit["build_date"] != "2026-03-14" {
		t.Fatalf("unit = %v", unit)
	}
	refuse("twin.register_device_instance", "serial SN-0001 is already registered for CAD-ARM@1 as unit "+unit["node_id"].(string),
		map[string]any{"project_id": pid, "product_ref": "CAD-ARM", "serial": "sn-0001"})
	if n := count("device_instance"); n != 1 {
		t.Errorf("%d units after a repeated serial, want 1", n)
	}
	measure := func(v float64, u string) map[string]any {
		t.Helper()
		return c.call("twin.record_measurement", map[string]any{"project_id": pid, "device": unit["node_id"], "interface": "shoulder",
			"quantity": "tip_deflection", "value": v, "unit": u})
	}
	var last map[string]any
	for i, m := range []struct {
		v float64
		u string
	}{{0.190, "mm"}, {205, "um"}, {0.198, "mm"}, {0.210, "mm"}, {0.201, "mm"}} {
		last = measure(m.v, m.u)
		cal := last["calibration"].(map[string]any)
		if cal["samples"] != float64(i+1) || cal["banded"] != (i >= 2) || last["flagged"] != false || last["architecture"] != "ARCH-VERIFIED-ARM@1" {
			t.Errorf("measurement %d = %v", i+1, last)
		}
		if i < 2 && cal["note"] != fmt.Sprintf("%d measurement(s) of tip_deflection: a calibration band needs 3 or more", i+1) {
			t.Errorf("measurement %d's calibration = %v", i+1, cal)
		}
		if p := last["prediction"].(map[string]any); p["in_band"] != true || p["evidence_id"] != evidence || p["band_from"] != "data.band_mm" {
			t.Errorf("measurement %d's prediction = %v", i+1, p)
		}
	}
	// By hand: the five are 0.190, 0.205, 0.198, 0.210 and 0.201 mm; their
	// mean is 1.004 / 5 = 0.2008 mm; the deviations -0.0108, 0.0042,
	// -0.0028, 0.0092 and 0.0002 square to 1.1664e-4, 1.764e-5, 7.84e-6,
	// 8.464e-5 and 4e-8, summing to 2.268e-4; the sample standard
	// deviation is sqrt(2.268e-4 / 4) = 0.00752994 mm, and the band
	// 0.2008 -/+ 2 x 0.00752994 = 0.18574 to 0.21586 mm.
	mean, sd := 0.2008, math.Sqrt(2.268e-4/4)
	cal := last["calibration"].(map[string]any)
	for k, want := range map[string]float64{"mean": mean, "std_dev": sd, "low": mean - 2*sd, "high": mean + 2*sd} {
		if got, _ := cal[k].(float64); math.Abs(got-want) > 1e-9 {
			t.Errorf("calibration %s = %v, want %.9f (within 1e-9)", k, cal[k], want)
		}
	}
	if cal["std_dev_kind"] != "sample (n-1)" || cal["k"] != 2.0 || cal["unit"] != "mm" || len(cal["measurements"].([]any)) != 5 {
		t.Errorf("calibration = %v", cal)
	}

	// Outside the band tier 0 predicted: flagged against its evidence.
	out := measure(0.240, "mm")
	p := out["prediction"].(map[string]any)
	if out["flagged"] != true || out["flagged_against"] != evidence || p["in_band"] != false ||
		math.Abs(p["band_low"].(float64)-(predicted-bandHalf)) > 1e-9 || math.Abs(p["band_high"].(float64)-(predicted+bandHalf)) > 1e-9 ||
		math.Abs(p["out_by"].(float64)-(0.240-(predicted+bandHalf))) > 1e-9 || !strings.Contains(p["note"].(string), "is outside the predicted band") {
		t.Fatalf("out of band = %v (predicted %.6f +/- %.6f mm)", out, predicted, bandHalf)
	}
	ev := c.call("twin.get_node", map[string]any{"node_id": evidence})
	var contradicted []string
	for _, r := range ev["related"].([]any) {
		if r := r.(map[string]any); r["edge"] == "CONTRADICTS" && r["direction"] == "incoming" {
			contradicted = append(contradicted, r["node_id"].(string))
		}
	}
	if !reflect.DeepEqual(contradicted, []string{out["node_id"].(string)}) {
		t.Errorf("the evidence is contradicted by %v, want only %v", contradicted, out["node_id"])
	}

	before := count("measurement")
	m := map[string]any{"project_id": pid, "device": "SN-0001", "interface": "shoulder", "quantity": "tip_deflection", "value": 0.2, "unit": "mm"}
	with := func(k string, v any) map[string]any {
		out := map[string]any{}
		for kk, vv := range m {
			out[kk] = vv
		}
		out[k] = v
		return out
	}
	refuse("twin.record_measurement", `has no quantity "stiffness" (it has tip_deflection)`, with("quantity", "stiffness"))
	refuse("twin.record_measurement", "a value in N cannot be read as mm", with("unit", "N"))
	refuse("twin.record_measurement", `unit "furlongs" does not parse`, with("unit", "furlongs"))
	refuse("twin.record_measurement", `no built unit in this project has serial "SN-9999"`, with("device", "SN-9999"))
	refuse("twin.record_measurement", "is a cad_model, not evidence", with("predicted_evidence_id", unit["product_node_id"]))
	if after := count("measurement"); after != before || before != 6 {
		t.Errorf("measurements: %d, then %d after refusals; want 6 and 6", before, after)
	}
}
