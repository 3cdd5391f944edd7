package workflows_test

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
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
			workflows.ClaimRequest{ClaimedBy: "client"})
		env.UpdateWorkflow(workflows.SubmitUpdate, "submit", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Errorf("submit refused: %v", err) }, OnAccept: func() {}, OnComplete: func(any, error) {}},
			workflows.Submission{Phase: "requirements", Summary: "done", SubmittedBy: "client"})
	}, time.Minute)
	env.ExecuteWorkflow("DesignFlow", workflows.DesignFlowInput{RunID: "00000000000000aa", ProjectID: "p", Flow: f})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res workflows.DesignFlowResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	g := res.State.Phases[0].Gate
	if res.State.Status != workflows.RunRejected || g.Status != workflows.GateRejected || g.Decision == nil || g.Decision.Route != "window" {
		t.Fatalf("after the window: status %s, gate %+v", res.State.Status, g)
	}
}
