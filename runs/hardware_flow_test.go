package runs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters/kicad"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/workflows"
)

// astable555 is kicad.generate_schematic's description of a 555 astable:
// an NE555P in DIP-8 with its timing resistors R1 (1k) and R2 (10k), the
// timing capacitor C1 (10 uF) and the control-voltage capacitor C2 (10 nF),
// and a 3-pin header J1 bringing in VCC and GND and taking out the output.
// Reset (pin 4) is tied to VCC; trigger and threshold (2, 6) to C1.
// powerFlags puts a PWR_FLAG on VCC and on GND: without them nothing
// drives the NE555's power inputs (VCC, pin 8; GND, pin 1: power_in pins
// on nets of passive pins only), which KiCad's ERC reports as an error,
// power_pin_not_driven, on each.
func astable555(powerFlags bool) map[string]any {
	part := func(ref, symbol, value, footprint string) map[string]any {
		return map[string]any{"reference": ref, "symbol": symbol, "value": value, "footprint": footprint}
	}
	components := []any{
		part("U1", "Timer:NE555P", "NE555P", "Package_DIP:DIP-8_W7.62mm"),
		part("R1", "Device:R", "1k", "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal"),
		part("R2", "Device:R", "10k", "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal"),
		part("C1", "Device:C", "10u", "Capacitor_THT:C_Disc_D5.0mm_W2.5mm_P5.00mm"),
		part("C2", "Device:C", "10n", "Capacitor_THT:C_Disc_D5.0mm_W2.5mm_P5.00mm"),
		part("J1", "Connector_Generic:Conn_01x03", "Conn_01x03", "Connector_PinHeader_2.54mm:PinHeader_1x03_P2.54mm_Vertical"),
	}
	return map[string]any{
		"title":      "555 astable",
		"components": components,
		"nets": []any{
			map[string]any{"name": "VCC", "pins": []any{"U1.8", "U1.4", "R1.1", "J1.1"}, "power_flag": powerFlags},
			map[string]any{"name": "GND", "pins": []any{"U1.1", "C1.2", "C2.2", "J1.2"}, "power_flag": powerFlags},
			map[string]any{"name": "DIS", "pins": []any{"U1.7", "R1.2", "R2.1"}},
			map[string]any{"name": "THR", "pins": []any{"U1.6", "U1.2", "R2.2", "C1.1"}},
			map[string]any{"name": "CV", "pins": []any{"U1.5", "C2.1"}},
			map[string]any{"name": "OUT", "pins": []any{"U1.3", "J1.3"}},
		},
	}
}

// hardwareRun proposes hardware_v1 for a 555 astable board in a project of
// its own, has alice approve it, and starts a run with inputs; then does
// the requirements and architecture phases as a client would, recording
// the NE555 as the TIMER component selection (what the schematic and its
// ERC evidence are pinned to), and approves both gates.
func (h *harness) hardwareRun(inputs map[string]any) string {
	h.t.Helper()
	h.project = h.call("project.create", map[string]any{"name": "astable-" + newID()})["project_id"].(string)
	p := h.call("flow.propose", map[string]any{"project_id": h.project, "flow": "hardware_v1",
		"goal":                  "Design a 555 astable oscillator board powered from a 9 V supply through a 3-pin header, drawing under 10 mA",
		"manufacturing_context": "pcb_assembly", "target_maturity": "prototype"})
	if p["status"] != "proposed" {
		h.t.Fatalf("propose: %v", p)
	}
	h.decideApproval(p["approval_id"].(string))
	runID := h.call("flow.start_run", map[string]any{"flow_version_id": p["flow_version_id"], "inputs": inputs})["run_id"].(string)
	h.doPhase(runID, "requirements", func() []string {
		return []string{h.call("twin.record_constraint_set", map[string]any{"project_id": h.project, "name": "reqs",
			"constraints": []map[string]any{{"name": "current", "metric": "supply_current", "operator": "<=", "limit": 10, "unit": "mA",
				"verification_method": "test"}}})["node_id"].(string)}
	})
	h.approve(runID)
	h.doPhase(runID, "architecture", func() []string {
		sel := h.call("twin.record_component_selection", map[string]any{"project_id": h.project, "name": "timer", "item_key": "TIMER",
			"mpn": "NE555P", "manufacturer": "Texas Instruments", "specs": map[string]any{"supply_voltage_max": "16 V"}})
		dec := h.call("twin.record_decision", map[string]any{"project_id": h.project, "name": "architecture", "decision": "a 555 astable"})
		return []string{sel["node_id"].(string), dec["node_id"].(string)}
	})
	h.approve(runID)
	return runID
}

// schematicInput is the run input schematic: one description, its ERC
// evidence pinned to the TIMER selection's head.
func schematicInput(name string, description map[string]any) []any {
	return []any{map[string]any{"name": name, "arguments": description, "valid_against": []any{"TIMER"}}}
}

// hardware_v1's schematic phase run by the server: kicad.generate_schematic
// writes the 555 astable, kicad.run_erc checks the file it wrote, and the
// ERC counts are recorded as evidence the gate judges. A clean schematic
// passes its gate; the same circuit without its PWR_FLAGs is held at the
// gate, which names the undriven power pins and allows no approval; a
// schematic whose symbol the library lacks fails its first step, its ERC
// is reported not run, and the gate has no ERC evidence to judge.
func TestHardwareSchematicPhaseJudgesERC(t *testing.T) {
	t.Run("clean", func(t *testing.T) {
		h := kicadHarness(t)
		runID := h.hardwareRun(map[string]any{"schematic": schematicInput("555 astable", astable555(true))})
		st := h.waitFor(runID, flows.RunAtGate)
		ps := st.Phases[2]
		if st.Phase != "schematic" || len(ps.Steps) != 2 {
			t.Fatalf("at %s with steps %+v (skipped: %q)", st.Phase, ps.Steps, ps.StepsSkipped)
		}
		gen, erc := ps.Steps[0], ps.Steps[1]
		if gen.Status != workflows.StatusSuccess || gen.ToolID != "kicad.generate_schematic" || len(gen.EvidenceCalls) != 0 {
			t.Fatalf("generate_schematic: %+v", gen)
		}
		if erc.Status != workflows.StatusSuccess || erc.ToolID != "kicad.run_erc" || len(erc.EvidenceCalls) != 2 {
			t.Fatalf("run_erc: %+v", erc)
		}
		ev := h.evidence(erc, "erc_errors")
		data := ev.Properties["data"].(map[string]any)
		if value(ev) != 0 || ev.Properties["kind"] != "analysis" || data["case"] != "555 astable" {
			t.Fatalf("erc_errors evidence: %+v", ev)
		}
		t.Logf("erc_warnings %v", value(h.evidence(erc, "erc_warnings")))
		g := ps.Gate.Result
		if g == nil || g.Status != flows.StatusPass || criterionOf(t, *g, flows.CriterionERCClean).Status != flows.StatusPass {
			t.Fatalf("the schematic gate on a clean ERC: %+v", g)
		}
		if !slices.Contains(ps.Gate.Allowed, flows.DecisionApprove) {
			t.Fatalf("a clean gate does not allow approve: %v", ps.Gate.Allowed)
		}
		h.approve(runID)
		// No board input: the client lays the board out.
		st = h.waitFor(runID, flows.RunWaitingForClient)
		if st.Phase != "layout" || !strings.Contains(st.Phases[3].StepsSkipped, "no board input") {
			t.Fatalf("after the schematic: %s, skipped %q", st.Phase, st.Phases[3].StepsSkipped)
		}
		h.doPhase(runID, "layout", func() []string { return nil })
		if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionReject, Comment: "layout next time"}); err != nil {
			t.Fatal(err)
		}
		h.waitFor(runID, flows.RunRejected)
		h.recordHistory(runID, "hardware_v1_schematic_steps.json")
	})

	t.Run("power pins not driven", func(t *testing.T) {
		h := kicadHarness(t)
		runID := h.hardwareRun(map[string]any{"schematic": schematicInput("555 astable without PWR_FLAG", astable555(false))})
		st := h.waitFor(runID, flows.RunAtGate)
		ps := st.Phases[2]
		if len(ps.Steps) != 2 || ps.Steps[1].Status != workflows.StatusSuccess {
			t.Fatalf("steps %+v", ps.Steps)
		}
		if n := value(h.evidence(ps.Steps[1], "erc_errors")); n != 2 {
			t.Errorf("erc_errors %v, want 2: VCC (U1 pin 8) and GND (U1 pin 1) undriven", n)
		}
		g := ps.Gate.Result
		if g == nil || g.Status != flows.StatusFail {
			t.Fatalf("the schematic gate on a failing ERC: %+v", g)
		}
		c := criterionOf(t, *g, flows.CriterionERCClean)
		t.Logf("erc_clean: %s", c.Detail)
		if c.Status != flows.StatusFail || len(c.Findings) != 2 {
			t.Fatalf("erc_clean: %+v", c)
		}
		for _, want := range []string{"erc_errors is 2", "power_pin_not_driven", "U1 pin 8", "U1 pin 1"} {
			if !strings.Contains(c.Detail, want) {
				t.Errorf("erc_clean's detail does not say %q: %s", want, c.Detail)
			}
		}
		if slices.Contains(ps.Gate.Allowed, flows.DecisionApprove) {
			t.Fatalf("a failing gate allows approve: %v", ps.Gate.Allowed)
		}
		if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionApprove}); err == nil {
			t.Fatal("the gate was approved over ERC errors")
		}
		// flow.await_gate shows the person the same.
		aw := h.call("flow.await_gate", map[string]any{"run_id": runID, "wait_seconds": 0})
		gate, _ := json.Marshal(aw["gate"])
		if aw["at_gate"] != true || !strings.Contains(string(gate), "power_pin_not_driven") {
			t.Errorf("flow.await_gate: %v", aw)
		}
		if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionReject, Comment: "fix the power flags"}); err != nil {
			t.Fatal(err)
		}
		h.waitFor(runID, flows.RunRejected)
		h.recordHistory(runID, "hardware_v1_schematic_erc_held.json")
	})

	t.Run("unknown symbol", func(t *testing.T) {
		h := kicadHarness(t)
		bad := astable555(true)
		bad["components"].([]any)[0].(map[string]any)["symbol"] = "Timer:NE556_NOPE"
		runID := h.hardwareRun(map[string]any{"schematic": schematicInput("555 astable, wrong symbol", bad)})
		st := h.waitFor(runID, flows.RunAtGate)
		ps := st.Phases[2]
		if len(ps.Steps) != 2 || ps.Steps[0].Status != workflows.StatusError || !strings.Contains(ps.Steps[0].Error, "NE556_NOPE") ||
			ps.Steps[1].Status != workflows.StatusError || !strings.Contains(ps.Steps[1].Error, "comes from step generate_schematic, which gave no result") {
			t.Fatalf("steps %+v", ps.Steps)
		}
		c := criterionOf(t, *ps.Gate.Result, flows.CriterionERCClean)
		if c.Status != flows.StatusNoData || !strings.Contains(c.Detail, "no erc_errors evidence") {
			t.Fatalf("erc_clean with no ERC run: %+v", c)
		}
	})
}

// kicadHarness is a harness with the kicad tools over its workspace.
func kicadHarness(t *testing.T) *harness {
	t.Helper()
	ws := workspace.New(t.TempDir())
	return newHarnessIn(t, ws, kicad.New(ws))
}

// criterionOf is the judged criterion kind of a gate result.
func criterionOf(t *testing.T, g flows.GateResult, kind string) flows.CriterionResult {
	t.Helper()
	for _, c := range g.Criteria {
		if c.Kind == kind {
			return c
		}
	}
	t.Fatalf("gate %s has no criterion %s: %+v", g.Gate, kind, g.Criteria)
	return flows.CriterionResult{}
}

// stripBoard copies a board without its tracks, vias and zones, in pcbnew
// itself: a board to route. Given a y (mm) and another, it first moves the
// board outline's edge at the one to the other.
const stripBoard = `
import sys, pcbnew
b = pcbnew.LoadBoard(sys.argv[1])
if len(sys.argv) > 3:
    old, new = pcbnew.FromMM(float(sys.argv[3])), pcbnew.FromMM(float(sys.argv[4]))
    for d in b.GetDrawings():
        if d.GetLayerName() == "Edge.Cuts":
            s, e = d.GetStart(), d.GetEnd()
            if s.y == old:
                d.SetStart(pcbnew.wxPoint(s.x, new))
            if e.y == old:
                d.SetEnd(pcbnew.wxPoint(e.x, new))
zones, tracks = list(b.Zones()), list(b.GetTracks())
for z in zones:
    b.Remove(z)
for t in tracks:
    b.Remove(t)
pcbnew.SaveBoard(sys.argv[2], b)
`

// bareDemoBoard writes KiCad's demo board (a path under
// /usr/share/kicad/demos) stripped for routing into the workspace; edge,
// when given, is the y of the outline's edge to move and where to.
func bareDemoBoard(t *testing.T, ws *workspace.Workspace, demo string, edge ...string) string {
	t.Helper()
	dir := filepath.Join(ws.Root, "boards")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(demo), ".kicad_pcb")+"-bare.kicad_pcb")
	args := append([]string{"-c", stripBoard, filepath.Join("/usr/share/kicad/demos", demo), out}, edge...)
	if b, err := exec.Command(kicad.DefaultPython, args...).CombinedOutput(); err != nil {
		t.Fatalf("strip %s: %v\n%s", demo, err, b)
	}
	return out
}

// boardInput is the run input board: one board to route in at most
// maxSeconds, its evidence pinned, like the schematic's, to the TIMER
// selection. The board is a KiCad demo standing in for the 555's layout:
// no tool here places a board from a schematic.
func boardInput(name, board string, maxSeconds int) []any {
	return []any{map[string]any{"name": name, "arguments": map[string]any{"board_file": board, "max_seconds": maxSeconds},
		"valid_against": []any{"TIMER"}}}
}

// waitWithin is waitFor with a deadline of its own, for phases whose steps
// route a board.
func (h *harness) waitWithin(runID, want string, d time.Duration) flows.RunState {
	h.t.Helper()
	deadline := time.Now().Add(d)
	for {
		st, err := h.runs.RunState(h.ctx, runID)
		if err == nil && st.Status == want {
			return st
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("run %s: want status %s within %s, have %s at %s (%v)", runID, want, d, st.Status, st.Phase, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// hardware_v1's schematic and layout phases both run by the server: the
// 555 astable generated and ERC-checked, then a board routed by
// kicad.auto_route (Freerouting) and DRC-checked by kicad.run_drc on the
// routed copy, each count recorded as evidence. ecc83-pp's 20 connections
// all route and its DRC is clean, so the layout gate passes on erc_clean,
// drc_clean and routing_complete; pic_programmer given one second to route
// is stopped early, and the gate holds the run naming what is unrouted.
//
// It needs Freerouting (deploy/install-freerouting.sh): without it
// kicad.auto_route answers TOOL_UNAVAILABLE, and the test fails saying so.
func TestHardwareLayoutPhaseJudgesDRC(t *testing.T) {
	t.Run("routed", func(t *testing.T) {
		ws := workspace.New(t.TempDir())
		h := newHarnessIn(t, ws, kicad.New(ws))
		// ecc83-pp's outline cuts through connector P4's silkscreen (KiCad's
		// DRC: 4 silk_over_copper errors on the demo as shipped); its bottom
		// edge moved from y 136.525 to 139.065 mm clears it, and the bare
		// board then has no DRC violation but its 20 unconnected pads.
		board := bareDemoBoard(t, ws, "ecc83/ecc83-pp.kicad_pcb", "136.525", "139.065")
		runID := h.hardwareRun(map[string]any{"schematic": schematicInput("555 astable", astable555(true)),
			"board": boardInput("ecc83-pp, tracks removed", board, 120)})
		h.waitFor(runID, flows.RunAtGate)
		h.approve(runID)
		start := time.Now()
		st := h.waitWithin(runID, flows.RunAtGate, 4*time.Minute)
		ps := st.Phases[3]
		t.Logf("layout steps in %.1f s: %+v", time.Since(start).Seconds(), ps.Steps)
		if st.Phase != "layout" || len(ps.Steps) != 2 {
			t.Fatalf("at %s with steps %+v (skipped %q)", st.Phase, ps.Steps, ps.StepsSkipped)
		}
		route, drc := ps.Steps[0], ps.Steps[1]
		if route.Status != workflows.StatusSuccess || route.ToolID != "kicad.auto_route" || len(route.EvidenceCalls) != 1 {
			t.Fatalf("auto_route: %+v", route)
		}
		if drc.Status != workflows.StatusSuccess || drc.ToolID != "kicad.run_drc" || len(drc.EvidenceCalls) != 3 {
			t.Fatalf("run_drc: %+v", drc)
		}
		if n := value(h.evidence(route, "routed_connections")); n != 20 {
			t.Errorf("routed_connections %v, want ecc83-pp's 20", n)
		}
		ev := h.evidence(drc, "drc_errors")
		if data := ev.Properties["data"].(map[string]any); value(ev) != 0 || data["tool_id"] != "kicad.run_drc" {
			t.Errorf("drc_errors evidence: %+v", ev)
		}
		if n := value(h.evidence(drc, "unrouted_connections")); n != 0 {
			t.Errorf("unrouted_connections %v, want 0", n)
		}
		g := ps.Gate.Result
		for _, kind := range []string{flows.CriterionDeliverables, flows.CriterionERCClean, flows.CriterionDRCClean,
			flows.CriterionRoutingComplete, flows.CriterionNoStaleEvidence} {
			if c := criterionOf(t, *g, kind); c.Status != flows.StatusPass {
				t.Errorf("%s: %+v", kind, c)
			}
		}
		if g.Status != flows.StatusPass || !slices.Contains(ps.Gate.Allowed, flows.DecisionApprove) {
			t.Fatalf("the layout gate on a routed, clean board: %+v (allowed %v)", g, ps.Gate.Allowed)
		}
		h.approve(runID)
		h.doPhase(runID, "verification", func() []string { return nil })
		if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionReject, Comment: "verify next time"}); err != nil {
			t.Fatal(err)
		}
		h.waitFor(runID, flows.RunRejected)
		h.recordHistory(runID, "hardware_v1_board_steps.json")
	})

	t.Run("stopped early", func(t *testing.T) {
		ws := workspace.New(t.TempDir())
		h := newHarnessIn(t, ws, kicad.New(ws))
		board := bareDemoBoard(t, ws, "pic_programmer/pic_programmer.kicad_pcb")
		runID := h.hardwareRun(map[string]any{"schematic": schematicInput("555 astable", astable555(true)),
			"board": boardInput("pic_programmer, one second", board, 1)})
		h.waitFor(runID, flows.RunAtGate)
		h.approve(runID)
		st := h.waitWithin(runID, flows.RunAtGate, 4*time.Minute)
		ps := st.Phases[3]
		if len(ps.Steps) != 2 || ps.Steps[0].Status != workflows.StatusSuccess || ps.Steps[1].Status != workflows.StatusSuccess {
			t.Fatalf("steps %+v", ps.Steps)
		}
		unrouted := value(h.evidence(ps.Steps[1], "unrouted_connections"))
		c := criterionOf(t, *ps.Gate.Result, flows.CriterionRoutingComplete)
		t.Logf("routing_complete: %s", c.Detail)
		t.Logf("drc_clean: %s", criterionOf(t, *ps.Gate.Result, flows.CriterionDRCClean).Detail)
		if unrouted == 0 || c.Status != flows.StatusFail || ps.Gate.Result.Status != flows.StatusFail {
			t.Fatalf("a route stopped after a second: %v unrouted, routing_complete %+v", unrouted, c)
		}
		if want := fmt.Sprintf("unrouted_connections is %g", unrouted); !strings.Contains(c.Detail, want) {
			t.Errorf("routing_complete's detail does not say %q: %s", want, c.Detail)
		}
		if len(c.Findings) != min(int(unrouted), flows.MaxFindings) {
			t.Errorf("%d findings for %v unrouted connections", len(c.Findings), unrouted)
		}
		if slices.Contains(ps.Gate.Allowed, flows.DecisionApprove) {
			t.Fatalf("a gate with unrouted connections allows approve: %v", ps.Gate.Allowed)
		}
	})
}
