package digitaltwin

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
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

// constraint is one typed requirement.
type constraint struct {
	Name               string   `json:"name"`
	Description        string   `json:"description,omitempty"`
	Metric             string   `json:"metric,omitempty"`
	Operator           string   `json:"operator,omitempty"`
	Limit              *float64 `json:"limit,omitempty"`
	Unit               string   `json:"unit,omitempty"`
	Expression         string   `json:"expression,omitempty"`
	TargetNodeType     string   `json:"target_node_type,omitempty"`
	VerificationMethod string   `json:"verification_method,omitempty"`
	AcceptanceCriteria string   `json:"acceptance_criteria,omitempty"`
}

// missing names what a requirement lacks before anything can check it.
func (c constraint) missing() []string {
	var out []string
	typed := c.Metric != "" && c.Operator != "" && c.Limit != nil
	if !typed && c.Expression == "" {
		out = append(out, "expression or metric+operator+limit")
	}
	if c.Limit != nil && c.Unit == "" {
		out = append(out, "unit (a limit without a unit cannot be compared to a quantity)")
	}
	if c.VerificationMethod == "" {
		out = append(out, "verification_method")
	}
	return out
}

func recordConstraintSet(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID   string       `json:"project_id"`
		Name        string       `json:"name"`
		Constraints []constraint `json:"constraints"`
		itemArgs
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var incomplete []map[string]any
	for _, c := range a.Constraints {
		key := strings.ToLower(strings.TrimSpace(c.Name))
		if seen[key] {
			return nil, protocol.Refusal("constraint %q appears twice; requirement names must be unique within a set", c.Name)
		}
		seen[key] = true
		if m := c.missing(); len(m) > 0 {
			incomplete = append(incomplete, map[string]any{"name": c.Name, "missing": m})
		}
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	var list []any
	for _, c := range a.Constraints {
		var m map[string]any
		raw, _ := json.Marshal(c)
		_ = json.Unmarshal(raw, &m)
		list = append(list, m)
	}
	n, it, err := b.Store.CommitRevision(ctx, revisionWrite(ctx, p.ID, "constraint_set", a.Name, a.itemArgs,
		map[string]any{"constraints": list}, nil))
	if err != nil {
		return nil, err
	}
	out := written(n, it)
	out["project_id"] = p.ID
	out["constraint_count"] = len(a.Constraints)
	if len(incomplete) > 0 {
		out["incomplete"] = incomplete
	}
	return out, nil
}
