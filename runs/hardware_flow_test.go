package runs_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

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
