package twin

import (
	"fmt"
	"sort"
)

// What one position gives a roll-up by itself: mass from the cad_model it
// is REALIZED_BY, cost from the BOM item it is an INSTANCE_OF, power from
// its own record. A figure it cannot give comes with the reason, which a
// roll-up reports as no_data.

// ownFigure is one figure of one position: its value and where it came
// from, or why there is none.
type ownFigure struct {
	value  float64
	known  bool
	source string
	reason string
}

// ownMass is the measured mass of the cad_model revision a position is
// realised by.
func ownMass(realizedBy *Node) ownFigure {
	if realizedBy == nil {
		return ownFigure{reason: "no realized_by cad_model"}
	}
	v, ok, note := CadModelValue(*realizedBy, "mass")
	if !ok {
		if note == "" {
			note = "properties.mass_kg (or volume_mm3 and a known material)"
		}
		return ownFigure{reason: fmt.Sprintf("realized_by %s gives no mass: it needs %s", realizedBy.Ref(), note)}
	}
	return ownFigure{value: v.Value, known: true, source: realizedBy.Ref() + " " + v.From}
}

// unitCostUnit is the currency costs are rolled up in.
const unitCostUnit = "USD"

// UnitCost reads a BOM item's unit cost in USD: the spec whose MetricKey
// is unit_cost ("$12.50", "12.5 USD", {value, unit: "USD"}; a bare number
// is read as USD). ok is false with the reason when it gives none.
func UnitCost(bom Node) (usd float64, ok bool, reason string) {
	specs, _ := bom.Properties["specs"].(map[string]any)
	keys := make([]string, 0, len(specs))
	for k := range specs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if MetricKey(k) != "unit_cost" {
			continue
		}
		r := ReadSpec(specs[k], unitCostUnit)
		if r.Reason != "" {
			return 0, false, fmt.Sprintf("%s spec %q cannot be read in %s: %s", bom.Ref(), k, unitCostUnit, r.Detail)
		}
		return r.Value, true, ""
	}
	return 0, false, fmt.Sprintf("%s has no unit_cost spec", bom.Ref())
}

// ownCost is the unit cost of the BOM item a position is an instance of.
func ownCost(instanceOf *Node) ownFigure {
	if instanceOf == nil {
		return ownFigure{reason: "no instance_of BOM item"}
	}
	v, ok, reason := UnitCost(*instanceOf)
	if !ok {
		return ownFigure{reason: reason}
	}
	return ownFigure{value: v, known: true, source: instanceOf.Ref() + " unit_cost"}
}

// ownPower is one of a position's power figures (peak_w, average_w,
// dissipation_w).
func ownPower(n Node, figure string) ownFigure {
	p := PowerOf(n)
	v := map[string]*float64{"peak_w": p.PeakW, "average_w": p.AverageW, "dissipation_w": p.DissipationW}[figure]
	if v == nil {
		return ownFigure{reason: "no power." + figure + " recorded"}
	}
	return ownFigure{value: *v, known: true, source: n.Ref() + " power." + figure}
}
