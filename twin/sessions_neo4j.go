package twin

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// BindSession implements SessionBindings: a (:Session {id}) node pointing
// at its project by id. Deleting the project leaves the binding dangling,
// and SessionProject then says the project is gone.
func (s *Neo4jStore) BindSession(ctx context.Context, sessionID, projectID string) error {
	_, err := writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (bool, error) {
		ok, err := lockProject(ctx, tx, projectID)
		if err != nil || !ok {
			return false, cmpErr(err, fmt.Errorf("%w: no project %s", ErrNotFound, projectID))
		}
		_, err = query(ctx, tx, "MERGE (s:Session {id: $sid}) SET s.project_id = $pid", map[string]any{"sid": sessionID, "pid": projectID})
		return err == nil, err
	})
	return err
}

// SessionProject implements SessionBindings.
func (s *Neo4jStore) SessionProject(ctx context.Context, sessionID string) (string, error) {
	return readTx(ctx, s, func(tx neo4j.ManagedTransaction) (string, error) {
		recs, err := query(ctx, tx, "MATCH (s:Session {id: $sid}) OPTIONAL MATCH (p:Project {id: s.project_id}) RETURN s.project_id, p IS NOT NULL",
			map[string]any{"sid": sessionID})
		if err != nil {
			return "", err
		}
		if len(recs) == 0 {
			return "", fmt.Errorf("%w: session %s has no project", ErrNotFound, sessionID)
		}
		pid, _ := recs[0].Values[0].(string)
		if live, _ := recs[0].Values[1].(bool); !live {
			return "", fmt.Errorf("%w: session %s was bound to project %s, which is gone", ErrNotFound, sessionID, pid)
		}
		return pid, nil
	})
}

// cmpErr is err when there is one, else otherwise.
func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

var _ SessionBindings = (*Neo4jStore)(nil)
