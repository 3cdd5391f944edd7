package twin

import (
	"context"
	"math"
	"strings"
)

// A harness estimate runs a cable from the root of the kinematic chain to
// each joint's actuator along the links: a joint's anchor is given in its
// base's frame (a kinematic tree's convention), so one straight line from
// a fixed origin would mean nothing; the cable's length is the sum of the
// anchor offsets of the joints from the root down to it. It is an
// estimate of a routed length, not a routed path.

// HarnessEntry is one joint's cable.
type HarnessEntry struct {
	Joint      Joint
	Conductors int
	// Chain is the joints the cable follows, from the root to this one.
	Chain []string
	// LengthMM is nil when a joint on the chain has no anchor_mm;
	// UnknownBecause then names it.
	LengthMM       *float64
	UnknownBecause string
}

// Harness is an assembly's harness estimate, in bring-up order.
type Harness struct {
	Assembly Node
	Entries  []HarnessEntry
	// ConductorMM is the wire to buy: each cable's length times its
	// conductors, summed; nil when a length is unknown, and then
	// KnownConductorMM is the sum of the cables whose length is known.
	ConductorMM, KnownConductorMM *float64
	// Unknown names the joints whose cable length is unknown.
	Unknown []string
	// PowerTree is the draw of each branch of the product the assembly
	// is in, from its root down, as the roll-up computes it; nil when
	// the assembly is not a position of a product hierarchy.
	PowerTree *PowerBranch
}

// PowerBranch is one position of a power tree: its branch's peak and
// average draw and dissipation (for one of it), and its branches.
type PowerBranch struct {
	Name          string        `json:"name"`
	Ref           string        `json:"ref"`
	Level         string        `json:"level"`
	Quantity      int           `json:"quantity"`
	TotalQuantity int           `json:"total_quantity"`
	Power         PowerRollup   `json:"power"`
	Children      []PowerBranch `json:"children,omitempty"`
}

// PowerTreeOf is the power half of a roll-up.
func PowerTreeOf(n RollupNode) PowerBranch {
	b := PowerBranch{Name: n.Name, Ref: n.Ref, Level: n.Level, Quantity: n.Quantity, TotalQuantity: n.TotalQuantity, Power: n.Power}
	for _, c := range n.Children {
		b.Children = append(b.Children, PowerTreeOf(c))
	}
	return b
}

// HarnessEstimate estimates the cable to every joint of an assembly, and
// the power tree of the product it is in. An unknown length or draw is
// named, never counted as zero.
func HarnessEstimate(ctx context.Context, s Store, projectID, assemblyRef string) (Harness, error) {
	a, err := AssemblyJoints(ctx, s, projectID, assemblyRef)
	if err != nil {
		return Harness{}, err
	}
	steps, err := BuildOrder(a.Joints)
	if err != nil {
		return Harness{}, err
	}
	byName := map[string]Joint{}
	for _, j := range a.Joints {
		byName[strings.ToLower(strings.TrimSpace(j.Name))] = j
	}
	out := Harness{Assembly: a.Node, Entries: []HarnessEntry{}, Unknown: []string{}}
	known := 0.0
	for _, st := range steps {
		e := HarnessEntry{Joint: st.Joint, Conductors: st.Joint.ConductorCount(), Chain: st.Chain}
		length := 0.0
		for _, name := range st.Chain {
			j := byName[strings.ToLower(strings.TrimSpace(name))]
			if j.AnchorMM == nil {
				e.UnknownBecause = "joint " + j.Name + " has no anchor_mm"
				break
			}
			length += math.Sqrt(j.AnchorMM[0]*j.AnchorMM[0] + j.AnchorMM[1]*j.AnchorMM[1] + j.AnchorMM[2]*j.AnchorMM[2])
		}
		if e.UnknownBecause == "" {
			e.LengthMM = &length
			known += length * float64(e.Conductors)
		} else {
			out.Unknown = append(out.Unknown, st.Joint.Name)
		}
		out.Entries = append(out.Entries, e)
	}
	out.KnownConductorMM = &known
	if len(out.Unknown) == 0 {
		out.ConductorMM = &known
	}
	if a.Node.Type == HierarchyNodeType {
		chain, err := ancestry(ctx, s, a.Node)
		if err != nil {
			return Harness{}, err
		}
		r, err := ComputeRollup(ctx, s, projectID, chain[len(chain)-1].ID)
		if err != nil {
			return Harness{}, err
		}
		tree := PowerTreeOf(r.Root)
		out.PowerTree = &tree
	}
	return out, nil
}
