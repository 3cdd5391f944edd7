package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// EvaluateThermalWorkflowID is a thermal evaluation's workflow ID: the id
// of the call that asked for it.
func EvaluateThermalWorkflowID(callID string) string { return "evaluate-thermal-" + callID }

// Activities of the EvaluateThermal workflow.
const (
	// PrepareThermalCallsActivity builds the solver call and, when asked,
	// the cross check of its answer.
	PrepareThermalCallsActivity = "PrepareThermalCalls"
	// RecordThermalMetricActivity reads the answers and records them.
	RecordThermalMetricActivity = "RecordThermalMetric"
)

// ThermalRequest is one steady-state thermal evaluation of a work product.
type ThermalRequest struct {
	CallID           string   `json:"call_id"`
	ProjectID        string   `json:"project_id"`
	WorkProductID    string   `json:"work_product_id"`
	MeshFile         string   `json:"mesh_file"`
	SourceNodeSet    string   `json:"heat_source_node_set"`
	SinkNodeSet      string   `json:"sink_node_set"`
	HeatLoadW        float64  `json:"heat_load_w"`
	SinkTemperatureC float64  `json:"sink_temperature_c"`
	Material         string   `json:"material,omitempty"`
	RatedMaxC        *float64 `json:"rated_max_temp_c,omitempty"`
	CrossCheck       bool     `json:"cross_check"`
}

// ThermalCalls are the prepared solver call and, when asked, the cross
// check (prepared once the solver's answer is known).
type ThermalCalls struct {
	Solve ToolCallInput `json:"solve"`
}

// ThermalCrossCheckRequest prepares the cross check of a solver answer.
type ThermalCrossCheckRequest struct {
	Request ThermalRequest `json:"request"`
	Solve   ToolCallResult `json:"solve"`
}

// RecordThermalRequest is what a thermal evaluation found.
type RecordThermalRequest struct {
	Request    ThermalRequest  `json:"request"`
	Solve      ToolCallResult  `json:"solve"`
	CrossCheck *ToolCallResult `json:"cross_check,omitempty"`
}

// ThermalResult is a thermal evaluation's answer.
type ThermalResult struct {
	PeakTemperatureC float64 `json:"peak_temperature_c"`
	EvidenceID       string  `json:"evidence_id"`
	SolverCallID     string  `json:"solver_call_id"`
	WithinRating     *bool   `json:"within_rating,omitempty"`
	CrossCheckPassed *bool   `json:"cross_check_passed,omitempty"`
	Status           string  `json:"status"` // recorded, or why not
}

// PrepareThermalCrossCheckActivity builds the cross check of a solver answer.
const PrepareThermalCrossCheckActivity = "PrepareThermalCrossCheck"

// EvaluateThermal runs a real steady-state conduction solve (one tier:
// thermal conduction has no closed-form gate worth the name on an
// arbitrary part) as a child ToolCall, optionally checks it against the
// bar's hand calculation, and records the peak temperature as evidence
// pinned to the work product.
func EvaluateThermal(ctx workflow.Context, in ThermalRequest) (ThermalResult, error) {
	workflow.GetVersion(ctx, "evaluate-thermal", workflow.DefaultVersion, 1)
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:             "prepare calculix.run_thermal for " + in.WorkProductID,
	})
	var calls ThermalCalls
	if err := workflow.ExecuteActivity(actx, PrepareThermalCallsActivity, in).Get(ctx, &calls); err != nil {
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) {
			return ThermalResult{Status: "not run: " + appErr.Message()}, nil
		}
		return ThermalResult{}, err
	}
	solve, err := childToolCall(ctx, in.ProjectID, calls.Solve, "steady conduction of "+in.WorkProductID)
	if err != nil {
		return ThermalResult{}, err
	}
	if solve.Status != StatusSuccess {
		return ThermalResult{Status: "the solve failed: " + solve.Error.Details, SolverCallID: solve.CallID}, nil
	}
	rec := RecordThermalRequest{Request: in, Solve: solve}
	if in.CrossCheck {
		var check ToolCallInput
		cctx := workflow.WithActivityOptions(actx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
			Summary:     "prepare the cross check against the bar's hand calculation"})
		if err := workflow.ExecuteActivity(cctx, PrepareThermalCrossCheckActivity, ThermalCrossCheckRequest{Request: in, Solve: solve}).Get(ctx, &check); err != nil {
			return ThermalResult{}, err
		}
		res, err := childToolCall(ctx, in.ProjectID, check, fmt.Sprintf("cross check of %s's peak temperature", in.WorkProductID))
		if err != nil {
			return ThermalResult{}, err
		}
		rec.CrossCheck = &res
	}
	rctx := workflow.WithActivityOptions(actx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:     "record the peak temperature"})
	var out ThermalResult
	if err := workflow.ExecuteActivity(rctx, RecordThermalMetricActivity, rec).Get(ctx, &out); err != nil {
		return ThermalResult{}, err
	}
	return out, nil
}

// childToolCall runs a prepared call as a child ToolCall workflow of the
// project, findable by its call id like any call.
func childToolCall(ctx workflow.Context, projectID string, in ToolCallInput, summary string) (ToolCallResult, error) {
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: CallWorkflowID(in.CallID), TaskQueue: TaskQueue, StaticSummary: summary,
		TypedSearchAttributes: temporal.NewSearchAttributes(AttrTool.ValueSet(in.ToolID), AttrAdapter.ValueSet(in.AdapterID),
			AttrCaller.ValueSet(StepCaller), AttrHold.ValueSet(HoldNone), AttrProject.ValueSet(projectID)),
	})
	var res ToolCallResult
	err := workflow.ExecuteChildWorkflow(cctx, ToolCall, in).Get(ctx, &res)
	return res, err
}
