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

// Chained steps: a later step runs on each entry after the steps before
// it, with the arguments From names taken from their results for that
// entry; a step that records nothing asks for no evidence; an entry whose
// first step failed reports the later step as not run, saying why.
func TestChainedStepsTakeEarlierResults(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	env.RegisterWorkflowWithOptions(workflows.DesignFlow, workflow.RegisterOptions{Name: "DesignFlow"})
	env.RegisterWorkflowWithOptions(workflows.ToolCall, workflow.RegisterOptions{Name: "ToolCall"})
	var checked []string
	// The activity's own composition (flows.StepArguments), as
	// activities.DesignFlows.PrepareStepCall does it.
	env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.PrepareStepCallRequest) (workflows.ToolCallInput, error) {
		args := req.Arguments
		if len(req.From) > 0 {
			var err error
			if args, err = flows.StepArguments(req.Arguments, req.From, req.Earlier); err != nil {
				return workflows.ToolCallInput{}, temporal.NewNonRetryableApplicationError(err.Error(), "INVALID_PARAMS", nil)
			}
			checked = append(checked, string(args))
		}
		return workflows.ToolCallInput{CallID: req.CallID, ToolID: req.ToolID, AdapterID: "kicad", Arguments: args, TimeoutSeconds: 60}, nil
	}, activity.RegisterOptions{Name: workflows.PrepareStepCallActivity})
	var evidenceFor []string
	env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.PrepareStepEvidenceRequest) (workflows.StepEvidenceCalls, error) {
		evidenceFor = append(evidenceFor, req.Step.Name+"/"+req.CaseName+"/"+string(req.Result))
		return workflows.StepEvidenceCalls{}, nil
	}, activity.RegisterOptions{Name: workflows.PrepareStepEvidenceActivity})
	env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		switch {
		case req.ToolID == "kicad.generate_schematic" && strings.Contains(string(req.Arguments), "bad"):
			return workflows.InvokeToolResponse{}, temporal.NewNonRetryableApplicationError("unknown symbol Lib:Nope", "INVALID_PARAMS", nil)
		case req.ToolID == "kicad.generate_schematic":
			return workflows.InvokeToolResponse{Data: []byte(`{"schematic_file":"/w/a.kicad_sch","net_count":5}`)}, nil
		}
		return workflows.InvokeToolResponse{Data: []byte(`{"error_count":0,"checked":` + string(req.Arguments) + `}`)}, nil
	}, activity.RegisterOptions{Name: workflows.InvokeToolActivity})
	env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.EvaluateGateRequest) (flows.GateResult, error) {
		return flows.GateResult{Gate: req.Phase.Gate.Name, Phase: req.Phase.Name, Status: flows.StatusNoData}, nil
	}, activity.RegisterOptions{Name: workflows.EvaluateGateActivity})

	f := flows.Flow{ID: "t", Phases: []flows.Phase{{Name: "schematic", Brief: "b", Deliverables: []string{"evidence"},
		Steps: []flows.Step{
			{Name: "generate", ToolID: "kicad.generate_schematic", ForEach: "schematic"},
			{Name: "check", ToolID: "kicad.run_erc", From: []flows.FromField{{Argument: "schematic_file", Field: "generate.schematic_file"}},
				Records: []flows.EvidenceField{{Field: "error_count", Metric: "erc_errors", Unit: "1"}}}},
		Gate: flows.Gate{Name: "G1-schematic", HumanDecision: true, WindowSeconds: 60}}}}
	env.ExecuteWorkflow("DesignFlow", flows.DesignFlowInput{RunID: "00000000000000cc", ProjectID: "p", Flow: f,
		Inputs: map[string][]flows.StepCase{"schematic": {
			{Name: "good", Arguments: []byte(`{"title":"good"}`), ValidAgainst: []string{"X"}},
			{Name: "broken", Arguments: []byte(`{"title":"bad"}`), ValidAgainst: []string{"X"}}}}})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res workflows.DesignFlowResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	steps := res.State.Phases[0].Steps
	want := []struct{ name, status, err string }{
		{"generate: good", workflows.StatusSuccess, ""},
		{"generate: broken", workflows.StatusError, "unknown symbol Lib:Nope"},
		{"check: good", workflows.StatusSuccess, ""},
		{"check: broken", workflows.StatusError, "comes from step generate, which gave no result"},
	}
	if len(steps) != len(want) {
		t.Fatalf("steps = %+v", steps)
	}
	for i, w := range want {
		if steps[i].Name != w.name || steps[i].Status != w.status || !strings.Contains(steps[i].Error, w.err) {
			t.Errorf("step %d = %+v, want %s %s %q", i, steps[i], w.name, w.status, w.err)
		}
	}
	if len(checked) != 1 || checked[0] != `{"schematic_file":"/w/a.kicad_sch"}` {
		t.Errorf("check's arguments = %q, want only the schematic file the good entry's generate wrote", checked)
	}
	if len(evidenceFor) != 1 || evidenceFor[0] != `check/good/{"error_count":0,"checked":{"schematic_file":"/w/a.kicad_sch"}}` {
		t.Errorf("evidence prepared for %q, want only check on the good entry", evidenceFor)
	}
}
