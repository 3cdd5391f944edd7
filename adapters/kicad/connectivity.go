package kicad

import (
	"fmt"
	"sort"
	"strings"
)

// Net is one electrical net and the component pins on it.
type Net struct {
	Name string `json:"name"`
	Pins []Pin  `json:"pins"`
}

// Pin is a component pin: the reference of its component and its number
// (the pad number on a board), with its name when the symbol gives one.
type Pin struct {
	Reference string `json:"reference"`
	Pin       string `json:"pin"`
	PinName   string `json:"pin_name,omitempty"`
}

// unionFind joins the items that are electrically one.
type unionFind struct{ parent []int }

func (u *unionFind) add() int {
	u.parent = append(u.parent, len(u.parent))
	return len(u.parent) - 1
}

func (u *unionFind) find(a int) int {
	for u.parent[a] != a {
		u.parent[a] = u.parent[u.parent[a]]
		a = u.parent[a]
	}
	return a
}

func (u *unionFind) union(a, b int) { u.parent[u.find(a)] = u.find(b) }

// connectivity is the graph of one design: spots on each sheet instance
// and net names (global, or local to an instance) as nodes.
type connectivity struct {
	uf unionFind
	// geo joins only what touches on a sheet (wires, junctions, items at
	// one spot), not names: its classes are eeschema's subgraphs, which
	// ERC judges one by one. Its ids are uf's.
	geo    unionFind
	points map[instPoint]int
	names  map[string]int
	// pins maps each component pin to its node; pinNames keeps pin names.
	pins     map[pinKey]int
	pinNames map[pinKey]string
	// warnings say what the graph left out (bus wiring).
	warnings []string
}

type instPoint struct {
	inst *sheetInstance
	at   point
}

type pinKey struct{ ref, pin string }

func (c *connectivity) point(inst *sheetInstance, p point) int {
	k := instPoint{inst, p}
	if id, ok := c.points[k]; ok {
		return id
	}
	id := c.add()
	c.points[k] = id
	return id
}

// add makes a node in both graphs.
func (c *connectivity) add() int {
	c.geo.add()
	return c.uf.add()
}

// touch joins two spots that touch on one sheet: one net, one subgraph.
func (c *connectivity) touch(a, b int) {
	c.uf.union(a, b)
	c.geo.union(a, b)
}

// Name keys: "G\x00VCC" is a global net (power symbol, global label,
// hidden power pin), "L\x00<instance path>\x00name" a label local to one
// sheet instance (hierarchical labels share it, as do the sheet pins that
// reach into that instance).
func globalKey(name string) string { return "G\x00" + name }

func localKey(inst *sheetInstance, name string) string { return "L\x00" + inst.path + "\x00" + name }

func (c *connectivity) name(key string) int {
	if id, ok := c.names[key]; ok {
		return id
	}
	id := c.add()
	c.names[key] = id
	return id
}

// connect builds the design's connectivity the way eeschema does: a wire
// joins its ends; a wire end, junction, label, pin or sheet pin lying
// anywhere on a wire joins it (so a T needs no junction dot, while two
// wires crossing join only at a junction); labels join by name in their
// scope; power ports and invisible power-input pins join a global net
// named by the port's value or the pin's name; a sheet pin joins the
// hierarchical label of the same name in the sheet instance it places.
func connect(d *design) *connectivity {
	c := &connectivity{points: map[instPoint]int{}, names: map[string]int{}, pins: map[pinKey]int{}, pinNames: map[pinKey]string{}}
	for _, inst := range d.instances {
		f := inst.file
		var spots []point
		for _, w := range f.wires {
			spots = append(spots, w[0], w[1])
		}
		spots = append(spots, f.junctions...)
		for _, l := range f.labels {
			spots = append(spots, l.at)
			key := localKey(inst, l.name)
			if l.kind == globalLabel {
				key = globalKey(l.name)
			}
			c.uf.union(c.point(inst, l.at), c.name(key))
		}
		for _, sh := range f.sheets {
			child := childInstance(d, inst, sh.uuid)
			for _, p := range sh.pins {
				spots = append(spots, p.at)
				if child != nil {
					c.uf.union(c.point(inst, p.at), c.name(localKey(child, p.name)))
				}
			}
		}
		for _, p := range d.parts {
			if p.inst != inst {
				continue
			}
			for _, lp := range p.pins() {
				at := p.sym.pinAt(lp)
				spots = append(spots, at)
				id := c.point(inst, at)
				// KiCad's power connection: a power-input pin that is
				// invisible or on a power symbol (not a PWR_FLAG, whose
				// pin is a power output).
				if lp.kind == "power_in" && (lp.hidden || p.lib.power) {
					name := lp.name
					if p.lib.power {
						name = p.value // a power port is named by its value
					}
					c.uf.union(id, c.name(globalKey(name)))
				}
				if strings.HasPrefix(p.reference, "#") {
					continue
				}
				k := pinKey{p.reference, lp.number}
				if prev, ok := c.pins[k]; ok {
					c.uf.union(prev, id) // one pin drawn in several units
				} else {
					c.pins[k], c.pinNames[k] = id, lp.name
				}
			}
		}
		for _, w := range f.wires {
			wid := c.point(inst, w[0])
			c.touch(wid, c.point(inst, w[1]))
			for _, s := range spots {
				if onSegment(s, w[0], w[1]) {
					c.touch(wid, c.point(inst, s))
				}
			}
		}
		if len(f.busNames) > 0 {
			c.warnings = append(c.warnings, fmt.Sprintf("%s: bus labels (%s) are not followed; on one sheet the members join through their own labels", f.path, strings.Join(dedupe(f.busNames), ", ")))
		}
	}
	return c
}

func childInstance(d *design, parent *sheetInstance, sheetUUID string) *sheetInstance {
	for _, i := range d.instances {
		if i.parent == parent && i.sheet.uuid == sheetUUID {
			return i
		}
	}
	return nil
}

// onSegment reports whether p lies on the segment a-b, ends included.
func onSegment(p, a, b point) bool {
	if (b.x-a.x)*(p.y-a.y)-(b.y-a.y)*(p.x-a.x) != 0 {
		return false
	}
	return min(a.x, b.x) <= p.x && p.x <= max(a.x, b.x) && min(a.y, b.y) <= p.y && p.y <= max(a.y, b.y)
}

// nets groups the component pins by net and names each net as KiCad
// would: a power or global name first, then a label (prefixed with its
// sheet path), else Net-(<ref>-Pad<pin>), or unconnected-(...) for a pin
// on its own.
func (c *connectivity) nets(d *design) []Net {
	groups := map[int][]Pin{}
	for k, id := range c.pins {
		r := c.uf.find(id)
		groups[r] = append(groups[r], Pin{Reference: k.ref, Pin: k.pin, PinName: visibleName(c.pinNames[k])})
	}
	names := map[int]string{}
	rank := map[int]int{}
	for key, id := range c.names {
		r := c.uf.find(id)
		if _, used := groups[r]; !used {
			continue
		}
		name, rk := netName(d, key)
		if old, ok := names[r]; !ok || rk < rank[r] || (rk == rank[r] && name < old) {
			names[r], rank[r] = name, rk
		}
	}
	var out []Net
	for r, pins := range groups {
		sortPins(pins)
		name, ok := names[r]
		if !ok {
			prefix := "Net-("
			if len(pins) == 1 {
				prefix = "unconnected-("
			}
			name = prefix + pins[0].Reference + "-Pad" + pins[0].Pin + ")"
		}
		out = append(out, Net{Name: name, Pins: pins})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// netName turns a name key into a net name and its rank (lower wins).
func netName(d *design, key string) (string, int) {
	parts := strings.Split(key, "\x00")
	if parts[0] == "G" {
		return parts[1], 0
	}
	for _, inst := range d.instances {
		if inst.path == parts[1] {
			return inst.name + parts[2], 1 + strings.Count(inst.path, "/")
		}
	}
	return parts[2], 1
}

// visibleName drops KiCad's "~" (no name).
func visibleName(n string) string {
	if n == "~" {
		return ""
	}
	return n
}

func sortPins(pins []Pin) {
	sort.Slice(pins, func(i, j int) bool {
		if pins[i].Reference != pins[j].Reference {
			return naturalLess(pins[i].Reference, pins[j].Reference)
		}
		return naturalLess(pins[i].Pin, pins[j].Pin)
	})
}

func dedupe(l []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
