package twin

import (
	"context"
	"strings"
)

// CountByType counts a project's nodes by type: each item once under its
// item type (its head is the node that counts; older revisions are not
// counted again), and every record of the types the tools write
// (RecordTypes). Types with no node are left out.
func CountByType(ctx context.Context, s Store, projectID string) (map[string]int, error) {
	items, err := s.Items(ctx, projectID)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, it := range items {
		counts[it.ItemType]++
	}
	for _, rt := range RecordTypes() {
		if _, seen := counts[rt]; seen {
			continue // an item type too: already counted
		}
		nodes, err := s.NodesByType(ctx, projectID, rt)
		if err != nil {
			return nil, err
		}
		if len(nodes) > 0 {
			counts[rt] = len(nodes)
		}
	}
	return counts, nil
}

// ApprovedWaiver is a waiver a person approved: the gate criteria kinds
// and requirement names it waives, and who approved it first.
type ApprovedWaiver struct {
	ID, Name   string
	Waives     []string
	ApprovedBy string
}

// ApprovedWaivers are the project's waivers with at least one approval.
func ApprovedWaivers(ctx context.Context, s Store, projectID string) ([]ApprovedWaiver, error) {
	nodes, err := s.NodesByType(ctx, projectID, "waiver")
	if err != nil {
		return nil, err
	}
	out := []ApprovedWaiver{}
	for _, n := range nodes {
		approvals, err := ApprovalsOf(ctx, s, n.ID)
		if err != nil {
			return nil, err
		}
		if len(approvals) == 0 {
			continue
		}
		by, _ := approvals[0].Properties["approved_by"].(string)
		waives := stringList(n.Properties["waives"])
		if waives == nil {
			waives = []string{}
		}
		out = append(out, ApprovedWaiver{ID: n.ID, Name: n.Name, Waives: waives, ApprovedBy: by})
	}
	return out, nil
}

// stringList reads a stored list of strings ([]string, or []any of
// strings as JSON decodes it; a lone string is a list of one), trimmed,
// blanks left out; nil when there are none.
func stringList(v any) []string {
	var raw []string
	switch x := v.(type) {
	case string:
		raw = []string{x}
	case []string:
		raw = x
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				raw = append(raw, s)
			}
		}
	}
	var out []string
	for _, s := range raw {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
