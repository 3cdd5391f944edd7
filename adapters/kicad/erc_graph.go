package kicad

// ercGraph is a design's connectivity as ERC judges it, the way eeschema
// 6 builds it: on each sheet instance, subgraphs of what touches (wires,
// junctions, pins, labels, sheet pins, no-connect flags at one spot or on
// a wire), then nets of subgraphs joined by name (labels in their scope,
// power ports and invisible power inputs by net name, sheet pins to the
// hierarchical labels of the sheet they place). It is built on the
// schematic reader's own connectivity (connect), whose geo graph gives
// the subgraphs.
type ercGraph struct {
	d          *design
	pins       []*ercPin
	labels     []*ercLabel
	sheetPins  []*ercSheetPin
	noConnects []*ercNoConnect
	// subgraphs in a stable order: sheet instance, then first item.
	subgraphs []*ercSubgraph
	// firstPlacement is true for the first instance of each sheet file;
	// eeschema runs its per-subgraph checks once per file.
	firstPlacement map[*sheetInstance]bool
	// touching counts the pins, labels, sheet pins and no-connect flags at
	// each spot: a label or sheet pin is dangling unless something else is
	// at its spot or a wire passes there.
	touching map[instPoint]int
	nets     unionFind
	// warnings are the schematic reader's (bus labels not followed).
	warnings []string
}

// ercPin is one pin of one placed unit.
type ercPin struct {
	part *part
	lp   libPin
	kind int
	at   point
	sub  *ercSubgraph
}

// powerConnection is KiCad's IsPowerConnection: a power input that is
// invisible or on a power symbol, which joins its net by name.
func (p *ercPin) powerConnection() bool {
	return p.kind == ptPowerIn && (p.lp.hidden || p.part.lib.power)
}

// netName is the global net a power connection joins: a power port's
// value, or the invisible pin's name.
func (p *ercPin) netName() string {
	if p.part.lib.power {
		return p.part.value
	}
	return p.lp.name
}

type ercLabel struct {
	inst *sheetInstance
	label
	sub *ercSubgraph
}

// ercSheetPin is a pin of a sheet symbol, on the parent's sheet.
type ercSheetPin struct {
	inst  *sheetInstance
	sheet *sheetSymbol
	child *sheetInstance
	label
	sub *ercSubgraph
}

type ercNoConnect struct {
	inst *sheetInstance
	at   point
	sub  *ercSubgraph
}

// ercSubgraph is what touches on one sheet instance.
type ercSubgraph struct {
	inst       *sheetInstance
	pins       []*ercPin
	labels     []*ercLabel
	sheetPins  []*ercSheetPin
	noConnects []*ercNoConnect
	wires      [][2]point
	node       int // its node in the nets graph
}

// hasDriver tells whether KiCad would find a driver for the subgraph: a
// pin, a label or a sheet pin (wires, junctions and flags are not).
func (s *ercSubgraph) hasDriver() bool {
	return len(s.pins) > 0 || len(s.labels) > 0 || len(s.sheetPins) > 0
}

func (s *ercSubgraph) net(g *ercGraph) int { return g.nets.find(s.node) }

// buildERCGraph lays every item of the design into its subgraph and net.
func buildERCGraph(d *design) *ercGraph {
	c := connect(d)
	g := &ercGraph{d: d, firstPlacement: map[*sheetInstance]bool{}, touching: map[instPoint]int{}, warnings: c.warnings}
	seenFile := map[*sheetFile]bool{}
	for _, inst := range d.instances {
		if !seenFile[inst.file] {
			seenFile[inst.file], g.firstPlacement[inst] = true, true
		}
	}
	// No-connect flags are not part of the netlist graph: join each to
	// the spot it marks, or to a wire it lies on.
	for _, inst := range d.instances {
		for _, nc := range inst.file.noConnects {
			id := c.point(inst, nc)
			for _, w := range inst.file.wires {
				if onSegment(nc, w[0], w[1]) {
					c.touch(id, c.point(inst, w[0]))
				}
			}
		}
	}
	byRoot := map[int]*ercSubgraph{}
	sub := func(inst *sheetInstance, at point) *ercSubgraph {
		r := c.geo.find(c.point(inst, at))
		s, ok := byRoot[r]
		if !ok {
			s = &ercSubgraph{inst: inst, node: g.nets.add()}
			byRoot[r] = s
			g.subgraphs = append(g.subgraphs, s)
		}
		return s
	}
	names := map[string]int{}
	join := func(s *ercSubgraph, key string) {
		id, ok := names[key]
		if !ok {
			id = g.nets.add()
			names[key] = id
		}
		g.nets.union(s.node, id)
	}
	for _, inst := range d.instances {
		f := inst.file
		for _, p := range d.parts {
			if p.inst != inst {
				continue
			}
			for _, lp := range p.pins() {
				ep := &ercPin{part: p, lp: lp, kind: pinTypeOf(lp.kind), at: p.sym.pinAt(lp)}
				ep.sub = sub(inst, ep.at)
				ep.sub.pins = append(ep.sub.pins, ep)
				g.pins = append(g.pins, ep)
				g.touching[instPoint{inst, ep.at}]++
				if ep.powerConnection() {
					join(ep.sub, globalKey(ep.netName()))
				}
			}
		}
		for _, l := range f.labels {
			el := &ercLabel{inst: inst, label: l, sub: sub(inst, l.at)}
			el.sub.labels = append(el.sub.labels, el)
			g.labels = append(g.labels, el)
			g.touching[instPoint{inst, l.at}]++
			key := localKey(inst, l.name)
			if l.kind == globalLabel {
				key = globalKey(l.name)
			}
			join(el.sub, key)
		}
		for i := range f.sheets {
			sh := &f.sheets[i]
			child := childInstance(d, inst, sh.uuid)
			for _, p := range sh.pins {
				sp := &ercSheetPin{inst: inst, sheet: sh, child: child, label: p, sub: sub(inst, p.at)}
				sp.sub.sheetPins = append(sp.sub.sheetPins, sp)
				g.sheetPins = append(g.sheetPins, sp)
				g.touching[instPoint{inst, p.at}]++
				if child != nil {
					join(sp.sub, localKey(child, p.name))
				}
			}
		}
		for _, at := range f.noConnects {
			nc := &ercNoConnect{inst: inst, at: at, sub: sub(inst, at)}
			nc.sub.noConnects = append(nc.sub.noConnects, nc)
			g.noConnects = append(g.noConnects, nc)
			g.touching[instPoint{inst, at}]++
		}
		for _, w := range f.wires {
			s := sub(inst, w[0])
			s.wires = append(s.wires, w)
		}
	}
	return g
}

// dangling is KiCad's IsDangling for a label or sheet pin at a spot: no
// other pin, label, sheet pin or flag there, and no wire through it.
func (g *ercGraph) dangling(inst *sheetInstance, at point) bool {
	if g.touching[instPoint{inst, at}] > 1 {
		return false
	}
	for _, w := range inst.file.wires {
		if onSegment(at, w[0], w[1]) {
			return false
		}
	}
	return true
}

// netPins groups the pins by net, nets in the order their first pin
// comes, pins in design order.
func (g *ercGraph) netPins() [][]*ercPin {
	index := map[int]int{}
	var out [][]*ercPin
	for _, p := range g.pins {
		n := p.sub.net(g)
		i, ok := index[n]
		if !ok {
			i = len(out)
			index[n] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], p)
	}
	return out
}
