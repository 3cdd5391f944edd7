package twin

import (
	"context"
	"fmt"

	"github.com/metaforge/metaforge/internal/units"
)

// A roll-up sums mass, cost and power over a branch of the product
// hierarchy, weighted by the quantities down the tree. It is computed
// live from the graph each time and never stored, so it cannot go stale
// against its parts. A position's own figure (its model's mass, its BOM
// item's cost, its recorded power) stands for its whole branch; without
// one, a position with children sums theirs, and a leaf is no_data for
// that figure. No_data is named on every position above it and never
// counted as zero.

// Rollup is the roll-up of one branch, from its root.
type Rollup struct {
	ProjectID string     `json:"project_id"`
	Root      RollupNode `json:"root"`
}

// RollupNode is one position of a roll-up. Its figures are for one of it
// (its whole branch, each child counted Quantity times); TotalQuantity
// says how many of it one root holds.
type RollupNode struct {
	Name   string `json:"name"`
	Ref    string `json:"ref"`
	NodeID string `json:"node_id"`
	Level  string `json:"level"`
	// Quantity is on its parent's CONTAINS edge (1 for the root);
	// TotalQuantity the product of the quantities from the root down.
	Quantity      int        `json:"quantity"`
	TotalQuantity int        `json:"total_quantity"`
	Placement     *Placement `json:"placement,omitempty"`
	// RealizedBy and InstanceOf are the refs of the revisions it is
	// linked to.
	RealizedBy string `json:"realized_by,omitempty"`
	InstanceOf string `json:"instance_of,omitempty"`
	// Cycle marks a position met again below itself: nothing under it
	// is read, and its figures are no_data.
	Cycle bool     `json:"cycle,omitempty"`
	Notes []string `json:"notes,omitempty"`

	MassKg   Figure       `json:"mass_kg"`
	CostUSD  Figure       `json:"cost_usd"`
	Power    PowerRollup  `json:"power"`
	Children []RollupNode `json:"children,omitempty"`
}

// PowerRollup is a branch's electrical draw, peak and average, and the
// heat it dissipates, in W: three figures, rolled up separately, because
// they are held against different limits (supply, battery, enclosure).
type PowerRollup struct {
	PeakW        Figure `json:"peak_w"`
	AverageW     Figure `json:"average_w"`
	DissipationW Figure `json:"dissipation_w"`
}

// Figure is one quantity rolled up a branch. Value is the total, given
// only when nothing below is unknown; otherwise NoData names each leaf
// without one and KnownPartialSum is the sum of what is known: a lower
// bound, not a total.
type Figure struct {
	Value           *float64 `json:"value,omitempty"`
	KnownPartialSum *float64 `json:"known_partial_sum,omitempty"`
	// Source says where a position's own figure came from, or
	// "children" when it is their sum.
	Source string   `json:"source,omitempty"`
	NoData []NoData `json:"no_data,omitempty"`
}

// Known says whether the figure is a total.
func (f Figure) Known() bool { return f.Value != nil }

// NoData is a position that gives a roll-up no figure, and why.
type NoData struct {
	Name   string `json:"name"`
	Ref    string `json:"ref"`
	Reason string `json:"reason"`
}

// ComputeRollup rolls up the branch under a position: rootRef is KEY, KEY@n
// or a node id of a hierarchy_node, read as its item's head.
func ComputeRollup(ctx context.Context, s Store, projectID, rootRef string) (Rollup, error) {
	root, err := resolvePosition(ctx, s, projectID, "root", rootRef)
	if err != nil {
		return Rollup{}, err
	}
	return rollupOf(ctx, s, root)
}

// rollupOf rolls up the branch under a position's head.
func rollupOf(ctx context.Context, s Store, head Node) (Rollup, error) {
	t, err := readTree(ctx, s, head)
	if err != nil {
		return Rollup{}, err
	}
	node, err := rollupNode(ctx, s, t)
	if err != nil {
		return Rollup{}, err
	}
	return Rollup{ProjectID: head.ProjectID, Root: node}, nil
}

func rollupNode(ctx context.Context, s Store, t *treeNode) (RollupNode, error) {
	n := t.node
	level, _ := n.Properties["level"].(string)
	out := RollupNode{Name: n.Name, Ref: n.Ref(), NodeID: n.ID, Level: level, Quantity: t.quantity, TotalQuantity: t.total,
		Placement: t.placement, Cycle: t.cycle}
	if t.cycle {
		gap := []NoData{{Name: n.Name, Ref: n.Ref(), Reason: "it contains its own ancestor (a cycle); move it with twin.record_hierarchy_node"}}
		out.MassKg, out.CostUSD = Figure{NoData: gap}, Figure{NoData: gap}
		out.Power = PowerRollup{Figure{NoData: gap}, Figure{NoData: gap}, Figure{NoData: gap}}
		return out, nil
	}
	for _, link := range []struct {
		to  *Node
		ref *string
	}{{t.realizedBy, &out.RealizedBy}, {t.instanceOf, &out.InstanceOf}} {
		if link.to == nil {
			continue
		}
		*link.ref = link.to.Ref()
		note, err := pinNote(ctx, s, *link.to)
		if err != nil {
			return RollupNode{}, err
		}
		if note != "" {
			out.Notes = append(out.Notes, note)
		}
	}
	for _, c := range t.children {
		child, err := rollupNode(ctx, s, c)
		if err != nil {
			return RollupNode{}, err
		}
		out.Children = append(out.Children, child)
	}
	pick := func(f func(RollupNode) Figure) []weighted {
		ws := make([]weighted, len(out.Children))
		for i, c := range out.Children {
			ws[i] = weighted{c.Quantity, f(c)}
		}
		return ws
	}
	out.MassKg = combine(n, ownMass(t.realizedBy), pick(func(c RollupNode) Figure { return c.MassKg }))
	out.CostUSD = combine(n, ownCost(t.instanceOf), pick(func(c RollupNode) Figure { return c.CostUSD }))
	out.Power = PowerRollup{
		PeakW:        combine(n, ownPower(n, "peak_w"), pick(func(c RollupNode) Figure { return c.Power.PeakW })),
		AverageW:     combine(n, ownPower(n, "average_w"), pick(func(c RollupNode) Figure { return c.Power.AverageW })),
		DissipationW: combine(n, ownPower(n, "dissipation_w"), pick(func(c RollupNode) Figure { return c.Power.DissipationW })),
	}
	return out, nil
}

// pinNote says when a realisation is pinned to a revision its item has
// moved on from.
func pinNote(ctx context.Context, s Store, pinned Node) (string, error) {
	it, err := s.ItemOfNode(ctx, pinned.ID)
	if err != nil {
		return "", err
	}
	if it.HeadNodeID == pinned.ID {
		return "", nil
	}
	return fmt.Sprintf("linked to %s, but %s is now at %s: twin.realize_hierarchy_node moves the link", pinned.Ref(), it.Key, it.HeadRef()), nil
}

// weighted is a child's figure and how many of the child its parent holds.
type weighted struct {
	quantity int
	figure   Figure
}

// combine is a position's figure: its own when it has one; else its
// children's sum, known only when each child's is; a leaf without its own
// is no_data.
func combine(n Node, own ownFigure, children []weighted) Figure {
	if own.known {
		v := own.value
		return Figure{Value: &v, Source: own.source}
	}
	if len(children) == 0 {
		zero := 0.0
		return Figure{KnownPartialSum: &zero, NoData: []NoData{{Name: n.Name, Ref: n.Ref(), Reason: own.reason}}}
	}
	sum, partial := 0.0, 0.0
	var gaps []NoData
	seen := map[NoData]bool{}
	for _, c := range children {
		q := float64(c.quantity)
		switch {
		case c.figure.Value != nil:
			sum += q * *c.figure.Value
			partial += q * *c.figure.Value
		case c.figure.KnownPartialSum != nil:
			partial += q * *c.figure.KnownPartialSum
		}
		for _, g := range c.figure.NoData {
			if !seen[g] {
				seen[g] = true
				gaps = append(gaps, g)
			}
		}
	}
	// Sums are rounded to 12 significant figures, so float noise
	// (0.30000000000000004) does not read as a difference.
	sum, partial = units.RoundSig(sum, 12), units.RoundSig(partial, 12)
	if len(gaps) > 0 {
		return Figure{KnownPartialSum: &partial, Source: "children", NoData: gaps}
	}
	return Figure{Value: &sum, Source: "children"}
}
