package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// FactsReader reads what a gate is judged against from the twin.
type FactsReader interface {
	FlowFacts(ctx context.Context, projectID string) (flows.Facts, error)
}

// DesignFlows are the DesignFlow workflow's activities: judging a gate and
// the completion verdict against the twin, and preparing the tool calls a
// phase's steps make.
type DesignFlows struct {
	Facts    FactsReader
	Registry *adapters.Registry
	// LoadCases reads the recorded load cases an analysis phase solves;
	// WorkspaceRoot is where their meshes' call folders are.
	LoadCases     LoadCaseTwin
	WorkspaceRoot string
}

// EvaluateGate judges a phase's gate against what the twin holds now.
func (d *DesignFlows) EvaluateGate(ctx context.Context, req workflows.EvaluateGateRequest) (flows.GateResult, error) {
	facts, err := d.Facts.FlowFacts(ctx, req.ProjectID)
	if err != nil {
		return flows.GateResult{}, fmt.Errorf("read the twin for gate %s: %w", req.Phase.Gate.Name, err)
	}
	return flows.Evaluate(req.Phase, facts), nil
}

// VerifyCompletion is the run's verdict: COMPLETED_VERIFIED only when the
// project has requirements and every one passes with current evidence.
func (d *DesignFlows) VerifyCompletion(ctx context.Context, req workflows.VerifyCompletionRequest) (flows.Verdict, error) {
	facts, err := d.Facts.FlowFacts(ctx, req.ProjectID)
	if err != nil {
		return flows.Verdict{}, fmt.Errorf("read the twin for the completion verdict: %w", err)
	}
	return Verdict(facts), nil
}

// Verdict is the run's verdict from the twin's facts (flows.Completion).
func Verdict(facts flows.Facts) flows.Verdict {
	verdict, blocking := flows.Completion(facts)
	return flows.Verdict{Verdict: verdict, Requirements: facts.Requirements, Blocking: blocking}
}

// PrepareStepEvidence builds the twin.record_evidence calls that record a
// step's result fields, each pinned to what its case was computed against.
// Their ids come from the request's prefix, so a retry names the same calls.
func (d *DesignFlows) PrepareStepEvidence(ctx context.Context, req workflows.PrepareStepEvidenceRequest) (workflows.StepEvidenceCalls, error) {
	values, missing := flows.StepEvidence(req.Step, req.Result)
	out := workflows.StepEvidenceCalls{Missing: missing}
	kind := req.Step.EvidenceKind
	if kind == "" {
		kind = "simulation"
	}
	for i, v := range values {
		data := evidenceData(req, v.Field)
		if v.Findings != nil {
			data["findings"], data["findings_total"] = v.Findings, v.FindingsTotal
		}
		args, err := json.Marshal(map[string]any{
			"project_id": req.ProjectID, "name": fmt.Sprintf("%s %s", req.CaseName, v.Metric), "kind": kind,
			"metric": v.Metric, "value": v.Value, "unit": v.Unit, "valid_against": req.Case.ValidAgainst,
			"data": data,
		})
		if err != nil {
			return out, err
		}
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", req.CallIDPrefix, i)))
		in, err := d.PrepareStepCall(ctx, workflows.PrepareStepCallRequest{CallID: hex.EncodeToString(sum[:8]), ToolID: "twin.record_evidence",
			Arguments: args, ProjectID: req.ProjectID})
		if err != nil {
			return out, err
		}
		out.Calls = append(out.Calls, in)
	}
	return out, nil
}

// evidenceData is what a step's evidence records of how it was computed:
// the run, the case (a load case, for an analysis), the call and the
// field; for a recorded load case also the faces and mesh it was solved on
// (the run's own keys win).
func evidenceData(req workflows.PrepareStepEvidenceRequest, field string) map[string]any {
	data := map[string]any{}
	for k, v := range req.CaseData {
		data[k] = v
	}
	if req.Step.ForEach == "load_cases" {
		data["load_case_name"] = req.CaseName
		if _, ok := data["load_case"]; !ok {
			data["load_case"] = req.CaseName
		}
	} else {
		data["case"] = req.CaseName
	}
	for k, v := range map[string]any{"run_id": req.RunID, "tool_id": req.Step.ToolID, "call_id": req.FromCall, "field": field} {
		data[k] = v
	}
	return data
}

// PrepareStepCall resolves a step's tool, sets the arguments it takes from
// earlier steps' results, and checks its arguments against the tool's
// schema, giving the ToolCall workflow's input. A tool that does
// not exist or arguments that do not fit are final.
func (d *DesignFlows) PrepareStepCall(ctx context.Context, req workflows.PrepareStepCallRequest) (workflows.ToolCallInput, error) {
	m, _, ok := d.Registry.Tool(req.ToolID)
	if !ok {
		return workflows.ToolCallInput{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("the flow names tool %s, which this server does not serve", req.ToolID), protocol.ToolUnavailable.Name(), nil)
	}
	if len(req.From) > 0 {
		args, err := flows.StepArguments(req.Arguments, req.From, req.Earlier)
		if err != nil {
			return workflows.ToolCallInput{}, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("%s: %v", req.ToolID, err), protocol.InvalidParams.Name(), nil)
		}
		req.Arguments = args
	}
	if err := d.Registry.ValidateArguments(req.ToolID, req.Arguments); err != nil {
		details := err.Error()
		var perr *protocol.Error
		if errors.As(err, &perr) {
			details = perr.Details
		}
		return workflows.ToolCallInput{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s: %s", req.ToolID, details), protocol.InvalidParams.Name(), nil)
	}
	return workflows.ToolCallInput{
		CallID: req.CallID, ToolID: req.ToolID, AdapterID: m.AdapterID, Arguments: req.Arguments,
		TimeoutSeconds: m.TimeoutSeconds, Idempotent: m.Idempotent, Retries: m.Retries, Local: d.Registry.RunsLocal(req.ToolID), Caller: workflows.StepCaller,
	}, nil
}

// noTwin judges no gate: a worker without the twin says so.
type noTwin struct{}

func (noTwin) FlowFacts(context.Context, string) (flows.Facts, error) {
	return flows.Facts{}, errors.New("this worker serves no twin, so a gate cannot be judged: run it with the twin's tools registered")
}
