package digitaltwin

import (
	"context"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/twin"
)

// resolveRef finds the node a reference names within a project: KEY@n (that
// revision), KEY (the head), or a node id. Unknown references are errors
// naming them.
func resolveRef(ctx context.Context, b *Backend, projectID, ref string) (twin.Node, error) {
	ref = strings.TrimSpace(ref)
	if strings.HasPrefix(ref, "n-") {
		n, err := b.Store.GetNode(ctx, ref)
		if err != nil {
			return twin.Node{}, err
		}
		if n.ProjectID != projectID {
			return twin.Node{}, fmt.Errorf("%w: node %s is not in this project", twin.ErrNotFound, ref)
		}
		return n, nil
	}
	key, rev, err := twin.ParseItemRef(ref)
	if err != nil {
		return twin.Node{}, err
	}
	item, err := b.Store.GetItem(ctx, projectID, key)
	if err != nil {
		return twin.Node{}, fmt.Errorf("%w: %s names no item in this project", twin.ErrNotFound, ref)
	}
	if rev == 0 {
		return b.Store.GetNode(ctx, item.HeadNodeID)
	}
	revs, err := b.Store.Revisions(ctx, projectID, key)
	if err != nil {
		return twin.Node{}, err
	}
	for _, n := range revs {
		if n.Revision == rev {
			return n, nil
		}
	}
	return twin.Node{}, fmt.Errorf("%w: %s has no revision %d (its head is %s)", twin.ErrNotFound, key, rev, item.HeadRef())
}

// headRevisions is the current revision of every item of one type in a
// project, in the store's item order.
func headRevisions(ctx context.Context, b *Backend, projectID, itemType string) ([]twin.Node, error) {
	items, err := b.Store.Items(ctx, projectID)
	if err != nil {
		return nil, err
	}
	var out []twin.Node
	for _, it := range items {
		if it.ItemType != itemType {
			continue
		}
		n, err := b.Store.GetNode(ctx, it.HeadNodeID)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// written is what every definition write returns about its revision.
func written(n twin.Node, it twin.Item) map[string]any {
	return map[string]any{
		"node_id":  n.ID,
		"item_key": it.Key,
		"revision": n.Revision,
		"item_ref": n.Ref(),
		"name":     n.Name,
	}
}

// revisionWrite builds the store write shared by every definition tool.
func revisionWrite(ctx context.Context, projectID, itemType, name string, ik itemArgs, props map[string]any, links []twin.Link) twin.RevisionWrite {
	return twin.RevisionWrite{
		ProjectID: projectID, ItemType: itemType, Name: name,
		ItemKey: deref(ik.ItemKey), Supersedes: deref(ik.Supersedes), ChangeReason: deref(ik.ChangeReason),
		Author: author(ctx), Properties: props, Links: links, IdempotencyKey: callID(ctx),
	}
}

// itemArgs are the optional item arguments of a definition write; null and
// "" both mean not given.
type itemArgs struct {
	ItemKey      *string `json:"item_key"`
	Supersedes   *string `json:"supersedes"`
	ChangeReason *string `json:"change_reason"`
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}
