package twin

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// getProject reads one project; false if there is none.
func getProject(ctx context.Context, tx neo4j.ManagedTransaction, id string) (Project, bool, error) {
	ms, err := queryMaps(ctx, tx, "MATCH (p:Project {id: $id}) RETURN properties(p)", map[string]any{"id": id})
	if err != nil || len(ms) == 0 {
		return Project{}, false, err
	}
	return projectFromMap(ms[0]), true, nil
}

func allProjects(ctx context.Context, tx neo4j.ManagedTransaction) ([]Project, error) {
	ms, err := queryMaps(ctx, tx, "MATCH (p:Project) RETURN properties(p)", nil)
	if err != nil {
		return nil, err
	}
	out := make([]Project, 0, len(ms))
	for _, m := range ms {
		out = append(out, projectFromMap(m))
	}
	return out, nil
}

// projectByCall finds the project an idempotency key made; never for "".
func projectByCall(ctx context.Context, tx neo4j.ManagedTransaction, call string) (Project, bool, error) {
	if call == "" {
		return Project{}, false, nil
	}
	ms, err := queryMaps(ctx, tx, "MATCH (p:Project {call_id: $call}) RETURN properties(p)", map[string]any{"call": call})
	if err != nil || len(ms) == 0 {
		return Project{}, false, err
	}
	return projectFromMap(ms[0]), true, nil
}

// nameTaken finds another project (not id) with the name, ignoring case as
// strings.EqualFold does.
func nameTaken(ctx context.Context, tx neo4j.ManagedTransaction, name, id string) error {
	all, err := allProjects(ctx, tx)
	if err != nil {
		return err
	}
	for _, other := range all {
		if other.ID != id && strings.EqualFold(other.Name, name) {
			return fmt.Errorf("%w: project %q (%s) already has that name", ErrDuplicateName, other.Name, other.ID)
		}
	}
	return nil
}

// nameClash turns the name constraint failing, which the checks did not
// foresee (strings.EqualFold and strings.ToLower disagree on a few
// characters), into ErrDuplicateName.
func nameClash(err error, name string) error {
	if isConstraintFailure(err) && strings.Contains(err.Error(), "name_lower") {
		return fmt.Errorf("%w: another project's name is %q in lower case", ErrDuplicateName, strings.ToLower(name))
	}
	return err
}

// CreateProject implements Store.
func (s *Neo4jStore) CreateProject(ctx context.Context, p Project, idem string) (Project, error) {
	created, err := writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (Project, error) {
		// A repeat returns the project the first call made; checked
		// again under the lock, in case the first call just committed.
		if q, ok, err := projectByCall(ctx, tx, idem); err != nil || ok {
			return q, err
		}
		if err := lockProjectNames(ctx, tx); err != nil {
			return Project{}, err
		}
		if q, ok, err := projectByCall(ctx, tx, idem); err != nil || ok {
			return q, err
		}
		if strings.TrimSpace(p.Name) == "" {
			return Project{}, fmt.Errorf("%w: a project needs a name", ErrInvalid)
		}
		if err := nameTaken(ctx, tx, p.Name, ""); err != nil {
			return Project{}, err
		}
		if p.ID == "" {
			p.ID = NewProjectID()
		} else if other, ok, err := getProject(ctx, tx, p.ID); err != nil {
			return Project{}, err
		} else if ok {
			return Project{}, fmt.Errorf("%w: project id %s is taken by project %q", ErrInvalid, p.ID, other.Name)
		}
		t := now()
		p.CreatedAt, p.UpdatedAt = t, t
		props := putIfSet(map[string]any{
			"id": p.ID, "name": p.Name, "name_lower": strings.ToLower(p.Name), "description": p.Description,
			"created_at": t, "updated_at": t,
		}, "call_id", idem)
		if _, err := query(ctx, tx, "CREATE (p:Project) SET p = $props", map[string]any{"props": props}); err != nil {
			return Project{}, err
		}
		return p, nil
	})
	return created, nameClash(err, p.Name)
}

// GetProject implements Store.
func (s *Neo4jStore) GetProject(ctx context.Context, id string) (Project, error) {
	return readTx(ctx, s, func(tx neo4j.ManagedTransaction) (Project, error) {
		p, ok, err := getProject(ctx, tx, id)
		if err == nil && !ok {
			err = fmt.Errorf("%w: no project %s", ErrNotFound, id)
		}
		return p, err
	})
}

// ListProjects implements Store.
func (s *Neo4jStore) ListProjects(ctx context.Context) ([]Project, error) {
	out, err := readTx(ctx, s, func(tx neo4j.ManagedTransaction) ([]Project, error) { return allProjects(ctx, tx) })
	if err != nil {
		return nil, err
	}
	// Sorted here, not in Cypher, to order exactly as the memory store.
	sort.Slice(out, func(i, j int) bool {
		if a, b := strings.ToLower(out[i].Name), strings.ToLower(out[j].Name); a != b {
			return a < b
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// UpdateProject implements Store.
func (s *Neo4jStore) UpdateProject(ctx context.Context, id string, u ProjectUpdate) (Project, error) {
	updated, err := writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (Project, error) {
		if u.Name != nil {
			if err := lockProjectNames(ctx, tx); err != nil {
				return Project{}, err
			}
		}
		if ok, err := lockProject(ctx, tx, id); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: no project %s", ErrNotFound, id)
			}
			return Project{}, err
		}
		p, _, err := getProject(ctx, tx, id)
		if err != nil {
			return Project{}, err
		}
		if u.Name != nil {
			if strings.TrimSpace(*u.Name) == "" {
				return Project{}, fmt.Errorf("%w: a project needs a name", ErrInvalid)
			}
			if err := nameTaken(ctx, tx, *u.Name, id); err != nil {
				return Project{}, err
			}
			p.Name = *u.Name
		}
		if u.Description != nil {
			p.Description = *u.Description
		}
		p.UpdatedAt = now()
		_, err = query(ctx, tx, `MATCH (p:Project {id: $id})
			SET p.name = $name, p.name_lower = $lower, p.description = $desc, p.updated_at = $t`,
			map[string]any{"id": id, "name": p.Name, "lower": strings.ToLower(p.Name), "desc": p.Description, "t": p.UpdatedAt})
		return p, err
	})
	if u.Name != nil {
		err = nameClash(err, *u.Name)
	}
	return updated, err
}

// DeleteProject implements Store.
func (s *Neo4jStore) DeleteProject(ctx context.Context, id, idem string) error {
	_, err := writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (struct{}, error) {
		if idem != "" {
			done, err := query(ctx, tx, "MATCH (d:DeletedProject {call_id: $idem, id: $id}) RETURN d.id", map[string]any{"idem": idem, "id": id})
			if err != nil || len(done) > 0 {
				return struct{}{}, err
			}
		}
		if ok, err := lockProject(ctx, tx, id); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: no project %s", ErrNotFound, id)
			}
			return struct{}{}, err
		}
		for _, stmt := range []string{
			"MATCH (n:TwinNode {project_id: $id}) DETACH DELETE n",
			"MATCH (i:Item {project_id: $id}) DETACH DELETE i",
			"MATCH (p:Project {id: $id}) DETACH DELETE p",
		} {
			if _, err := query(ctx, tx, stmt, map[string]any{"id": id}); err != nil {
				return struct{}{}, err
			}
		}
		if idem != "" {
			// The tombstone lets a retried delete know it already ran.
			if _, err := query(ctx, tx, "CREATE (:DeletedProject {call_id: $idem, id: $id})", map[string]any{"idem": idem, "id": id}); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	return err
}
