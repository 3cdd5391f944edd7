package twin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// threadTools asks the digital thread questions: an arbitrary walk, and the
// two questions whose direction is part of the question.
func threadTools() []tool {
	return []tool{threadForTool(), whatVerifiesTool(), whereUsedTool(), findByPropertyTool()}
}

// targetRules name the node a thread question starts from.
var targetRules = []adapters.SchemaRule{
	adapters.At("node_id", adapters.MinLength(1), adapters.Describe("the node to start from")),
	adapters.At("item_key", adapters.MinLength(1), adapters.Describe("or an item: KEY@n for that revision, KEY for its current one")),
}

func threadForTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.thread_for", Name: "Walk the digital thread", Capability: "twin_read",
		Description: "Walk the digital thread from a node (node_id, or item_key KEY@n / KEY) up to depth hops, returning the nodes and " +
			"edges reached. Edges point child-to-parent (evidence VERIFIES a requirement, a decision DEPENDS_ON what it rests on, a " +
			"revision is REVISION_OF the one before), so the default direction \"outgoing\" finds what a node rests on; a requirement or " +
			"a part is usually an edge target and needs \"incoming\" or \"both\". For those two questions prefer twin.what_verifies and " +
			"twin.where_used, which know the direction.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, threadFor, slices.Concat(targetRules, []adapters.SchemaRule{
		adapters.At("depth", adapters.Minimum(1), adapters.Maximum(5), adapters.Default(2)),
		adapters.At("direction", adapters.Enum("outgoing", "incoming", "both"), adapters.Default("outgoing")),
		adapters.At("edge_types", adapters.MaxItems(20)), adapters.At("edge_types[]", adapters.Pattern("^[A-Z][A-Z0-9_]*$"))})...)
}

func whatVerifiesTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.what_verifies", Name: "What verifies a requirement", Capability: "twin_read",
		Description: "What evidence and claims support a requirement: the constraint set by item_key (KEY for its current revision, " +
			"KEY@n for one revision) or node_id. Walks VERIFIES and SUPPORTS edges into the requirement (and, for a bare KEY, into " +
			"its earlier revisions). verified is true only when current evidence (not stale, against requirements that have not changed " +
			"since, breaking none of them) or a supported claim backs it; an empty answer says nothing is recorded.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, whatVerifies, targetRules...)
}

func whereUsedTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.where_used", Name: "Where a part is used", Capability: "twin_read",
		Description: "What depends on a part or any item: the nodes with a DEPENDS_ON, CONTAINS (assemblies, release packages), USES or " +
			"VALID_AGAINST (evidence computed on it) edge into it, grouped by edge. item_key KEY covers every revision of the item " +
			"(each entry says which revision it uses and whether that is the current one); KEY@n or node_id that revision only.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, whereUsed, targetRules...)
}

func findByPropertyTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.find_by_property", Name: "Find nodes by a property", Capability: "twin_read",
		Description: "Nodes in a project whose property key equals value: numbers compare numerically, strings ignoring case and " +
			"surrounding space, a list property matches when any element does. key may be a dotted path into nested properties " +
			"(data.solver); name matches the node's name. Current revisions and records only, unless all_revisions. At most 200 " +
			"nodes; truncated says when there were more.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, findByProperty,
		adapters.At("key", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("value", adapters.Type("string", "number", "boolean")),
		adapters.At("node_type", adapters.MinLength(1)),
		adapters.At("all_revisions", adapters.Default(false)))
}

// ---------------------------------------------------------------- thread_for

type threadForArgs struct {
	nodeOrKey
	Depth     *int     `json:"depth,omitempty" jsonschema:"hops to walk, 1 to 5"`
	Direction string   `json:"direction,omitempty" jsonschema:"which way to follow edges"`
	EdgeTypes []string `json:"edge_types,omitempty" jsonschema:"follow only these edge types: REVISION_OF, VALID_AGAINST, VERIFIES, DEPENDS_ON, SUPPORTS, SUPPORTED_BY, CONTAINS, USES, RELATES_TO, CONSTRAINED_BY; default all"`
}

func threadFor(ctx context.Context, b *Backend, a threadForArgs) (any, error) {
	spec, err := twin.NewWalkSpec(a.Depth, a.Direction, a.EdgeTypes)
	if err != nil {
		return nil, err
	}
	root, err := a.node(ctx, b)
	if err != nil {
		return nil, err
	}
	w, err := spec.From(ctx, b.Store, root)
	if err != nil {
		return nil, err
	}
	nodes := []map[string]any{}
	for _, n := range w.Nodes {
		e := nodeBrief(n.Node)
		e["depth"] = n.Depth
		nodes = append(nodes, e)
	}
	edges := []map[string]any{}
	for _, ed := range w.Edges {
		e := map[string]any{"type": ed.Type, "from": ed.From, "to": ed.To}
		if len(ed.Properties) > 0 {
			e["properties"] = ed.Properties
		}
		edges = append(edges, e)
	}
	edgeTypes := a.EdgeTypes
	if edgeTypes == nil {
		edgeTypes = []string{}
	}
	out := map[string]any{
		"root": nodeBrief(root), "direction": string(spec.Direction), "depth": spec.Depth, "edge_types": edgeTypes,
		"nodes": nodes, "edges": edges, "node_count": len(nodes), "edge_count": len(edges), "truncated": w.Truncated,
	}
	if w.Note != "" {
		out["note"] = w.Note
	}
	return out, nil
}

// resolveTarget reads the node or item a question names from its
// arguments.
func resolveTarget(ctx context.Context, b *Backend, a nodeOrKey) (twin.Target, error) {
	n, err := a.node(ctx, b)
	if err != nil {
		return twin.Target{}, err
	}
	return twin.TargetOf(ctx, b.Store, n, a.ItemKey)
}

// ------------------------------------------------------------- what_verifies

func whatVerifies(ctx context.Context, b *Backend, a nodeOrKey) (any, error) {
	t, err := resolveTarget(ctx, b, a)
	if err != nil {
		return nil, err
	}
	v, err := twin.WhatVerifies(ctx, b.Store, t)
	if err != nil {
		return nil, err
	}
	evidence := []map[string]any{}
	for _, ev := range v.Evidence {
		e := evidenceEntry(ev.Node, ev.Freshness)
		e["verifies"] = ev.Verifies
		e["checks"] = checkEntries(ev.Checks)
		e["requirement_changed"] = ev.RequirementChanged
		evidence = append(evidence, e)
	}
	claims := []map[string]any{}
	for _, c := range v.Claims {
		e := map[string]any{"node_id": c.Node.ID, "name": c.Node.Name, "claim": c.Node.Properties["claim"],
			"requirement_ref": c.RequirementRef, "status": c.Status.Status, "reasons": c.Status.Reasons}
		if name, ok := c.Node.Properties["requirement_name"]; ok {
			e["requirement_name"] = name
		}
		claims = append(claims, e)
	}
	out := map[string]any{
		"requirement": nodeBrief(v.Requirement), "verified": v.Verified, "related_count": v.Related,
		"evidence": evidence, "claims": claims, "walked": map[string]any{
			"edges": []string{twin.EdgeVerifies, twin.EdgeSupports}, "direction": "incoming", "into": t.Refs()},
	}
	if len(v.Other) > 0 {
		others := []map[string]any{}
		for _, o := range v.Other {
			e := nodeBrief(o.Node)
			e["edge"], e["requirement_ref"] = o.Edge, o.RequirementRef
			others = append(others, e)
		}
		out["other"] = others
	}
	if t.Item != nil {
		out["head_ref"] = t.Item.HeadRef()
	}
	if v.Note != "" {
		out["note"] = v.Note
	}
	return out, nil
}

// ---------------------------------------------------------------- where_used

func whereUsed(ctx context.Context, b *Backend, a nodeOrKey) (any, error) {
	t, err := resolveTarget(ctx, b, a)
	if err != nil {
		return nil, err
	}
	u, err := twin.WhereUsed(ctx, b.Store, t)
	if err != nil {
		return nil, err
	}
	groups := map[string][]map[string]any{}
	for edge, users := range u.UsedBy {
		list := []map[string]any{}
		for _, user := range users {
			e := nodeBrief(user.Node)
			e["uses"] = user.Uses
			if user.UsesCurrent != nil {
				e["uses_current"] = *user.UsesCurrent
			}
			if user.IsCurrentRevision != nil {
				e["is_current_revision"] = *user.IsCurrentRevision
			}
			if user.Stale != nil {
				e["stale"] = *user.Stale
			}
			list = append(list, e)
		}
		groups[edge] = list
	}
	out := map[string]any{
		"part": nodeBrief(u.Part), "used_by": groups, "related_count": u.Related,
		"walked": map[string]any{"edges": twin.UsedByEdges, "direction": "incoming", "into": t.Refs()},
	}
	if t.Item != nil {
		out["head_ref"] = t.Item.HeadRef()
	}
	if u.Note != "" {
		out["note"] = u.Note
	}
	return out, nil
}

// ----------------------------------------------------------- find_by_property

type findByPropertyArgs struct {
	project.Scope
	Key          string          `json:"key" jsonschema:"the property: material, kind, metric, document_type, data.solver..."`
	Value        json.RawMessage `json:"value" jsonschema:"the value it must equal"`
	NodeType     string          `json:"node_type,omitempty" jsonschema:"only nodes of this type: cad_model, constraint_set, evidence, claim, decision, risk..."`
	AllRevisions bool            `json:"all_revisions,omitempty" jsonschema:"also search earlier revisions of items"`
}

func findByProperty(ctx context.Context, b *Backend, a findByPropertyArgs) (any, error) {
	a.Key = strings.TrimSpace(a.Key)
	if a.Key == "" {
		return nil, protocol.Refusal("Missing: key, the property to match")
	}
	var want any
	if err := json.Unmarshal(a.Value, &want); err != nil || want == nil {
		return nil, protocol.Refusal("value must be a string, number or boolean")
	}
	switch want.(type) {
	case string, float64, bool:
	default:
		return nil, protocol.Refusal("value must be a string, number or boolean, not %s", string(a.Value))
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	m, err := twin.FindByProperty(ctx, b.Store, twin.PropertyQuery{ProjectID: p.ID, Key: a.Key, Value: want, NodeType: a.NodeType,
		AllRevisions: a.AllRevisions})
	if err != nil {
		return nil, err
	}
	found := []map[string]any{}
	for _, f := range m.Nodes {
		e := nodeBrief(f.Node)
		e["value"] = f.Value
		if f.IsCurrentRevision != nil {
			e["is_current_revision"] = *f.IsCurrentRevision
		}
		found = append(found, e)
	}
	out := map[string]any{"project_id": p.ID, "key": a.Key, "value": want, "nodes": found, "count": len(found), "truncated": m.Truncated,
		"all_revisions": a.AllRevisions}
	if a.NodeType != "" {
		out["node_type"] = a.NodeType
	}
	if len(found) == 0 {
		scope := "current revisions and records"
		if a.AllRevisions {
			scope = "all revisions and records"
		}
		out["note"] = fmt.Sprintf("no node has %s = %s (searched %s: %s)", a.Key, string(a.Value), scope, strings.Join(m.Searched, ", "))
	}
	return out, nil
}
