package activities_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/activities"
	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/kicad"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// stepActivities are the design-flow activities over the kicad tools and
// the twin's, as a worker registers them.
func stepActivities(t *testing.T) *activities.DesignFlows {
	t.Helper()
	ws := workspace.New(t.TempDir())
	mem := twin.NewMemoryStore()
	reg := adapters.NewRegistry()
	for _, a := range append(twinadapter.New(&twinadapter.Backend{Store: mem, Sessions: mem}), kicad.New(ws)) {
		if err := reg.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	return &activities.DesignFlows{Registry: reg}
}

// A chained step's arguments come from the earlier step's result for the
// same entry, and are then checked against the tool's schema; an earlier
// step that gave nothing is a final refusal naming it.
func TestPrepareChainedStepCall(t *testing.T) {
	d := stepActivities(t)
	ctx := context.Background()
	from := []flows.FromField{{Argument: "schematic_file", Field: "generate_schematic.schematic_file"}}
	in, err := d.PrepareStepCall(ctx, workflows.PrepareStepCallRequest{CallID: "0123456789abcdef", ToolID: "kicad.run_erc", From: from,
		Earlier: []flows.StepResult{{Step: "generate_schematic", Result: json.RawMessage(`{"schematic_file": "/w/calls/a/astable.kicad_sch", "net_count": 6}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if string(in.Arguments) != `{"schematic_file":"/w/calls/a/astable.kicad_sch"}` || in.AdapterID != "kicad" || in.Caller != workflows.StepCaller {
		t.Fatalf("prepared %+v (arguments %s)", in, in.Arguments)
	}
	_, err = d.PrepareStepCall(ctx, workflows.PrepareStepCallRequest{CallID: "0123456789abcdef", ToolID: "kicad.run_erc", From: from})
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || !appErr.NonRetryable() || !strings.Contains(appErr.Message(), "comes from step generate_schematic, which gave no result") {
		t.Fatalf("no earlier result: %v", err)
	}
	// The earlier result's field is checked like any argument.
	_, err = d.PrepareStepCall(ctx, workflows.PrepareStepCallRequest{CallID: "0123456789abcdef", ToolID: "kicad.run_erc", From: from,
		Earlier: []flows.StepResult{{Step: "generate_schematic", Result: json.RawMessage(`{"schematic_file": 7}`)}}})
	if !errors.As(err, &appErr) || !appErr.NonRetryable() || !strings.Contains(appErr.Message(), "schematic_file") {
		t.Fatalf("a number for a file: %v", err)
	}
}

// A check's evidence records the step's kind, the case, and what the count
// counts, errors first.
func TestPrepareCheckEvidence(t *testing.T) {
	d := stepActivities(t)
	step := mustPhase(t, "hardware_v1", "schematic").Steps[1]
	result := `{"error_count": 1, "warning_count": 1, "violations": [
		{"type": "pin_not_connected", "severity": "warning", "description": "Pin not connected"},
		{"type": "power_pin_not_driven", "severity": "error", "description": "Input Power pin not driven by any Output Power pins"}]}`
	calls, err := d.PrepareStepEvidence(context.Background(), workflows.PrepareStepEvidenceRequest{RunID: "r", ProjectID: "p", Step: step,
		Case: flows.StepCase{Name: "555 astable", ValidAgainst: []string{"TIMER"}}, CaseName: "555 astable", FromCall: "c1",
		Result: json.RawMessage(result), CallIDPrefix: "x"})
	if err != nil || len(calls.Missing) != 0 || len(calls.Calls) != 2 {
		t.Fatalf("calls %+v, %v", calls, err)
	}
	var errs, warns map[string]any
	_ = json.Unmarshal(calls.Calls[0].Arguments, &errs)
	_ = json.Unmarshal(calls.Calls[1].Arguments, &warns)
	if errs["metric"] != "erc_errors" || errs["value"] != 1.0 || errs["kind"] != "analysis" || errs["name"] != "555 astable erc_errors" {
		t.Errorf("erc_errors evidence: %v", errs)
	}
	data := errs["data"].(map[string]any)
	findings := data["findings"].([]any)
	if data["case"] != "555 astable" || data["call_id"] != "c1" || data["tool_id"] != "kicad.run_erc" || data["findings_total"] != 2.0 ||
		len(findings) != 2 || findings[0].(map[string]any)["type"] != "power_pin_not_driven" || data["load_case"] != nil {
		t.Errorf("erc_errors data: %v", data)
	}
	if wd := warns["data"].(map[string]any); warns["metric"] != "erc_warnings" || wd["findings"] != nil {
		t.Errorf("erc_warnings evidence: %v", warns)
	}
	if !reflect.DeepEqual(errs["valid_against"], []any{"TIMER"}) {
		t.Errorf("valid_against %v", errs["valid_against"])
	}
}

func mustPhase(t *testing.T, flow, phase string) flows.Phase {
	t.Helper()
	f, err := flows.Template(flow)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Phases {
		if p.Name == phase {
			return p
		}
	}
	t.Fatalf("%s has no phase %s", flow, phase)
	return flows.Phase{}
}
