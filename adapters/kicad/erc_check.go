package kicad

import (
	"fmt"
	"math"
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

// mm turns KiCad's 0.1 µm schematic unit into millimetres.
func mm(iu int64) float64 { return math.Round(float64(iu)) / 10000 }

// pinItem describes a pin as KiCad 6 does: "Symbol U1 [74LVC1G04] Pin 4
// [, Output, Inverted]" (reference, library symbol, number, name, type,
// shape).
func pinItem(p *ercPin) ERCItem {
	name := visibleName(p.lp.name)
	return ERCItem{
		Kind: "pin", Reference: p.part.reference, Pin: p.lp.number, PinName: name, PinType: pinTypeTokens[p.kind],
		Description: fmt.Sprintf("Symbol %s [%s] Pin %s [%s, %s, %s]", p.part.reference, libItemName(p.part.sym.libID), p.lp.number, name, pinTypeNames[p.kind], pinShapeName(p.lp.shape)),
		XMM:         mm(p.at.x), YMM: mm(p.at.y),
	}
}

// pinShapeName is KiCad's display name of a pin's graphic style.
func pinShapeName(shape string) string {
	names := map[string]string{
		"line": "Line", "inverted": "Inverted", "clock": "Clock", "inverted_clock": "Inverted clock",
		"input_low": "Input low", "clock_low": "Clock low", "output_low": "Output low",
		"edge_clock_high": "Falling edge clock", "non_logic": "NonLogic",
	}
	if n, ok := names[shape]; ok {
		return n
	}
	return shape
}

var labelKinds = map[int][2]string{
	localLabel:  {"label", "Label"},
	globalLabel: {"global_label", "Global Label"},
	hierLabel:   {"hierarchical_label", "Hierarchical Label"},
}

func labelItem(l *ercLabel) ERCItem {
	k := labelKinds[l.kind]
	return ERCItem{Kind: k[0], Text: l.name, Description: fmt.Sprintf("%s '%s'", k[1], l.name), XMM: mm(l.at.x), YMM: mm(l.at.y)}
}

func sheetPinItem(p *ercSheetPin) ERCItem {
	return ERCItem{Kind: "sheet_pin", Text: p.name, Description: fmt.Sprintf("Hierarchical Sheet Pin '%s' of sheet %s", p.name, p.sheet.name), XMM: mm(p.at.x), YMM: mm(p.at.y)}
}

func symbolItem(p *part) ERCItem {
	return ERCItem{Kind: "symbol", Reference: p.reference, Description: fmt.Sprintf("Symbol %s [%s]", p.reference, libItemName(p.sym.libID)), XMM: mm(p.sym.at.x), YMM: mm(p.sym.at.y)}
}

// libItemName is the symbol's name in its library (R for Device:R).
func libItemName(libID string) string {
	if i := strings.LastIndexByte(libID, ':'); i >= 0 {
		return libID[i+1:]
	}
	return libID
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

// unitLetter is KiCad's name of a unit (1 is A, 27 is AA), which its
// duplicate message appends to the reference.
func unitLetter(unit int) string {
	if unit < 1 {
		return ""
	}
	s := ""
	for unit > 0 {
		unit--
		s = string(rune('A'+unit%26)) + s
		unit /= 26
	}
	return s
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

// subgraphChecks are CONNECTION_GRAPH::RunERC's: each subgraph once per
// sheet file (a sheet placed twice is checked in its first placement,
// except subgraphs with nothing to drive them, which KiCad cannot tell
// apart and checks in each).
func (r *ercRun) subgraphChecks() {
	byNet := map[int][]*ercSubgraph{}
	for _, s := range r.g.subgraphs {
		byNet[s.net(r.g)] = append(byNet[s.net(r.g)], s)
	}
	for _, s := range r.g.subgraphs {
		if s.hasDriver() && !r.g.firstPlacement[s.inst] {
			continue
		}
		r.multipleNetNames(s)
		r.danglingWires(s)
		r.noConnects(s)
		r.labels(s, byNet)
	}
}

// Driver priorities of eeschema 6 (CONNECTION_SUBGRAPH::PRIORITY): the
// name a subgraph takes is its highest driver's.
const (
	priPin = iota + 1
	priSheetPin
	priHierLabel
	priLocalLabel
	priPowerPin
	priGlobal
)

type ercDriver struct {
	priority int
	name     string
	label    *ercLabel // nil for a power pin
	pin      *ercPin
}

// strongDrivers are a subgraph's labels and power connections.
func strongDrivers(s *ercSubgraph) []ercDriver {
	var out []ercDriver
	for _, p := range s.pins {
		if p.powerConnection() {
			out = append(out, ercDriver{priority: priPowerPin, name: p.netName(), pin: p})
		}
	}
	for _, l := range s.labels {
		pri := map[int]int{localLabel: priLocalLabel, globalLabel: priGlobal, hierLabel: priHierLabel}[l.kind]
		out = append(out, ercDriver{priority: pri, name: l.name, label: l})
	}
	return out
}

// multipleNetNames is ercCheckMultipleDrivers: a subgraph with several
// names, warned once, at the name that wins, naming the first label whose
// name loses.
func (r *ercRun) multipleNetNames(s *ercSubgraph) {
	drivers := strongDrivers(s)
	if len(drivers) < 2 {
		return
	}
	primary := drivers[0]
	for _, d := range drivers[1:] {
		if d.priority > primary.priority || (d.priority == primary.priority && d.name < primary.name) {
			primary = d
		}
	}
	item := func(d ercDriver) ERCItem {
		if d.label != nil {
			return labelItem(d.label)
		}
		return pinItem(d.pin)
	}
	for _, d := range drivers {
		if d.label == nil || d.name == primary.name {
			continue
		}
		var at point
		if primary.label != nil {
			at = primary.label.at
		} else {
			at = primary.pin.at
		}
		r.report(ruleMultipleNetNames, "", s.inst, at,
			fmt.Sprintf("Both %s and %s are attached to the same items; %s will be used in the netlist", primary.name, d.name, primary.name),
			item(primary), item(d))
		return
	}
}

// danglingWires is ercCheckFloatingWires: wires with no pin, label or
// sheet pin anywhere on them.
func (r *ercRun) danglingWires(s *ercSubgraph) {
	if s.hasDriver() || len(s.wires) == 0 {
		return
	}
	var items []ERCItem
	for _, w := range s.wires[:min(len(s.wires), 4)] {
		items = append(items, ERCItem{Kind: "wire", Description: wireText(w), XMM: mm(w[0].x), YMM: mm(w[0].y)})
	}
	r.report(ruleWireDangling, "", s.inst, s.wires[0][0], "", items...)
}

// wireText describes a wire as KiCad 6 does: "Horizontal Wire, length
// 5.08 mm".
func wireText(w [2]point) string {
	dir := "Wire"
	switch {
	case w[0].y == w[1].y:
		dir = "Horizontal Wire"
	case w[0].x == w[1].x:
		dir = "Vertical Wire"
	}
	return fmt.Sprintf("%s, length %.2f mm", dir, math.Hypot(mm(w[1].x)-mm(w[0].x), mm(w[1].y)-mm(w[0].y)))
}

// noConnects is ercCheckNoConnects. With a no-connect flag, the subgraph
// may hold one pin and wires: another pin or a label makes the flagged
// pin connected (warned at one of its pins), and nothing but
// the flag makes the flag dangling. Without one, a pin needs another pin,
// a label or a sheet pin on its subgraph; invisible power inputs of
// ordinary symbols connect by name, and pins of type no_connect or free
// need nothing.
func (r *ercRun) noConnects(s *ercSubgraph) {
	others := len(s.labels) + len(s.sheetPins)
	if len(s.noConnects) > 0 {
		flag := s.noConnects[0]
		if len(s.pins) > 0 && (others > 0 || len(s.pins) > 1) {
			// KiCad names one of the pins, by the order of its own item
			// list; the first in design order stands for it.
			pin := s.pins[0]
			r.report(ruleNoConnectConn, "", s.inst, pin.at, "", pinItem(pin),
				ERCItem{Kind: "no_connect", Description: "No Connect", XMM: mm(flag.at.x), YMM: mm(flag.at.y)})
		}
		if len(s.pins) == 0 && others == 0 {
			r.report(ruleNoConnectDangling, "", s.inst, flag.at, "",
				ERCItem{Kind: "no_connect", Description: "No Connect", XMM: mm(flag.at.x), YMM: mm(flag.at.y)})
		}
		return
	}
	if len(s.pins) == 0 {
		return
	}
	pin := s.pins[0]
	connected := len(s.pins) > 1 || others > 0
	if pin.kind == ptPowerIn && pin.lp.hidden && !pin.part.lib.power {
		connected = true
	}
	if !connected && pin.kind != ptNoConnect && pin.kind != ptFree {
		r.report(rulePinNotConnected, "", s.inst, pin.at, "", pinItem(pin))
	}
}

// labels is ercCheckLabels as KiCad 6.0.11 behaves (its GUI's reports on
// the demos and on testdata/erc were compared): a label touching
// nothing (no wire, pin or other item at its spot) is dangling, and ends
// the subgraph's check. A subgraph with two pins or more (sheet pins
// count) is fine. Otherwise its labels count the pins they reach: the
// subgraph's and those of every other subgraph of the net, across
// sheets. One pin, or none, makes each label dangling (a global label is
// then global_label_dangling), unless, for one pin, another subgraph of
// the net carries a no-connect flag. Subgraphs with a no-connect flag are
// not judged.
func (r *ercRun) labels(s *ercSubgraph, byNet map[int][]*ercSubgraph) {
	if len(s.noConnects) > 0 || len(s.labels) == 0 {
		return
	}
	for _, l := range s.labels {
		if r.g.dangling(l.inst, l.at) {
			r.report(ruleLabelDangling, "", s.inst, l.at, "", labelItem(l))
			return
		}
	}
	all := len(s.pins) + len(s.sheetPins)
	if all > 1 {
		return
	}
	flagged := false
	for _, o := range byNet[s.net(r.g)] {
		if o != s {
			all += len(o.pins)
			flagged = flagged || len(o.noConnects) > 0
		}
	}
	if all > 1 || (all == 1 && flagged) {
		return
	}
	for _, l := range s.labels {
		rule := ruleLabelDangling
		if l.kind == globalLabel {
			rule = ruleGlobalLabel
		}
		r.report(rule, "", s.inst, l.at, "", labelItem(l))
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
