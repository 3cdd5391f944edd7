package twin

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Reading a product hierarchy. A parent's CONTAINS edges point at the
// revision of each child that was current when the edge was made; a child
// revised since is read as its item's head. The edges of every revision
// of the parent are read, not only its head's: a child added to the head
// while the parent was being revised lands on the revision that was head
// then, and must not drop out of the tree. A child whose head names
// another parent (parent_key) has moved there, and its old edge is not
// read. The edge to a child's newest revision gives its quantity and
// placement, from the newest parent revision that has one.

// containedChild is a position as its parent contains it.
type containedChild struct {
	node      Node // the child item's head
	quantity  int
	placement *Placement
}

// hierarchyChildren are the positions a position contains, in the order
// their items were made.
func hierarchyChildren(ctx context.Context, s Store, parent Node) ([]containedChild, error) {
	nbs, err := containsEdgesOfItem(ctx, s, parent)
	if err != nil {
		return nil, err
	}
	newest := map[string]Neighbor{}
	for _, nb := range nbs {
		if nb.Node.Type != HierarchyNodeType || nb.Node.ItemKey == "" {
			continue
		}
		if cur, seen := newest[nb.Node.ItemKey]; !seen || nb.Node.Revision > cur.Node.Revision {
			newest[nb.Node.ItemKey] = nb
		}
	}
	type entry struct {
		child containedChild
		item  Item
	}
	var found []entry
	for key, nb := range newest {
		it, err := s.GetItem(ctx, parent.ProjectID, key)
		if err != nil {
			return nil, err
		}
		head, err := s.GetNode(ctx, it.HeadNodeID)
		if err != nil {
			return nil, err
		}
		if parentKeyOf(head) != parent.ItemKey {
			continue // moved under another parent
		}
		found = append(found, entry{containedChild{node: head, quantity: quantityOf(nb.Edge.Properties),
			placement: placementOf(nb.Edge.Properties[placementProperty])}, it})
	}
	sort.Slice(found, func(i, j int) bool {
		if !found[i].item.CreatedAt.Equal(found[j].item.CreatedAt) {
			return found[i].item.CreatedAt.Before(found[j].item.CreatedAt)
		}
		return found[i].item.Key < found[j].item.Key
	})
	out := make([]containedChild, len(found))
	for i, e := range found {
		out[i] = e.child
	}
	return out, nil
}

// containsEdgesOfItem are the CONTAINS edges of every revision of the
// parent's item, the newest revision's first.
func containsEdgesOfItem(ctx context.Context, s Store, parent Node) ([]Neighbor, error) {
	revs := []Node{parent}
	if parent.ItemKey != "" {
		var err error
		if revs, err = s.Revisions(ctx, parent.ProjectID, parent.ItemKey); err != nil {
			return nil, err
		}
		slices.Reverse(revs)
	}
	var out []Neighbor
	for _, r := range revs {
		nbs, err := s.Neighbors(ctx, r.ID, Outgoing, EdgeContains)
		if err != nil {
			return nil, err
		}
		out = append(out, nbs...)
	}
	return out, nil
}

// parentKeyOf is the key of the item a position is contained by, or "".
func parentKeyOf(n Node) string {
	k, _ := n.Properties[parentKeyProperty].(string)
	return k
}

// positionHead is the head of a hierarchy_node item by key.
func positionHead(ctx context.Context, s Store, projectID, key string) (Node, error) {
	it, err := s.GetItem(ctx, projectID, key)
	if err != nil {
		return Node{}, err
	}
	return s.GetNode(ctx, it.HeadNodeID)
}

// placeOf is how a position sits in its parent: the parent's head, and the
// quantity and placement of the parent's edge to it; ok is false for a
// root.
func placeOf(ctx context.Context, s Store, n Node) (parent Node, c containedChild, ok bool, err error) {
	key := parentKeyOf(n)
	if key == "" {
		return Node{}, containedChild{}, false, nil
	}
	if parent, err = positionHead(ctx, s, n.ProjectID, key); err != nil {
		return Node{}, containedChild{}, false, fmt.Errorf("the parent %s of %s: %w", key, n.Ref(), err)
	}
	kids, err := hierarchyChildren(ctx, s, parent)
	if err != nil {
		return Node{}, containedChild{}, false, err
	}
	for _, k := range kids {
		if k.node.ItemKey == n.ItemKey {
			return parent, k, true, nil
		}
	}
	// Named as its parent, but no edge reaches it: quantity 1, no
	// placement.
	return parent, containedChild{node: n, quantity: 1}, true, nil
}

// ancestry is the chain of positions from n up to its root, n first. A
// chain that meets itself stops there.
func ancestry(ctx context.Context, s Store, n Node) ([]Node, error) {
	chain := []Node{n}
	seen := map[string]bool{n.ItemKey: true}
	for cur := n; parentKeyOf(cur) != ""; {
		next, err := positionHead(ctx, s, cur.ProjectID, parentKeyOf(cur))
		if err != nil {
			return nil, err
		}
		chain = append(chain, next)
		if seen[next.ItemKey] {
			break
		}
		seen[next.ItemKey] = true
		cur = next
	}
	return chain, nil
}

// refuseCycle refuses putting position child under parent when parent is
// child itself or sits below it, naming the loop it would close.
func refuseCycle(ctx context.Context, s Store, child, parent Node) error {
	chain, err := ancestry(ctx, s, parent)
	if err != nil {
		return err
	}
	for i, n := range chain {
		if n.ItemKey != child.ItemKey {
			continue
		}
		names := make([]string, 0, i+2)
		for j := i; j >= 0; j-- {
			names = append(names, positionName(chain[j]))
		}
		names = append(names, positionName(child))
		return Refusef("%s cannot be contained by %s: that would make a cycle (%s); choose a parent outside the branch of %s",
			positionName(child), positionName(parent), strings.Join(names, " > "), child.Name)
	}
	return nil
}

// realizationOf is the cad_model revision a position is REALIZED_BY and
// the BOM item revision it is an INSTANCE_OF, nil where it has none.
func realizationOf(ctx context.Context, s Store, n Node) (realizedBy, instanceOf *Node, err error) {
	nbs, err := s.Neighbors(ctx, n.ID, Outgoing, EdgeRealizedBy, EdgeInstanceOf)
	if err != nil {
		return nil, nil, err
	}
	for _, nb := range nbs {
		target := nb.Node
		switch nb.Edge.Type {
		case EdgeRealizedBy:
			realizedBy = &target
		case EdgeInstanceOf:
			instanceOf = &target
		}
	}
	return realizedBy, instanceOf, nil
}

// HierarchyRoots are the head revisions of the positions no position
// contains, in item order.
func HierarchyRoots(ctx context.Context, s Store, projectID string) ([]Node, error) {
	heads, err := HeadRevisions(ctx, s, projectID, HierarchyNodeType)
	if err != nil {
		return nil, err
	}
	var roots []Node
	for _, h := range heads {
		if parentKeyOf(h) == "" {
			roots = append(roots, h)
		}
	}
	return roots, nil
}

// treeNode is one position of a hierarchy as read for a roll-up or an
// EBOM.
type treeNode struct {
	node      Node
	quantity  int // on its parent's edge; 1 for the root
	total     int // quantities multiplied from the root down
	placement *Placement
	// realizedBy and instanceOf are the revisions it is linked to.
	realizedBy, instanceOf *Node
	// cycle marks a position met again below itself: nothing under it
	// is read.
	cycle    bool
	children []*treeNode
}

// readTree reads the branch under a position's head.
func readTree(ctx context.Context, s Store, head Node) (*treeNode, error) {
	return readBranch(ctx, s, containedChild{node: head, quantity: 1}, 1, map[string]bool{})
}

func readBranch(ctx context.Context, s Store, c containedChild, total int, path map[string]bool) (*treeNode, error) {
	t := &treeNode{node: c.node, quantity: c.quantity, total: total, placement: c.placement}
	if path[c.node.ItemKey] {
		t.cycle = true
		return t, nil
	}
	path[c.node.ItemKey] = true
	defer delete(path, c.node.ItemKey)
	var err error
	if t.realizedBy, t.instanceOf, err = realizationOf(ctx, s, c.node); err != nil {
		return nil, err
	}
	kids, err := hierarchyChildren(ctx, s, c.node)
	if err != nil {
		return nil, err
	}
	for _, k := range kids {
		kt, err := readBranch(ctx, s, k, total*k.quantity, path)
		if err != nil {
			return nil, err
		}
		t.children = append(t.children, kt)
	}
	return t, nil
}
