package twin

import (
	"context"
	"encoding/json"
	"strings"
)

// Incomplete is a requirement that records but that nothing can check
// yet, and what it lacks.
type Incomplete struct {
	Name    string
	Missing []string
}

// CheckConstraintSet refuses a set with two requirements of one name, and
// names what each half-specified requirement still lacks.
func CheckConstraintSet(cs []Constraint) ([]Incomplete, error) {
	seen := map[string]bool{}
	var incomplete []Incomplete
	for _, c := range cs {
		key := strings.ToLower(strings.TrimSpace(c.Name))
		if seen[key] {
			return nil, Refusef("constraint %q appears twice; requirement names must be unique within a set", c.Name)
		}
		seen[key] = true
		if m := c.Missing(); len(m) > 0 {
			incomplete = append(incomplete, Incomplete{Name: c.Name, Missing: m})
		}
	}
	return incomplete, nil
}

// RecordConstraintSet records the project's typed requirements as the next
// revision of a constraint set: the one home of requirement values.
func RecordConstraintSet(ctx context.Context, s Store, projectID, name string, cs []Constraint, info WriteInfo) (Node, Item, []Incomplete, error) {
	incomplete, err := CheckConstraintSet(cs)
	if err != nil {
		return Node{}, Item{}, nil, err
	}
	var list []any
	for _, c := range cs {
		var m map[string]any
		raw, _ := json.Marshal(c)
		_ = json.Unmarshal(raw, &m)
		list = append(list, m)
	}
	n, it, err := s.CommitRevision(ctx, info.Revision(projectID, "constraint_set", name, map[string]any{"constraints": list}, nil))
	if err != nil {
		return Node{}, Item{}, nil, err
	}
	return n, it, incomplete, nil
}
