package workflows

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/flows"
)

// StepCaller is the caller class of the tool calls a run makes itself.
const StepCaller = "design-flow"

// chainedStepsChange marks runs whose phases may chain steps: each step
// runs once per entry after the steps before it, taking arguments from
// their results for that entry (flows.Step From), and a step that records
// nothing records no evidence. Before it a phase ran one step per entry.
const chainedStepsChange = "chained-steps"

// runSteps runs phase i's steps, once per entry of their input, each as a
// child ToolCall workflow, and records the fields the step names as
// evidence, each record a child ToolCall too. A step that fails is
// reported on the phase; its gate then finds the evidence missing. JSON is
// built and read by activities only: the workflow hands payloads through.
//
// evidence, when not nil, is what each case's evidence records beside its
// result (a recorded load case's faces and mesh).
func (r *run) runSteps(ctx workflow.Context, i int, cases []flows.StepCase, evidence []map[string]any) error {
	p := r.flow.Phases[i]
	ps := &r.state.Phases[i]
	chained := len(p.Steps) > 1 && workflow.GetVersion(ctx, chainedStepsChange, workflow.DefaultVersion, 1) == 1
	// earlier holds, per case, the results of the steps run so far.
	earlier := make([][]flows.StepResult, len(cases))
	for si, s := range p.Steps {
		for ci, c := range cases {
			name := c.Name
			if name == "" {
				name = fmt.Sprintf("case %d", ci+1)
			}
			callID := r.stepCallID(p.Name, ps.Attempt, si, ci, "")
			sr := flows.StepRun{Name: fmt.Sprintf("%s: %s", s.Name, name), ToolID: s.ToolID, CallID: callID}
			call := PrepareStepCallRequest{CallID: callID, ToolID: s.ToolID, Arguments: c.Arguments, ProjectID: r.state.ProjectID}
			if chained {
				if s.ForEach == "" {
					call.Arguments = nil
				}
				call.From, call.Earlier = s.From, earlier[ci]
			}
			res, err := r.stepCall(ctx, call, fmt.Sprintf("%s, %s (run %s)", s.ToolID, name, r.state.RunID))
			if err != nil {
				return err
			}
			if res.Status != StatusSuccess {
				sr.Status, sr.Error = StatusError, res.Error.Details
				ps.Steps = append(ps.Steps, sr)
				continue
			}
			if chained {
				earlier[ci] = append(earlier[ci], flows.StepResult{Step: s.Name, Result: res.Data})
				if len(s.Records) == 0 {
					sr.Status = StatusSuccess
					ps.Steps = append(ps.Steps, sr)
					continue
				}
			}
			req := PrepareStepEvidenceRequest{RunID: r.state.RunID, ProjectID: r.state.ProjectID,
				Step: s, Case: c, CaseName: name, FromCall: callID, Result: res.Data,
				CallIDPrefix: r.stepCallID(p.Name, ps.Attempt, si, ci, "evidence")}
			if ci < len(evidence) {
				req.CaseData = evidence[ci]
			}
			calls, err := r.recordStepEvidence(ctx, req)
			if err != nil {
				return err
			}
			sr.Status, sr.EvidenceCalls = StatusSuccess, calls.ids
			if len(calls.missing) > 0 {
				sr.Status, sr.Error = StatusError, fmt.Sprintf("not recorded: %v", calls.missing)
			}
			ps.Steps = append(ps.Steps, sr)
		}
	}
	r.state.Status = flows.RunRunning
	return nil
}

// recordedEvidence is what recording a step's result did.
type recordedEvidence struct {
	ids     []string
	missing []string
}

// recordStepEvidence records a step's result fields as evidence pinned to
// what the case was computed against.
func (r *run) recordStepEvidence(ctx workflow.Context, req PrepareStepEvidenceRequest) (recordedEvidence, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:             fmt.Sprintf("prepare the evidence of %s, %s (run %s)", req.Step.ToolID, req.CaseName, r.state.RunID),
	})
	var calls StepEvidenceCalls
	if err := workflow.ExecuteActivity(actx, PrepareStepEvidenceActivity, req).Get(ctx, &calls); err != nil {
		return recordedEvidence{}, err
	}
	out := recordedEvidence{missing: calls.Missing}
	for _, in := range calls.Calls {
		res, err := r.childCall(ctx, in, fmt.Sprintf("record evidence of %s (run %s)", req.CaseName, r.state.RunID))
		if err != nil {
			return recordedEvidence{}, err
		}
		if res.Status != StatusSuccess {
			// The step ran but its result could not be recorded: the run
			// goes on to the gate, which finds the evidence missing.
			out.missing = append(out.missing, fmt.Sprintf("evidence call %s failed: %s", in.CallID, res.Error.Details))
			continue
		}
		out.ids = append(out.ids, in.CallID)
	}
	return out, nil
}

// stepCall prepares and runs one tool call as a child ToolCall workflow:
// retried where the tool is idempotent, as any call is.
func (r *run) stepCall(ctx workflow.Context, req PrepareStepCallRequest, summary string) (ToolCallResult, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:             "prepare " + summary,
	})
	var in ToolCallInput
	err := workflow.ExecuteActivity(actx, PrepareStepCallActivity, req).Get(ctx, &in)
	if err != nil {
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) {
			return ToolCallResult{CallID: req.CallID, ToolID: req.ToolID, Status: StatusError,
				Error: &CallError{Code: -32602, Type: appErr.Type(), Details: appErr.Message()}}, nil
		}
		return ToolCallResult{}, err
	}
	return r.childCall(ctx, in, summary)
}

// childCall runs a prepared call as a child ToolCall workflow of the run's
// project.
func (r *run) childCall(ctx workflow.Context, in ToolCallInput, summary string) (ToolCallResult, error) {
	return childToolCall(ctx, r.state.ProjectID, in, summary)
}

// stepCallID is a step call's id: derived from the run, phase, attempt and
// position, so a replay or a retried workflow task names the same call.
func (r *run) stepCallID(phase string, attempt, step, entry int, part string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%s/%d/%d/%d/%s", r.state.RunID, phase, attempt, step, entry, part)))
	return hex.EncodeToString(sum[:8])
}
