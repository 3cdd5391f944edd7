package twin

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

func recordDecisionTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.record_decision", Name: "Record a design decision", Capability: "twin_write",
		Description: "Record a design decision as the next revision of a decision item (DEC-...): what was decided, why, and the " +
			"alternatives rejected (each an option and the reason it lost). depends_on pins the item revisions it rests on " +
			"(KEY@n, or KEY for the current revision) with DEPENDS_ON edges: for a decision that rests on the requirements, link the " +
			"constraint set (CS-...@n) instead of restating its values. An unknown item or revision writes nothing. " +
			"The result names item_key, revision, item_ref and the pinned depends_on refs.",
		InputSchema: schema([]string{"name", "decision"}, projectIDProp+`,
"name":{"type":"string","minLength":1,"maxLength":200,"description":"short title of the decision; the same name revises the same decision"},
"decision":{"type":"string","minLength":1,"maxLength":20000,"description":"what was decided"},
"rationale":{"type":"string","maxLength":20000,"description":"why: the reasoning, citing requirements by ref rather than restating their values"},
"alternatives":{"type":"array","maxItems":50,"description":"the options considered and rejected","items":{"type":"object","additionalProperties":false,"required":["option","reason"],"properties":{
  "option":{"type":"string","minLength":1,"maxLength":2000,"description":"the alternative considered"},
  "reason":{"type":"string","minLength":1,"maxLength":4000,"description":"why it was rejected"}}}},
"depends_on":{"type":["array","null"],"maxItems":50,"items":{"type":"string","minLength":1},"description":"item refs the decision rests on: KEY@n pins that revision, a bare KEY pins the current one; null means none"},
`+itemProps),
		Idempotent: true, TimeoutSeconds: 30}, recordDecision}
}

func recordDecision(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID    string             `json:"project_id"`
		Name         string             `json:"name"`
		Decision     string             `json:"decision"`
		Rationale    string             `json:"rationale"`
		Alternatives []twin.Alternative `json:"alternatives"`
		DependsOn    []string           `json:"depends_on"`
		itemArgs
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	d := twin.DecisionWrite{Name: a.Name, Decision: a.Decision, Rationale: a.Rationale, Alternatives: a.Alternatives,
		DependsOn: a.DependsOn, WriteInfo: writeInfo(ctx, a.itemArgs)}
	if err := d.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	d.ProjectID = p.ID
	n, it, refs, err := twin.RecordDecision(ctx, b.Store, d)
	if err != nil {
		return nil, err
	}
	out := written(n, it)
	out["project_id"] = p.ID
	out["depends_on"] = refs
	return out, nil
}
