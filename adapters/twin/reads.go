package twin

import (
	"context"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

func getNodeTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.get_node", Name: "Get a twin node", Capability: "twin_read",
		Description: "A node by node_id, or by item_key (KEY for the current revision, KEY@n for that one), with its first-hop neighbours. " +
			"Evidence says whether it is stale.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, getNode)
}

func itemHistoryTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.item_history", Name: "Item history", Capability: "twin_read",
		Description: "Every revision of one item, oldest first, by item_key or the node_id of any of its revisions: revision, node id, " +
			"name, change_reason, author and which one is the head.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, itemHistory)
}

type nodeOrKey struct {
	project.Scope
	NodeID  string `json:"node_id,omitempty"`
	ItemKey string `json:"item_key,omitempty"`
}

// node resolves node_id or item_key; exactly one must be given.
func (a nodeOrKey) node(ctx context.Context, b *Backend) (twin.Node, error) {
	switch {
	case a.NodeID != "" && a.ItemKey != "":
		return twin.Node{}, protocol.Refusal("pass node_id or item_key, not both")
	case a.NodeID != "":
		return b.Store.GetNode(ctx, a.NodeID)
	case a.ItemKey != "":
		p, err := projectFor(ctx, b, a.ProjectID)
		if err != nil {
			return twin.Node{}, err
		}
		return twin.ResolveRef(ctx, b.Store, p.ID, a.ItemKey)
	}
	return twin.Node{}, protocol.Refusal("Missing: node_id or item_key")
}

func getNode(ctx context.Context, b *Backend, a nodeOrKey) (any, error) {
	n, err := a.node(ctx, b)
	if err != nil {
		return nil, err
	}
	neighbors, err := b.Store.Neighbors(ctx, n.ID, twin.Both)
	if err != nil {
		return nil, err
	}
	var related []map[string]any
	for _, nb := range neighbors {
		dir := "outgoing"
		if nb.Edge.To == n.ID {
			dir = "incoming"
		}
		r := nodeBrief(nb.Node)
		r["edge"], r["direction"] = nb.Edge.Type, dir
		related = append(related, r)
	}
	if related == nil {
		related = []map[string]any{}
	}
	out := map[string]any{"node": n, "related": related, "related_count": len(related)}
	if n.ItemKey != "" {
		it, err := b.Store.ItemOfNode(ctx, n.ID)
		if err != nil {
			return nil, err
		}
		out["item_ref"] = n.Ref()
		out["is_head"] = it.HeadNodeID == n.ID
		out["head_ref"] = it.HeadRef()
	}
	switch n.Type {
	case "evidence":
		f, err := twin.Staleness(ctx, b.Store, n.ID)
		if err != nil {
			return nil, err
		}
		out["stale"], out["stale_against"] = f.Stale, f.Against
	case "claim":
		// A claim's status is never stored: it is what its evidence says now.
		st, err := twin.StatusOfClaim(ctx, b.Store, n.ID)
		if err != nil {
			return nil, err
		}
		out["status"], out["status_reasons"] = st.Status, st.Reasons
	}
	return out, nil
}

func itemHistory(ctx context.Context, b *Backend, a nodeOrKey) (any, error) {
	var it twin.Item
	switch {
	case a.NodeID != "" && a.ItemKey != "":
		return nil, protocol.Refusal("pass item_key or node_id, not both")
	case a.NodeID != "":
		found, err := b.Store.ItemOfNode(ctx, a.NodeID)
		if err != nil {
			return nil, err
		}
		it = found
	case a.ItemKey != "":
		p, err := projectFor(ctx, b, a.ProjectID)
		if err != nil {
			return nil, err
		}
		key, _, err := twin.ParseItemRef(a.ItemKey)
		if err != nil {
			return nil, err
		}
		found, err := b.Store.GetItem(ctx, p.ID, key)
		if err != nil {
			return nil, fmt.Errorf("%w: %s names no item in this project", twin.ErrNotFound, a.ItemKey)
		}
		it = found
	default:
		return nil, protocol.Refusal("Missing: item_key or node_id")
	}
	revs, err := b.Store.Revisions(ctx, it.ProjectID, it.Key)
	if err != nil {
		return nil, err
	}
	var list []map[string]any
	for _, n := range revs {
		var reason any
		if n.ChangeReason != "" {
			reason = n.ChangeReason
		}
		list = append(list, map[string]any{
			"revision": n.Revision, "node_id": n.ID, "name": n.Name, "change_reason": reason,
			"author": n.Author, "status": "committed", "is_head": n.ID == it.HeadNodeID, "created_at": n.CreatedAt,
		})
	}
	return map[string]any{
		"item": map[string]any{
			"key": it.Key, "item_type": it.ItemType, "name": it.Name, "project_id": it.ProjectID,
			"head_revision": it.HeadRevision, "head_node_id": it.HeadNodeID, "head_ref": it.HeadRef(),
			"created_at": it.CreatedAt, "updated_at": it.UpdatedAt,
		},
		"revisions": list,
		"current":   map[string]any{"revision": it.HeadRevision, "node_id": it.HeadNodeID, "ref": it.HeadRef()},
	}, nil
}
