package twin

import (
	"context"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// ThermalEngine describes a thermal evaluation as the durable process that
// runs it; the call's workflow runs that process as its child.
type ThermalEngine interface {
	ThermalProcess(t twin.ThermalCall) (adapters.Process, error)
}

func evaluateThermalMetricTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.evaluate_thermal_metric", Name: "Evaluate peak temperature", Capability: "twin_write",
		Description: "Run a real steady-state conduction solve (calculix.run_thermal, as a durable child call) on a work product's mesh: " +
			"heat_load_w into heat_source_node_set, sink_node_set held at sink_temperature_c. Records the peak temperature as evidence " +
			"(metric peak_temperature, °C) pinned to the work product's revision. Single tier: there is no closed-form gate for an " +
			"arbitrary part. cross_check also runs calculix.cross_check_thermal_steady_state against the bar's hand calculation " +
			"(length along x, cross-section y × z of the recorded bounding_box); rated_max_temp_c reports within_rating.",
		Idempotent: true, TimeoutSeconds: 900}, evaluateThermalMetric,
		adapters.At("work_product_id", adapters.MinLength(1)),
		adapters.At("mesh_file", adapters.MinLength(1)),
		adapters.At("heat_source_node_set", adapters.MinLength(1)),
		adapters.At("heat_load_w", adapters.ExclusiveMinimum(0)),
		adapters.At("sink_node_set", adapters.MinLength(1)),
		adapters.At("sink_temperature_c", adapters.Default(20)),
		adapters.At("cross_check", adapters.Default(false)))
}

type evaluateThermalMetricArgs struct {
	project.Scope
	WorkProductID string   `json:"work_product_id"`
	MeshFile      string   `json:"mesh_file"`
	Source        string   `json:"heat_source_node_set"`
	HeatLoadW     float64  `json:"heat_load_w"`
	Sink          string   `json:"sink_node_set"`
	SinkC         *float64 `json:"sink_temperature_c,omitempty"`
	Material      string   `json:"material,omitempty" jsonschema:"default: the work product's"`
	RatedMaxC     *float64 `json:"rated_max_temp_c,omitempty"`
	CrossCheck    bool     `json:"cross_check,omitempty"`
}

func evaluateThermalMetric(ctx context.Context, b *Backend, a evaluateThermalMetricArgs) (any, error) {
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
