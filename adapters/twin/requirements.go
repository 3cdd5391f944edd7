package twin

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

func recordConstraintSetTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.record_constraint_set", Name: "Record requirements", Capability: "twin_write",
		Description: "Record the project's typed requirements as the next revision of a constraint set: the one home of requirement values. " +
			"Give each requirement a metric, operator, limit and unit so a gate can check it, plus verification_method and acceptance_criteria. " +
			"Only name is required; the result's incomplete names what each half-specified requirement still lacks.",
		InputSchema: schema([]string{"name", "constraints"}, projectIDProp+`,
"name":{"type":"string","minLength":1,"maxLength":200},
"constraints":{"type":"array","minItems":1,"maxItems":500,"items":{"type":"object","additionalProperties":false,"required":["name"],"properties":{
  "name":{"type":"string","minLength":1},
  "description":{"type":"string"},
  "metric":{"type":"string","description":"what is measured: tip_deflection, mass, max_von_mises, safety_factor, envelope_x..."},
  "operator":{"type":"string","enum":["<=","<",">=",">","=="]},
  "limit":{"type":"number"},
  "unit":{"type":"string"},
  "expression":{"type":"string","description":"a free-form condition, when metric+limit cannot say it"},
  "target_node_type":{"type":"string","description":"what the requirement applies to: cad_model, simulation_result..."},
  "verification_method":{"type":"string","enum":["analysis","test","inspection","demonstration","simulation"]},
  "acceptance_criteria":{"type":"string"}}}},
`+itemProps),
		Idempotent: true, TimeoutSeconds: 30}, recordConstraintSet}
}

func recordConstraintSet(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID   string            `json:"project_id"`
		Name        string            `json:"name"`
		Constraints []twin.Constraint `json:"constraints"`
		itemArgs
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
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
