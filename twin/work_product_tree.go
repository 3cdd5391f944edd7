package twin

import (
	"context"
	"sort"
	"time"
)

// The work-product tree: a project's items as a person browses them, one
// branch per item type, each item at its head revision (KEY@n). Positions
// of the product hierarchy nest under the position that contains them
// (their head's parent_key), so the tree shows the product as built; every
// other item is a leaf of its type's branch. It is read from the graph each
// time, never stored.

// TreeItem is one item of the tree at its head revision.
type TreeItem struct {
	Key          string    `json:"key"`
	ItemType     string    `json:"item_type"`
	Name         string    `json:"name"`
	Ref          string    `json:"ref"`
	HeadRevision int       `json:"head_revision"`
	HeadNodeID   string    `json:"head_node_id"`
	UpdatedAt    time.Time `json:"updated_at"`
	// Level is a hierarchy position's level (product, assembly, part...).
	Level    string     `json:"level,omitempty"`
	Children []TreeItem `json:"children,omitempty"`
}

// TreeBranch is the items of one type, in key order (hierarchy
// positions: the roots, each with its branch).
type TreeBranch struct {
	ItemType string     `json:"item_type"`
	Count    int        `json:"count"`
	Items    []TreeItem `json:"items"`
}

// WorkProductTree is a project's items, one branch per item type in type
// order.
func WorkProductTree(ctx context.Context, s Store, projectID string) ([]TreeBranch, error) {
	items, err := s.Items(ctx, projectID)
	if err != nil {
		return nil, err
	}
	byType := map[string][]Item{}
	for _, it := range items {
		byType[it.ItemType] = append(byType[it.ItemType], it)
	}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	sort.Strings(types)
	out := []TreeBranch{}
	for _, t := range types {
		b := TreeBranch{ItemType: t, Count: len(byType[t])}
		if t == HierarchyNodeType {
			if b.Items, err = positionTree(ctx, s, byType[t]); err != nil {
				return nil, err
			}
		} else {
			for _, it := range byType[t] {
				b.Items = append(b.Items, treeItemOf(it))
			}
		}
		out = append(out, b)
	}
	return out, nil
}

func treeItemOf(it Item) TreeItem {
	return TreeItem{Key: it.Key, ItemType: it.ItemType, Name: it.Name, Ref: it.HeadRef(), HeadRevision: it.HeadRevision,
		HeadNodeID: it.HeadNodeID, UpdatedAt: it.UpdatedAt}
}

// positionTree nests hierarchy positions under the position their head
// names as parent. A position whose parent is not among them (or that
// sits in a cycle, which recording refuses but a graph may still hold) is
// shown as a root, so no item drops out of the tree.
func positionTree(ctx context.Context, s Store, items []Item) ([]TreeItem, error) {
	nodes := map[string]TreeItem{}
	parent := map[string]string{}
	for _, it := range items {
		head, err := s.GetNode(ctx, it.HeadNodeID)
		if err != nil {
			return nil, err
		}
		wp := treeItemOf(it)
		wp.Level, _ = head.Properties["level"].(string)
		nodes[it.Key] = wp
		parent[it.Key] = parentKeyOf(head)
	}
	children := map[string][]string{}
	var roots []string
	for _, it := range items { // key order
		p := parent[it.Key]
		if _, ok := nodes[p]; ok && p != it.Key && !reaches(parent, p, it.Key) {
			children[p] = append(children[p], it.Key)
		} else {
			roots = append(roots, it.Key)
		}
	}
	var build func(key string) TreeItem
	build = func(key string) TreeItem {
		wp := nodes[key]
		for _, c := range children[key] {
			wp.Children = append(wp.Children, build(c))
		}
		return wp
	}
	out := make([]TreeItem, 0, len(roots))
	for _, r := range roots {
		out = append(out, build(r))
	}
	return out, nil
}

// reaches says whether following parents up from key arrives at target
// (a cycle through target).
func reaches(parent map[string]string, key, target string) bool {
	seen := map[string]bool{}
	for k := key; k != "" && !seen[k]; k = parent[k] {
		if k == target {
			return true
		}
		seen[k] = true
	}
	return false
}
