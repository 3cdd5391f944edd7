package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// MetricTwin is the twin as a tiered evaluation uses it.
type MetricTwin interface {
	Tier0Metric(ctx context.Context, m twin.MetricCall) (twin.TierAnswer, error)
	RecordTier2Metric(ctx context.Context, m twin.MetricCall, valueMM float64, solverCall string) (twin.TierAnswer, error)
	MaterialOf(ctx context.Context, projectID, workProductID string) (string, error)
}

// Metrics are the EvaluateMetric workflow's activities.
type Metrics struct {
	Twin MetricTwin
	// Steps prepares tier 2's solver call like a flow's step.
	Steps *DesignFlows
}

var errNoMetricTwin = errors.New("this worker serves no twin, so a metric cannot be evaluated here")

func metricCall(in workflows.MetricRequest) twin.MetricCall {
	m := twin.MetricCall{CallID: in.CallID, ProjectID: in.ProjectID, WorkProductID: in.WorkProductID, Metric: in.Metric,
		LoadN: in.LoadN, LimitMM: in.LimitMM, BandPct: in.BandPct, Supersedes: in.Supersedes}
	// The tier-2 input rides along so the evidence's replay recipe
	// repeats the call as it was asked.
	if t := in.Tier2; t != nil {
		m.Tier2 = &twin.Tier2Call{MeshFile: t.MeshFile, FixedNodeSet: t.FixedNodeSet, LoadNodeSet: t.LoadNodeSet, Material: t.Material,
			LoadDirection: t.LoadDirection}
	}
	return m
}

func tierResult(tier int, a twin.TierAnswer) workflows.TierResult {
	return workflows.TierResult{Tier: tier, ValueMM: a.ValueMM, MarginMM: a.MarginMM, BandMM: a.BandMM, InBand: a.InBand,
		Passes: a.Passes, EvidenceID: a.EvidenceID, Method: a.Method}
}

// Tier0Metric computes and records the closed form.
func (m *Metrics) Tier0Metric(ctx context.Context, in workflows.MetricRequest) (workflows.TierResult, error) {
	if m.Twin == nil {
		return workflows.TierResult{}, errNoMetricTwin
	}
	a, err := m.Twin.Tier0Metric(ctx, metricCall(in))
	if err != nil {
		return workflows.TierResult{}, finalIfRefusal(err)
	}
	return tierResult(0, a), nil
}

// PrepareTier2Call builds tier 2's calculix.run_fea call: the caller's mesh
// and node sets, the work product's material unless another is named, the
// metric's load.
func (m *Metrics) PrepareTier2Call(ctx context.Context, in workflows.MetricRequest) (workflows.ToolCallInput, error) {
	if m.Twin == nil {
		return workflows.ToolCallInput{}, errNoMetricTwin
	}
	t := in.Tier2
	material := t.Material
	if material == "" {
		var err error
		if material, err = m.Twin.MaterialOf(ctx, in.ProjectID, in.WorkProductID); err != nil {
			return workflows.ToolCallInput{}, finalIfRefusal(err)
		}
	}
	dir := t.LoadDirection
	if len(dir) == 0 {
		dir = []float64{0, 0, -1}
	}
	args, err := json.Marshal(map[string]any{"mesh_file": t.MeshFile, "material": material, "fixed_node_set": t.FixedNodeSet,
		"load_node_set": t.LoadNodeSet, "load_force_n": in.LoadN, "load_direction": dir, "analysis_type": "static_stress"})
	if err != nil {
		return workflows.ToolCallInput{}, err
	}
	return m.Steps.PrepareStepCall(ctx, workflows.PrepareStepCallRequest{CallID: tier2CallID(in.CallID), ToolID: "calculix.run_fea",
		Arguments: args, ProjectID: in.ProjectID})
}

// RecordTier2Metric reads the solver's deflection along the load and
// records it.
func (m *Metrics) RecordTier2Metric(ctx context.Context, req workflows.RecordTier2Request) (workflows.TierResult, error) {
	if m.Twin == nil {
		return workflows.TierResult{}, errNoMetricTwin
	}
	var fea struct {
		AlongLoad *float64 `json:"max_deflection_along_load_mm"`
		Max       *float64 `json:"max_displacement_mm"`
	}
	if err := json.Unmarshal(req.Result.Data, &fea); err != nil {
		return workflows.TierResult{}, temporal.NewNonRetryableApplicationError("calculix.run_fea's result cannot be read: "+err.Error(), "bad_result", nil)
	}
	v := fea.AlongLoad
	if v == nil {
		v = fea.Max
	}
	if v == nil {
		return workflows.TierResult{}, temporal.NewNonRetryableApplicationError("calculix.run_fea returned no deflection", "bad_result", nil)
	}
	a, err := m.Twin.RecordTier2Metric(ctx, metricCall(req.Request), *v, req.Result.CallID)
	if err != nil {
		return workflows.TierResult{}, finalIfRefusal(err)
	}
	r := tierResult(2, a)
	r.CallID = req.Result.CallID
	return r, nil
}

// tier2CallID is tier 2's call id, derived from the evaluation's call id,
// so a retried evaluation names the same solver call.
func tier2CallID(callID string) string {
	sum := sha256.Sum256([]byte(callID + "/tier2"))
	return hex.EncodeToString(sum[:8])
}

// finalIfRefusal makes a refusal (the request's fault) final: retrying it
// changes nothing.
func finalIfRefusal(err error) error {
	var perr *protocol.Error
	if errors.As(err, &perr) {
		return temporal.NewNonRetryableApplicationError(perr.Details, perr.Code.Name(), nil)
	}
	return err
}
