package workflows

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/flows"
)

// StepCaller is the caller class of the tool calls a run makes itself.
const StepCaller = "design-flow"

// StepCase is one entry of a step's input: the tool's arguments, and the
// revisions the result is computed against (its evidence is pinned to them).
type StepCase struct {
	Name         string          `json:"name"`
	Arguments    json.RawMessage `json:"arguments"`
	ValidAgainst []string        `json:"valid_against"`
}

// runSteps runs phase i's steps, once per entry of their input, each as a
// child ToolCall workflow, and records the fields the step names as
// evidence. A step that fails is reported on the phase; its gate then
// finds the evidence missing.
func (r *run) runSteps(ctx workflow.Context, i int, raw []byte) error {
	p := r.flow.Phases[i]
	ps := &r.state.Phases[i]
	var cases []StepCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		ps.Steps = append(ps.Steps, StepRun{Name: "input", Status: StatusError,
			Error: fmt.Sprintf("the run input %s is not a list of {name, arguments, valid_against}: %v", p.Steps[0].ForEach, err)})
		return nil
	}
	for si, s := range p.Steps {
		for ci, c := range cases {
			name := c.Name
			if name == "" {
				name = fmt.Sprintf("case %d", ci+1)
			}
			callID := r.stepCallID(p.Name, ps.Attempt, si, ci, "")
			sr := StepRun{Name: fmt.Sprintf("%s: %s", s.Name, name), ToolID: s.ToolID, CallID: callID}
			res, err := r.stepCall(ctx, callID, s.ToolID, c.Arguments, fmt.Sprintf("%s, %s (run %s)", s.ToolID, name, r.state.RunID))
			if err != nil {
				return err
			}
			if res.Status != StatusSuccess {
				sr.Status, sr.Error = StatusError, res.Error.Details
				ps.Steps = append(ps.Steps, sr)
				continue
			}
			values, missing := flows.StepEvidence(s, res.Data)
			for vi, v := range values {
				ev, err := r.recordStepEvidence(ctx, r.stepCallID(p.Name, ps.Attempt, si, ci, fmt.Sprintf("evidence-%d", vi)), s, name, c, callID, v)
				if err != nil {
					return err
				}
				sr.Evidence = append(sr.Evidence, ev)
			}
			sr.Status = StatusSuccess
			if len(missing) > 0 {
				sr.Error = fmt.Sprintf("not recorded: %v", missing)
			}
			ps.Steps = append(ps.Steps, sr)
		}
	}
	r.state.Status = RunRunning
	return nil
}

// recordStepEvidence records one result value as evidence pinned to what
// the case was computed against, and returns the evidence node id.
func (r *run) recordStepEvidence(ctx workflow.Context, callID string, s flows.Step, caseName string, c StepCase, fromCall string, v flows.EvidenceValue) (string, error) {
	args, _ := json.Marshal(map[string]any{
		"project_id": r.state.ProjectID, "name": fmt.Sprintf("%s %s", caseName, v.Metric), "kind": "simulation",
		"metric": v.Metric, "value": v.Value, "unit": v.Unit, "valid_against": c.ValidAgainst,
		"data": map[string]any{"run_id": r.state.RunID, "load_case": caseName, "tool_id": s.ToolID, "call_id": fromCall, "field": v.Field},
	})
	res, err := r.stepCall(ctx, callID, "twin.record_evidence", args, fmt.Sprintf("record %s of %s (run %s)", v.Metric, caseName, r.state.RunID))
	if err != nil {
		return "", err
	}
	if res.Status != StatusSuccess {
		return "", temporal.NewNonRetryableApplicationError("recording evidence failed: "+res.Error.Details, "evidence_not_recorded", nil)
	}
	var out struct {
		NodeID string `json:"node_id"`
	}
	_ = json.Unmarshal(res.Data, &out)
	return out.NodeID, nil
}

// stepCall prepares and runs one tool call as a child ToolCall workflow:
// retried where the tool is idempotent, as any call is.
func (r *run) stepCall(ctx workflow.Context, callID, toolID string, args json.RawMessage, summary string) (ToolCallResult, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:             "prepare " + summary,
	})
	var in ToolCallInput
	err := workflow.ExecuteActivity(actx, PrepareStepCallActivity, PrepareStepCallRequest{CallID: callID, ToolID: toolID,
		Arguments: args, ProjectID: r.state.ProjectID}).Get(ctx, &in)
	if err != nil {
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) {
			return ToolCallResult{CallID: callID, ToolID: toolID, Status: StatusError,
				Error: &CallError{Code: -32602, Type: appErr.Type(), Details: appErr.Message()}}, nil
		}
		return ToolCallResult{}, err
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:    CallWorkflowID(callID),
		TaskQueue:     TaskQueue,
		StaticSummary: summary,
		TypedSearchAttributes: temporal.NewSearchAttributes(AttrTool.ValueSet(in.ToolID), AttrAdapter.ValueSet(in.AdapterID),
			AttrCaller.ValueSet(StepCaller), AttrHold.ValueSet(HoldNone), AttrProject.ValueSet(r.state.ProjectID)),
	})
	var res ToolCallResult
	if err := workflow.ExecuteChildWorkflow(cctx, ToolCall, in).Get(ctx, &res); err != nil {
		return ToolCallResult{}, err
	}
	return res, nil
}

// stepCallID is a step call's id: derived from the run, phase, attempt and
// position, so a replay or a retried workflow task names the same call.
func (r *run) stepCallID(phase string, attempt, step, entry int, part string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%s/%d/%d/%d/%s", r.state.RunID, phase, attempt, step, entry, part)))
	return hex.EncodeToString(sum[:8])
}
