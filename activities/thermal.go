package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// ThermalTwin is the twin as a thermal evaluation uses it.
type ThermalTwin interface {
	MaterialOf(ctx context.Context, projectID, workProductID string) (string, error)
	BarOf(ctx context.Context, projectID, workProductID string) (lengthMM, areaMM2 float64, err error)
	RecordThermal(ctx context.Context, t twin.ThermalCall, peakC float64, data map[string]any) (string, error)
}

// Thermal are the EvaluateThermal workflow's activities.
type Thermal struct {
	Twin  ThermalTwin
	Steps *DesignFlows
}

// derivedCallID is a call id derived from the evaluation's, so a retried
// evaluation names the same solver calls.
func derivedCallID(callID, part string) string {
	sum := sha256.Sum256([]byte(callID + "/" + part))
	return hex.EncodeToString(sum[:8])
}

func (t *Thermal) material(ctx context.Context, in workflows.ThermalRequest) (string, error) {
	if in.Material != "" {
		return in.Material, nil
	}
	m, err := t.Twin.MaterialOf(ctx, in.ProjectID, in.WorkProductID)
	return m, finalIfRefusal(err)
}

// PrepareThermalCalls builds the calculix.run_thermal call.
func (t *Thermal) PrepareThermalCalls(ctx context.Context, in workflows.ThermalRequest) (workflows.ThermalCalls, error) {
	if t.Twin == nil {
		return workflows.ThermalCalls{}, errNoMetricTwin
	}
	material, err := t.material(ctx, in)
	if err != nil {
		return workflows.ThermalCalls{}, err
	}
	args, _ := json.Marshal(map[string]any{"mesh_file": in.MeshFile, "material": material, "heat_source_node_set": in.SourceNodeSet,
		"heat_load_w": in.HeatLoadW, "sink_node_set": in.SinkNodeSet, "sink_temperature_c": in.SinkTemperatureC})
	solve, err := t.Steps.PrepareStepCall(ctx, workflows.PrepareStepCallRequest{CallID: derivedCallID(in.CallID, "run_thermal"),
		ToolID: "calculix.run_thermal", Arguments: args, ProjectID: in.ProjectID})
	return workflows.ThermalCalls{Solve: solve}, err
}

// PrepareThermalCrossCheck builds the hand-calculation check of the
// solve's peak: the bar's length along x and its y × z section.
func (t *Thermal) PrepareThermalCrossCheck(ctx context.Context, req workflows.ThermalCrossCheckRequest) (workflows.ToolCallInput, error) {
	in := req.Request
	var solve struct {
		Peak float64 `json:"peak_temperature_c"`
	}
	if err := json.Unmarshal(req.Solve.Data, &solve); err != nil {
		return workflows.ToolCallInput{}, temporal.NewNonRetryableApplicationError("calculix.run_thermal's result cannot be read: "+err.Error(), "bad_result", nil)
	}
	length, area, err := t.Twin.BarOf(ctx, in.ProjectID, in.WorkProductID)
	if err != nil {
		return workflows.ToolCallInput{}, finalIfRefusal(err)
	}
	material, err := t.material(ctx, in)
	if err != nil {
		return workflows.ToolCallInput{}, err
	}
	args, _ := json.Marshal(map[string]any{"heat_load_w": in.HeatLoadW, "length_mm": length, "area_mm2": area,
		"sink_temperature_c": in.SinkTemperatureC, "material": material, "fea_peak_temperature_c": solve.Peak})
	return t.Steps.PrepareStepCall(ctx, workflows.PrepareStepCallRequest{CallID: derivedCallID(in.CallID, "cross_check"),
		ToolID: "calculix.cross_check_thermal_steady_state", Arguments: args, ProjectID: in.ProjectID})
}

// RecordThermalMetric records the peak temperature and what was checked.
func (t *Thermal) RecordThermalMetric(ctx context.Context, req workflows.RecordThermalRequest) (workflows.ThermalResult, error) {
	if t.Twin == nil {
		return workflows.ThermalResult{}, errNoMetricTwin
	}
	in := req.Request
	var solve struct {
		Peak float64 `json:"peak_temperature_c"`
	}
	if err := json.Unmarshal(req.Solve.Data, &solve); err != nil {
		return workflows.ThermalResult{}, temporal.NewNonRetryableApplicationError("calculix.run_thermal's result cannot be read: "+err.Error(), "bad_result", nil)
	}
	out := workflows.ThermalResult{PeakTemperatureC: solve.Peak, SolverCallID: req.Solve.CallID, Status: "recorded"}
	data := map[string]any{"solver_call_id": req.Solve.CallID, "method": "calculix.run_thermal (steady conduction)"}
	if in.RatedMaxC != nil {
		within := solve.Peak <= *in.RatedMaxC
		out.WithinRating, data["rated_max_temp_c"], data["within_rating"] = &within, *in.RatedMaxC, within
	}
	if req.CrossCheck != nil {
		if req.CrossCheck.Status == workflows.StatusSuccess {
			var check struct {
				Passed bool `json:"passed"`
			}
			_ = json.Unmarshal(req.CrossCheck.Data, &check)
			out.CrossCheckPassed, data["cross_check"] = &check.Passed, json.RawMessage(req.CrossCheck.Data)
		} else {
			data["cross_check_error"] = req.CrossCheck.Error.Details
		}
	}
	call := twin.ThermalCall{CallID: in.CallID, ProjectID: in.ProjectID, WorkProductID: in.WorkProductID,
		HeatLoadW: in.HeatLoadW, SinkTemperatureC: in.SinkTemperatureC}
	id, err := t.Twin.RecordThermal(ctx, call, solve.Peak, data)
	if err != nil {
		return out, finalIfRefusal(err)
	}
	out.EvidenceID = id
	return out, nil
}
