package twin

import (
	"context"
	"sort"

	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/twin"
)

// FlowFacts reads what a design flow's gate criteria are judged against:
// the project's node counts by type (twin.CountByType), every current
// requirement's status (the rows of twin.constraint_violations) and the
// waivers a person approved.
func (b *Backend) FlowFacts(ctx context.Context, projectID string) (flows.Facts, error) {
	p, err := b.Store.GetProject(ctx, projectID)
	if err != nil {
		return flows.Facts{}, err
	}
	counts, err := twin.CountByType(ctx, b.Store, p.ID)
	if err != nil {
		return flows.Facts{}, err
	}
	types := make([]flows.TypeCount, 0, len(counts))
	for t, n := range counts {
		types = append(types, flows.TypeCount{Type: t, Count: n})
	}
	sort.Slice(types, func(i, j int) bool { return types[i].Type < types[j].Type })
	report, err := twin.Requirements(ctx, b.Store, p.ID)
	if err != nil {
		return flows.Facts{}, err
	}
	reqs := make([]flows.Requirement, 0, len(report.Requirements))
	for _, row := range report.Requirements {
		reqs = append(reqs, flowRequirement(row))
	}
	approved, err := twin.ApprovedWaivers(ctx, b.Store, p.ID)
	if err != nil {
		return flows.Facts{}, err
	}
	waivers := make([]flows.Waiver, 0, len(approved))
	for _, w := range approved {
		waivers = append(waivers, flows.Waiver{ID: w.ID, Name: w.Name, Waives: w.Waives, ApprovedBy: w.ApprovedBy})
	}
	return flows.Facts{NodeTypes: types, Requirements: reqs, Waivers: waivers}, nil
}

// flowRequirement is one requirement's status as a flow reads it.
func flowRequirement(row twin.RequirementStatus) flows.Requirement {
	r := flows.Requirement{Name: row.Name, ConstraintSet: row.Set, Metric: row.Metric, Operator: row.Operator, Unit: row.Unit,
		Status: row.Status, Missing: row.Missing}
	if row.Limit != nil {
		v := *row.Limit
		r.Limit = &v
	}
	if row.Shown != nil {
		v := row.Shown.Value
		r.Value, r.SourceKind = &v, row.Shown.Kind
	}
	return r
}
