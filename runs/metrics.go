package runs

import (
	"context"
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/adapters/digitaltwin"
	"github.com/metaforge/metaforge/workflows"
)

// Metrics runs tiered evaluations as EvaluateMetric workflows: it backs
// twin.evaluate_metric (digitaltwin.MetricEngine).
type Metrics struct {
	Client client.Client
}

var _ digitaltwin.MetricEngine = (*Metrics)(nil)

// EvaluateMetric starts (or, for a retried call, finds) the evaluation's
// workflow and waits for its answer.
func (m *Metrics) EvaluateMetric(ctx context.Context, c digitaltwin.MetricCall) (json.RawMessage, error) {
	in := workflows.MetricRequest{CallID: c.CallID, ProjectID: c.ProjectID, WorkProductID: c.WorkProductID, Metric: c.Metric,
		LoadN: c.LoadN, LimitMM: c.LimitMM, BandPct: c.BandPct}
	if t := c.Tier2; t != nil {
		in.Tier2 = &workflows.Tier2Input{MeshFile: t.MeshFile, FixedNodeSet: t.FixedNodeSet, LoadNodeSet: t.LoadNodeSet,
			Material: t.Material, LoadDirection: t.LoadDirection}
	}
	run, err := m.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    workflows.EvaluateMetricWorkflowID(c.CallID),
		TaskQueue:             workflows.TaskQueue,
		StaticSummary:         fmt.Sprintf("%s of %s against %g mm under %g N, tiered", c.Metric, c.WorkProductID, c.LimitMM, c.LoadN),
		TypedSearchAttributes: temporal.NewSearchAttributes(workflows.AttrProject.ValueSet(c.ProjectID)),
	}, "EvaluateMetric", in)
	if err != nil {
		return nil, fmt.Errorf("start the evaluation: %w", err)
	}
	var res workflows.MetricResult
	if err := run.Get(ctx, &res); err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

var _ digitaltwin.ThermalEngine = (*Metrics)(nil)

// EvaluateThermal starts (or finds) the thermal evaluation's workflow and
// waits for its answer.
func (m *Metrics) EvaluateThermal(ctx context.Context, c digitaltwin.ThermalCall) (json.RawMessage, error) {
	in := workflows.ThermalRequest{CallID: c.CallID, ProjectID: c.ProjectID, WorkProductID: c.WorkProductID, MeshFile: c.MeshFile,
		SourceNodeSet: c.SourceNodeSet, SinkNodeSet: c.SinkNodeSet, HeatLoadW: c.HeatLoadW, SinkTemperatureC: c.SinkTemperatureC,
		Material: c.Material, RatedMaxC: c.RatedMaxC, CrossCheck: c.CrossCheck}
	run, err := m.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    workflows.EvaluateThermalWorkflowID(c.CallID),
		TaskQueue:             workflows.TaskQueue,
		StaticSummary:         fmt.Sprintf("peak temperature of %s at %g W", c.WorkProductID, c.HeatLoadW),
		TypedSearchAttributes: temporal.NewSearchAttributes(workflows.AttrProject.ValueSet(c.ProjectID)),
	}, "EvaluateThermal", in)
	if err != nil {
		return nil, fmt.Errorf("start the thermal evaluation: %w", err)
	}
	var res workflows.ThermalResult
	if err := run.Get(ctx, &res); err != nil {
		return nil, err
	}
	return json.Marshal(res)
}
