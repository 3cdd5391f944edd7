package runs_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/flow"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/workflows"
)

// A mech_v1 run from proposal to COMPLETED_VERIFIED on the embedded Temporal
// server: the version must be approved before it runs, each phase is done
// by the client, each gate judged against the twin, and every bad decision
// is refused with its reason and leaves the run where it was.
func TestMechRunThroughEveryGate(t *testing.T) {
	h := newHarness(t)
	p := h.call("flow.propose", map[string]any{"project_id": h.project, "flow": "mech_v1",
		"goal":                  "Design an aluminium 6061 wall bracket that carries 200 N at its tip with under 0.5 mm deflection, within 120 x 40 x 30 mm",
		"manufacturing_context": "cnc_milling", "target_maturity": "prototype", "loads_and_use": "200 N static tip load"})
	version, approval := p["flow_version_id"].(string), p["approval_id"].(string)

	// An unapproved version does not run.
	h.refused("flow.start_run", map[string]any{"flow_version_id": version}, "has not been approved")
	h.decideApproval(approval)
	started := h.call("flow.start_run", map[string]any{"flow_version_id": version})
	runID := started["run_id"].(string)

	// Deciding a gate that is not waiting is refused.
	h.waitFor(runID, flows.RunWaitingForClient)
	if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionApprove}); !errors.Is(err, flow.ErrRefused) ||
		!strings.Contains(err.Error(), "no gate") {
		t.Fatalf("a decision with no gate waiting: want a refusal, got %v", err)
	}
	tasks := h.call("phase.list_tasks", map[string]any{"project_id": h.project})
	if tasks["count"].(float64) != 1 {
		t.Fatalf("list_tasks: want the one waiting phase, got %v", tasks)
	}

	st := h.doPhase(runID, "requirements", func() []string {
		cs := h.call("twin.record_constraint_set", map[string]any{"project_id": h.project, "name": "bracket requirements",
			"constraints": []map[string]any{
				{"name": "fits", "metric": "envelope_x", "operator": "<=", "limit": 120, "unit": "mm", "verification_method": "inspection"},
				{"name": "stiff", "metric": "max_displacement", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"},
				{"name": "strong", "metric": "safety_factor", "operator": ">=", "limit": 2, "unit": "1", "verification_method": "analysis"},
			}})
		return []string{cs["node_id"].(string)}
	})
	if g := st.Phases[0].Gate; g.Result == nil || g.Result.Status != flows.StatusPass {
		t.Fatalf("requirements gate: want pass, got %+v", g.Result)
	}
	// Rework to a phase that does not exist, or has not run, is refused.
	for _, to := range []string{"nonsense", "design"} {
		if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionRework, ReworkTo: to}); !errors.Is(err, flow.ErrRefused) ||
			!strings.Contains(err.Error(), "rework_to") {
			t.Fatalf("rework to %s: want a refusal, got %v", to, err)
		}
	}
	// A decision naming nobody, or put by elicitation, is refused.
	if _, err := h.runs.Decide(h.ctx, runID, flows.GateDecision{Decision: flows.DecisionApprove, Route: workflows.RouteDashboard}); err == nil {
		t.Fatal("an anonymous decision was accepted")
	}
	if _, err := h.runs.Decide(h.ctx, runID, flows.GateDecision{Decision: flows.DecisionApprove, Decider: "bob",
		Route: workflows.RouteElicitation}); err == nil || !strings.Contains(err.Error(), "identified person") {
		t.Fatalf("an elicitation decision: want a refusal, got %v", err)
	}
	h.approve(runID)

	h.doPhase(runID, "concept", func() []string {
		d := h.call("twin.record_decision", map[string]any{"project_id": h.project, "name": "concept", "decision": "L bracket, machined",
			"rationale": "simplest to machine"})
		return []string{d["node_id"].(string)}
	})
	h.approve(runID)

	var cadKey string
	st = h.doPhase(runID, "design", func() []string {
		g := h.call("twin.commit_geometry", map[string]any{"project_id": h.project, "name": "bracket", "step_base64": stepBase64,
			"material": "aluminium_6061", "properties": map[string]any{"bounding_box": map[string]any{"size": []float64{100, 40, 30}}, "mass_kg": 0.12}})
		cadKey = g["item_key"].(string)
		return []string{g["node_id"].(string)}
	})
	if g := st.Phases[2].Gate.Result; g == nil || g.Status != flows.StatusPass {
		t.Fatalf("design gate: the envelope holds against the cad_model, want pass, got %+v", g)
	}
	h.approve(runID)

	// The analysis gate has no evidence yet: no data is not a pass.
	st = h.doPhase(runID, "analysis", func() []string { return nil })
	g := st.Phases[3].Gate
	if g.Result.Status != flows.StatusNoData || containsString(g.Allowed, flows.DecisionApprove) {
		t.Fatalf("analysis gate without evidence: want no_data and no approve offered, got %s %v", g.Result.Status, g.Allowed)
	}
	before := st
	if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionApprove}); !errors.Is(err, flow.ErrRefused) ||
		!strings.Contains(err.Error(), "no_data") {
		t.Fatalf("approving no_data criteria: want a refusal naming no_data, got %v", err)
	}
	if after := h.waitFor(runID, flows.RunAtGate); after.Phase != before.Phase || after.Phases[3].Gate.Decision != nil {
		t.Fatalf("a refused approval changed the run: %+v", after.Phases[3].Gate)
	}
	var evidence []string
	for _, ev := range []map[string]any{
		{"metric": "max_displacement", "value": 0.21, "unit": "mm"},
		{"metric": "safety_factor", "value": 3.4, "unit": "1"},
	} {
		ev["project_id"], ev["name"], ev["kind"], ev["valid_against"] = h.project, ev["metric"], "simulation", []string{cadKey}
		evidence = append(evidence, h.call("twin.record_evidence", ev)["node_id"].(string))
	}
	h.approve(runID) // judged again against the twin: now it passes

	h.doPhase(runID, "verification", func() []string { return evidence })
	h.approve(runID)
	h.doPhase(runID, "release", func() []string { return h.release() })
	h.approve(runID)

	final := h.waitFor(runID, flows.RunCompletedVerified)
	if final.Verdict == nil || len(final.Verdict.Blocking) != 0 {
		t.Fatalf("verdict: %+v", final.Verdict)
	}
	v := h.call("flow.verify_completion", map[string]any{"run_id": runID})
	if v["verdict"] != flows.CompletedVerified {
		t.Fatalf("verify_completion: %v", v)
	}
	if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionApprove}); err == nil {
		t.Fatal("a decision on an ended run was accepted")
	}
	h.recordHistory(runID, "mech_v1_verified_local_gate.json")
}

// A failed criterion is approved only under an approved waiver that names
// it; a rejection ends the run; a rework goes back and runs the phase again.
func TestWaiverReworkAndRejection(t *testing.T) {
	h := newHarness(t)
	version := h.approvedVersion("mech_v1")
	runID := h.call("flow.start_run", map[string]any{"flow_version_id": version})["run_id"].(string)
	h.doPhase(runID, "requirements", func() []string {
		cs := h.call("twin.record_constraint_set", map[string]any{"project_id": h.project, "name": "reqs",
			"constraints": []map[string]any{{"name": "light", "metric": "mass", "operator": "<=", "limit": 0.1, "unit": "kg", "verification_method": "inspection"}}})
		return []string{cs["node_id"].(string)}
	})
	h.approve(runID)
	st := h.doPhase(runID, "concept", func() []string {
		return []string{h.call("twin.record_decision", map[string]any{"project_id": h.project, "name": "concept", "decision": "one piece",
			"rationale": "cheap"})["node_id"].(string)}
	})
	// Rework the concept: the phase runs again, attempt 2.
	if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionRework, ReworkTo: "concept", Comment: "try again"}); err != nil {
		t.Fatal(err)
	}
	st = h.waitFor(runID, flows.RunWaitingForClient)
	if st.Phase != "concept" || st.Phases[1].Attempt != 2 {
		t.Fatalf("after rework: want concept attempt 2, got %s attempt %d", st.Phase, st.Phases[1].Attempt)
	}
	h.doPhase(runID, "concept", func() []string { return nil })
	h.approve(runID)

	// The design gate fails: the committed part is too heavy.
	st = h.doPhase(runID, "design", func() []string {
		return []string{h.call("twin.commit_geometry", map[string]any{"project_id": h.project, "name": "part", "step_base64": stepBase64,
			"material": "steel", "properties": map[string]any{"mass_kg": 0.4}})["node_id"].(string)}
	})
	gr := st.Phases[2].Gate.Result
	if gr.Status != flows.StatusFail {
		t.Fatalf("design gate with a part over its mass limit: want fail, got %+v", gr)
	}
	if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionApprove}); !errors.Is(err, flow.ErrRefused) {
		t.Fatalf("approving a failed criterion without a waiver: want a refusal, got %v", err)
	}
	// A waiver recorded but not approved does not count.
	w := h.call("twin.record_engineering_entity", map[string]any{"project_id": h.project, "entity_type": "waiver", "name": "accept mass",
		"properties": map[string]any{"waives": []string{"light"}}})
	if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionApprove}); !errors.Is(err, flow.ErrRefused) {
		t.Fatalf("approving under an unapproved waiver: want a refusal, got %v", err)
	}
	// Once a person approves the waiver (a held human-authority call), the gate can be approved.
	approvalID := newID()
	if _, err := h.runs.HoldForApproval(h.ctx, "twin.approve_engineering_entity",
		[]byte(`{"project_id":"`+h.project+`","node_id":"`+w["node_id"].(string)+`"}`), h.project, "approve the mass waiver", approvalID); err != nil {
		t.Fatal(err)
	}
	h.decideApproval(approvalID)
	h.approve(runID)
	st = h.waitFor(runID, flows.RunWaitingForClient)
	if st.Phases[2].Gate.Result.Criteria[1].WaivedBy == "" {
		t.Fatalf("the approved gate does not name its waiver: %+v", st.Phases[2].Gate.Result)
	}

	// Rejecting a gate ends the run.
	h.doPhase(runID, "analysis", func() []string { return nil })
	if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionReject, Comment: "not this way"}); err != nil {
		t.Fatal(err)
	}
	st = h.waitFor(runID, flows.RunRejected)
	if !strings.Contains(st.Reason, "not this way") {
		t.Fatalf("rejected run's reason: %q", st.Reason)
	}
	h.recordHistory(runID, "mech_v1_rework_waiver_rejected_local_gate.json")
}

// A patch at a gate continues the run as new: a patch to a phase already
// run re-runs it; the run keeps its id, state and history of patches.
func TestPatchContinuesAsNew(t *testing.T) {
	h := newHarness(t)
	version := h.approvedVersion("hardware_v1")
	runID := h.call("flow.start_run", map[string]any{"flow_version_id": version})["run_id"].(string)
	h.doPhase(runID, "requirements", func() []string {
		return []string{h.call("twin.record_constraint_set", map[string]any{"project_id": h.project, "name": "reqs",
			"constraints": []map[string]any{{"name": "rail", "metric": "supply_voltage", "operator": "<=", "limit": 3.6, "unit": "V", "verification_method": "test"}}})["node_id"].(string)}
	})
	// A patch nobody approved, or one breaking an invariant, is refused.
	if _, err := h.runs.Patch(h.ctx, runID, flows.PatchRequest{Patch: flows.Patch{Phase: "requirements", Reason: "x", AddCriteria: []string{flows.CriterionNoStaleEvidence}}}); err == nil {
		t.Fatal("an unapproved patch was applied")
	}
	if _, err := h.runs.Patch(h.ctx, runID, flows.PatchRequest{ApprovedBy: "alice",
		Patch: flows.Patch{Phase: "no-such-phase", Reason: "x", AddCriteria: []string{flows.CriterionNoStaleEvidence}}}); err == nil {
		t.Fatal("a patch to a phase that does not exist was applied")
	}
	window := 3600
	if _, err := h.runs.Patch(h.ctx, runID, flows.PatchRequest{ApprovedBy: "alice",
		Patch: flows.Patch{Phase: "requirements", Reason: "a shorter window", GateWindowSeconds: &window}}); err != nil {
		t.Fatal(err)
	}
	st := h.waitFor(runID, flows.RunAtGate)
	if len(st.Patches) != 1 || st.Phases[0].Gate.WindowSeconds != 3600 || st.Phases[0].Attempt != 1 {
		t.Fatalf("after the patch: want one patch, the new window and the phase not re-run, got %+v / %+v", st.Patches, st.Phases[0])
	}
	h.approve(runID)
	h.waitFor(runID, flows.RunWaitingForClient)
	if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionReject}); err == nil {
		t.Fatal("a decision while the phase waits for the client was accepted")
	}
	h.doPhase(runID, "architecture", func() []string { return nil })
	if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionReject, Comment: "stop here"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(runID, flows.RunRejected)
	h.recordHistory(runID, "hardware_v1_patched_rejected_local_gate.json")
}

// A design_v1 run: a gate approved, the next rejected.
func TestDesignRunRejected(t *testing.T) {
	h := newHarness(t)
	version := h.approvedVersion("design_v1")
	runID := h.call("flow.start_run", map[string]any{"flow_version_id": version})["run_id"].(string)
	if again := h.call("run.start_design_flow", map[string]any{"flow_version_id": version})["run_id"].(string); again == runID {
		t.Fatal("a second start of the same version must be a second run")
	}
	h.doPhase(runID, "requirements", func() []string {
		return []string{h.call("twin.record_constraint_set", map[string]any{"project_id": h.project, "name": "reqs",
			"constraints": []map[string]any{{"name": "light", "metric": "mass", "operator": "<=", "limit": 1, "unit": "kg", "verification_method": "inspection"}}})["node_id"].(string)}
	})
	h.approve(runID)
	h.doPhase(runID, "concept", func() []string { return nil })
	if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionReject, Comment: "no concept recorded"}); err != nil {
		t.Fatal(err)
	}
	st := h.waitFor(runID, flows.RunRejected)
	if s := h.call("run.get_status", map[string]any{"run_id": runID}); s["status"] != flows.RunRejected || !strings.Contains(s["reason"].(string), "no concept") {
		t.Fatalf("run.get_status: %v", s)
	}
	if st.Phases[1].Gate.Status != flows.GateRejected {
		t.Fatalf("concept gate: %+v", st.Phases[1].Gate)
	}
	h.recordHistory(runID, "design_v1_rejected_local_gate.json")
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A mech_v1 run whose analysis phase is done by its step: one real CalculiX
// FEA per load case (a child ToolCall), each result recorded as evidence
// pinned to the committed geometry, then judged at the gate.
func TestAnalysisStepRunsFEAPerLoadCase(t *testing.T) {
	h := newHarness(t, solverAdapters(t)...)
	version := h.approvedVersion("mech_v1")
	bar := h.call("cadquery.create_parametric", map[string]any{"shape_type": "box", "parameters": map[string]any{"length": 100, "width": 20, "height": 20}})
	step := h.call("cadquery.export_geometry", map[string]any{"input_file": bar["cad_file"], "output_format": "step"})
	props := h.call("cadquery.get_properties", map[string]any{"input_file": bar["cad_file"]})
	mesh := h.call("gmsh.generate_mesh", map[string]any{"input_file": bar["cad_file"], "element_order": 2, "mesh_size_mm": 5})
	fixed, loaded := endFaces(mesh)
	cases := []map[string]any{}
	for _, n := range []float64{200, 400} {
		cases = append(cases, map[string]any{"name": fmt.Sprintf("%g N", n), "valid_against": []string{"BRACKET"},
			"arguments": map[string]any{"mesh_file": mesh["mesh_file"], "material": "aluminium_6061", "fixed_node_set": fixed,
				"load_node_set": loaded, "load_force_n": n, "load_direction": []float64{0, 0, -1}}})
	}
	runID := h.call("flow.start_run", map[string]any{"flow_version_id": version, "inputs": map[string]any{"load_cases": cases}})["run_id"].(string)
	h.doPhase(runID, "requirements", func() []string {
		return []string{h.call("twin.record_constraint_set", map[string]any{"project_id": h.project, "name": "reqs", "constraints": []map[string]any{
			{"name": "fits", "metric": "envelope_x", "operator": "<=", "limit": 120, "unit": "mm", "verification_method": "inspection"},
			{"name": "stiff", "metric": "max_displacement", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"}}})["node_id"].(string)}
	})
	h.approve(runID)
	h.doPhase(runID, "concept", func() []string {
		return []string{h.call("twin.record_decision", map[string]any{"project_id": h.project, "name": "concept", "decision": "a bar"})["node_id"].(string)}
	})
	h.approve(runID)
	h.doPhase(runID, "design", func() []string {
		return []string{h.call("twin.commit_geometry", map[string]any{"project_id": h.project, "name": "bracket", "item_key": "BRACKET",
			"step_base64": step["step_base64"], "material": "aluminium_6061", "properties": map[string]any{"bounding_box": props["bounding_box"]}})["node_id"].(string)}
	})
	h.approve(runID)
	st := h.waitFor(runID, flows.RunAtGate)
	analysis := st.Phases[3]
	if len(analysis.Steps) != 2 || analysis.Status != flows.PhaseAtGate {
		t.Fatalf("analysis: want two FEA steps then the gate, got %+v", analysis)
	}
	for _, s := range analysis.Steps {
		if s.Status != workflows.StatusSuccess || len(s.EvidenceCalls) != 3 {
			t.Fatalf("step %s: %+v", s.Name, s)
		}
	}
	// F L^3 / (3 E I) for 400 N on the 100 x 20 x 20 mm aluminium bar is
	// 0.145 mm: both cases pass the 0.5 mm limit, and the gate with them.
	if g := analysis.Gate.Result; g == nil || g.Status != flows.StatusPass {
		t.Fatalf("the analysis gate on the steps' evidence: %+v", g)
	}
	facts, err := h.facts.FlowFacts(h.ctx, h.project)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range facts.Requirements {
		want := 400 * 1e6 / (3 * 68900 * (20 * 8000.0 / 12))
		if r.Name == "stiff" && (r.Value == nil || *r.Value < 0.9*want || *r.Value > 1.1*want) {
			t.Fatalf("the deciding displacement is the 400 N case's, %.4f mm within 10%%: got %v", want, r.Value)
		}
	}
	h.recordHistory(runID, "mech_v1_analysis_steps_local_gate.json")
}

// The flow tools that read: the templates with their invariants, the
// intent compiled the same way twice, the capability gaps against what is
// served, and a run's lifecycle.
func TestFlowReadTools(t *testing.T) {
	h := newHarness(t)
	list := h.call("flow.list", map[string]any{})
	if fl := list["flows"].([]any); len(fl) != 3 {
		t.Fatalf("flow.list: %d flows", len(fl))
	}
	for _, f := range list["flows"].([]any) {
		if f.(map[string]any)["invariants_pass"] != true {
			t.Fatalf("a template breaks an invariant: %v", f)
		}
	}
	goal := map[string]any{"goal": "an aluminium 6061 bracket carrying 200 N with under 0.5 mm deflection, made by cnc milling"}
	a, b := h.call("flow.compile_intent", goal), h.call("flow.compile_intent", goal)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("flow.compile_intent is not deterministic")
	}
	var found bool
	for _, c := range a["success_criteria"].([]any) {
		c := c.(map[string]any)
		if c["metric"] == "max_displacement" && c["operator"] == "<=" && c["limit"] == 0.5 && c["unit"] == "mm" {
			found = true
		}
	}
	if !found {
		t.Fatalf("the deflection limit is not a success criterion: %v", a["success_criteria"])
	}
	// This harness serves only the twin and the flow tools: the solver
	// tools of mech_v1 are gaps, and a phase with none served is high.
	caps := h.call("flow.capabilities", map[string]any{"flow": "mech_v1"})
	severity := map[string]string{}
	for _, g := range caps["gaps"].([]any) {
		g := g.(map[string]any)
		severity[g["tool"].(string)] = g["severity"].(string)
	}
	if severity["calculix.run_fea"] == "" || severity["twin.record_evidence"] != "" {
		t.Fatalf("gaps: %v", severity)
	}
	version := h.approvedVersion("design_v1")
	runID := h.call("flow.start_run", map[string]any{"flow_version_id": version})["run_id"].(string)
	h.waitFor(runID, flows.RunWaitingForClient)
	lc := h.call("flow.lifecycle", map[string]any{"run_id": runID})
	first := lc["phases"].([]any)[0].(map[string]any)
	if first["eligible"] != true || lc["verdict"] != flows.CompletedUnverified {
		t.Fatalf("flow.lifecycle at the start: %v", lc)
	}
	h.refused("flow.status", map[string]any{"run_id": "0000000000000000"}, "does not exist")
}
