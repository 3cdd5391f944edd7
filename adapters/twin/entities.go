package twin

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

func recordEngineeringEntityTool() tool {
	types, _ := json.Marshal(twin.EntityTypes())
	return tool{adapters.Manifest{ToolID: "twin.record_engineering_entity", Name: "Record an engineering entity", Capability: "twin_write",
		Description: "Record one engineering entity: an intent, stakeholder_need or objective (a definition: the next revision of its item, " +
			"same name same item, with item_key/item_ref in the result), or a record (assumption, question, risk, interface, test_case, " +
			"verification_case, budget, waiver, release_package, concept_option: one node, no revisions). parent_refs links it to " +
			"existing nodes. item_key, supersedes and change_reason apply to the three definitions only. A budget needs metric, unit " +
			"and system_total in properties. Requirement values do not go here: use twin.record_constraint_set.",
		InputSchema: schema([]string{"entity_type", "name"}, projectIDProp+`,
"entity_type":{"type":"string","enum":`+string(types)+`},
"name":{"type":"string","minLength":1,"maxLength":200},
"description":{"type":"string","maxLength":20000},
"properties":{"type":"object","description":"further fields: likelihood and impact for a risk, steps for a test_case, metric/unit/system_total for a budget..."},
"parent_refs":{"type":["array","null"],"maxItems":50,"description":"existing nodes to link to: an item ref (KEY@n, or KEY for the current revision) or a node id, or {ref, edge}. edge is from this entity to ref: RELATES_TO (default: it traces to ref, as a risk to the objective it threatens) or CONTAINS (it contains ref, as a release_package the revisions in it)",
  "items":{"type":["string","object"],"minLength":1,"additionalProperties":false,"required":["ref"],"properties":{
    "ref":{"type":"string","minLength":1},
    "edge":{"type":"string","enum":["RELATES_TO","CONTAINS"]}}}},
`+itemProps),
		Idempotent: true, TimeoutSeconds: 30}, recordEngineeringEntity}
}

// parentRef is a string ref or {ref, edge}.
type parentRef struct {
	Ref  string `json:"ref"`
	Edge string `json:"edge"`
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

func recordEngineeringEntity(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID   string         `json:"project_id"`
		EntityType  string         `json:"entity_type"`
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Properties  map[string]any `json:"properties"`
		ParentRefs  []parentRef    `json:"parent_refs"`
		itemArgs
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
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
