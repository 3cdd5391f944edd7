package digitaltwin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// edgeRelatesTo links an engineering entity to what it traces to.
const edgeRelatesTo = "RELATES_TO"

// The engineering entity types: definitions (items with revisions) and
// records (one node each).
var (
	definitionEntities = []string{"intent", "stakeholder_need", "objective"}
	recordEntities     = []string{"assumption", "question", "risk", "interface", "test_case", "verification_case", "budget",
		"waiver", "release_package", "concept_option"}
)

func recordEngineeringEntityTool() tool {
	types, _ := json.Marshal(slices.Concat(definitionEntities, recordEntities))
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
	a.Name = strings.TrimSpace(a.Name)
	if a.Name == "" {
		return nil, protocol.Refusal("Missing: name")
	}
	definition := slices.Contains(definitionEntities, a.EntityType)
	if !definition && (deref(a.ItemKey) != "" || deref(a.Supersedes) != "" || deref(a.ChangeReason) != "") {
		return nil, protocol.Refusal("a %s is a record, not a revision of an item: leave out item_key, supersedes and change_reason "+
			"(they apply to intent, stakeholder_need and objective)", a.EntityType)
	}
	if a.EntityType == "budget" {
		var missing []string
		for _, k := range []string{"metric", "unit", "system_total"} {
			if v, ok := a.Properties[k]; !ok || v == nil || v == "" {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return nil, protocol.Refusal("a budget needs %s in properties (what is budgeted, its unit and the system total), or no rollup can read it",
				strings.Join(missing, ", "))
		}
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	var links []twin.Link
	parents := []map[string]any{}
	seen := map[string]bool{}
	for _, pr := range a.ParentRefs {
		edge := pr.Edge
		if edge == "" {
			edge = edgeRelatesTo
		}
		n, err := resolveRef(ctx, b, p.ID, pr.Ref)
		if err != nil {
			return nil, fmt.Errorf("parent_refs %s: %w", pr.Ref, err)
		}
		if seen[edge+n.ID] {
			continue
		}
		seen[edge+n.ID] = true
		props := map[string]any{}
		entry := map[string]any{"edge": edge, "node_id": n.ID, "node_type": n.Type}
		if ref := n.Ref(); ref != "" {
			props["ref"], entry["ref"] = ref, ref
		}
		links = append(links, twin.Link{Type: edge, To: n.ID, Properties: props})
		parents = append(parents, entry)
	}
	props := map[string]any{}
	for k, v := range a.Properties {
		props[k] = v
	}
	if a.Description != "" {
		props["description"] = a.Description
	}
	if definition {
		n, it, err := b.Store.CommitRevision(ctx, revisionWrite(ctx, p.ID, a.EntityType, a.Name, a.itemArgs, props, links))
		if err != nil {
			return nil, err
		}
		out := written(n, it)
		out["project_id"], out["entity_type"], out["parent_refs"] = p.ID, a.EntityType, parents
		return out, nil
	}
	n, err := b.Store.RecordNode(ctx, twin.RecordWrite{ProjectID: p.ID, Type: a.EntityType, Name: a.Name, Properties: props, Links: links,
		IdempotencyKey: callID(ctx)})
	if err != nil {
		return nil, err
	}
	return map[string]any{"node_id": n.ID, "project_id": p.ID, "entity_type": a.EntityType, "name": n.Name, "parent_refs": parents}, nil
}
