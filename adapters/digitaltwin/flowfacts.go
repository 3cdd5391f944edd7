package digitaltwin

import (
	"context"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/flows"
)

// FlowFacts reads what a design flow's gate criteria are judged against:
// the project's node counts by type, every current requirement's status
// (the rows of twin.constraint_violations) and the waivers a person
// approved.
//
// The store lists no project's nodes of every type, so NodeTypes counts
// each item once under its item type (its head revision is the node that
// counts; older revisions are not counted again), plus every record of the
// types the tools write (evidence, claim, approval and the record
// engineering entities: waiver, release_package, risk, concept_option,
// verification_case...). Types with no node are left out.
func (b *Backend) FlowFacts(ctx context.Context, projectID string) (flows.Facts, error) {
	p, err := b.Store.GetProject(ctx, projectID)
	if err != nil {
		return flows.Facts{}, err
	}
	counts, err := nodeTypeCounts(ctx, b, p.ID)
	if err != nil {
		return flows.Facts{}, err
	}
	report, err := requirementsReport(ctx, b, p)
	if err != nil {
		return flows.Facts{}, err
	}
	rows, _ := report["requirements"].([]map[string]any)
	reqs := make([]flows.Requirement, 0, len(rows))
	for _, row := range rows {
		reqs = append(reqs, flowRequirement(row))
	}
	waivers, err := approvedWaivers(ctx, b, p.ID)
	if err != nil {
		return flows.Facts{}, err
	}
	return flows.Facts{NodeTypes: counts, Requirements: reqs, Waivers: waivers}, nil
}

// nodeTypeCounts counts a project's items by type and its records by
// type, sorted by type.
func nodeTypeCounts(ctx context.Context, b *Backend, projectID string) ([]flows.TypeCount, error) {
	items, err := b.Store.Items(ctx, projectID)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, it := range items {
		counts[it.ItemType]++
	}
	for _, rt := range recordTypes() {
		if _, seen := counts[rt]; seen {
			continue // an item type too: already counted
		}
		nodes, err := b.Store.NodesByType(ctx, projectID, rt)
		if err != nil {
			return nil, err
		}
		if len(nodes) > 0 {
			counts[rt] = len(nodes)
		}
	}
	out := make([]flows.TypeCount, 0, len(counts))
	for t, n := range counts {
		out = append(out, flows.TypeCount{Type: t, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out, nil
}

// flowRequirement is one requirementsReport row as a flow reads it.
func flowRequirement(row map[string]any) flows.Requirement {
	str := func(k string) string { s, _ := row[k].(string); return s }
	r := flows.Requirement{Name: str("requirement"), ConstraintSet: str("constraint_set"), Metric: str("metric"),
		Operator: str("operator"), Unit: str("unit"), Status: str("status")}
	switch l := row["limit"].(type) {
	case *float64:
		if l != nil {
			v := *l
			r.Limit = &v
		}
	case float64:
		r.Limit = &l
	}
	if v, ok := numberOf(row["value"]); ok {
		r.Value = &v
	}
	if src, ok := row["source"].(map[string]any); ok {
		r.SourceKind, _ = src["kind"].(string)
	}
	r.Missing = stringList(row["missing"])
	return r
}

// approvedWaivers are the project's waivers with at least one approval,
// each with the criteria kinds and requirement names it waives and who
// approved it first.
func approvedWaivers(ctx context.Context, b *Backend, projectID string) ([]flows.Waiver, error) {
	nodes, err := b.Store.NodesByType(ctx, projectID, "waiver")
	if err != nil {
		return nil, err
	}
	out := []flows.Waiver{}
	for _, n := range nodes {
		approvals, err := approvalsOf(ctx, b, n.ID)
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
		out = append(out, flows.Waiver{ID: n.ID, Name: n.Name, Waives: waives, ApprovedBy: by})
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
