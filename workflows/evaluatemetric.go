package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// EvaluateMetricWorkflowID is a tiered evaluation's workflow ID: the id of
// the call that asked for it.
func EvaluateMetricWorkflowID(callID string) string { return "evaluate-metric-" + callID }

// Activities of the EvaluateMetric workflow.
const (
	// Tier0MetricActivity computes the closed form and records it.
	Tier0MetricActivity = "Tier0Metric"
	// PrepareTier2CallActivity builds the solver call tier 2 runs.
	PrepareTier2CallActivity = "PrepareTier2Call"
	// RecordTier2MetricActivity reads the solver's answer and records it.
	RecordTier2MetricActivity = "RecordTier2Metric"
)

// MetricRequest is one tiered evaluation of a metric on a work product.
type MetricRequest struct {
	CallID        string  `json:"call_id"`
	ProjectID     string  `json:"project_id"`
	WorkProductID string  `json:"work_product_id"`
	Metric        string  `json:"metric"` // tip_deflection
	LoadN         float64 `json:"load_n"`
	LimitMM       float64 `json:"limit_mm"`
	// BandPct is tier 0's error band, percent of its estimate: a margin
	// inside it is too close to call on the closed form.
	BandPct float64 `json:"band_pct"`
	// Tier2 is the solver's input when tier 2 may run; nil: it is not
	// attempted (this tool does not guess boundary conditions).
	Tier2 *Tier2Input `json:"tier2,omitempty"`
	// Supersedes are the node ids of stale evidence this evaluation
	// replaces (an engineering change's revalidation).
	Supersedes []string `json:"supersedes,omitempty"`
}

// Tier2Input is what a CalculiX run needs beyond the work product.
type Tier2Input struct {
	MeshFile      string    `json:"mesh_file"`
	FixedNodeSet  string    `json:"fixed_node_set"`
	LoadNodeSet   string    `json:"load_node_set"`
	Material      string    `json:"material,omitempty"`
	LoadDirection []float64 `json:"load_direction,omitempty"`
}

// TierResult is one tier's answer, recorded as evidence.
type TierResult struct {
	Tier       int     `json:"tier"`
	ValueMM    float64 `json:"value_mm"`
	MarginMM   float64 `json:"margin_mm"`
	BandMM     float64 `json:"band_mm,omitempty"`
	InBand     bool    `json:"margin_inside_band,omitempty"`
	Passes     bool    `json:"passes"`
	EvidenceID string  `json:"evidence_id"`
	CallID     string  `json:"call_id,omitempty"`
	Method     string  `json:"method"`
}

// RecordTier2Request is the solver's answer to record.
type RecordTier2Request struct {
	Request MetricRequest  `json:"request"`
	Tier0   TierResult     `json:"tier0"`
	Result  ToolCallResult `json:"result"`
}

// MetricResult is how a tiered evaluation ended.
type MetricResult struct {
	Metric    string      `json:"metric"`
	Tier0     TierResult  `json:"tier0"`
	Escalated bool        `json:"escalated"`
	Tier2     *TierResult `json:"tier2,omitempty"`
	// Tier2Status says why tier 2 did not run, or how it failed.
	Tier2Status string `json:"tier2_status"`
	// AgreementPct is |tier 2 − tier 0| as a percent of tier 0.
	AgreementPct *float64 `json:"agreement_pct,omitempty"`
	Verdict      string   `json:"verdict"` // pass, fail, undecided
}

// EvaluateMetric is the minimum sufficient fidelity: tier 0, the closed
// form, decides unless its margin to the limit lies inside its error band;
// then tier 2, a real CalculiX run as a child ToolCall (retried, since it
// is idempotent), decides. Each tier's answer is recorded as evidence.
func EvaluateMetric(ctx workflow.Context, in MetricRequest) (MetricResult, error) {
	workflow.GetVersion(ctx, "evaluate-metric", workflow.DefaultVersion, 1)
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:             fmt.Sprintf("tier 0: closed-form %s of %s", in.Metric, in.WorkProductID),
	})
	res := MetricResult{Metric: in.Metric}
	if err := workflow.ExecuteActivity(actx, Tier0MetricActivity, in).Get(ctx, &res.Tier0); err != nil {
		return res, err
	}
	res.Verdict = verdictOf(res.Tier0.Passes)
	if !res.Tier0.InBand {
		res.Tier2Status = "not needed: tier 0's margin is outside its error band"
		return res, nil
	}
	res.Escalated, res.Verdict = true, "undecided"
	if in.Tier2 == nil {
		res.Tier2Status = "not attempted: tier 0's margin is inside its band, and no tier2 input (mesh_file, fixed_node_set, load_node_set) was given"
		return res, nil
	}
	pctx := workflow.WithActivityOptions(actx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:     "prepare tier 2: calculix.run_fea"})
	var call ToolCallInput
	if err := workflow.ExecuteActivity(pctx, PrepareTier2CallActivity, in).Get(ctx, &call); err != nil {
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) {
			res.Tier2Status = "not run: " + appErr.Message()
			return res, nil
		}
		return res, err
	}
	fea, err := childToolCall(ctx, in.ProjectID, call, fmt.Sprintf("tier 2 of %s on %s: calculix.run_fea", in.Metric, in.WorkProductID))
	if err != nil {
		return res, err
	}
	if fea.Status != StatusSuccess {
		res.Tier2Status = "failed: " + fea.Error.Details
		return res, nil
	}
	rctx := workflow.WithActivityOptions(actx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:     "record tier 2's answer"})
	var t2 TierResult
	if err := workflow.ExecuteActivity(rctx, RecordTier2MetricActivity, RecordTier2Request{Request: in, Tier0: res.Tier0, Result: fea}).Get(ctx, &t2); err != nil {
		return res, err
	}
	res.Tier2, res.Tier2Status, res.Verdict = &t2, "ran", verdictOf(t2.Passes)
	agreement := 100 * abs(t2.ValueMM-res.Tier0.ValueMM) / res.Tier0.ValueMM
	res.AgreementPct = &agreement
	return res, nil
}

func verdictOf(pass bool) string {
	if pass {
		return "pass"
	}
	return "fail"
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
