package kicad

import (
	"fmt"
	"strconv"
	"strings"
)

// Placing a generated schematic. Each unit of each part is a block: the
// symbol, unrotated, with a short wire from every connected pin's end
// outwards and the net's label or power port at the wire's far end, and a
// no-connect flag on each pin the request leaves unconnected. Each
// PWR_FLAG is a block of its own: the flag, a wire and the net's label or
// port. Blocks are packed in rows on KiCad's 50 mil grid, each inside its
// own box with a gap around it, so no two blocks touch and nothing of one
// part can connect to another except through a net's name.

// Lengths in KiCad's schematic unit (0.1 µm).
const (
	grid      int64 = 12700 // 50 mil, KiCad's schematic grid
	stubLen         = 2 * grid
	textSize        = grid // 1.27 mm, KiCad's default text height
	blockGap        = 2 * grid
	pageEdge        = 20 * grid // 25.4 mm from the paper's edge
	titleRoom       = 36 * grid // the title block's height, kept clear
)

// box is an axis-aligned rectangle on the sheet.
type box struct {
	min, max point
	set      bool
}

func (b *box) add(p point) {
	if !b.set {
		b.min, b.max, b.set = p, p, true
		return
	}
	b.min = point{min(b.min.x, p.x), min(b.min.y, p.y)}
	b.max = point{max(b.max.x, p.x), max(b.max.y, p.y)}
}

func (b *box) addBox(o box) {
	if o.set {
		b.add(o.min)
		b.add(o.max)
	}
}

// drawing is a whole generated sheet, in sheet coordinates (Y down).
type drawing struct {
	paper         string
	width, height int64 // the paper's, landscape
	symbols       []*drawnSymbol
	wires         [][2]point
	labels        []drawnLabel
	noConnects    []point
	powerSymbols  int
	flags         int
	unconnected   []string // pins on no net without a no-connect flag
	placements    []Placement
}

// drawnSymbol is one placed unit of a part, power port or flag.
type drawnSymbol struct {
	libID                       string
	flat                        *node
	parsed                      *libSymbol
	at                          point
	angle, unit                 int
	reference, value, footprint string
}

// place is the symbol as the schematic reader places it, for its pins.
func (s *drawnSymbol) place() *placedSymbol {
	return &placedSymbol{at: s.at, angle: s.angle, unit: s.unit, style: 1}
}

// unitPins are the pins the unit draws (body style 1), in library order.
func (s *drawnSymbol) unitPins() []libPin {
	var out []libPin
	for _, p := range s.parsed.pins {
		if (p.unit == 0 || p.unit == s.unit) && (p.style == 0 || p.style == 1) {
			out = append(out, p)
		}
	}
	return out
}

// pinTo places a one-pin symbol (a power port or flag) so that its pin's
// end is at p.
func (s *drawnSymbol) pinTo(p point) {
	s.at = point{}
	if len(s.parsed.pins) > 0 {
		off := s.place().pinAt(s.parsed.pins[0])
		s.at = point{p.x - off.x, p.y - off.y}
		return
	}
	s.at = p
}

// drawnLabel is a net label at a wire's end; dir is the way its text runs.
type drawnLabel struct {
	global bool
	name   string
	at     point
	dir    point
}

// block is what is packed: items around a local origin.
type block struct {
	symbols    []*drawnSymbol
	wires      [][2]point
	labels     []drawnLabel
	noConnects []point
	bounds     box
}

// layoutSchematic draws the checked request.
func layoutSchematic(c *checkedRequest) *drawing {
	var blocks []*block
	for _, gc := range c.components {
		for unit := 1; unit <= gc.units; unit++ {
			blocks = append(blocks, c.partBlock(gc, unit))
		}
	}
	for _, n := range c.nets {
		if n.PowerFlag {
			blocks = append(blocks, c.flagBlock(n))
		}
	}
	d := pack(blocks)
	// Power ports and flags are numbered in the order they were placed,
	// as KiCad annotates them: a 0 before the number (#PWR01, #PWR010).
	for _, s := range d.symbols {
		switch {
		case s.reference == "#PWR":
			d.powerSymbols++
			s.reference = fmt.Sprintf("#PWR0%d", d.powerSymbols)
		case s.reference == "#FLG":
			d.flags++
			s.reference = fmt.Sprintf("#FLG0%d", d.flags)
		default:
			d.placements = append(d.placements, Placement{Reference: s.reference, Unit: s.unit, XMM: float64(s.at.x) / 1e4, YMM: float64(s.at.y) / 1e4})
		}
	}
	for _, gc := range c.components {
		nums := make([]string, 0, len(gc.pins))
		for num, pins := range gc.pins {
			k := pinKey{gc.Reference, num}
			if c.netOf[k] == nil && !c.ncSet[k] && !implicitPin(pins[0]) && pins[0].kind != "no_connect" {
				nums = append(nums, num)
			}
		}
		naturalSort(nums)
		for _, n := range nums {
			d.unconnected = append(d.unconnected, gc.Reference+"."+n)
		}
	}
	return d
}

// implicitPin is an invisible power input: KiCad connects it by its name,
// so nothing is drawn on it.
func implicitPin(p libPin) bool { return p.kind == "power_in" && p.hidden }

// partBlock draws one unit of a part at the origin.
func (c *checkedRequest) partBlock(gc *genComponent, unit int) *block {
	s := &drawnSymbol{libID: gc.libID, flat: gc.flat, parsed: gc.parsed, unit: unit, reference: gc.Reference, value: gc.Value, footprint: gc.Footprint}
	b := &block{symbols: []*drawnSymbol{s}}
	b.bounds.addBox(symbolBounds(s))
	for _, lp := range s.unitPins() {
		k := pinKey{gc.Reference, lp.number}
		end := s.place().pinAt(lp)
		switch n := c.netOf[k]; {
		case n != nil && !implicitPin(lp):
			b.attach(n, end, outward(s.place(), lp))
		case c.ncSet[k]:
			b.noConnects = append(b.noConnects, end)
			b.bounds.add(point{end.x - grid, end.y - grid})
			b.bounds.add(point{end.x + grid, end.y + grid})
		}
	}
	return b
}

// flagBlock draws a PWR_FLAG tied to the net: flag, wire, label or port.
func (c *checkedRequest) flagBlock(n *genNet) *block {
	dir := point{stubLen, 0} // label styles: the flag points left, the wire runs right
	if n.Style == StylePowerSymbol {
		dir = bodyDirection(n.powerParsed, n.powerSymbol) // towards the port, which keeps its own way up
	}
	flagUp := bodyDirection(c.flagParsed, c.flag)
	f := &drawnSymbol{libID: "power:PWR_FLAG", flat: c.flag, parsed: c.flagParsed, unit: 1,
		angle: rotationTaking(flagUp, point{-dir.x, -dir.y}), reference: "#FLG", value: propertyValue(c.flag, "Value")}
	f.pinTo(point{})
	b := &block{symbols: []*drawnSymbol{f}}
	b.bounds.addBox(symbolBounds(f))
	b.attach(n, point{}, axisStep(dir))
	return b
}

// attach draws a wire from a pin's end outwards, and the net's label or
// power port at its far end.
func (b *block) attach(n *genNet, end, out point) {
	far := point{end.x + out.x*stubLen, end.y + out.y*stubLen}
	b.wires = append(b.wires, [2]point{end, far})
	b.bounds.add(end)
	b.bounds.add(far)
	switch n.Style {
	case StylePowerSymbol:
		p := &drawnSymbol{libID: n.powerLibID, flat: n.powerSymbol, parsed: n.powerParsed, unit: 1,
			angle: rotationTaking(bodyDirection(n.powerParsed, n.powerSymbol), out), reference: "#PWR", value: n.Name}
		p.pinTo(far)
		b.symbols = append(b.symbols, p)
		b.bounds.addBox(symbolBounds(p))
	default:
		l := drawnLabel{global: n.Style == StyleGlobalLabel, name: n.Name, at: far, dir: out}
		b.labels = append(b.labels, l)
		b.bounds.addBox(labelBounds(l))
	}
}

// axisStep is a direction as a step of one along each axis: (1, 0), (0, -1).
func axisStep(v point) point {
	sign := func(a int64) int64 {
		switch {
		case a > 0:
			return 1
		case a < 0:
			return -1
		}
		return 0
	}
	return point{sign(v.x), sign(v.y)}
}

// outward is the way from a placed pin's end away from the symbol's body:
// opposite to the way the pin's line runs.
func outward(s *placedSymbol, lp libPin) point {
	var dx, dy int64 // library axes, Y up
	switch lp.angle {
	case 0:
		dx = -1
	case 90:
		dy = -1
	case 180:
		dx = 1
	default:
		dy = 1
	}
	return rotateVector(s.angle, point{dx, dy})
}

// rotateVector turns a library-axes vector into sheet axes for a symbol
// rotated by angle, as pinAt does for a point.
func rotateVector(angle int, v point) point {
	return (&placedSymbol{angle: angle}).pinAt(libPin{x: v.x, y: v.y})
}

// bodyDirection is the way a one-pin symbol's drawing lies from its pin,
// in sheet axes at rotation 0: up for VCC, down for GND.
func bodyDirection(parsed *libSymbol, flat *node) point {
	var g box
	for _, pt := range graphicPoints(flat, 1) {
		g.add(pt)
	}
	pin := point{}
	if len(parsed.pins) > 0 {
		pin = point{parsed.pins[0].x, parsed.pins[0].y}
	}
	cx := (g.min.x+g.max.x)/2 - pin.x
	cy := (g.min.y+g.max.y)/2 - pin.y
	if abs(cx) > abs(cy) {
		return rotateVector(0, point{axisStep(point{cx, 0}).x, 0})
	}
	if cy < 0 {
		return rotateVector(0, point{0, -1})
	}
	return rotateVector(0, point{0, 1})
}

func abs(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// rotationTaking is the symbol rotation that turns direction from into to.
func rotationTaking(from, to point) int {
	for _, a := range []int{0, 90, 180, 270} {
		r := (&placedSymbol{angle: a}).pinAt(libPin{x: from.x, y: -from.y}) // from is in sheet axes already
		if axisStep(r) == axisStep(to) {
			return a
		}
	}
	return 0
}

// graphicPoints are the library-axes points that bound a unit's drawing:
// shapes, texts and pins (both ends), in units 0 and unit, body style 1.
func graphicPoints(flat *node, unitNo int) []point {
	name := flat.arg(0)
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	xy := func(n *node) point { return point{toIU(n.num(0)), toIU(n.num(1))} }
	var pts []point
	for _, sub := range flat.children("symbol") {
		parts := strings.Split(strings.TrimPrefix(sub.arg(0), name+"_"), "_")
		if len(parts) == 2 {
			u, _ := strconv.Atoi(parts[0])
			st, _ := strconv.Atoi(parts[1])
			if (u != 0 && u != unitNo) || (st != 0 && st != 1) {
				continue
			}
		}
		for _, g := range sub.list[1:] {
			switch g.head() {
			case "rectangle":
				if s, e := g.child("start"), g.child("end"); s != nil && e != nil {
					pts = append(pts, xy(s), xy(e))
				}
			case "polyline", "bezier":
				if p := g.child("pts"); p != nil {
					for _, q := range p.children("xy") {
						pts = append(pts, xy(q))
					}
				}
			case "circle":
				if c, r := g.child("center"), g.child("radius"); c != nil && r != nil {
					ctr, rad := xy(c), toIU(r.num(0))
					pts = append(pts, point{ctr.x - rad, ctr.y - rad}, point{ctr.x + rad, ctr.y + rad})
				}
			case "arc":
				for _, k := range []string{"start", "mid", "end"} {
					if q := g.child(k); q != nil {
						pts = append(pts, xy(q))
					}
				}
			case "text":
				if a := g.child("at"); a != nil {
					w := int64(len(g.arg(0))+1) * textSize
					p := xy(a)
					pts = append(pts, point{p.x - w/2, p.y - textSize}, point{p.x + w/2, p.y + textSize})
				}
			case "pin":
				if a := g.child("at"); a != nil {
					p := xy(a)
					length := int64(0)
					if l := g.child("length"); l != nil {
						length = toIU(l.num(0))
					}
					d := map[int]point{0: {1, 0}, 90: {0, 1}, 180: {-1, 0}, 270: {0, -1}}[int(a.num(2))]
					pts = append(pts, p, point{p.x + d.x*length, p.y + d.y*length})
				}
			}
		}
	}
	return pts
}

// symbolBounds is the sheet box a placed symbol covers: its drawing and
// its visible fields.
func symbolBounds(s *drawnSymbol) box {
	var b box
	for _, p := range graphicPoints(s.flat, s.unit) {
		b.add(s.place().pinAt(libPin{x: p.x, y: p.y}))
	}
	for _, f := range symbolFields(s) {
		if f.hidden {
			continue
		}
		shown := (f.angle + s.angle) % 180
		justify := f.justify
		if s.angle != 0 {
			justify = "" // turned with the symbol: taken as running either way
		}
		b.addBox(textBounds(f.value, f.at, shown, justify))
	}
	return b
}

// textBounds is a generous box around a text: KiCad's stroke font is
// narrower than a character per text height, and the box is taken as if
// it were that wide on the side the text runs.
func textBounds(text string, at point, angle int, justify string) box {
	w := int64(len(text)+1) * textSize
	lo, hi := -w, w
	switch {
	case strings.Contains(justify, "left"):
		lo, hi = 0, w
	case strings.Contains(justify, "right"):
		lo, hi = -w, 0
	}
	var b box
	if angle == 90 || angle == 270 {
		b.add(point{at.x - textSize, at.y - hi})
		b.add(point{at.x + textSize, at.y - lo})
	} else {
		b.add(point{at.x + lo, at.y - textSize})
		b.add(point{at.x + hi, at.y + textSize})
	}
	return b
}

// labelBounds covers a label's text, which runs from its anchor along dir
// (a global label's outline adds an arrow each side).
func labelBounds(l drawnLabel) box {
	chars := len(l.name) + 1
	if l.global {
		chars += 3
	}
	w := int64(chars) * textSize
	var b box
	b.add(l.at)
	far := point{l.at.x + l.dir.x*w, l.at.y + l.dir.y*w}
	side := point{l.dir.y * 2 * textSize, l.dir.x * 2 * textSize}
	b.add(point{far.x + side.x, far.y + side.y})
	b.add(point{l.at.x - side.x, l.at.y - side.y})
	return b
}

// Paper sizes KiCad knows, landscape, smallest first.
var papers = []struct {
	name          string
	width, height int64
}{
	{"A4", 2970000, 2100000}, {"A3", 4200000, 2970000}, {"A2", 5940000, 4200000},
	{"A1", 8410000, 5940000}, {"A0", 11890000, 8410000},
}

// pack places the blocks in rows on the smallest paper they fit, each
// block's origin on the grid; past A0 the paper grows as KiCad's User size.
func pack(blocks []*block) *drawing {
	for _, p := range papers {
		if d, ok := packOn(blocks, p.width, p.height); ok {
			d.paper, d.width, d.height = p.name, p.width, p.height
			return d
		}
	}
	last := papers[len(papers)-1]
	d, _ := packOn(blocks, last.width, 1<<50)
	d.paper, d.width = "User", last.width
	return d
}

// packOn fills rows left to right, top to bottom, within the paper's
// margins; ok is false when the blocks do not fit its height.
func packOn(blocks []*block, width, height int64) (*drawing, bool) {
	d := &drawing{}
	x, y, rowHeight := pageEdge, pageEdge, int64(0)
	var bottom int64
	for _, b := range blocks {
		w := snapUp(b.bounds.max.x-b.bounds.min.x) + grid + blockGap
		h := snapUp(b.bounds.max.y-b.bounds.min.y) + grid + blockGap
		if x > pageEdge && x+w > width-pageEdge {
			x, y, rowHeight = pageEdge, y+rowHeight, 0
		}
		// The block's origin, on the grid, puts its box's corner at (x, y).
		origin := point{snapUp(x - b.bounds.min.x), snapUp(y - b.bounds.min.y)}
		d.add(b, origin)
		x += w
		rowHeight = max(rowHeight, h)
		bottom = y + rowHeight
	}
	if height < 1<<50 {
		return d, bottom <= height-pageEdge-titleRoom && widest(blocks) <= width-2*pageEdge
	}
	d.height = snapUp(bottom + pageEdge + titleRoom)
	return d, true
}

func widest(blocks []*block) int64 {
	var w int64
	for _, b := range blocks {
		w = max(w, b.bounds.max.x-b.bounds.min.x+grid+blockGap)
	}
	return w
}

// snapUp rounds up to the grid.
func snapUp(v int64) int64 {
	if r := ((v % grid) + grid) % grid; r != 0 {
		return v + grid - r
	}
	return v
}

// add moves a block's items to origin and adds them to the sheet.
func (d *drawing) add(b *block, origin point) {
	mv := func(p point) point { return point{p.x + origin.x, p.y + origin.y} }
	for _, s := range b.symbols {
		c := *s
		c.at = mv(s.at)
		d.symbols = append(d.symbols, &c)
	}
	for _, w := range b.wires {
		d.wires = append(d.wires, [2]point{mv(w[0]), mv(w[1])})
	}
	for _, l := range b.labels {
		l.at = mv(l.at)
		d.labels = append(d.labels, l)
	}
	for _, p := range b.noConnects {
		d.noConnects = append(d.noConnects, mv(p))
	}
}

// symbolField is a field as placed on the sheet.
type symbolField struct {
	name, value string
	id          int
	at          point
	angle       int
	justify     string
	hidden      bool
	effects     *node
}

// symbolFields are the library symbol's fields for the placed symbol:
// Reference, Value, Footprint, Datasheet and any of the library's own
// (not its ki_ keywords, description and filters, which stay in the
// library), placed where the library puts them relative to the symbol.
func symbolFields(s *drawnSymbol) []symbolField {
	var out []symbolField
	for _, p := range s.flat.children("property") {
		name := p.arg(0)
		if strings.HasPrefix(name, "ki_") {
			continue
		}
		f := symbolField{name: name, value: p.arg(1), id: len(out)}
		switch name {
		case "Reference":
			f.value = s.reference
		case "Value":
			f.value = s.value
		case "Footprint":
			f.value = s.footprint
		}
		if a := p.child("at"); a != nil {
			f.at = s.place().pinAt(libPin{x: toIU(a.num(0)), y: toIU(a.num(1))})
			f.angle = int(a.num(2)) // KiCad keeps the library's angle; the symbol's rotation turns it
		} else {
			f.at = s.at
		}
		if e := p.child("effects"); e != nil {
			f.effects = e.clone()
			f.hidden = e.hasAtom("hide")
			if j := e.child("justify"); j != nil {
				f.justify = flatText(j)
			}
		}
		out = append(out, f)
	}
	return out
}
