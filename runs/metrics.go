package runs

import (
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// Metrics describes tiered, thermal and overhang evaluations as the
// workflows that run them (EvaluateMetric, EvaluateThermal,
// EvaluateOverhang): it backs twin.evaluate_metric,
// twin.evaluate_thermal_metric and twin.evaluate_overhang_metric, whose
// calls run them as their children.
type Metrics struct{}

var _ twinadapter.MetricEngine = Metrics{}

// MetricProcess is workflow evaluate-metric-<callId>, so the call that
// asked finds its own evaluation.
func (Metrics) MetricProcess(c twin.MetricCall) (adapters.Process, error) {
	in := workflows.MetricRequest{CallID: c.CallID, ProjectID: c.ProjectID, WorkProductID: c.WorkProductID, Metric: c.Metric,
		LoadN: c.LoadN, LimitMM: c.LimitMM, BandPct: c.BandPct, Supersedes: c.Supersedes}
	if t := c.Tier2; t != nil {
		in.Tier2 = &workflows.Tier2Input{MeshFile: t.MeshFile, FixedNodeSet: t.FixedNodeSet, LoadNodeSet: t.LoadNodeSet,
			Material: t.Material, LoadDirection: t.LoadDirection}
	}
	return process("EvaluateMetric", workflows.EvaluateMetricWorkflowID(c.CallID), in, c.ProjectID,
		fmt.Sprintf("%s of %s against %g mm under %g N, tiered", c.Metric, c.WorkProductID, c.LimitMM, c.LoadN))
}

var _ twinadapter.ThermalEngine = Metrics{}

// ThermalProcess is workflow evaluate-thermal-<callId>.
func (Metrics) ThermalProcess(c twin.ThermalCall) (adapters.Process, error) {
	in := workflows.ThermalRequest{CallID: c.CallID, ProjectID: c.ProjectID, WorkProductID: c.WorkProductID, MeshFile: c.MeshFile,
		SourceNodeSet: c.SourceNodeSet, SinkNodeSet: c.SinkNodeSet, HeatLoadW: c.HeatLoadW, SinkTemperatureC: c.SinkTemperatureC,
		Material: c.Material, RatedMaxC: c.RatedMaxC, CrossCheck: c.CrossCheck}
	return process("EvaluateThermal", workflows.EvaluateThermalWorkflowID(c.CallID), in, c.ProjectID,
		fmt.Sprintf("peak temperature of %s at %g W", c.WorkProductID, c.HeatLoadW))
}

var _ twinadapter.OverhangEngine = Metrics{}

// OverhangProcess is workflow evaluate-overhang-<callId>.
func (Metrics) OverhangProcess(c twin.OverhangCall) (adapters.Process, error) {
	in := workflows.OverhangRequest{CallID: c.CallID, ProjectID: c.ProjectID, WorkProductID: c.WorkProductID, MeshFile: c.MeshFile,
		ThresholdDeg: c.ThresholdDeg, BuildAxis: c.BuildAxis}
	return process("EvaluateOverhang", workflows.EvaluateOverhangWorkflowID(c.CallID), in, c.ProjectID,
		fmt.Sprintf("3D-print overhangs of %s past %g°", c.WorkProductID, c.ThresholdDeg))
}
