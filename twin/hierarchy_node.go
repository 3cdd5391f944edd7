package twin

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// A product hierarchy is a tree of positions (hierarchy_node items): a
// product contains systems, a system subsystems, down to parts. A parent
// position holds the edge (parent)-[:CONTAINS {quantity, placement}]->(child);
// a position is REALIZED_BY the cad_model that gives it its shape (and
// mass) and INSTANCE_OF the BOM item (a component_selection) that is
// bought for it (and its cost). This file is the vocabulary; the rules are
// in product_hierarchy.go (writing), hierarchy_tree.go (reading),
// hierarchy_realize.go, hierarchy_rollup.go and ebom.go.

// HierarchyNodeType is the item type of a position in a product hierarchy.
const HierarchyNodeType = "hierarchy_node"

// The edges from a position to what realises it. INSTANCE_OF also points
// from a built unit to the product it is a unit of.
const (
	EdgeRealizedBy = "REALIZED_BY"
	EdgeInstanceOf = "INSTANCE_OF"
)

// HierarchyLevels are a position's levels, outermost first.
var HierarchyLevels = []string{"product", "system", "subsystem", "assembly", "part"}

// The properties a position keeps: its parent item's key (so a revision of
// a child made by any write, an engineering change too, stays where it
// is), and its edge's quantity and placement.
const (
	parentKeyProperty = "parent_key"
	quantityProperty  = "quantity"
	placementProperty = "placement"
	powerProperty     = "power"
)

// Placement is where a position sits in its parent's frame: a translation
// in mm and rotations about x, y and z in degrees; a component left out is
// 0.
type Placement struct {
	XMM   float64 `json:"x_mm,omitempty" jsonschema:"translation along the parent's x axis, mm"`
	YMM   float64 `json:"y_mm,omitempty" jsonschema:"translation along the parent's y axis, mm"`
	ZMM   float64 `json:"z_mm,omitempty" jsonschema:"translation along the parent's z axis, mm"`
	RXDeg float64 `json:"rx_deg,omitempty" jsonschema:"rotation about the parent's x axis, degrees"`
	RYDeg float64 `json:"ry_deg,omitempty" jsonschema:"rotation about the parent's y axis, degrees"`
	RZDeg float64 `json:"rz_deg,omitempty" jsonschema:"rotation about the parent's z axis, degrees"`
}

func (p Placement) value() map[string]any {
	return map[string]any{"x_mm": p.XMM, "y_mm": p.YMM, "z_mm": p.ZMM, "rx_deg": p.RXDeg, "ry_deg": p.RYDeg, "rz_deg": p.RZDeg}
}

// placementOf reads a placement as stored (nil when there is none).
func placementOf(raw any) *Placement {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	f := func(k string) float64 { v, _ := NumberOf(m[k]); return v }
	return &Placement{XMM: f("x_mm"), YMM: f("y_mm"), ZMM: f("z_mm"), RXDeg: f("rx_deg"), RYDeg: f("ry_deg"), RZDeg: f("rz_deg")}
}

// Power is what a position draws, in watts: at peak, on average, and how
// much of it leaves as heat. Each is optional; a figure not given is
// unknown, never zero.
type Power struct {
	PeakW        *float64 `json:"peak_w,omitempty" jsonschema:"peak electrical draw, W (supply and rail sizing, inrush)"`
	AverageW     *float64 `json:"average_w,omitempty" jsonschema:"average electrical draw, W (battery runtime)"`
	DissipationW *float64 `json:"dissipation_w,omitempty" jsonschema:"heat dissipated, W (what the enclosure must shed); draw less the useful output"`
}

// check refuses a negative or non-finite figure, or an average above the
// peak.
func (p Power) check() error {
	for _, f := range []struct {
		name string
		v    *float64
	}{{"peak_w", p.PeakW}, {"average_w", p.AverageW}, {"dissipation_w", p.DissipationW}} {
		if f.v != nil && (*f.v < 0 || math.IsNaN(*f.v) || math.IsInf(*f.v, 0)) {
			return Refusef("power.%s %g: a draw is a finite number of watts, 0 or more", f.name, *f.v)
		}
	}
	if p.PeakW != nil && p.AverageW != nil && *p.AverageW > *p.PeakW {
		return Refusef("power.average_w %g is above power.peak_w %g: the average draw cannot exceed the peak", *p.AverageW, *p.PeakW)
	}
	return nil
}

func (p Power) value() map[string]any {
	out := map[string]any{}
	for k, v := range map[string]*float64{"peak_w": p.PeakW, "average_w": p.AverageW, "dissipation_w": p.DissipationW} {
		if v != nil {
			out[k] = *v
		}
	}
	return out
}

// PowerOf reads the power a position records (nil figures where it gives
// none).
func PowerOf(n Node) Power {
	m, _ := n.Properties[powerProperty].(map[string]any)
	f := func(k string) *float64 {
		if v, ok := NumberOf(m[k]); ok {
			return &v
		}
		return nil
	}
	return Power{PeakW: f("peak_w"), AverageW: f("average_w"), DissipationW: f("dissipation_w")}
}

// checkLevel refuses a level that is not one of HierarchyLevels.
func checkLevel(level string) error {
	if !slices.Contains(HierarchyLevels, level) {
		return Refusef("level %q is not one of %s", level, strings.Join(HierarchyLevels, ", "))
	}
	return nil
}

// quantityOf reads a CONTAINS edge's quantity: 1 when it gives none.
func quantityOf(props map[string]any) int {
	if q, ok := NumberOf(props[quantityProperty]); ok && q >= 1 {
		return int(q)
	}
	return 1
}

// containsProps are a CONTAINS edge's properties.
func containsProps(quantity int, placement *Placement) map[string]any {
	props := map[string]any{quantityProperty: quantity}
	if placement != nil {
		props[placementProperty] = placement.value()
	}
	return props
}

// positionName names a position in a message: "Gripper (HN-GRIPPER@2)".
func positionName(n Node) string { return fmt.Sprintf("%s (%s)", n.Name, n.Ref()) }
