package kicad

import "fmt"

// The connection graph's checks, one subgraph at a time, as eeschema 6's
// CONNECTION_GRAPH::RunERC makes them.

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
