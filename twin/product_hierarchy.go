package twin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
)

// HierarchyNodeWrite is a position to record: a new one, or the next
// revision of the item it names (WriteInfo, else the position of the same
// name). A field left empty on a revision keeps its previous value.
type HierarchyNodeWrite struct {
	ProjectID string
	Name      string
	// Level is one of HierarchyLevels; required for a new position.
	Level       string
	Description string
	// Parent is the position that contains this one: KEY, KEY@n or a node
	// id of a hierarchy_node (read as its item's head). Empty: a root, or
	// on a revision, where it was.
	Parent string
	// Quantity is how many of this position its parent holds (nil: 1,
	// or on a revision what it was); Placement where it sits in the
	// parent's frame.
	Quantity  *int
	Placement *Placement
	// Power is a leaf's draw; Joints an assembly's joints.
	Power  *Power
	Joints []Joint
	// RealizedBy is a cad_model, InstanceOf a BOM item (a
	// component_selection): KEY, KEY@n or a node id, pinned as that
	// revision. Recording sets them where the position has none;
	// replacing one is RealizeHierarchyNode's.
	RealizedBy, InstanceOf string
	WriteInfo
}

// Check refuses a write with no name, an unknown level, a quantity below
// one, bad power figures or bad joints, before anything is read.
func (w HierarchyNodeWrite) Check() error {
	if strings.TrimSpace(w.Name) == "" {
		return Refusef("name is blank: name the position (\"Robot arm\", \"Shoulder subsystem\", \"Base plate\")")
	}
	if w.Level != "" {
		if err := checkLevel(w.Level); err != nil {
			return err
		}
	}
	if w.Quantity != nil && *w.Quantity < 1 {
		return Refusef("quantity %d: a parent holds at least one of each position it contains", *w.Quantity)
	}
	if w.Power != nil {
		if err := w.Power.check(); err != nil {
			return err
		}
	}
	return CheckJoints(w.Joints)
}

// HierarchyPosition is a recorded position: its revision, where it sits,
// what realises it and what it contains.
type HierarchyPosition struct {
	Node Node `json:"node"`
	Item Item `json:"item"`
	// Parent is the parent's ref (its head when this was read), "" for a
	// root.
	Parent    string     `json:"parent,omitempty"`
	Quantity  int        `json:"quantity"`
	Placement *Placement `json:"placement,omitempty"`
	// RealizedBy and InstanceOf are the refs of the revisions it is
	// linked to, "" for none.
	RealizedBy string `json:"realized_by,omitempty"`
	InstanceOf string `json:"instance_of,omitempty"`
	// Children are the refs of the positions it contains.
	Children []string `json:"children"`
}

// RecordHierarchyNode records a position in the product hierarchy, nested
// under its parent by the parent's CONTAINS {quantity, placement} edge,
// made in the same write. A revision keeps its children (its CONTAINS
// edges are copied to it) and its place; a parent under the position
// itself is refused, naming the cycle.
func RecordHierarchyNode(ctx context.Context, s Store, w HierarchyNodeWrite) (HierarchyPosition, error) {
	w.Name = strings.TrimSpace(w.Name)
	if err := w.Check(); err != nil {
		return HierarchyPosition{}, err
	}
	prev, revising, err := revisedPosition(ctx, s, w.ProjectID, w.Name, w.WriteInfo)
	if err != nil {
		return HierarchyPosition{}, err
	}
	props := map[string]any{}
	if revising {
		props = maps.Clone(prev.Properties)
	}
	if w.Level != "" {
		props["level"] = w.Level
	}
	if props["level"] == nil {
		return HierarchyPosition{}, Refusef("level is missing: a new position is one of %s", strings.Join(HierarchyLevels, ", "))
	}
	if w.Description != "" {
		props["description"] = w.Description
	}
	if w.Power != nil {
		props[powerProperty] = w.Power.value()
	}
	if w.Joints != nil {
		text, err := JointsValue(w.Joints)
		if err != nil {
			return HierarchyPosition{}, err
		}
		props[JointsProperty] = text
	}

	pos := position{quantity: 1}
	if revising {
		if pos, err = currentPlace(ctx, s, prev); err != nil {
			return HierarchyPosition{}, err
		}
	}
	if w.Parent != "" {
		parent, err := resolvePosition(ctx, s, w.ProjectID, "parent", w.Parent)
		if err != nil {
			return HierarchyPosition{}, err
		}
		if revising {
			if err := refuseCycle(ctx, s, prev, parent); err != nil {
				return HierarchyPosition{}, err
			}
		}
		if pos.parent == nil || pos.parent.ItemKey != parent.ItemKey {
			// Moved: the old placement was in another parent's frame.
			pos.placement = nil
		}
		pos.parent = &parent
	}
	if pos.parent == nil && (w.Quantity != nil || w.Placement != nil) {
		return HierarchyPosition{}, Refusef("quantity and placement are on the parent's CONTAINS edge, and %q has no parent: "+
			"give parent, or leave them out for a root", w.Name)
	}
	if w.Quantity != nil {
		pos.quantity = *w.Quantity
	}
	if w.Placement != nil {
		p := *w.Placement
		pos.placement = &p
	}

	if w.RealizedBy != "" {
		n, err := resolveRealization(ctx, s, w.ProjectID, "realized_by", w.RealizedBy, "cad_model")
		if err != nil {
			return HierarchyPosition{}, err
		}
		if err := refuseReplacing("realized_by", pos.realizedBy, n); err != nil {
			return HierarchyPosition{}, err
		}
		pos.realizedBy = &n
	}
	if w.InstanceOf != "" {
		n, err := resolveRealization(ctx, s, w.ProjectID, "instance_of", w.InstanceOf, "component_selection")
		if err != nil {
			return HierarchyPosition{}, err
		}
		if err := refuseReplacing("instance_of", pos.instanceOf, n); err != nil {
			return HierarchyPosition{}, err
		}
		pos.instanceOf = &n
	}

	wi := w.WriteInfo
	if revising {
		wi = assertHead(wi, prev)
	}
	n, it, err := writePosition(ctx, s, w.ProjectID, w.Name, props, pos, prev, revising, wi)
	if err != nil {
		return HierarchyPosition{}, err
	}
	return describePosition(ctx, s, n, it)
}

// position is where a position sits and what realises it, as a write
// carries them forward.
type position struct {
	parent                 *Node // the parent's head
	quantity               int
	placement              *Placement
	realizedBy, instanceOf *Node
}

// currentPlace is the place and realisation a position has now.
func currentPlace(ctx context.Context, s Store, n Node) (position, error) {
	var pos position
	parent, c, ok, err := placeOf(ctx, s, n)
	if err != nil {
		return position{}, err
	}
	pos.quantity = 1
	if ok {
		pos.parent, pos.quantity, pos.placement = &parent, c.quantity, c.placement
	}
	pos.realizedBy, pos.instanceOf, err = realizationOf(ctx, s, n)
	return pos, err
}

// writePosition commits a position's revision: its links (the children it
// keeps, what realises it) and its parent's CONTAINS edge into it, in one
// write.
func writePosition(ctx context.Context, s Store, projectID, name string, props map[string]any, pos position, prev Node, revising bool,
	wi WriteInfo) (Node, Item, error) {
	delete(props, parentKeyProperty)
	var incoming []Link
	if pos.parent != nil {
		props[parentKeyProperty] = pos.parent.ItemKey
		incoming = append(incoming, Link{Type: EdgeContains, To: pos.parent.ID, Properties: containsProps(pos.quantity, pos.placement)})
	}
	var links []Link
	if revising {
		kids, err := hierarchyChildren(ctx, s, prev)
		if err != nil {
			return Node{}, Item{}, err
		}
		for _, k := range kids {
			links = append(links, Link{Type: EdgeContains, To: k.node.ID, Properties: containsProps(k.quantity, k.placement)})
		}
	}
	if pos.realizedBy != nil {
		links = append(links, Link{Type: EdgeRealizedBy, To: pos.realizedBy.ID, Properties: map[string]any{"ref": pos.realizedBy.Ref()}})
	}
	if pos.instanceOf != nil {
		links = append(links, Link{Type: EdgeInstanceOf, To: pos.instanceOf.ID, Properties: map[string]any{"ref": pos.instanceOf.Ref()}})
	}
	rw := wi.Revision(projectID, HierarchyNodeType, name, props, links)
	rw.Incoming = incoming
	return s.CommitRevision(ctx, rw)
}

// assertHead makes a revision's write name the head it was read from, so a
// revision made meanwhile (whose children this one would not carry) makes
// it stale rather than lost. A KEY@n the caller gave is kept: the store
// checks it.
func assertHead(wi WriteInfo, head Node) WriteInfo {
	if _, rev, err := ParseItemRef(wi.ItemKey); err == nil && rev > 0 {
		return wi
	}
	wi.ItemKey, wi.Supersedes = head.Ref(), ""
	return wi
}

// revisedPosition is the head of the position a write revises, as the
// store would resolve it (item key, supersedes, else the position of the
// same name); revising is false for a new one.
func revisedPosition(ctx context.Context, s Store, projectID, name string, wi WriteInfo) (head Node, revising bool, err error) {
	var key string
	switch {
	case wi.ItemKey != "":
		if key, _, err = ParseItemRef(wi.ItemKey); err != nil {
			return Node{}, false, err
		}
	case wi.Supersedes != "":
		n, err := s.GetNode(ctx, wi.Supersedes)
		if err != nil || n.ProjectID != projectID {
			return Node{}, false, fmt.Errorf("%w: supersedes %s: no such node in this project", ErrNotFound, wi.Supersedes)
		}
		key = n.ItemKey
	default:
		items, err := s.Items(ctx, projectID)
		if err != nil {
			return Node{}, false, err
		}
		for _, it := range items {
			if it.ItemType == HierarchyNodeType && strings.EqualFold(it.Name, name) {
				key = it.Key
				break
			}
		}
	}
	if key == "" {
		return Node{}, false, nil
	}
	it, err := s.GetItem(ctx, projectID, key)
	if errors.Is(err, ErrNotFound) {
		return Node{}, false, nil // a new item's key; the store refuses KEY@n
	}
	if err != nil {
		return Node{}, false, err
	}
	if it.ItemType != HierarchyNodeType {
		return Node{}, false, Refusef("%s is a %s, not a hierarchy_node: name a position, or leave item_key out to start one", it.Key, it.ItemType)
	}
	head, err = s.GetNode(ctx, it.HeadNodeID)
	return head, err == nil, err
}

// resolvePosition finds the head of the position a ref names (KEY, KEY@n,
// node id), refusing anything that is not a hierarchy_node.
func resolvePosition(ctx context.Context, s Store, projectID, field, ref string) (Node, error) {
	n, err := ResolveRef(ctx, s, projectID, ref)
	if err != nil {
		return Node{}, fmt.Errorf("%s %s: %w", field, ref, err)
	}
	if n.Type != HierarchyNodeType {
		return Node{}, Refusef("%s %s is a %s, not a hierarchy_node: name a position recorded with twin.record_hierarchy_node", field, ref, n.Type)
	}
	return positionHead(ctx, s, projectID, n.ItemKey)
}

// resolveRealization finds the revision a realized_by or instance_of ref
// names, refusing one of another type.
func resolveRealization(ctx context.Context, s Store, projectID, field, ref, wantType string) (Node, error) {
	n, err := ResolveRef(ctx, s, projectID, ref)
	if err != nil {
		return Node{}, fmt.Errorf("%s %s: %w", field, ref, err)
	}
	if n.Type != wantType {
		hint := "a CAD model committed with twin.commit_geometry"
		if wantType == "component_selection" {
			hint = "a BOM item recorded with twin.record_component_selection"
		}
		return Node{}, Refusef("%s %s is a %s, not a %s: name %s", field, ref, n.Type, wantType, hint)
	}
	return n, nil
}

// refuseReplacing refuses recording a realisation over another one: that
// is a replacement, twin.realize_hierarchy_node's.
func refuseReplacing(field string, have *Node, want Node) error {
	if have == nil || have.ID == want.ID {
		return nil
	}
	return Refusef("the position is already %s %s; replacing it with %s is twin.realize_hierarchy_node's (it keeps the history)",
		field, have.Ref(), want.Ref())
}

// describePosition reads a position's revision back: where it sits, what
// realises it, what it contains.
func describePosition(ctx context.Context, s Store, n Node, it Item) (HierarchyPosition, error) {
	pos, err := currentPlace(ctx, s, n)
	if err != nil {
		return HierarchyPosition{}, err
	}
	out := HierarchyPosition{Node: n, Item: it, Quantity: pos.quantity, Placement: pos.placement, Children: []string{}}
	if pos.parent != nil {
		out.Parent = pos.parent.Ref()
	}
	if pos.realizedBy != nil {
		out.RealizedBy = pos.realizedBy.Ref()
	}
	if pos.instanceOf != nil {
		out.InstanceOf = pos.instanceOf.Ref()
	}
	kids, err := hierarchyChildren(ctx, s, n)
	if err != nil {
		return HierarchyPosition{}, err
	}
	for _, k := range kids {
		out.Children = append(out.Children, k.node.Ref())
	}
	return out, nil
}
