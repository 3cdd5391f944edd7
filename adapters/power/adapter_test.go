package power

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

const referenceArgs = `{
	"rails": [
		{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 500},
		{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "rated_output_ma": 300, "input_rail": "5V0", "quiescent_ma": 10},
		{"name": "1V2", "voltage_v": 1.2, "source_kind": "switching", "rated_output_ma": 1000, "input_rail": "5V0"}
	],
	"loads": [
		{"name": "U1", "rail": "3V3", "current_ma": 120},
		{"name": "U2", "rail": "3V3", "power_mw": 264},
		{"name": "CORE", "rail": "1V2", "current_ma": 100}
	]
}`

func registry(t *testing.T) *adapters.Registry {
	t.Helper()
	r := adapters.NewRegistry()
	if err := r.Register(New()); err != nil {
		t.Fatalf("Register: %v", err)
	}
	return r
}

func TestManifest(t *testing.T) {
	r := registry(t)
	m, a, ok := r.Tool(ToolCheckBudget)
	if !ok || a.ID() != "power" {
		t.Fatalf("power.check_budget is not registered to adapter power")
	}
	if m.AdapterID != "power" || m.Capability != "power_budget" || !m.Idempotent || m.TimeoutSeconds != 30 {
		t.Fatalf("manifest %+v", m)
	}
	for _, w := range []string{"not_established", "efficiency x Vin", "quiescent", "never assumed"} {
		if !strings.Contains(m.Description, w) {
			t.Fatalf("description does not mention %q", w)
		}
	}
	ann, declared := adapters.AnnotationsFor(m.ToolID)
	if !declared || !ann.ReadOnly || !ann.Idempotent || ann.Destructive {
		t.Fatalf("annotations %+v (declared %v), want read-only idempotent", ann, declared)
	}
	var out jsonschema.Schema
	if err := json.Unmarshal(m.OutputSchema, &out); err != nil {
		t.Fatalf("output schema: %v", err)
	}
	if _, err := out.Resolve(nil); err != nil {
		t.Fatalf("output schema does not resolve: %v", err)
	}
}

// Every bad input is refused by the registry's schema check and by Call
// itself, so a caller gets INVALID_PARAMS whichever way it comes in; every
// good input passes both.
func TestSchemaAndCallAgree(t *testing.T) {
	r := registry(t)
	a := New()
	const supply = `{"name": "5V0", "voltage_v": 5, "source_kind": "supply"}`
	bad := map[string]string{
		"no rails":               `{"loads": []}`,
		"empty rails":            `{"rails": [], "loads": []}`,
		"no loads":               `{"rails": [` + supply + `]}`,
		"unknown top field":      `{"rails": [` + supply + `], "loads": [], "budget": 1}`,
		"unknown rail field":     `{"rails": [{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "volts": 5}], "loads": []}`,
		"unknown load field":     `{"rails": [` + supply + `], "loads": [{"name": "U1", "rail": "5V0", "amps": 1}]}`,
		"unknown derating field": `{"rails": [` + supply + `], "loads": [], "derating": {"margin": 0.2}}`,
		"rail without name":      `{"rails": [{"voltage_v": 5, "source_kind": "supply"}], "loads": []}`,
		"rail with empty name":   `{"rails": [{"name": "", "voltage_v": 5, "source_kind": "supply"}], "loads": []}`,
		"rail without voltage":   `{"rails": [{"name": "5V0", "source_kind": "supply"}], "loads": []}`,
		"negative voltage":       `{"rails": [{"name": "5V0", "voltage_v": -5, "source_kind": "supply"}], "loads": []}`,
		"voltage as string":      `{"rails": [{"name": "5V0", "voltage_v": "5", "source_kind": "supply"}], "loads": []}`,
		"rail without kind":      `{"rails": [{"name": "5V0", "voltage_v": 5}], "loads": []}`,
		"unknown kind":           `{"rails": [{"name": "5V0", "voltage_v": 5, "source_kind": "battery"}], "loads": []}`,
		"zero rating":            `{"rails": [{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 0}], "loads": []}`,
		"supply with input rail": `{"rails": [` + supply + `, {"name": "B", "voltage_v": 5, "source_kind": "supply", "input_rail": "5V0"}], "loads": []}`,
		"ldo without input rail": `{"rails": [{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo"}], "loads": []}`,
		"switcher without input": `{"rails": [{"name": "3V3", "voltage_v": 3.3, "source_kind": "switching"}], "loads": []}`,
		"efficiency on supply":   `{"rails": [{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "efficiency": 0.9}], "loads": []}`,
		"efficiency on ldo":      `{"rails": [` + supply + `, {"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "5V0", "efficiency": 0.9}], "loads": []}`,
		"quiescent on switcher":  `{"rails": [` + supply + `, {"name": "3V3", "voltage_v": 3.3, "source_kind": "switching", "input_rail": "5V0", "quiescent_ma": 1}], "loads": []}`,
		"zero efficiency":        `{"rails": [` + supply + `, {"name": "3V3", "voltage_v": 3.3, "source_kind": "switching", "input_rail": "5V0", "efficiency": 0}], "loads": []}`,
		"efficiency as percent":  `{"rails": [` + supply + `, {"name": "3V3", "voltage_v": 3.3, "source_kind": "switching", "input_rail": "5V0", "efficiency": 90}], "loads": []}`,
		"negative quiescent":     `{"rails": [` + supply + `, {"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "5V0", "quiescent_ma": -1}], "loads": []}`,
		"load without rail":      `{"rails": [` + supply + `], "loads": [{"name": "U1", "current_ma": 1}]}`,
		"load without name":      `{"rails": [` + supply + `], "loads": [{"rail": "5V0", "current_ma": 1}]}`,
		"load current and power": `{"rails": [` + supply + `], "loads": [{"name": "U1", "rail": "5V0", "current_ma": 1, "power_mw": 5}]}`,
		"negative power":         `{"rails": [` + supply + `], "loads": [{"name": "U1", "rail": "5V0", "power_mw": -5}]}`,
		"zero derating":          `{"rails": [` + supply + `], "loads": [], "derating": {"max_utilization": 0}}`,
		"derating as percent":    `{"rails": [` + supply + `], "loads": [], "derating": {"max_utilization": 80}}`,
		"rails not an array":     `{"rails": {"5V0": 5}, "loads": []}`,
		"dropout on switcher":    `{"rails": [` + supply + `, {"name": "3V3", "voltage_v": 3.3, "source_kind": "switching", "input_rail": "5V0", "dropout_v": 0.3}], "loads": []}`,
		"negative dropout":       `{"rails": [` + supply + `, {"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "5V0", "dropout_v": -0.3}], "loads": []}`,
		"topology on ldo":        `{"rails": [` + supply + `, {"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "5V0", "topology": "buck"}], "loads": []}`,
		"unknown topology":       `{"rails": [` + supply + `, {"name": "3V3", "voltage_v": 3.3, "source_kind": "switching", "input_rail": "5V0", "topology": "flyback"}], "loads": []}`,
	}
	for name, args := range bad {
		t.Run(name, func(t *testing.T) {
			err := r.ValidateArguments(ToolCheckBudget, []byte(args))
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams {
				t.Errorf("registry: got %v, want INVALID_PARAMS", err)
			}
			_, err = a.Call(context.Background(), ToolCheckBudget, json.RawMessage(args))
			if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams || pe.ToolID != ToolCheckBudget {
				t.Errorf("Call: got %v, want INVALID_PARAMS for %s", err, ToolCheckBudget)
			}
		})
	}
	good := []string{
		referenceArgs,
		`{"rails": [` + supply + `], "loads": []}`,
		`{"rails": [` + supply + `], "loads": [{"name": "U1", "rail": "5V0"}], "derating": {}}`,
		`{"rails": [` + supply + `], "loads": [{"name": "U1", "rail": "5V0", "current_ma": 0}], "derating": {"max_utilization": 1}}`,
		`{"rails": [` + supply + `, {"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "5V0", "dropout_v": 0.25}, {"name": "12V", "voltage_v": 12, "source_kind": "switching", "input_rail": "5V0", "topology": "boost"}], "loads": []}`,
	}
	for _, args := range good {
		if err := r.ValidateArguments(ToolCheckBudget, []byte(args)); err != nil {
			t.Errorf("registry refused good input %s: %v", args, err)
		}
		if _, err := a.Call(context.Background(), ToolCheckBudget, json.RawMessage(args)); err != nil {
			t.Errorf("Call refused good input %s: %v", args, err)
		}
	}
}

// Some schema errors name the rule that was broken; check the message an
// agent sees says what to fix.
func TestSchemaErrorsNameTheRule(t *testing.T) {
	r := registry(t)
	for args, want := range map[string]string{
		`{"rails": [{"name": "A", "voltage_v": 5, "source_kind": "supply", "input_rail": "B"}], "loads": []}`:                                        "a-supply-rail-has-no-input_rail",
		`{"rails": [{"name": "A", "voltage_v": 5, "source_kind": "ldo"}], "loads": []}`:                                                              "input_rail",
		`{"rails": [{"name": "A", "voltage_v": 5, "source_kind": "supply"}], "loads": [{"name": "U", "rail": "A", "current_ma": 1, "power_mw": 1}]}`: "give-current_ma-or-power_mw-not-both",
		`{"rails": [{"name": "A", "voltage_v": 5, "source_kind": "supply", "dropout_v": 1}], "loads": []}`:                                           "dropout_v-is-only-for-an-ldo-rail",
		`{"rails": [{"name": "A", "voltage_v": 5, "source_kind": "supply", "topology": "buck"}], "loads": []}`:                                       "topology-is-only-for-a-switching-rail",
	} {
		err := r.ValidateArguments(ToolCheckBudget, []byte(args))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error naming %q", args, err, want)
		}
	}
}

// The reference budget end to end through Call, as JSON: checked against the
// output schema, and against hand-computed figures.
func TestCallReference(t *testing.T) {
	res, err := New().Call(context.Background(), ToolCheckBudget, json.RawMessage(referenceArgs))
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	if len(res.OutputFiles) != 0 {
		t.Fatalf("a read-only tool wrote %v", res.OutputFiles)
	}

	var out jsonschema.Schema
	if err := json.Unmarshal([]byte(outputSchema), &out); err != nil {
		t.Fatal(err)
	}
	resolved, err := out.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var instance any
	if err := json.Unmarshal(res.Data, &instance); err != nil {
		t.Fatal(err)
	}
	if err := resolved.Validate(instance); err != nil {
		t.Fatalf("result does not match the output schema: %v\n%s", err, res.Data)
	}

	var got struct {
		Status  string
		Rails   []map[string]any
		Missing []Figure
	}
	if err := json.Unmarshal(res.Data, &got); err != nil {
		t.Fatal(err)
	}
	// 3V3: 120 + 264/3.3 = 200 mA, draws 210 from 5V0. 1V2: the switcher's
	// efficiency is not given, so 5V0 knows at least 210 + 1.2 x 100 / 5 =
	// 234 mA of its 400 mA allowance: not established.
	if got.Status != StatusNotEstablished {
		t.Fatalf("status %q, want not_established", got.Status)
	}
	byName := map[string]map[string]any{}
	for _, r := range got.Rails {
		byName[r["name"].(string)] = r
	}
	if v := byName["3V3"]["input_current_ma"]; v != 210.0 {
		t.Fatalf("3V3 input_current_ma %v, want 210", v)
	}
	if _, present := byName["5V0"]["input_current_ma"]; present {
		t.Fatalf("a supply rail reports input_current_ma: %v", byName["5V0"])
	}
	if v, present := byName["1V2"]["input_current_ma"]; !present || v != nil {
		t.Fatalf("1V2 input_current_ma %v (present %v), want null: efficiency unknown", v, present)
	}
	if v := byName["5V0"]["load_ma"]; v != nil {
		t.Fatalf("5V0 load_ma %v, want null", v)
	}
	if v := byName["5V0"]["known_load_ma"].(float64); v < 234-1e-9 || v > 234+1e-9 {
		t.Fatalf("5V0 known_load_ma %v, want 234", v)
	}
	if byName["5V0"]["status"] != StatusNotEstablished {
		t.Fatalf("5V0 status %v", byName["5V0"]["status"])
	}
	want := Figure{Kind: "rail", Name: "1V2", Field: "efficiency"}
	if len(got.Missing) != 1 || got.Missing[0] != want {
		t.Fatalf("missing %v, want [%v]", got.Missing, want)
	}
}

func TestCallUnknownTool(t *testing.T) {
	_, err := New().Call(context.Background(), "power.check_budgett", json.RawMessage(referenceArgs))
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams || !strings.Contains(pe.Details, ToolCheckBudget) {
		t.Fatalf("got %v, want INVALID_PARAMS pointing at %s", err, ToolCheckBudget)
	}
}

func TestCallCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Call(ctx, ToolCheckBudget, json.RawMessage(referenceArgs)); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestHealth(t *testing.T) {
	a := New()
	h, err := a.Health(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.AdapterID != "power" || h.Status != "healthy" || h.Version != a.Version() || h.ToolsAvailable != 1 || h.LastInvocation != nil {
		t.Fatalf("health %+v", h)
	}
	if _, err := a.Call(context.Background(), ToolCheckBudget, json.RawMessage(referenceArgs)); err != nil {
		t.Fatal(err)
	}
	if h, _ = a.Health(context.Background()); h.LastInvocation == nil {
		t.Fatalf("health after a call has no last_invocation")
	}
}
