package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

func recordDecisionTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.record_decision", Name: "Record a design decision", Capability: "twin_write",
		Description: "Record a design decision as the next revision of a decision item (DEC-...): what was decided, why, and the " +
			"alternatives rejected (each an option and the reason it lost). depends_on pins the item revisions it rests on " +
			"(KEY@n, or KEY for the current revision) with DEPENDS_ON edges: for a decision that rests on the requirements, link the " +
			"constraint set (CS-...@n) instead of restating its values. An unknown item or revision writes nothing. " +
			"The result names item_key, revision, item_ref and the pinned depends_on refs.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, recordDecision, withItemRules(
		adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("decision", adapters.MinLength(1), adapters.MaxLength(20000)),
		adapters.At("rationale", adapters.MaxLength(20000)),
		adapters.At("alternatives", adapters.MaxItems(50)),
		adapters.At("alternatives[].option", adapters.MinLength(1), adapters.MaxLength(2000), adapters.Describe("the alternative considered")),
		adapters.At("alternatives[].reason", adapters.MinLength(1), adapters.MaxLength(4000), adapters.Describe("why it was rejected")),
		adapters.At("depends_on", adapters.Nullable(), adapters.MaxItems(50)), adapters.At("depends_on[]", adapters.MinLength(1)))...)
}

type recordDecisionArgs struct {
	project.Scope
	Name         string             `json:"name" jsonschema:"short title of the decision; the same name revises the same decision"`
	Decision     string             `json:"decision" jsonschema:"what was decided"`
	Rationale    string             `json:"rationale,omitempty" jsonschema:"why: the reasoning, citing requirements by ref rather than restating their values"`
	Alternatives []twin.Alternative `json:"alternatives,omitempty" jsonschema:"the options considered and rejected"`
	DependsOn    []string           `json:"depends_on,omitempty" jsonschema:"item refs the decision rests on: KEY@n pins that revision, a bare KEY pins the current one; null means none"`
	itemArgs
}

func recordDecision(ctx context.Context, b *Backend, a recordDecisionArgs) (any, error) {
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
