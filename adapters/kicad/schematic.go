package kicad

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// point is a schematic position in 0.1 µm, KiCad's own schematic unit, so
// that two items placed at the same spot compare equal exactly.
type point struct{ x, y int64 }

func toIU(mm float64) int64 { return int64(math.Round(mm * 10000)) }

func at(n *node) point {
	if a := n.child("at"); a != nil {
		return point{toIU(a.num(0)), toIU(a.num(1))}
	}
	return point{}
}

// sheetFile is one parsed .kicad_sch. A file placed by several sheet
// symbols (a complex hierarchy) is parsed once and instanced many times.
type sheetFile struct {
	path      string
	libs      map[string]*libSymbol
	symbols   []*placedSymbol
	wires     [][2]point
	junctions []point
	// noConnects are the no-connect flags ("X" markers), read for ERC.
	noConnects []point
	labels     []label
	sheets     []sheetSymbol
	texts      []string
	// busNames are local labels naming a bus (D[0..7], {A B}): on one
	// sheet they join nothing that the members' own labels do not.
	busNames []string
	// crossBuses are hierarchical or global labels and sheet pins naming
	// a bus: they carry its members between sheets, which is not followed.
	crossBuses []string
	// instances is the root's symbol_instances: by instance path
	// ("/sheet uuid/symbol uuid"), what each placed symbol is called there.
	instances map[string]symbolInstance
}

// label kinds.
const (
	localLabel = iota
	globalLabel
	hierLabel
)

type label struct {
	kind int
	name string
	at   point
}

// libSymbol is a symbol of the schematic's embedded lib_symbols (KiCad 6
// embeds each used symbol, flattened, so no library is read).
type libSymbol struct {
	power bool
	// units is how many units the symbol has (U1A, U1B...), at least 1.
	units int
	pins  []libPin
}

// libPin is a pin of one unit and body style; unit or style 0 means all.
type libPin struct {
	number, name, kind string
	shape              string // graphic style: line, inverted, clock...
	hidden             bool
	unit, style        int
	x, y               int64 // library coordinates: Y points up
	// angle is the way the pin's line runs from its end (x, y) towards
	// the body, in library degrees: 0 right, 90 up, 180 left, 270 down.
	angle int
}

// placedSymbol is a symbol placed on a sheet.
type placedSymbol struct {
	uuid, libID      string
	at               point
	angle            int
	mirrorX, mirrorY bool
	unit, style      int
	inBOM            bool
	props            []property
	libName          string // key into the sheet's libs
	reference, value string // the symbol's own, used when no instance says otherwise
	footprint        string
}

type property struct{ name, value string }

// prop is the named property's value, or "".
func (s *placedSymbol) prop(name string) string {
	for _, p := range s.props {
		if strings.EqualFold(p.name, name) {
			return p.value
		}
	}
	return ""
}

// sheetSymbol places a child sheet: its file and its pins.
type sheetSymbol struct {
	uuid, name, file string
	at               point
	pins             []label
}

// symbolInstance is one row of the root's symbol_instances.
type symbolInstance struct {
	reference, value, footprint string
	unit                        int
}

// loadSheetFile parses one schematic file.
func loadSheetFile(path string) (*sheetFile, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, protocol.Invalid("schematic %s cannot be read: %v", path, err)
	}
	root, err := parseSexpr(string(text))
	if err != nil || root.head() != "kicad_sch" {
		if err == nil {
			err = fmt.Errorf("it starts with (%s, not (kicad_sch", root.head())
		}
		return nil, protocol.Invalid("%s is not a KiCad 6 schematic: %v", path, err)
	}
	f := &sheetFile{path: path, libs: map[string]*libSymbol{}, instances: map[string]symbolInstance{}}
	if ls := root.child("lib_symbols"); ls != nil {
		for _, s := range ls.children("symbol") {
			f.libs[s.arg(0)] = parseLibSymbol(s)
		}
	}
	for _, c := range root.list[1:] {
		switch c.head() {
		case "wire":
			if pts := c.child("pts"); pts != nil {
				xy := pts.children("xy")
				for i := 0; i+1 < len(xy); i++ {
					f.wires = append(f.wires, [2]point{{toIU(xy[i].num(0)), toIU(xy[i].num(1))}, {toIU(xy[i+1].num(0)), toIU(xy[i+1].num(1))}})
				}
			}
		case "junction":
			f.junctions = append(f.junctions, at(c))
		case "no_connect":
			f.noConnects = append(f.noConnects, at(c))
		case "label", "global_label", "hierarchical_label":
			kind := map[string]int{"label": localLabel, "global_label": globalLabel, "hierarchical_label": hierLabel}[c.head()]
			if isBusName(c.arg(0)) {
				if kind == localLabel {
					f.busNames = append(f.busNames, c.arg(0))
				} else {
					f.crossBuses = append(f.crossBuses, c.arg(0))
				}
				continue
			}
			f.labels = append(f.labels, label{kind: kind, name: c.arg(0), at: at(c)})
		case "text":
			f.texts = append(f.texts, c.arg(0))
		case "symbol":
			f.symbols = append(f.symbols, parsePlacedSymbol(c))
		case "sheet":
			f.sheets = append(f.sheets, parseSheetSymbol(c, f))
		case "symbol_instances":
			for _, p := range c.children("path") {
				inst := symbolInstance{unit: 1}
				if r := p.child("reference"); r != nil {
					inst.reference = r.arg(0)
				}
				if u := p.child("unit"); u != nil {
					inst.unit = int(u.num(0))
				}
				if v := p.child("value"); v != nil {
					inst.value = v.arg(0)
				}
				if fp := p.child("footprint"); fp != nil {
					inst.footprint = fp.arg(0)
				}
				f.instances[p.arg(0)] = inst
			}
		}
	}
	return f, nil
}

// isBusName tells a bus (D[0..7], or a group {A B}) from a net name.
func isBusName(name string) bool {
	return strings.Contains(name, "{") || (strings.Contains(name, "[") && strings.Contains(name, "..") && strings.HasSuffix(name, "]"))
}

func parseLibSymbol(s *node) *libSymbol {
	lib := &libSymbol{power: s.child("power") != nil, units: 1}
	name := s.arg(0)
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	for _, sub := range s.children("symbol") {
		// Unit sub-symbols are named <name>_<unit>_<style>.
		parts := strings.Split(strings.TrimPrefix(sub.arg(0), name+"_"), "_")
		unit, style := 0, 0
		if len(parts) >= 2 {
			unit, _ = strconv.Atoi(parts[len(parts)-2])
			style, _ = strconv.Atoi(parts[len(parts)-1])
		}
		lib.units = max(lib.units, unit)
		for _, p := range sub.children("pin") {
			pin := libPin{kind: p.arg(0), shape: p.arg(1), hidden: p.hasAtom("hide"), unit: unit, style: style}
			if a := p.child("at"); a != nil {
				pin.x, pin.y = toIU(a.num(0)), toIU(a.num(1))
				pin.angle = ((int(math.Round(a.num(2))) % 360) + 360) % 360
			}
			if n := p.child("name"); n != nil {
				pin.name = n.arg(0)
			}
			if n := p.child("number"); n != nil {
				pin.number = n.arg(0)
			}
			lib.pins = append(lib.pins, pin)
		}
	}
	return lib
}

func parsePlacedSymbol(c *node) *placedSymbol {
	s := &placedSymbol{libID: childArg(c, "lib_id"), unit: 1, style: 1, inBOM: c.flag("in_bom", true), uuid: childArg(c, "uuid")}
	s.libName = s.libID
	if n := childArg(c, "lib_name"); n != "" {
		s.libName = n
	}
	if a := c.child("at"); a != nil {
		s.at = point{toIU(a.num(0)), toIU(a.num(1))}
		s.angle = ((int(math.Round(a.num(2))) % 360) + 360) % 360
	}
	if m := c.child("mirror"); m != nil {
		s.mirrorX, s.mirrorY = m.arg(0) == "x", m.arg(0) == "y"
	}
	if u := c.child("unit"); u != nil {
		s.unit = int(u.num(0))
	}
	if cv := c.child("convert"); cv != nil {
		s.style = int(cv.num(0))
	}
	for _, p := range c.children("property") {
		s.props = append(s.props, property{name: p.arg(0), value: p.arg(1)})
	}
	s.reference, s.value, s.footprint = s.prop("Reference"), s.prop("Value"), s.prop("Footprint")
	return s
}

func parseSheetSymbol(c *node, f *sheetFile) sheetSymbol {
	sh := sheetSymbol{uuid: childArg(c, "uuid"), at: at(c)}
	// The sheet's name and file are fields 0 and 1, whatever they are
	// called (a French project says "Nom feuille").
	for _, p := range c.children("property") {
		id := -1
		if i := p.child("id"); i != nil {
			id = int(i.num(0))
		}
		switch {
		case id == 0, id < 0 && (p.arg(0) == "Sheet name" || p.arg(0) == "Sheetname"):
			sh.name = p.arg(1)
		case id == 1, id < 0 && (p.arg(0) == "Sheet file" || p.arg(0) == "Sheetfile"):
			sh.file = p.arg(1)
		}
	}
	for _, p := range c.children("pin") {
		if isBusName(p.arg(0)) {
			f.crossBuses = append(f.crossBuses, p.arg(0))
			continue
		}
		sh.pins = append(sh.pins, label{kind: hierLabel, name: p.arg(0), at: at(p)})
	}
	return sh
}

func childArg(n *node, keyword string) string {
	if c := n.child(keyword); c != nil {
		return c.arg(0)
	}
	return ""
}

// pinAt places a library pin on the sheet: library Y points up and sheet
// Y down, then the symbol's rotation, then its mirror (KiCad's order).
func (s *placedSymbol) pinAt(p libPin) point {
	x, y := p.x, -p.y
	switch s.angle {
	case 90:
		x, y = y, -x
	case 180:
		x, y = -x, -y
	case 270:
		x, y = -y, x
	}
	if s.mirrorX {
		y = -y
	}
	if s.mirrorY {
		x = -x
	}
	return point{s.at.x + x, s.at.y + y}
}

// sheetDir is where relative sheet and model paths are taken from: the
// root schematic's folder, as KiCad does.
func sheetDir(rootPath string) string { return filepath.Dir(rootPath) }
