package twin

import (
	"context"
	"fmt"
	"sort"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// GetNode implements Store.
func (s *Neo4jStore) GetNode(ctx context.Context, id string) (Node, error) {
	return readTx(ctx, s, func(tx neo4j.ManagedTransaction) (Node, error) {
		n, ok, err := getNode(ctx, tx, id)
		if err == nil && !ok {
			err = fmt.Errorf("%w: no node %s", ErrNotFound, id)
		}
		return n, err
	})
}

// GetItem implements Store.
func (s *Neo4jStore) GetItem(ctx context.Context, projectID, key string) (Item, error) {
	return readTx(ctx, s, func(tx neo4j.ManagedTransaction) (Item, error) {
		it, ok, err := getItem(ctx, tx, projectID, key)
		if err == nil && !ok {
			err = fmt.Errorf("%w: no item %s in project %s", ErrNotFound, key, projectID)
		}
		return it, err
	})
}

// ItemOfNode implements Store.
func (s *Neo4jStore) ItemOfNode(ctx context.Context, nodeID string) (Item, error) {
	return readTx(ctx, s, func(tx neo4j.ManagedTransaction) (Item, error) {
		n, ok, err := getNode(ctx, tx, nodeID)
		if err != nil {
			return Item{}, err
		}
		if !ok {
			return Item{}, fmt.Errorf("%w: no node %s", ErrNotFound, nodeID)
		}
		if n.ItemKey == "" {
			return Item{}, fmt.Errorf("%w: node %s is a %s record, not a revision of an item", ErrInvalid, nodeID, n.Type)
		}
		it, ok, err := getItem(ctx, tx, n.ProjectID, n.ItemKey)
		if err == nil && !ok {
			err = fmt.Errorf("%w: node %s names item %s, which project %s does not have", ErrNotFound, nodeID, n.ItemKey, n.ProjectID)
		}
		return it, err
	})
}

// Revisions implements Store.
func (s *Neo4jStore) Revisions(ctx context.Context, projectID, key string) ([]Node, error) {
	return readTx(ctx, s, func(tx neo4j.ManagedTransaction) ([]Node, error) {
		if _, ok, err := getItem(ctx, tx, projectID, key); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: no item %s in project %s", ErrNotFound, key, projectID)
			}
			return nil, err
		}
		ms, err := queryMaps(ctx, tx, "MATCH (n:TwinNode {project_id: $pid, item_key: $key}) RETURN properties(n)",
			map[string]any{"pid": projectID, "key": key})
		if err != nil {
			return nil, err
		}
		out, err := nodesFromMaps(ms)
		sort.Slice(out, func(i, j int) bool { return out[i].Revision < out[j].Revision })
		return out, err
	})
}

// Neighbors implements Store.
func (s *Neo4jStore) Neighbors(ctx context.Context, nodeID string, dir Direction, edgeTypes ...string) ([]Neighbor, error) {
	types := edgeTypes
	if types == nil {
		types = []string{}
	}
	type row struct {
		nb      Neighbor
		ordinal int64
	}
	return readTx(ctx, s, func(tx neo4j.ManagedTransaction) ([]Neighbor, error) {
		if _, ok, err := getNode(ctx, tx, nodeID); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: no node %s", ErrNotFound, nodeID)
			}
			return nil, err
		}
		var rows []row
		walk := func(pattern string, outgoing bool) error {
			recs, err := query(ctx, tx, "MATCH "+pattern+` WHERE size($types) = 0 OR type(r) IN $types
				RETURN type(r), r.properties_json, r.ordinal, properties(b)`,
				map[string]any{"id": nodeID, "types": types})
			if err != nil {
				return err
			}
			for _, rec := range recs {
				et, _ := rec.Values[0].(string)
				eprops, err := mapJSON(map[string]any{"p": rec.Values[1]}, "p")
				if err != nil {
					return err
				}
				ordinal, _ := rec.Values[2].(int64)
				bm, _ := rec.Values[3].(map[string]any)
				b, err := nodeFromMap(bm)
				if err != nil {
					return err
				}
				e := Edge{Type: et, From: nodeID, To: b.ID, Properties: eprops}
				if !outgoing {
					e.From, e.To = b.ID, nodeID
				}
				rows = append(rows, row{Neighbor{Edge: e, Node: b}, ordinal})
			}
			return nil
		}
		if dir == Outgoing || dir == Both {
			if err := walk("(a:TwinNode {id: $id})-[r]->(b:TwinNode)", true); err != nil {
				return nil, err
			}
		}
		if dir == Incoming || dir == Both {
			if err := walk("(a:TwinNode {id: $id})<-[r]-(b:TwinNode)", false); err != nil {
				return nil, err
			}
		}
		// Edges to one neighbor of one type come from one write: they
		// keep the order of its links, as in the memory store.
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].ordinal < rows[j].ordinal })
		var out []Neighbor
		for _, r := range rows {
			out = append(out, r.nb)
		}
		sortNeighbors(out)
		return out, nil
	})
}

// NodesByType implements Store.
func (s *Neo4jStore) NodesByType(ctx context.Context, projectID, nodeType string) ([]Node, error) {
	return readTx(ctx, s, func(tx neo4j.ManagedTransaction) ([]Node, error) {
		ms, err := queryMaps(ctx, tx, "MATCH (n:TwinNode {project_id: $pid, node_type: $type}) RETURN properties(n)",
			map[string]any{"pid": projectID, "type": nodeType})
		if err != nil {
			return nil, err
		}
		out, err := nodesFromMaps(ms)
		sort.Slice(out, func(i, j int) bool {
			if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
				return out[i].CreatedAt.Before(out[j].CreatedAt)
			}
			return out[i].ID < out[j].ID
		})
		return out, err
	})
}

// Items implements Store.
func (s *Neo4jStore) Items(ctx context.Context, projectID string) ([]Item, error) {
	return readTx(ctx, s, func(tx neo4j.ManagedTransaction) ([]Item, error) {
		if _, ok, err := getProject(ctx, tx, projectID); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: no project %s", ErrNotFound, projectID)
			}
			return nil, err
		}
		ms, err := queryMaps(ctx, tx, "MATCH (i:Item {project_id: $pid}) RETURN properties(i)", map[string]any{"pid": projectID})
		if err != nil {
			return nil, err
		}
		var out []Item
		for _, m := range ms {
			out = append(out, itemFromMap(m))
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
		return out, nil
	})
}
