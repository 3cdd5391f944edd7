package twin

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// CommitRevision implements Store.
func (s *Neo4jStore) CommitRevision(ctx context.Context, w RevisionWrite) (Node, Item, error) {
	type result struct {
		n  Node
		it Item
	}
	propsJSON, err := encodeProps("revision of "+w.Name, w.Properties)
	if err != nil {
		return Node{}, Item{}, err
	}
	edges, err := encodeRevisionEdges(w)
	if err != nil {
		return Node{}, Item{}, err
	}
	r, err := writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (result, error) {
		// A repeat returns what the first write made, whatever else it
		// asks; it is checked again once the project is locked, in case
		// the first write committed meanwhile.
		if n, ok, err := nodeByCall(ctx, tx, w.IdempotencyKey); err != nil || ok {
			it, err := repeatedRevision(ctx, tx, n, err)
			return result{n, it}, err
		}
		if ok, err := lockProject(ctx, tx, w.ProjectID); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: no project %s", ErrNotFound, w.ProjectID)
			}
			return result{}, err
		}
		if n, ok, err := nodeByCall(ctx, tx, w.IdempotencyKey); err != nil || ok {
			it, err := repeatedRevision(ctx, tx, n, err)
			return result{n, it}, err
		}
		item, isNew, err := resolveItem(ctx, tx, w)
		if err != nil {
			return result{}, err
		}
		if err := checkRevisionEdges(ctx, tx, w); err != nil {
			return result{}, err
		}

		// Everything is checked: write.
		n, err := writeRevision(ctx, tx, w, &item, isNew, propsJSON, edges)
		if err != nil {
			return result{}, err
		}
		return result{n, item}, nil
	})
	return r.n, r.it, err
}

// revisionEdges are a revision write's links, from the new node (out) and
// into it (in), as parameters for createEdges and createIncomingEdges.
type revisionEdges struct{ out, in []map[string]any }

// encodeRevisionEdges checks and encodes a write's links and incoming
// edges.
func encodeRevisionEdges(w RevisionWrite) (revisionEdges, error) {
	out, err := encodeLinks(w.Links)
	if err != nil {
		return revisionEdges{}, err
	}
	in, err := encodeLinks(w.Incoming)
	return revisionEdges{out, in}, err
}

// checkRevisionEdges refuses a write whose links or incoming edges name a
// node that is not in the project.
func checkRevisionEdges(ctx context.Context, tx neo4j.ManagedTransaction, w RevisionWrite) error {
	if err := checkLinks(ctx, tx, w.ProjectID, w.Links); err != nil {
		return err
	}
	return checkEnds(ctx, tx, w.ProjectID, w.Incoming, "%s edge from %s: no such node in this project")
}

// writeRevision writes a checked revision and moves its item's head (item
// is updated to match). The caller holds the project's lock.
func writeRevision(ctx context.Context, tx neo4j.ManagedTransaction, w RevisionWrite, item *Item, isNew bool, propsJSON any, edges revisionEdges) (Node, error) {
	n := Node{
		ID: NewNodeID(), ProjectID: w.ProjectID, Type: w.ItemType, Name: w.Name, Properties: storedProps(propsJSON),
		ItemKey: item.Key, Revision: item.HeadRevision + 1, ChangeReason: w.ChangeReason, Author: w.Author,
		CallID: w.IdempotencyKey, CreatedAt: now(),
	}
	if err := createNode(ctx, tx, n, propsJSON); err != nil {
		return Node{}, err
	}
	if !isNew {
		var revProps map[string]any
		if w.ChangeReason != "" {
			revProps = map[string]any{"change_reason": w.ChangeReason}
		}
		rp, err := encodeProps("REVISION_OF edge", revProps)
		if err != nil {
			return Node{}, err
		}
		revLink := []map[string]any{{"type": EdgeRevisionOf, "to": item.HeadNodeID, "props": rp, "ordinal": -1}}
		if err := createEdges(ctx, tx, n.ID, revLink); err != nil {
			return Node{}, err
		}
	}
	if err := createEdges(ctx, tx, n.ID, edges.out); err != nil {
		return Node{}, err
	}
	if err := createIncomingEdges(ctx, tx, n.ID, edges.in); err != nil {
		return Node{}, err
	}
	item.HeadRevision, item.HeadNodeID, item.Name, item.UpdatedAt = n.Revision, n.ID, n.Name, n.CreatedAt
	if isNew {
		item.CreatedAt = n.CreatedAt
	}
	return n, writeItem(ctx, tx, *item, isNew)
}

// RecordNode implements Store.
func (s *Neo4jStore) RecordNode(ctx context.Context, w RecordWrite) (Node, error) {
	propsJSON, err := encodeProps(w.Type+" "+w.Name, w.Properties)
	if err != nil {
		return Node{}, err
	}
	links, err := encodeLinks(w.Links)
	if err != nil {
		return Node{}, err
	}
	return writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (Node, error) {
		if n, ok, err := nodeByCall(ctx, tx, w.IdempotencyKey); err != nil || ok {
			return n, err
		}
		if ok, err := lockProject(ctx, tx, w.ProjectID); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: no project %s", ErrNotFound, w.ProjectID)
			}
			return Node{}, err
		}
		if n, ok, err := nodeByCall(ctx, tx, w.IdempotencyKey); err != nil || ok {
			return n, err
		}
		if err := checkLinks(ctx, tx, w.ProjectID, w.Links); err != nil {
			return Node{}, err
		}
		// The project is locked, so no revision commits between this
		// check and the write.
		if err := movedHeads(w.ExpectHeads, func(key string) (int, bool, error) {
			it, ok, err := getItem(ctx, tx, w.ProjectID, key)
			return it.HeadRevision, ok, err
		}); err != nil {
			return Node{}, err
		}
		n := Node{ID: NewNodeID(), ProjectID: w.ProjectID, Type: w.Type, Name: w.Name, Properties: storedProps(propsJSON),
			CallID: w.IdempotencyKey, CreatedAt: now()}
		if err := createNode(ctx, tx, n, propsJSON); err != nil {
			return Node{}, err
		}
		if err := createEdges(ctx, tx, n.ID, links); err != nil {
			return Node{}, err
		}
		return n, nil
	})
}

// storedProps is what reading the stored JSON back gives.
func storedProps(propsJSON any) map[string]any {
	props, _ := mapJSON(map[string]any{"p": propsJSON}, "p")
	return props
}

// nodeByCall finds the node an idempotency key made; never for "".
func nodeByCall(ctx context.Context, tx neo4j.ManagedTransaction, call string) (Node, bool, error) {
	if call == "" {
		return Node{}, false, nil
	}
	ms, err := queryMaps(ctx, tx, "MATCH (n:TwinNode {call_id: $call}) RETURN properties(n)", map[string]any{"call": call})
	if err != nil || len(ms) == 0 {
		return Node{}, false, err
	}
	n, err := nodeFromMap(ms[0])
	return n, true, err
}

// repeatedRevision is the item of the node a repeated revision write made.
func repeatedRevision(ctx context.Context, tx neo4j.ManagedTransaction, n Node, err error) (Item, error) {
	if err != nil {
		return Item{}, err
	}
	if n.ItemKey == "" {
		return Item{}, fmt.Errorf("%w: idempotency key %s already made %s record %s, not a revision of an item",
			ErrInvalid, n.CallID, n.Type, n.ID)
	}
	it, ok, err := getItem(ctx, tx, n.ProjectID, n.ItemKey)
	if err == nil && !ok {
		err = fmt.Errorf("%w: no item %s in project %s", ErrNotFound, n.ItemKey, n.ProjectID)
	}
	return it, err
}

// getItem reads one item; false if there is none.
func getItem(ctx context.Context, tx neo4j.ManagedTransaction, projectID, key string) (Item, bool, error) {
	ms, err := queryMaps(ctx, tx, "MATCH (i:Item {project_id: $pid, key: $key}) RETURN properties(i)",
		map[string]any{"pid": projectID, "key": key})
	if err != nil || len(ms) == 0 {
		return Item{}, false, err
	}
	return itemFromMap(ms[0]), true, nil
}

// getNode reads one node; false if there is none.
func getNode(ctx context.Context, tx neo4j.ManagedTransaction, id string) (Node, bool, error) {
	ms, err := queryMaps(ctx, tx, "MATCH (n:TwinNode {id: $id}) RETURN properties(n)", map[string]any{"id": id})
	if err != nil || len(ms) == 0 {
		return Node{}, false, err
	}
	n, err := nodeFromMap(ms[0])
	return n, err == nil, err
}

// resolveItem finds the item a write revises, or makes a new one (not yet
// stored), exactly as MemoryStore.resolveItem. It writes nothing. The
// caller holds the project's lock.
func resolveItem(ctx context.Context, tx neo4j.ManagedTransaction, w RevisionWrite) (Item, bool, error) {
	var found Item
	switch {
	case w.ItemKey != "":
		key, rev, err := ParseItemRef(w.ItemKey)
		if err != nil {
			return Item{}, false, err
		}
		it, ok, err := getItem(ctx, tx, w.ProjectID, key)
		if err != nil {
			return Item{}, false, err
		}
		if !ok {
			if rev > 0 {
				return Item{}, false, fmt.Errorf("%w: %s names no item in this project; pass the bare key to start a new item", ErrNotFound, w.ItemKey)
			}
			return Item{Key: key, ProjectID: w.ProjectID, ItemType: w.ItemType}, true, nil
		}
		if rev > 0 && rev != it.HeadRevision {
			return Item{}, false, fmt.Errorf("%w: %s is stale: the head of %s is revision %d (%s); read it and pass %s", ErrStaleRevision,
				w.ItemKey, key, it.HeadRevision, it.HeadRef(), it.HeadRef())
		}
		found = it
	case w.Supersedes != "":
		n, ok, err := getNode(ctx, tx, w.Supersedes)
		if err != nil {
			return Item{}, false, err
		}
		if !ok || n.ProjectID != w.ProjectID {
			return Item{}, false, fmt.Errorf("%w: supersedes %s: no such node in this project", ErrNotFound, w.Supersedes)
		}
		if n.ItemKey == "" {
			return Item{}, false, fmt.Errorf("%w: supersedes %s: that node is a %s record, not a revision of an item", ErrInvalid, n.ID, n.Type)
		}
		it, ok, err := getItem(ctx, tx, w.ProjectID, n.ItemKey)
		if err != nil {
			return Item{}, false, err
		}
		if !ok {
			return Item{}, false, fmt.Errorf("%w: supersedes %s: its item %s is missing", ErrNotFound, n.ID, n.ItemKey)
		}
		found = it
	default:
		// The item of the same type and name (ignoring case), the first
		// by key; names are compared here, as the memory store does.
		ms, err := queryMaps(ctx, tx, "MATCH (i:Item {project_id: $pid, item_type: $type}) RETURN properties(i)",
			map[string]any{"pid": w.ProjectID, "type": w.ItemType})
		if err != nil {
			return Item{}, false, err
		}
		var candidates []Item
		for _, m := range ms {
			if it := itemFromMap(m); strings.EqualFold(it.Name, w.Name) {
				candidates = append(candidates, it)
			}
		}
		if len(candidates) == 0 {
			key, err := freeItemKey(ctx, tx, w.ProjectID, NewItemKey(w.ItemType, w.Name))
			if err != nil {
				return Item{}, false, err
			}
			return Item{Key: key, ProjectID: w.ProjectID, ItemType: w.ItemType}, true, nil
		}
		sort.Slice(candidates, func(i, j int) bool { return candidates[i].Key < candidates[j].Key })
		found = candidates[0]
	}
	if found.ItemType != w.ItemType {
		return Item{}, false, fmt.Errorf("%w: %s is a %s item, not a %s", ErrInvalid, found.Key, found.ItemType, w.ItemType)
	}
	return found, false, nil
}

// freeItemKey is base, or base-2, base-3... the first no item has.
func freeItemKey(ctx context.Context, tx neo4j.ManagedTransaction, projectID, base string) (string, error) {
	recs, err := query(ctx, tx, "MATCH (i:Item {project_id: $pid}) WHERE i.key STARTS WITH $base RETURN i.key",
		map[string]any{"pid": projectID, "base": base})
	if err != nil {
		return "", err
	}
	taken := map[string]bool{}
	for _, r := range recs {
		k, _ := r.Values[0].(string)
		taken[k] = true
	}
	key := base
	for i := 2; taken[key]; i++ {
		key = fmt.Sprintf("%s-%d", base, i)
	}
	return key, nil
}

// checkLinks refuses, naming the first, a link to a node that is not in the
// project.
func checkLinks(ctx context.Context, tx neo4j.ManagedTransaction, projectID string, links []Link) error {
	return checkEnds(ctx, tx, projectID, links, "%s link to %s: no such node in this project")
}

// checkEnds refuses, naming the first with msg (given the edge type and
// the node id), a link whose To is not a node in the project.
func checkEnds(ctx context.Context, tx neo4j.ManagedTransaction, projectID string, links []Link, msg string) error {
	if len(links) == 0 {
		return nil
	}
	ids := make([]string, len(links))
	for i, l := range links {
		ids[i] = l.To
	}
	recs, err := query(ctx, tx, "MATCH (n:TwinNode) WHERE n.id IN $ids AND n.project_id = $pid RETURN n.id",
		map[string]any{"ids": ids, "pid": projectID})
	if err != nil {
		return err
	}
	here := map[string]bool{}
	for _, r := range recs {
		id, _ := r.Values[0].(string)
		here[id] = true
	}
	for _, l := range links {
		if !here[l.To] {
			return fmt.Errorf("%w: "+msg, ErrNotFound, l.Type, l.To)
		}
	}
	return nil
}

// encodeLinks checks links and turns them into parameters for createEdges.
// A relationship type cannot be empty or hold a NUL in Neo4j.
func encodeLinks(links []Link) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(links))
	for i, l := range links {
		if l.Type == "" || strings.ContainsRune(l.Type, 0) {
			return nil, fmt.Errorf("%w: link %d (to %s) needs an edge type, such as %s", ErrInvalid, i+1, l.To, EdgeDependsOn)
		}
		props, err := encodeProps(l.Type+" link to "+l.To, l.Properties)
		if err != nil {
			return nil, err
		}
		out = append(out, map[string]any{"type": l.Type, "to": l.To, "props": props, "ordinal": i})
	}
	return out, nil
}

// createNode writes a node; the properties are already JSON.
func createNode(ctx context.Context, tx neo4j.ManagedTransaction, n Node, propsJSON any) error {
	props := putIfSet(map[string]any{
		"id": n.ID, "project_id": n.ProjectID, "node_type": n.Type, "name": n.Name, "created_at": n.CreatedAt,
	}, "item_key", n.ItemKey, "change_reason", n.ChangeReason, "author", n.Author, "call_id", n.CallID)
	if n.ItemKey != "" {
		props["revision"] = n.Revision
	}
	if propsJSON != nil {
		props["properties_json"] = propsJSON
	}
	_, err := query(ctx, tx, "CREATE (n:TwinNode) SET n = $props", map[string]any{"props": props})
	return err
}

// createEdges writes edges from a node, each typed by its edge type; the
// ordinal keeps the order of a write's links for Neighbors.
func createEdges(ctx context.Context, tx neo4j.ManagedTransaction, from string, edges []map[string]any) error {
	if len(edges) == 0 {
		return nil
	}
	recs, err := query(ctx, tx, `MATCH (a:TwinNode {id: $from})
		UNWIND $edges AS e
		MATCH (b:TwinNode {id: e.to})
		CREATE (a)-[r:$(e.type)]->(b)
		SET r.properties_json = e.props, r.ordinal = e.ordinal
		RETURN count(r)`, map[string]any{"from": from, "edges": edges})
	if err != nil {
		return err
	}
	if n, _ := recs[0].Values[0].(int64); int(n) != len(edges) {
		// The links were checked under the project's lock; this is a bug.
		return fmt.Errorf("twin: neo4j: wrote %d of %d edges from %s", n, len(edges), from)
	}
	return nil
}

// createIncomingEdges writes edges into a node from the nodes each names
// in "to" (Link.To of an incoming edge is its source).
func createIncomingEdges(ctx context.Context, tx neo4j.ManagedTransaction, to string, edges []map[string]any) error {
	if len(edges) == 0 {
		return nil
	}
	recs, err := query(ctx, tx, `MATCH (b:TwinNode {id: $to})
		UNWIND $edges AS e
		MATCH (a:TwinNode {id: e.to})
		CREATE (a)-[r:$(e.type)]->(b)
		SET r.properties_json = e.props, r.ordinal = e.ordinal
		RETURN count(r)`, map[string]any{"to": to, "edges": edges})
	if err != nil {
		return err
	}
	if n, _ := recs[0].Values[0].(int64); int(n) != len(edges) {
		// The sources were checked under the project's lock; this is a bug.
		return fmt.Errorf("twin: neo4j: wrote %d of %d edges into %s", n, len(edges), to)
	}
	return nil
}

// writeItem creates a new item or moves an existing one's head.
func writeItem(ctx context.Context, tx neo4j.ManagedTransaction, it Item, isNew bool) error {
	if isNew {
		_, err := query(ctx, tx, "CREATE (i:Item) SET i = $props", map[string]any{"props": map[string]any{
			"project_id": it.ProjectID, "key": it.Key, "item_type": it.ItemType, "name": it.Name,
			"head_revision": it.HeadRevision, "head_node_id": it.HeadNodeID, "created_at": it.CreatedAt, "updated_at": it.UpdatedAt,
		}})
		return err
	}
	_, err := query(ctx, tx, `MATCH (i:Item {project_id: $pid, key: $key})
		SET i.head_revision = $rev, i.head_node_id = $head, i.name = $name, i.updated_at = $t`,
		map[string]any{"pid": it.ProjectID, "key": it.Key, "rev": it.HeadRevision, "head": it.HeadNodeID, "name": it.Name, "t": it.UpdatedAt})
	return err
}
