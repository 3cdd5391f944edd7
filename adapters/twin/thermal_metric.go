package twin

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// ThermalEngine describes a thermal evaluation as the durable process that
// runs it; the call's workflow runs that process as its child.
type ThermalEngine interface {
	ThermalProcess(t twin.ThermalCall) (adapters.Process, error)
}

func evaluateThermalMetricTool() tool {
	return tool{Manifest: adapters.Manifest{ToolID: "twin.evaluate_thermal_metric", Name: "Evaluate peak temperature", Capability: "twin_write",
		Description: "Run a real steady-state conduction solve (calculix.run_thermal, as a durable child call) on a work product's mesh: " +
			"heat_load_w into heat_source_node_set, sink_node_set held at sink_temperature_c. Records the peak temperature as evidence " +
			"(metric peak_temperature, °C) pinned to the work product's revision. Single tier: there is no closed-form gate for an " +
			"arbitrary part. cross_check also runs calculix.cross_check_thermal_steady_state against the bar's hand calculation " +
			"(length along x, cross-section y × z of the recorded bounding_box); rated_max_temp_c reports within_rating.",
		InputSchema: schema([]string{"work_product_id", "mesh_file", "heat_source_node_set", "heat_load_w", "sink_node_set"}, projectIDProp+`,
"work_product_id":{"type":"string","minLength":1},
"mesh_file":{"type":"string","minLength":1},
"heat_source_node_set":{"type":"string","minLength":1},
"heat_load_w":{"type":"number","exclusiveMinimum":0},
"sink_node_set":{"type":"string","minLength":1},
"sink_temperature_c":{"type":"number","default":20},
"material":{"type":"string","description":"default: the work product's"},
"rated_max_temp_c":{"type":"number"},
"cross_check":{"type":"boolean","default":false}`),
		Idempotent: true, TimeoutSeconds: 900}, Run: evaluateThermalMetric}
}

func evaluateThermalMetric(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID     string   `json:"project_id"`
		WorkProductID string   `json:"work_product_id"`
		MeshFile      string   `json:"mesh_file"`
		Source        string   `json:"heat_source_node_set"`
		HeatLoadW     float64  `json:"heat_load_w"`
		Sink          string   `json:"sink_node_set"`
		SinkC         *float64 `json:"sink_temperature_c"`
		Material      string   `json:"material"`
		RatedMaxC     *float64 `json:"rated_max_temp_c"`
		CrossCheck    bool     `json:"cross_check"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	if b.Thermal == nil {
		return nil, protocol.Unavailable("a thermal evaluation needs Temporal, which this server is not connected to")
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	if _, err := b.workProduct(ctx, p.ID, a.WorkProductID); err != nil {
		return nil, classify(err)
	}
	t := twin.ThermalCall{CallID: adapters.CallInfoFrom(ctx).CallID, ProjectID: p.ID, WorkProductID: a.WorkProductID, MeshFile: a.MeshFile,
		SourceNodeSet: a.Source, SinkNodeSet: a.Sink, HeatLoadW: a.HeatLoadW, SinkTemperatureC: 20, Material: a.Material,
		RatedMaxC: a.RatedMaxC, CrossCheck: a.CrossCheck}
	if a.SinkC != nil {
		t.SinkTemperatureC = *a.SinkC
	}
	proc, err := b.Thermal.ThermalProcess(t)
	if err != nil {
		return nil, err
	}
	return &adapters.Result{Process: &proc}, nil
}

// BarOf is the work product's bar for a hand calculation: its length along
// x and its cross-section, y × z, from the recorded bounding box.
func (b *Backend) BarOf(ctx context.Context, projectID, workProductID string) (lengthMM, areaMM2 float64, err error) {
	n, err := b.workProduct(ctx, projectID, workProductID)
	if err != nil {
		return 0, 0, classify(err)
	}
	c, _, _, err := cantileverOf(n)
	if err != nil {
		return 0, 0, err
	}
	return c.LengthMM, c.Section.Area(), nil
}

// RecordThermal records a solve's peak temperature as evidence pinned to
// the work product, keyed by the evaluation's call.
func (b *Backend) RecordThermal(ctx context.Context, t twin.ThermalCall, peakC float64, data map[string]any) (string, error) {
	n, err := b.workProduct(ctx, t.ProjectID, t.WorkProductID)
	if err != nil {
		return "", classify(err)
	}
	pin := n.Ref()
	if pin == "" {
		pin = n.ID
	}
	data["heat_load_w"], data["sink_temperature_c"] = t.HeatLoadW, t.SinkTemperatureC
	ctx = adapters.WithCallInfo(ctx, adapters.CallInfo{CallID: t.CallID + "/thermal"})
	out, err := recordEvidenceAs(ctx, b, map[string]any{"project_id": t.ProjectID, "name": fmt.Sprintf("peak temperature at %g W", t.HeatLoadW),
		"kind": "simulation", "metric": "peak_temperature", "value": peakC, "unit": "°C", "valid_against": []string{pin}, "data": data})
	if err != nil {
		return "", err
	}
	id, _ := out["node_id"].(string)
	return id, nil
}
