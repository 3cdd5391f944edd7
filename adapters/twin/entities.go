package twin

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

func recordEngineeringEntityTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.record_engineering_entity", Name: "Record an engineering entity", Capability: "twin_write",
		Description: "Record one engineering entity: an intent, stakeholder_need or objective (a definition: the next revision of its item, " +
			"same name same item, with item_key/item_ref in the result), or a record (assumption, question, risk, interface, test_case, " +
			"verification_case, budget, waiver, release_approval, concept_option: one node, no revisions). parent_refs links it to " +
			"existing nodes. item_key, supersedes and change_reason apply to the three definitions only. A budget needs metric, unit " +
			"and system_total in properties. Requirement values do not go here: use twin.record_constraint_set.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, recordEngineeringEntity, withItemRules(
		adapters.At("entity_type", adapters.Enum(twin.EntityTypes()...)),
		adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("description", adapters.MaxLength(20000)),
		adapters.At("properties", anyObject),
		adapters.At("parent_refs", adapters.Nullable(), adapters.MaxItems(50)),
		// A parent is a string ref or {ref, edge} (parentRef decodes both).
		adapters.At("parent_refs[]", adapters.Type("string", "object"), adapters.MinLength(1)),
		adapters.At("parent_refs[].ref", adapters.MinLength(1)),
		adapters.At("parent_refs[].edge", adapters.Enum("RELATES_TO", "CONTAINS")))...)
}

type recordEngineeringEntityArgs struct {
	project.Scope
	EntityType  string         `json:"entity_type"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Properties  map[string]any `json:"properties,omitempty" jsonschema:"further fields: likelihood and impact for a risk, steps for a test_case, metric/unit/system_total for a budget..."`
	ParentRefs  []parentRef    `json:"parent_refs,omitempty" jsonschema:"existing nodes to link to: an item ref (KEY@n, or KEY for the current revision) or a node id, or {ref, edge}. edge is from this entity to ref: RELATES_TO (default: it traces to ref, as a risk to the objective it threatens) or CONTAINS (it contains ref, as a release_approval the revisions it approves)"`
	itemArgs
}

// parentRef is a string ref or {ref, edge}.
type parentRef struct {
	Ref  string `json:"ref"`
	Edge string `json:"edge,omitempty"`
}

func (p *parentRef) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*p = parentRef{Ref: s}
		return nil
	}
	type plain parentRef
	var v plain
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*p = parentRef(v)
	return nil
}

func recordEngineeringEntity(ctx context.Context, b *Backend, a recordEngineeringEntityArgs) (any, error) {
	w := twin.EntityWrite{EntityType: a.EntityType, Name: a.Name, Description: a.Description, Properties: a.Properties,
		WriteInfo: writeInfo(ctx, a.itemArgs)}
	for _, pr := range a.ParentRefs {
		w.ParentRefs = append(w.ParentRefs, twin.ParentRef{Ref: pr.Ref, Edge: pr.Edge})
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	w.ProjectID = p.ID
	e, err := twin.RecordEntity(ctx, b.Store, w)
	if err != nil {
		return nil, err
	}
	parents := []map[string]any{}
	for _, pr := range e.Parents {
		entry := map[string]any{"edge": pr.Edge, "node_id": pr.NodeID, "node_type": pr.NodeType}
		if pr.Ref != "" {
			entry["ref"] = pr.Ref
		}
		parents = append(parents, entry)
	}
	if e.Item != nil {
		out := written(e.Node, *e.Item)
		out["project_id"], out["entity_type"], out["parent_refs"] = p.ID, a.EntityType, parents
		return out, nil
	}
	return map[string]any{"node_id": e.Node.ID, "project_id": p.ID, "entity_type": a.EntityType, "name": e.Node.Name, "parent_refs": parents}, nil
}
