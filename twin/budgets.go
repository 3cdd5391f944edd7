package twin

import (
	"context"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// A system budget (a budget entity: metric, unit, system_total, and
// optionally allocations [{target, amount}]) is held against what the
// product hierarchy rolls up: mass, cost, and peak or average power draw
// or dissipation. An allocation whose target is a hierarchy position is
// held against that branch's own roll-up, times how many of it the product
// holds. A figure the roll-up cannot give is no_data, naming what it
// lacks; it is never a pass.

// budgetFigure is the roll-up figure a budget metric reads, in its unit.
type budgetFigure struct {
	unit string
	of   func(RollupNode) Figure
}

// budgetFigures are the metrics a roll-up can hold a budget to, by
// MetricKey.
var budgetFigures = func() map[string]budgetFigure {
	mass := budgetFigure{"kg", func(n RollupNode) Figure { return n.MassKg }}
	cost := budgetFigure{"USD", func(n RollupNode) Figure { return n.CostUSD }}
	peak := budgetFigure{"W", func(n RollupNode) Figure { return n.Power.PeakW }}
	average := budgetFigure{"W", func(n RollupNode) Figure { return n.Power.AverageW }}
	heat := budgetFigure{"W", func(n RollupNode) Figure { return n.Power.DissipationW }}
	return map[string]budgetFigure{
		"mass": mass, "cost": cost, "unit_cost": cost,
		"power": peak, "peak_power": peak, "power_peak": peak, "draw_peak": peak,
		"average_power": average, "power_average": average, "draw_average": average,
		"dissipation": heat, "power_dissipation": heat, "heat_dissipation": heat,
	}
}()

// BudgetStatus is one budget held against what is recorded.
type BudgetStatus struct {
	NodeID      string  `json:"node_id"`
	Name        string  `json:"name"`
	Metric      string  `json:"metric"`
	Unit        string  `json:"unit"`
	SystemTotal float64 `json:"system_total"`
	// Used is what the product uses, in the budget's unit, and Source
	// where that came from; nil when nothing gives it, and Missing says
	// what would.
	Used    *float64 `json:"used"`
	Source  string   `json:"source,omitempty"`
	Status  string   `json:"status"`
	Detail  string   `json:"detail"`
	Missing []string `json:"missing,omitempty"`
	// Allocations are its allocations held against their branches.
	Allocations []AllocationStatus `json:"allocations,omitempty"`
}

// AllocationStatus is one allocation of a budget held against the branch
// it is allocated to.
type AllocationStatus struct {
	Target string  `json:"target,omitempty"`
	Amount float64 `json:"amount"`
	// Actual is the branch's figure in the budget's unit, times how many
	// of it the product holds; nil when unknown or not checked.
	Actual *float64 `json:"actual"`
	Status string   `json:"status"`
	Detail string   `json:"detail"`
}

// HoldBudgets holds each of the project's budgets against the product
// hierarchy's roll-up, or with none that can give its metric, against the
// sum of its allocations (what was planned, said so).
func HoldBudgets(ctx context.Context, s Store, projectID string) ([]BudgetStatus, error) {
	budgets, err := s.NodesByType(ctx, projectID, "budget")
	if err != nil || len(budgets) == 0 {
		return nil, err
	}
	ps, err := ReadProductStructure(ctx, s, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]BudgetStatus, 0, len(budgets))
	for _, b := range budgets {
		st, err := holdBudget(ctx, s, projectID, ps, b)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func holdBudget(ctx context.Context, s Store, projectID string, ps ProductStructure, b Node) (BudgetStatus, error) {
	metric, _ := b.Properties["metric"].(string)
	unit, _ := b.Properties["unit"].(string)
	st := BudgetStatus{NodeID: b.ID, Name: b.Name, Metric: metric, Unit: unit}
	total, ok := NumberOf(b.Properties["system_total"])
	if !ok {
		st.Status, st.Detail = StatusNoData, "it has no numeric system_total"
		st.Missing = []string{fmt.Sprintf("a numeric system_total on budget %q", b.Name)}
		return st, nil
	}
	st.SystemTotal = total
	fig, rolls := budgetFigures[MetricKey(metric)]
	if rolls {
		used, source, missing := productFigure(ps, MetricKey(metric), fig)
		switch v, err := units.Convert(used, fig.unit, unit); {
		case source != "" && err != nil:
			st.Missing = append(st.Missing, fmt.Sprintf("budget %q is in %s, which cannot hold a %s in %s (%v)", b.Name, unit, metric, fig.unit, err))
		case source != "":
			st.Used, st.Source = &v, source
		default:
			st.Missing = append(st.Missing, missing...)
		}
	}
	allocs, sum, planned := readAllocations(b)
	for _, a := range allocs {
		st.Allocations = append(st.Allocations, holdAllocation(ctx, s, projectID, ps, a, fig, rolls, unit))
	}
	if st.Used == nil && planned {
		st.Used, st.Source, st.Missing = &sum, fmt.Sprintf("the sum of its %d allocations: what was planned, not what the product uses", len(allocs)), nil
	}
	if st.Used == nil {
		why := fmt.Sprintf("allocations (a list of {target, amount} in %s) on budget %q", unit, b.Name)
		if rolls {
			why += fmt.Sprintf(", or a known %s on every leaf of the product hierarchy (twin.compute_hierarchy_rollup shows the no_data)", metric)
		}
		st.Missing = append([]string{why}, st.Missing...)
	}
	var over []string
	for _, a := range st.Allocations {
		if a.Status == StatusFail {
			over = append(over, a.Detail)
		}
	}
	switch {
	case st.Used != nil && *st.Used > total:
		st.Status, st.Detail = StatusFail, fmt.Sprintf("%g of %g %s (%s) is over its system total", *st.Used, total, unit, st.Source)
	case len(over) > 0:
		st.Status, st.Detail = StatusFail, "over its allocation: "+strings.Join(over, "; ")
	case st.Used == nil:
		st.Status, st.Detail = StatusNoData, "nothing recorded holds it"
	default:
		st.Status, st.Detail = StatusPass, fmt.Sprintf("%g of %g %s (%s)", *st.Used, total, unit, st.Source)
	}
	return st, nil
}

// productFigure is the product's figure for a metric in the figure's
// unit: mass as ProductStructure.Mass reads it, anything else the sum of
// the roots' roll-ups. source is "" when it is not known; missing then
// names what gives none.
func productFigure(ps ProductStructure, metric string, fig budgetFigure) (v float64, source string, missing []string) {
	if metric == "mass" {
		return ps.Mass()
	}
	if len(ps.Roots) == 0 {
		return 0, "", nil
	}
	var names []string
	for _, r := range ps.Roots {
		f := fig.of(r.Root)
		names = append(names, r.Root.Ref)
		if f.Value != nil {
			v += *f.Value
			continue
		}
		for _, g := range f.NoData {
			missing = append(missing, fmt.Sprintf("%s (%s): %s", g.Name, g.Ref, g.Reason))
		}
	}
	if len(missing) > 0 {
		return 0, "", missing
	}
	return v, fmt.Sprintf("the product hierarchy's rolled-up %s of %s", metric, strings.Join(names, ", ")), nil
}

// allocation is one of a budget's allocations as recorded: an amount, and
// the target it is allocated to ("" for a bare number).
type allocation struct {
	target string
	amount float64
}

// readAllocations reads a budget's allocations; planned is false when it
// has none, or one without a numeric amount (then their sum means
// nothing).
func readAllocations(b Node) (out []allocation, sum float64, planned bool) {
	raw, ok := b.Properties["allocations"].([]any)
	if !ok || len(raw) == 0 {
		return nil, 0, false
	}
	planned = true
	for _, a := range raw {
		v, ok := NumberOf(a)
		var target string
		if m, isMap := a.(map[string]any); isMap {
			v, ok = NumberOf(m["amount"])
			target, _ = m["target"].(string)
		}
		if !ok {
			planned = false
			continue
		}
		out = append(out, allocation{target: strings.TrimSpace(target), amount: v})
		sum += v
	}
	return out, sum, planned
}

// holdAllocation holds an allocation against its target's branch: the
// branch's figure for one of it, times how many of it the product holds.
func holdAllocation(ctx context.Context, s Store, projectID string, ps ProductStructure, a allocation, fig budgetFigure, rolls bool, unit string) AllocationStatus {
	st := AllocationStatus{Target: a.target, Amount: a.amount, Status: StatusNoData}
	if a.target == "" || !rolls {
		st.Detail = "not checked: only an allocation to a hierarchy position, of a metric the roll-up gives, is held against a branch"
		return st
	}
	n, err := ResolveRef(ctx, s, projectID, a.target)
	if err != nil || n.Type != HierarchyNodeType {
		st.Detail = fmt.Sprintf("not checked: %s is not a position of the product hierarchy", a.target)
		return st
	}
	branch, ok := findBranch(ps, n.ItemKey)
	if !ok {
		st.Detail = fmt.Sprintf("%s (%s) is not under a root of the product hierarchy", n.Name, a.target)
		return st
	}
	f := fig.of(branch)
	if f.Value == nil {
		var names []string
		for _, g := range f.NoData {
			names = append(names, g.Name)
		}
		st.Detail = fmt.Sprintf("%s: no figure below it for %s", branch.Name, strings.Join(names, ", "))
		return st
	}
	v, err := units.Convert(*f.Value*float64(branch.TotalQuantity), fig.unit, unit)
	if err != nil {
		st.Detail = fmt.Sprintf("the allocation is in %s, which cannot hold a figure in %s (%v)", unit, fig.unit, err)
		return st
	}
	st.Actual = &v
	line := fmt.Sprintf("%s (%s x%d): %g of %g %s", branch.Name, branch.Ref, branch.TotalQuantity, v, a.amount, unit)
	if v > a.amount {
		st.Status, st.Detail = StatusFail, line
	} else {
		st.Status, st.Detail = StatusPass, line
	}
	return st
}

// findBranch finds a position by item key in the product's roll-ups.
func findBranch(ps ProductStructure, key string) (RollupNode, bool) {
	var walk func(n RollupNode) (RollupNode, bool)
	walk = func(n RollupNode) (RollupNode, bool) {
		if k, _, err := ParseItemRef(n.Ref); err == nil && k == key {
			return n, true
		}
		for _, c := range n.Children {
			if found, ok := walk(c); ok {
				return found, true
			}
		}
		return RollupNode{}, false
	}
	for _, r := range ps.Roots {
		if n, ok := walk(r.Root); ok {
			return n, true
		}
	}
	return RollupNode{}, false
}
