package twin

import (
	"context"
	"fmt"
	"sort"

	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/twin"
)

// FlowFacts reads what a design flow's gate criteria are judged against:
// the project's node counts by type (twin.CountByType), every current
// requirement's status (the rows of twin.constraint_violations), the
// waivers a person approved, and the latest evidence of each checked
// metric (ERC and DRC counts).
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
	checks, err := latestChecks(ctx, b.Store, p.ID)
	if err != nil {
		return flows.Facts{}, err
	}
	return flows.Facts{NodeTypes: types, Requirements: reqs, Waivers: waivers, Checks: checks}, nil
}

// latestChecks is the latest evidence of each metric a check criterion
// reads (flows.CheckMetrics), with its freshness and what it found.
func latestChecks(ctx context.Context, s twin.Store, projectID string) ([]flows.CheckEvidence, error) {
	evidence, err := s.NodesByType(ctx, projectID, "evidence") // oldest first
	if err != nil {
		return nil, err
	}
	latest := map[string]twin.Node{}
	for _, n := range evidence {
		m, _ := n.Properties["metric"].(string)
		latest[flows.NormaliseMetric(m)] = n
	}
	var out []flows.CheckEvidence
	for _, metric := range flows.CheckMetrics() {
		n, ok := latest[metric]
		if !ok {
			continue
		}
		f, err := twin.Staleness(ctx, s, n.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, checkEvidence(metric, n, f))
	}
	return out, nil
}

// checkEvidence is one evidence node as a check criterion reads it.
func checkEvidence(metric string, n twin.Node, f twin.Freshness) flows.CheckEvidence {
	c := flows.CheckEvidence{Metric: metric, EvidenceID: n.ID, Name: n.Name, Stale: f.Stale}
	if v, ok := twin.NumberOf(n.Properties["value"]); ok {
		c.Value = &v
	}
	c.Unit, _ = n.Properties["unit"].(string)
	for _, pin := range f.Against {
		c.StaleAgainst = append(c.StaleAgainst, fmt.Sprintf("%s (now %s)", pin.Pinned, pin.Head))
	}
	data, _ := n.Properties["data"].(map[string]any)
	c.ToolID, _ = data["tool_id"].(string)
	c.CallID, _ = data["call_id"].(string)
	if kept, ok := data["findings"].([]any); ok {
		c.Findings = flows.DescribeFindings(kept)
		c.FindingsTotal = len(kept)
		if total, ok := twin.NumberOf(data["findings_total"]); ok && int(total) > c.FindingsTotal {
			c.FindingsTotal = int(total)
		}
	}
	return c
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
