package twin

import (
	"context"
	"maps"
	"strings"
)

// RealizeWrite attaches or replaces what realises a position.
type RealizeWrite struct {
	ProjectID string
	// Position is the hierarchy_node: KEY (its head), KEY@n (asserting
	// the head is still n) or a node id.
	Position string
	// RealizedBy is a cad_model, InstanceOf a BOM item: KEY, KEY@n or a
	// node id; at least one is given.
	RealizedBy, InstanceOf string
	// WriteInfo's ChangeReason, Author and IdempotencyKey apply; the item
	// is Position's.
	WriteInfo
}

// Realization is a position's next revision with its new realisation,
// and what it replaced ("" where nothing was there, or nothing changed).
type Realization struct {
	HierarchyPosition
	ReplacedRealizedBy string `json:"replaced_realized_by,omitempty"`
	ReplacedInstanceOf string `json:"replaced_instance_of,omitempty"`
	// Previous is the revision it replaced.
	Previous string `json:"previous"`
}

// RealizeHierarchyNode writes the next revision of a position with its
// REALIZED_BY and/or INSTANCE_OF replaced (at most one of each), keeping
// its place and children, so the item's history shows both.
func RealizeHierarchyNode(ctx context.Context, s Store, w RealizeWrite) (Realization, error) {
	w.RealizedBy, w.InstanceOf = strings.TrimSpace(w.RealizedBy), strings.TrimSpace(w.InstanceOf)
	if w.RealizedBy == "" && w.InstanceOf == "" {
		return Realization{}, Refusef("Missing: realized_by or instance_of. Name the cad_model that realises the position, " +
			"the BOM item it is an instance of, or both")
	}
	if strings.TrimSpace(w.Position) == "" {
		return Realization{}, Refusef("Missing: node. Name the position to realise: KEY, KEY@n or its node id")
	}
	named, err := ResolveRef(ctx, s, w.ProjectID, w.Position)
	if err != nil {
		return Realization{}, err
	}
	if named.Type != HierarchyNodeType {
		return Realization{}, Refusef("node %s is a %s, not a hierarchy_node: name a position recorded with twin.record_hierarchy_node",
			w.Position, named.Type)
	}
	head, err := positionHead(ctx, s, w.ProjectID, named.ItemKey)
	if err != nil {
		return Realization{}, err
	}
	pos, err := currentPlace(ctx, s, head)
	if err != nil {
		return Realization{}, err
	}
	if w.RealizedBy != "" {
		n, err := resolveRealization(ctx, s, w.ProjectID, "realized_by", w.RealizedBy, "cad_model")
		if err != nil {
			return Realization{}, err
		}
		pos.realizedBy = &n
	}
	if w.InstanceOf != "" {
		n, err := resolveRealization(ctx, s, w.ProjectID, "instance_of", w.InstanceOf, "component_selection")
		if err != nil {
			return Realization{}, err
		}
		pos.instanceOf = &n
	}
	wi := WriteInfo{ChangeReason: w.ChangeReason, Author: w.Author, IdempotencyKey: w.IdempotencyKey, ItemKey: head.Ref()}
	if _, rev, _ := ParseItemRef(w.Position); rev > 0 {
		wi.ItemKey = named.Ref() // the caller's assertion: stale if the head moved
	}
	if wi.ChangeReason == "" {
		var what []string
		if pos.realizedBy != nil && w.RealizedBy != "" {
			what = append(what, "realized by "+pos.realizedBy.Ref())
		}
		if pos.instanceOf != nil && w.InstanceOf != "" {
			what = append(what, "an instance of "+pos.instanceOf.Ref())
		}
		wi.ChangeReason = strings.Join(what, ", ")
	}
	n, it, err := writePosition(ctx, s, w.ProjectID, head.Name, maps.Clone(head.Properties), pos, head, true, wi)
	if err != nil {
		return Realization{}, err
	}
	return describeRealization(ctx, s, n, it)
}

// describeRealization reads a realisation back, comparing it with the
// revision before it, so a repeated call reports what the first did.
func describeRealization(ctx context.Context, s Store, n Node, it Item) (Realization, error) {
	hp, err := describePosition(ctx, s, n, it)
	if err != nil {
		return Realization{}, err
	}
	out := Realization{HierarchyPosition: hp}
	before, err := s.Neighbors(ctx, n.ID, Outgoing, EdgeRevisionOf)
	if err != nil || len(before) == 0 {
		return out, err
	}
	prev := before[0].Node
	out.Previous = prev.Ref()
	oldBy, oldOf, err := realizationOf(ctx, s, prev)
	if err != nil {
		return Realization{}, err
	}
	if oldBy != nil && oldBy.Ref() != hp.RealizedBy {
		out.ReplacedRealizedBy = oldBy.Ref()
	}
	if oldOf != nil && oldOf.Ref() != hp.InstanceOf {
		out.ReplacedInstanceOf = oldOf.Ref()
	}
	return out, nil
}
