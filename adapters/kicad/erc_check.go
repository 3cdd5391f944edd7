package kicad

import (
	"fmt"
	"sort"
	"strings"
)

// checkERC runs KiCad 6's electrical-rule checks on a loaded design, as
// eeschema 6.0's DIALOG_ERC::OnRunERCClick runs them: annotation
// (SCH_REFERENCE_LIST::CheckAnnotation), sheet names, the connection
// graph's per-subgraph checks (CONNECTION_GRAPH::RunERC: net names,
// dangling wires, unconnected pins and no-connect flags, labels), the
// hierarchy's sheet pins, units, pin-to-pin conflicts and undriven
// inputs (ERC_TESTER::TestPinToPin), similar labels and stacked
// no-connect pins. Every violation is returned with the severity the
// settings give it; ignored rules report nothing. The warnings say what
// the schematic reader left out.
func checkERC(d *design, s *ercSettings) ([]ERCViolation, []string) {
	r := &ercRun{g: buildERCGraph(d), s: s, out: []ERCViolation{}}
	r.annotation()
	r.sheetNames()
	r.subgraphChecks()
	r.hierarchicalSheets()
	r.unitFootprints()
	r.unitNets()
	r.pinToPin()
	r.similarLabels()
	r.stackedNoConnectPins()
	return r.out, r.g.warnings
}

type ercRun struct {
	g   *ercGraph
	s   *ercSettings
	out []ERCViolation
}

// report adds a violation of rule at a spot of a sheet instance, with the
// rule's severity (pin_to_pin passes its cell's); an ignored rule adds
// nothing.
func (r *ercRun) report(rule, severity string, inst *sheetInstance, at point, description string, items ...ERCItem) {
	if !r.s.enabled(rule) {
		return
	}
	if severity == "" {
		severity = r.s.severity[rule]
	}
	if description == "" {
		description = ruleTitle(rule)
	}
	if items == nil {
		items = []ERCItem{}
	}
	r.out = append(r.out, ERCViolation{
		Rule: rule, Severity: severity, Description: description, Sheet: inst.name,
		Position: &Location{XMM: mm(at.x), YMM: mm(at.y)}, Items: items,
	})
}

// annotation is CheckAnnotation: the first unannotated symbol or unit
// beyond the symbol's units (one report, as KiCad stops there), then
// each pair of neighbours, sorted by reference, value and unit, with the
// same reference: the same unit twice or different unit counts is a
// duplicate, different values a unit value mismatch. Power symbols and
// flags (references starting with #) are not annotated.
func (r *ercRun) annotation() {
	var refs []*part
	for _, p := range r.g.d.parts {
		if !strings.HasPrefix(p.reference, "#") {
			refs = append(refs, p)
		}
	}
	order := map[*part]int{}
	for i, p := range refs {
		order[p] = i
	}
	sort.SliceStable(refs, func(i, j int) bool {
		a, b := refs[i], refs[j]
		if a.reference != b.reference {
			return a.reference < b.reference
		}
		if a.value != b.value {
			return a.value < b.value
		}
		if a.unit != b.unit {
			return a.unit < b.unit
		}
		return order[a] < order[b]
	})
	for _, p := range refs {
		if unannotated(p.reference) {
			r.report(ruleUnannotated, "", p.inst, p.sym.at, fmt.Sprintf("Item not annotated: %s", p.reference), symbolItem(p))
			break
		}
		if p.unit > max(p.lib.units, 1) {
			r.report(ruleExtraUnits, "", p.inst, p.sym.at, fmt.Sprintf("Symbol %s (unit %d) exceeds the units defined (%d)", p.reference, p.unit, p.lib.units), symbolItem(p))
			break
		}
	}
	for i := 0; i+1 < len(refs); i++ {
		a, b := refs[i], refs[i+1]
		if a.reference != b.reference {
			continue
		}
		switch {
		case a.unit == b.unit:
			r.report(ruleDuplicateRef, "", a.inst, a.sym.at, fmt.Sprintf("Duplicate items %s%s", a.reference, unitLetter(a.unit)), symbolItem(a), symbolItem(b))
		case a.lib.units != b.lib.units:
			r.report(ruleDuplicateRef, "", a.inst, a.sym.at, fmt.Sprintf("Differing unit counts for item %s and %s", a.reference, b.reference), symbolItem(a), symbolItem(b))
		case a.value != b.value:
			r.report(ruleUnitValue, "", a.inst, a.sym.at, fmt.Sprintf("Different values for %s (%s) and %s (%s)", a.reference, a.value, b.reference, b.value), symbolItem(a), symbolItem(b))
		}
	}
}

// unannotated is KiCad's test: a reference ending in ? or in no digit.
func unannotated(ref string) bool {
	if ref == "" {
		return true
	}
	last := ref[len(ref)-1]
	return last == '?' || last < '0' || last > '9'
}

// sheetNames reports two sheet symbols of one sheet file with the same
// name, ignoring case (once per file, as KiCad checks each screen once).
func (r *ercRun) sheetNames() {
	for _, inst := range r.g.d.instances {
		if !r.g.firstPlacement[inst] {
			continue
		}
		sheets := inst.file.sheets
		for i := range sheets {
			for j := i + 1; j < len(sheets); j++ {
				if strings.EqualFold(sheets[i].name, sheets[j].name) {
					item := func(s sheetSymbol) ERCItem {
						return ERCItem{Kind: "sheet", Text: s.name, Description: "Hierarchical Sheet " + s.name, XMM: mm(s.at.x), YMM: mm(s.at.y)}
					}
					r.report(ruleDuplicateSheet, "", inst, sheets[i].at, "", item(sheets[i]), item(sheets[j]))
				}
			}
		}
	}
}

// hierarchicalSheets is ercCheckHierSheets, for each placement of each
// sheet symbol: a sheet pin touching nothing is an unconnected pin, and
// a sheet pin with no hierarchical label of its name in the sheet, or a
// hierarchical label with no sheet pin of its name, is a mismatch.
func (r *ercRun) hierarchicalSheets() {
	for _, inst := range r.g.d.instances {
		for i := range inst.file.sheets {
			sh := &inst.file.sheets[i]
			var pins []*ercSheetPin
			for _, sp := range r.g.sheetPins {
				if sp.inst == inst && sp.sheet == sh {
					pins = append(pins, sp)
				}
			}
			for _, sp := range pins {
				if r.g.dangling(inst, sp.at) {
					r.report(rulePinNotConnected, "", inst, sp.at, "", sheetPinItem(sp))
				}
			}
			child := childInstance(r.g.d, inst, sh.uuid)
			if child == nil {
				continue
			}
			labels := map[string]label{}
			var labelNames []string
			for _, l := range child.file.labels {
				if l.kind == hierLabel {
					if _, dup := labels[l.name]; !dup {
						labelNames = append(labelNames, l.name)
					}
					labels[l.name] = l
				}
			}
			pinNames := map[string]bool{}
			for _, sp := range pins {
				if pinNames[sp.name] {
					continue
				}
				pinNames[sp.name] = true
				if _, ok := labels[sp.name]; !ok {
					r.report(ruleHierLabelMismatch, "", inst, sp.at,
						fmt.Sprintf("Sheet pin %s has no matching hierarchical label inside the sheet", sp.name), sheetPinItem(sp))
				}
			}
			for _, name := range labelNames {
				if !pinNames[name] {
					l := labels[name]
					r.report(ruleHierLabelMismatch, "", child, l.at,
						fmt.Sprintf("Hierarchical label %s has no matching sheet pin in the parent sheet", name),
						labelItem(&ercLabel{inst: child, label: l}))
				}
			}
		}
	}
}

// multiUnit groups the placed units of each multi-unit symbol by
// reference, in design order.
func (r *ercRun) multiUnit() ([]string, map[string][]*part) {
	groups := map[string][]*part{}
	var refs []string
	for _, p := range r.g.d.parts {
		if p.lib.units < 2 || strings.HasPrefix(p.reference, "#") {
			continue
		}
		if _, seen := groups[p.reference]; !seen {
			refs = append(refs, p.reference)
		}
		groups[p.reference] = append(groups[p.reference], p)
	}
	return refs, groups
}

// unitFootprints is TestMultiunitFootprints: each unit whose footprint
// differs from the first unit that has one.
func (r *ercRun) unitFootprints() {
	refs, groups := r.multiUnit()
	for _, ref := range refs {
		var first *part
		for _, p := range groups[ref] {
			if p.footprint != "" {
				first = p
				break
			}
		}
		if first == nil {
			continue
		}
		for _, p := range groups[ref] {
			if p.footprint != "" && p.footprint != first.footprint {
				r.report(ruleUnitFootprint, "", p.inst, p.sym.at,
					fmt.Sprintf("Different footprints assigned to %s and %s", first.reference, p.reference), symbolItem(first), symbolItem(p))
			}
		}
	}
}

// unitNets is TestMultUnitPinConflicts: a pin number of a multi-unit
// symbol, drawn in several units, on more than one net.
func (r *ercRun) unitNets() {
	type seen struct {
		net int
		pin *ercPin
	}
	first := map[string]seen{}
	for _, pins := range r.g.netPins() {
		for _, p := range pins {
			if p.part.lib.units < 2 || strings.HasPrefix(p.part.reference, "#") {
				continue
			}
			key := p.part.reference + ":" + p.lp.number
			net := p.sub.net(r.g)
			f, ok := first[key]
			if !ok {
				first[key] = seen{net, p}
				continue
			}
			if f.net != net {
				r.report(ruleUnitNet, "", p.part.inst, p.at,
					fmt.Sprintf("Pin %s of %s is on two different nets in different units", p.lp.number, p.part.reference), pinItem(p), pinItem(f.pin))
			}
		}
	}
}

// pinToPin is ERC_TESTER::TestPinToPin, net by net (nets of two pins or
// more): each pair of pins whose types the matrix does not allow, and an
// input or power input with nothing to drive it. On a net with a power
// input only a power output (a PWR_FLAG or a regulator's output) drives;
// elsewhere outputs, passives, tri-states and bidirectionals do too.
func (r *ercRun) pinToPin() {
	for _, pins := range r.g.netPins() {
		if len(pins) < 2 {
			continue
		}
		powerNet := false
		for _, p := range pins {
			powerNet = powerNet || p.kind == ptPowerIn
		}
		var needsDriver *ercPin
		hasDriver := false
		for i, ref := range pins {
			if drivenTypes[ref.kind] {
				if needsDriver == nil || (needsDriver.lp.hidden && !ref.lp.hidden) ||
					(powerNet != needsDriver.powerConnection() && powerNet == ref.powerConnection()) {
					needsDriver = ref
				}
			}
			if powerNet {
				hasDriver = hasDriver || drivingPowerTypes[ref.kind]
			} else {
				hasDriver = hasDriver || drivingTypes[ref.kind]
			}
			for _, test := range pins[i+1:] {
				level := r.s.pinMap[ref.kind][test.kind]
				if level == pinOK {
					continue
				}
				sev := sevError
				if level == pinWarning {
					sev = sevWarning
				}
				r.report(rulePinToPin, sev, ref.part.inst, ref.at,
					fmt.Sprintf("Pins of type %s and %s are connected", pinTypeNames[ref.kind], pinTypeNames[test.kind]),
					pinItem(ref), pinItem(test))
			}
		}
		if needsDriver != nil && !hasDriver {
			rule := rulePinNotDriven
			if powerNet {
				rule = rulePowerPinNotDriven
			}
			r.report(rule, "", needsDriver.part.inst, needsDriver.at, "", pinItem(needsDriver))
		}
	}
}

// similarLabels is TestSimilarLabels: a label whose name equals an
// earlier label's but for case.
func (r *ercRun) similarLabels() {
	firstText := map[string]*ercLabel{}
	for _, l := range r.g.labels {
		key := strings.ToLower(l.name)
		first, ok := firstText[key]
		if !ok {
			firstText[key] = l
			continue
		}
		if first.name != l.name {
			r.report(ruleSimilarLabels, "", l.inst, l.at, "", labelItem(l), labelItem(first))
		}
	}
}

// stackedNoConnectPins is TestNoConnectPins: pins of type no_connect of
// several symbols at one spot of a sheet.
func (r *ercRun) stackedNoConnectPins() {
	type key struct {
		inst *sheetInstance
		at   point
	}
	var order []key
	at := map[key][]*ercPin{}
	for _, p := range r.g.pins {
		if p.kind != ptNoConnect {
			continue
		}
		k := key{p.part.inst, p.at}
		if _, ok := at[k]; !ok {
			order = append(order, k)
		}
		at[k] = append(at[k], p)
	}
	for _, k := range order {
		if pins := at[k]; len(pins) > 1 {
			items := make([]ERCItem, 0, len(pins))
			for _, p := range pins {
				items = append(items, pinItem(p))
			}
			r.report(ruleNoConnectConn, "", k.inst, k.at, "Pins with \"no connection\" type are connected", items...)
		}
	}
}
