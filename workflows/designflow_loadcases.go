package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/flows"
)

// recordedLoadCasesChange marks runs whose analysis phase, given no
// load_cases input, solves the load cases the project records in the twin
// against whatever the design is when the phase runs. Runs begun before it
// leave such a phase to the client, as they did.
const recordedLoadCasesChange = "recorded-load-cases"

// resolvedCases are a phase's recorded load cases made ready to solve.
type resolvedCases struct {
	cases    []flows.StepCase
	evidence []map[string]any
	// failed are the load cases that could not be made ready (mesh or
	// faces), reported as failed steps.
	failed []flows.StepRun
	// skipped says which load cases were not attempted, and why.
	skipped []string
}

// recordedLoadCases resolves the project's ready load cases for phase i:
// each part's current revision, meshed by a child ToolCall unless that
// geometry was meshed already, its faces picked by the recorded geometry.
func (r *run) recordedLoadCases(ctx workflow.Context, i int) (resolvedCases, error) {
	p := r.flow.Phases[i]
	ps := &r.state.Phases[i]
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:             fmt.Sprintf("resolve the recorded load cases of phase %s (run %s)", p.Name, r.state.RunID),
	})
	var plans LoadCasePlans
	if err := workflow.ExecuteActivity(actx, PlanLoadCasesActivity, PlanLoadCasesRequest{RunID: r.state.RunID, ProjectID: r.state.ProjectID}).Get(ctx, &plans); err != nil {
		return resolvedCases{}, err
	}
	out := resolvedCases{skipped: plans.Skipped}
	for ci, plan := range plans.Plans {
		req := BuildLoadCaseStepRequest{Plan: plan}
		if plan.MeshFile == "" {
			mesh, err := r.childCall(ctx, plan.Mesh, fmt.Sprintf("mesh %s for load case %s (run %s)", plan.PartRef, plan.Name, r.state.RunID))
			if err != nil {
				return resolvedCases{}, err
			}
			if mesh.Status != StatusSuccess {
				out.failed = append(out.failed, flows.StepRun{Name: fmt.Sprintf("mesh %s: %s", plan.PartRef, plan.Name), ToolID: plan.Mesh.ToolID,
					CallID: plan.Mesh.CallID, Status: StatusError, Error: mesh.Error.Details})
				continue
			}
			req.Mesh = mesh.Data
		}
		bctx := workflow.WithActivityOptions(actx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
			Summary:     fmt.Sprintf("pick the faces of load case %s on %s", plan.Name, plan.PartRef)})
		var step LoadCaseStep
		if err := workflow.ExecuteActivity(bctx, BuildLoadCaseStepActivity, req).Get(ctx, &step); err != nil {
			var appErr *temporal.ApplicationError
			if !errors.As(err, &appErr) {
				return resolvedCases{}, err
			}
			out.failed = append(out.failed, flows.StepRun{Name: fmt.Sprintf("%s: %s", p.Steps[0].Name, plan.Name), ToolID: p.Steps[0].ToolID,
				CallID: r.stepCallID(p.Name, ps.Attempt, 0, ci, "faces"), Status: StatusError, Error: appErr.Message()})
			continue
		}
		out.cases = append(out.cases, step.Case)
		out.evidence = append(out.evidence, step.Evidence)
	}
	return out, nil
}

// joinSkipped says which load cases were not solved, or "" when all were.
func joinSkipped(skipped []string) string {
	if len(skipped) == 0 {
		return ""
	}
	return "not solved: " + strings.Join(skipped, "; ")
}

func skippedSuffix(skipped []string) string {
	if len(skipped) == 0 {
		return ""
	}
	return " (" + strings.Join(skipped, "; ") + ")"
}
