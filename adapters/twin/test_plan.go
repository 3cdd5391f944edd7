package twin

import (
	"context"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

func generateTestPlanTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.generate_test_plan", Name: "Generate the test plan", Capability: "twin_write",
		Description: "Plan a verification case for every requirement in the project's current constraint sets whose verification_method is " +
			"test, derived from the requirement's own metric, operator, limit, unit and target_node_type: step \"Measure {metric} on " +
			"{target}; acceptance: {metric} {operator} {limit} {unit}\", recorded as a verification_case RELATES_TO its constraint set " +
			"revision. Running it again (after the requirements changed) adds cases only for requirements without one; skipped lists every " +
			"other requirement and why: not_test, already_planned (with its case, and a note when the requirement has changed since; a " +
			"verification_case recorded by hand counts when its properties name constraint_set_key and requirement) or " +
			"unbound (what it lacks). cases lists the cases this call planned.",
		Idempotent: true, Short: true, TimeoutSeconds: 60}, generateTestPlan)
}

type generateTestPlanArgs struct {
	project.Scope
}

func generateTestPlan(ctx context.Context, b *Backend, a generateTestPlanArgs) (any, error) {
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	plan, err := twin.GenerateTestPlan(ctx, b.Store, p.ID, callID(ctx))
	if err != nil {
		return nil, err
	}
	cases := make([]map[string]any, 0, len(plan.Cases))
	for _, c := range plan.Cases {
		cases = append(cases, map[string]any{"node_id": c.NodeID, "name": c.Name, "requirement": c.SetRequirement.Name,
			"constraint_set": c.Set, "metric": c.Metric, "operator": c.Operator, "limit": *c.Limit, "unit": c.Unit, "target": c.Target,
			"step": c.Step, "acceptance": c.Acceptance})
	}
	skipped := make([]map[string]any, 0, len(plan.Skipped))
	counts := map[string]int{}
	for _, sk := range plan.Skipped {
		row := map[string]any{"requirement": sk.Name, "constraint_set": sk.Set, "reason": sk.Reason, "detail": sk.Detail}
		if sk.CaseID != "" {
			row["case_id"] = sk.CaseID
		}
		if sk.Missing != nil {
			row["missing"] = sk.Missing
		}
		skipped = append(skipped, row)
		counts[sk.Reason]++
	}
	summary := fmt.Sprintf("%d case(s) planned; skipped: %d not verified by test, %d already planned, %d unbound",
		len(cases), counts[twin.SkipNotTest], counts[twin.SkipAlreadyPlanned], counts[twin.SkipUnbound])
	if len(plan.Sets) == 0 {
		summary = "this project has no constraint set: record the requirements with twin.record_constraint_set first"
	}
	return map[string]any{"project_id": p.ID, "constraint_sets": plan.Sets, "cases": cases, "skipped": skipped, "summary": summary}, nil
}
