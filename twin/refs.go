package twin

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ResolveRef finds the node a reference names within a project: KEY@n
// (that revision), KEY (the head), or a node id. Unknown references are
// ErrNotFound naming them.
func ResolveRef(ctx context.Context, s Store, projectID, ref string) (Node, error) {
	ref = strings.TrimSpace(ref)
	if strings.HasPrefix(ref, "n-") {
		n, err := s.GetNode(ctx, ref)
		if err != nil {
			return Node{}, err
		}
		if n.ProjectID != projectID {
			return Node{}, fmt.Errorf("%w: node %s is not in this project", ErrNotFound, ref)
		}
		return n, nil
	}
	key, rev, err := ParseItemRef(ref)
	if err != nil {
		return Node{}, err
	}
	item, err := s.GetItem(ctx, projectID, key)
	if err != nil {
		return Node{}, fmt.Errorf("%w: %s names no item in this project", ErrNotFound, ref)
	}
	if rev == 0 {
		return s.GetNode(ctx, item.HeadNodeID)
	}
	revs, err := s.Revisions(ctx, projectID, key)
	if err != nil {
		return Node{}, err
	}
	for _, n := range revs {
		if n.Revision == rev {
			return n, nil
		}
	}
	return Node{}, fmt.Errorf("%w: %s has no revision %d (its head is %s)", ErrNotFound, key, rev, item.HeadRef())
}

// ResolveRefAnywhere resolves an item ref no project is named for: in the
// one project that has the item. An item in several projects is a refusal
// naming them.
func ResolveRefAnywhere(ctx context.Context, s Store, ref string) (Node, error) {
	key, _, err := ParseItemRef(ref)
	if err != nil {
		return Node{}, err
	}
	projects, err := s.ListProjects(ctx)
	if err != nil {
		return Node{}, err
	}
	var in []Project
	for _, p := range projects {
		if _, err := s.GetItem(ctx, p.ID, key); err == nil {
			in = append(in, p)
		} else if !errors.Is(err, ErrNotFound) {
			return Node{}, err
		}
	}
	switch len(in) {
	case 0:
		return Node{}, fmt.Errorf("%w: %s names no item in any project", ErrNotFound, ref)
	case 1:
		return ResolveRef(ctx, s, in[0].ID, ref)
	}
	names := make([]string, len(in))
	for i, p := range in {
		names[i] = p.Name + " (" + p.ID + ")"
	}
	return Node{}, Refusef("%s is an item in %d projects (%s): pass project_id, or the revision's node id", ref, len(in), strings.Join(names, ", "))
}

// HeadRevisions is the current revision of every item of one type in a
// project, in the store's item order.
func HeadRevisions(ctx context.Context, s Store, projectID, itemType string) ([]Node, error) {
	items, err := s.Items(ctx, projectID)
	if err != nil {
		return nil, err
	}
	var out []Node
	for _, it := range items {
		if it.ItemType != itemType {
			continue
		}
		n, err := s.GetNode(ctx, it.HeadNodeID)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// RefOrID names the node by its item ref, or by its id when it is a
// record.
func (n Node) RefOrID() string {
	if ref := n.Ref(); ref != "" {
		return ref
	}
	return n.ID
}

// Label names the node in a sentence: its item ref, or its type and name.
func (n Node) Label() string {
	if ref := n.Ref(); ref != "" {
		return ref
	}
	return fmt.Sprintf("%s %q (%s)", n.Type, n.Name, n.ID)
}
