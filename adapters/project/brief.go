package project

import (
	"context"
	"fmt"
	"sort"

	"github.com/metaforge/metaforge/twin"
)

// Brief is what a project is and what has been built in it, newest work
// first: what an agent needs at the start of a session (project.open,
// project.get, and the twin's brief resource). An empty project says so;
// it is not an error.
func Brief(ctx context.Context, s *Service, p twin.Project) (map[string]any, error) {
	items, err := s.Store.Items(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].UpdatedAt.After(items[j].UpdatedAt) })
	counts := map[string]int{}
	var recent []map[string]any
	for _, it := range items {
		counts[it.ItemType]++
		if len(recent) < 10 {
			recent = append(recent, map[string]any{"item_ref": it.HeadRef(), "item_type": it.ItemType, "name": it.Name, "updated_at": it.UpdatedAt})
		}
	}
	evidence, err := s.Store.NodesByType(ctx, p.ID, "evidence")
	if err != nil {
		return nil, err
	}
	out := map[string]any{
		"project_id": p.ID, "name": p.Name, "description": p.Description,
		"item_counts": counts, "evidence_count": len(evidence), "recent_work": recent,
	}
	if len(items) == 0 && len(evidence) == 0 {
		out["summary"] = "nothing is recorded in this project yet"
		out["recent_work"] = []any{}
	} else {
		out["summary"] = fmt.Sprintf("%d items and %d pieces of evidence recorded", len(items), len(evidence))
	}
	withSessions(ctx, s, p.ID, out)
	return out, nil
}
