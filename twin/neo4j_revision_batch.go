package twin

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// CommitRevisions implements Store: one transaction under the project's
// lock checks every write, then writes them all; a failed check returns
// before anything is written, and any later error rolls the whole
// transaction back.
func (s *Neo4jStore) CommitRevisions(ctx context.Context, ws []RevisionWrite) ([]Node, error) {
	if err := checkBatch(ws); err != nil {
		return nil, err
	}
	type encoded struct {
		props any
		edges revisionEdges
	}
	enc := make([]encoded, len(ws))
	for i, w := range ws {
		props, err := encodeProps("revision of "+w.Name, w.Properties)
		if err != nil {
			return nil, err
		}
		edges, err := encodeRevisionEdges(w)
		if err != nil {
			return nil, err
		}
		enc[i] = encoded{props, edges}
	}
	projectID := ws[0].ProjectID
	return writeTx(ctx, s, func(tx neo4j.ManagedTransaction) ([]Node, error) {
		made := func(key string) (Node, bool, error) { return nodeByCall(ctx, tx, key) }
		// As in CommitRevision, a repeat is looked for again once the
		// project is locked.
		if out, ok, err := repeatedBatch(ws, made); err != nil || ok {
			return out, err
		}
		if ok, err := lockProject(ctx, tx, projectID); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: no project %s", ErrNotFound, projectID)
			}
			return nil, err
		}
		if out, ok, err := repeatedBatch(ws, made); err != nil || ok {
			return out, err
		}
		type checked struct {
			item  Item
			isNew bool
		}
		plan := make([]checked, len(ws))
		seen := map[string]int{}
		for i, w := range ws {
			item, isNew, err := resolveItem(ctx, tx, w)
			if err != nil {
				return nil, err
			}
			if j, dup := seen[item.Key]; dup {
				return nil, fmt.Errorf("%w: writes %d and %d both revise %s; one batch writes one revision per item", ErrInvalid, j+1, i+1, item.Key)
			}
			seen[item.Key] = i
			if err := checkRevisionEdges(ctx, tx, w); err != nil {
				return nil, err
			}
			plan[i] = checked{item, isNew}
		}

		// Everything is checked: write.
		out := make([]Node, len(ws))
		for i, w := range ws {
			n, err := writeRevision(ctx, tx, w, &plan[i].item, plan[i].isNew, enc[i].props, enc[i].edges)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	})
}
