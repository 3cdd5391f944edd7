package workflows_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/workflows"
)

// A gate nobody decides within its window rejects the run: the window is a
// durable timer (skipped here by the test server's clock), not a promise.
func TestGateWindowEndingIsARejection(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	env.RegisterWorkflowWithOptions(workflows.DesignFlow, workflow.RegisterOptions{Name: "DesignFlow"})
	env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.EvaluateGateRequest) (flows.GateResult, error) {
		return flows.GateResult{Gate: req.Phase.Gate.Name, Phase: req.Phase.Name, Status: flows.StatusPass}, nil
	}, activity.RegisterOptions{Name: workflows.EvaluateGateActivity})

	f := flows.Flow{ID: "t", Phases: []flows.Phase{{Name: "requirements", Brief: "b", Deliverables: []string{"constraint_set"},
		Gate: flows.Gate{Name: "G1-requirements", HumanDecision: true, WindowSeconds: 3600}}}}
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(workflows.ClaimUpdate, "claim", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Errorf("claim refused: %v", err) }, OnAccept: func() {}, OnComplete: func(any, error) {}},
			flows.ClaimRequest{ClaimedBy: "client"})
		env.UpdateWorkflow(workflows.SubmitUpdate, "submit", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Errorf("submit refused: %v", err) }, OnAccept: func() {}, OnComplete: func(any, error) {}},
			flows.Submission{Phase: "requirements", Summary: "done", SubmittedBy: "client"})
	}, time.Minute)
	env.ExecuteWorkflow("DesignFlow", flows.DesignFlowInput{RunID: "00000000000000aa", ProjectID: "p", Flow: f})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res workflows.DesignFlowResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	g := res.State.Phases[0].Gate
	if res.State.Status != flows.RunRejected || g.Status != flows.GateRejected || g.Decision == nil || g.Decision.Route != "window" {
		t.Fatalf("after the window: status %s, gate %+v", res.State.Status, g)
	}
}

// A step whose result cannot be recorded does not fail the run: the step
// says so and the run goes on to its gate, which then lacks the evidence.
func TestStepEvidenceFailureReachesTheGate(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	env.RegisterWorkflowWithOptions(workflows.DesignFlow, workflow.RegisterOptions{Name: "DesignFlow"})
	env.RegisterWorkflowWithOptions(workflows.ToolCall, workflow.RegisterOptions{Name: "ToolCall"})
	env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.PrepareStepCallRequest) (workflows.ToolCallInput, error) {
		return workflows.ToolCallInput{CallID: req.CallID, ToolID: req.ToolID, AdapterID: "calculix", Arguments: req.Arguments, TimeoutSeconds: 60}, nil
	}, activity.RegisterOptions{Name: workflows.PrepareStepCallActivity})
	env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.PrepareStepEvidenceRequest) (workflows.StepEvidenceCalls, error) {
		return workflows.StepEvidenceCalls{Calls: []workflows.ToolCallInput{{CallID: req.CallIDPrefix[:16], ToolID: "twin.record_evidence",
			AdapterID: "twin", Arguments: []byte(`{}`), TimeoutSeconds: 30}}}, nil
	}, activity.RegisterOptions{Name: workflows.PrepareStepEvidenceActivity})
	env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		if req.ToolID == "twin.record_evidence" {
			return workflows.InvokeToolResponse{}, temporal.NewNonRetryableApplicationError("the twin store does not answer", "TOOL_EXECUTION_ERROR", nil)
		}
		return workflows.InvokeToolResponse{Data: []byte(`{"max_displacement_mm":0.2}`)}, nil
	}, activity.RegisterOptions{Name: workflows.InvokeToolActivity})
	env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.EvaluateGateRequest) (flows.GateResult, error) {
		return flows.GateResult{Gate: req.Phase.Gate.Name, Phase: req.Phase.Name, Status: flows.StatusNoData}, nil
	}, activity.RegisterOptions{Name: workflows.EvaluateGateActivity})

	f := flows.Flow{ID: "t", Phases: []flows.Phase{{Name: "analysis", Brief: "b", Deliverables: []string{"evidence"},
		Steps: []flows.Step{{Name: "fea", ToolID: "calculix.run_fea", ForEach: "load_cases",
			Records: []flows.EvidenceField{{Field: "max_displacement_mm", Metric: "max_displacement", Unit: "mm"}}}},
		Gate: flows.Gate{Name: "G1-analysis", HumanDecision: true, WindowSeconds: 60}}}}
	env.ExecuteWorkflow("DesignFlow", flows.DesignFlowInput{RunID: "00000000000000bb", ProjectID: "p", Flow: f,
		Inputs: map[string][]flows.StepCase{"load_cases": {{Name: "tip", Arguments: []byte(`{}`), ValidAgainst: []string{"X"}}}}})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("the run failed instead of reaching its gate: %v", err)
	}
	var res workflows.DesignFlowResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	ph := res.State.Phases[0]
	if len(ph.Steps) != 1 || ph.Steps[0].Status != workflows.StatusError || !strings.Contains(ph.Steps[0].Error, "does not answer") ||
		ph.Gate.Result == nil {
		t.Fatalf("the phase after a failed evidence record: %+v", ph)
	}
}
