package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

func recordConstraintSetTool() tool {
	at := func(field string, edits ...adapters.SchemaEdit) adapters.SchemaRule {
		return adapters.At("constraints[]."+field, edits...)
	}
	return adapters.Declare(adapters.Manifest{ToolID: "twin.record_constraint_set", Name: "Record requirements", Capability: "twin_write",
		Description: "Record the project's typed requirements as the next revision of a constraint set: the one home of requirement values. " +
			"Give each requirement a metric, operator, limit and unit so a gate can check it, plus verification_method and acceptance_criteria. " +
			"Only name is required; the result's incomplete names what each half-specified requirement still lacks.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, recordConstraintSet, withItemRules(
		adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("constraints", adapters.MinItems(1), adapters.MaxItems(500)),
		at("name", adapters.MinLength(1)),
		at("metric", adapters.Describe("what is measured: tip_deflection, mass, max_von_mises, safety_factor, envelope_x...")),
		at("operator", adapters.Enum("<=", "<", ">=", ">", "==")),
		at("expression", adapters.Describe("a free-form condition, when metric+limit cannot say it")),
		at("target_node_type", adapters.Describe("what the requirement applies to: cad_model, simulation_result...")),
		at("verification_method", adapters.Enum("analysis", "test", "inspection", "demonstration", "simulation")))...)
}

type recordConstraintSetArgs struct {
	project.Scope
	Name        string            `json:"name"`
	Constraints []twin.Constraint `json:"constraints"`
	itemArgs
}

func recordConstraintSet(ctx context.Context, b *Backend, a recordConstraintSetArgs) (any, error) {
	if _, err := twin.CheckConstraintSet(a.Constraints); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	n, it, incomplete, err := twin.RecordConstraintSet(ctx, b.Store, p.ID, a.Name, a.Constraints, writeInfo(ctx, a.itemArgs))
	if err != nil {
		return nil, err
	}
	out := written(n, it)
	out["project_id"] = p.ID
	out["constraint_count"] = len(a.Constraints)
	if len(incomplete) > 0 {
		list := make([]map[string]any, 0, len(incomplete))
		for _, c := range incomplete {
			list = append(list, map[string]any{"name": c.Name, "missing": c.Missing})
		}
		out["incomplete"] = list
	}
	return out, nil
}
