package kicad

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// SchematicRequest is the input of kicad.generate_schematic: the parts and
// how their pins connect, from which a KiCad 6 schematic is drawn.
type SchematicRequest struct {
	Title      string               `json:"title,omitempty" jsonschema:"The sheet's title (title block). Default: none."`
	Components []SchematicComponent `json:"components" jsonschema:"The parts, each a symbol from KiCad's installed libraries."`
	Nets       []SchematicNet       `json:"nets" jsonschema:"The connections: each net's pins, as REF.PIN."`
	NoConnect  []string             `json:"no_connect,omitempty" jsonschema:"Pins (REF.PIN) left unconnected on purpose: each gets a no-connect flag. Pins on no net and not listed here are left bare, and ERC reports them."`
	OutputPath string               `json:"output_path,omitempty"`
}

// SchematicComponent is one part to place.
type SchematicComponent struct {
	Reference string `json:"reference" jsonschema:"Reference designator, such as R1 or U2: letters then any letters, digits, _ or -."`
	Symbol    string `json:"symbol" jsonschema:"Library symbol as Library:Symbol, such as Device:R or Timer:NE555P, from KiCad's installed symbol libraries."`
	Value     string `json:"value,omitempty" jsonschema:"Value field, such as 10k. Default: the library symbol's value (its name)."`
	Footprint string `json:"footprint,omitempty" jsonschema:"Footprint as Library:Footprint, such as Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal. Default: the library symbol's footprint, often empty."`
}

// SchematicNet is one net: its pins and how it is drawn.
type SchematicNet struct {
	Name        string   `json:"name" jsonschema:"Net name, written on the net's labels. No spaces; no bus syntax ([..] or {})."`
	Pins        []string `json:"pins" jsonschema:"Pins on the net as REF.PIN (R1.1, U1.3), the pin by its number in the symbol; REF.PIN:NAME (U1.3:Q) also checks the pin's name."`
	Style       string   `json:"style,omitempty" jsonschema:"How each pin is tied to the net: label (a local net label, KiCad names the net /NAME), global_label (a global label, net NAME), or power_symbol (a power port such as GND or VCC, net NAME). Default label."`
	PowerSymbol string   `json:"power_symbol,omitempty" jsonschema:"With style power_symbol: the power port's symbol, Library:Symbol (default power:<name>); its value is set to the net name, which names the net."`
	PowerFlag   bool     `json:"power_flag,omitempty" jsonschema:"Add a PWR_FLAG (power:PWR_FLAG) on the net, telling ERC the net is powered from outside the sheet (through a connector), so its power input pins count as driven."`
}

// Net styles.
const (
	StyleLabel       = "label"
	StyleGlobalLabel = "global_label"
	StylePowerSymbol = "power_symbol"
)

// pinRef is a REF.PIN of the request, with the name it checks, if any.
type pinRef struct {
	ref, number, name string
	text              string // as the caller wrote it
}

func (p pinRef) key() pinKey { return pinKey{p.ref, p.number} }

func (p pinRef) String() string { return p.ref + "." + p.number }

// parsePinRef reads REF.PIN or REF.PIN:NAME.
func parsePinRef(s string) (pinRef, error) {
	ref, rest, ok := strings.Cut(s, ".")
	if !ok || ref == "" || rest == "" {
		return pinRef{}, fmt.Errorf("pin %q is not REF.PIN (such as R1.2 or U1.3)", s)
	}
	number, name, _ := strings.Cut(rest, ":")
	if number == "" {
		return pinRef{}, fmt.Errorf("pin %q names no pin number after the reference", s)
	}
	return pinRef{ref: ref, number: number, name: name, text: s}, nil
}

// genComponent is a requested part with its library symbol.
type genComponent struct {
	SchematicComponent
	libID   string // Library:Symbol
	extends string // the symbol it extends in its library, if any
	libFile string
	flat    *node      // the symbol as lib_symbols embeds it, named libID
	parsed  *libSymbol // its pins
	units   int
	// pins by number: every drawn instance of the pin in body style 1.
	pins map[string][]libPin
}

// genNet is a requested net, checked.
type genNet struct {
	SchematicNet
	pins        []pinRef
	powerLibID  string // power_symbol style: the port symbol
	powerSymbol *node
	powerParsed *libSymbol
}

// checkedRequest is a request whose parts, pins and nets all exist.
type checkedRequest struct {
	req        SchematicRequest
	components []*genComponent
	byRef      map[string]*genComponent
	nets       []*genNet
	netOf      map[pinKey]*genNet
	noConnect  []pinRef
	ncSet      map[pinKey]bool
	// flag is power:PWR_FLAG, loaded when a net asks for one.
	flag       *node
	flagParsed *libSymbol
	warnings   []string
}

// referencePattern is what a reference may look like: KiCad's designators,
// and no "." (which separates REF.PIN) or "#" (power ports and flags).
const referencePattern = `^[A-Za-z][A-Za-z0-9_-]*$`

// checkRequest resolves every symbol from the libraries in dir and checks
// every pin against them. Nothing is written before it passes.
func checkRequest(req SchematicRequest, dir string) (*checkedRequest, error) {
	c := &checkedRequest{req: req, byRef: map[string]*genComponent{}, netOf: map[pinKey]*genNet{}, ncSet: map[pinKey]bool{}}
	if len(req.Components) == 0 {
		return nil, protocol.Invalid("components is empty: give at least one part ({reference, symbol})")
	}
	for i, rc := range req.Components {
		if !validReference(rc.Reference) {
			return nil, protocol.Invalid("components[%d].reference %q is not a reference designator: letters, then letters, digits, _ or - (R1, U2, J_PWR1); # is kept for power ports and flags", i, rc.Reference)
		}
		if _, dup := c.byRef[rc.Reference]; dup {
			return nil, protocol.Invalid("reference %s is given to two components: each part needs its own", rc.Reference)
		}
		gc, err := loadComponent(rc, dir)
		if err != nil {
			return nil, err
		}
		c.components = append(c.components, gc)
		c.byRef[rc.Reference] = gc
	}
	names := map[string]bool{}
	for i, rn := range req.Nets {
		n, err := c.checkNet(i, rn, dir)
		if err != nil {
			return nil, err
		}
		if names[n.Name] {
			return nil, protocol.Invalid("net %s is given twice: list all its pins in one net", n.Name)
		}
		names[n.Name] = true
		c.nets = append(c.nets, n)
	}
	for _, s := range req.NoConnect {
		p, err := c.resolvePin(s, "no_connect")
		if err != nil {
			return nil, err
		}
		if n := c.netOf[p.key()]; n != nil {
			return nil, protocol.Invalid("no_connect lists %s, which is on net %s: a pin is either connected or flagged unconnected", p, n.Name)
		}
		if c.ncSet[p.key()] {
			return nil, protocol.Invalid("no_connect lists %s twice", p)
		}
		c.ncSet[p.key()] = true
		c.noConnect = append(c.noConnect, p)
	}
	if err := c.checkHiddenPowerPins(); err != nil {
		return nil, err
	}
	return c, nil
}

func validReference(r string) bool {
	if r == "" || !(r[0] >= 'A' && r[0] <= 'Z' || r[0] >= 'a' && r[0] <= 'z') {
		return false
	}
	for _, ch := range r {
		if !(ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			return false
		}
	}
	return true
}

// splitLibID reads Library:Symbol.
func splitLibID(what, id string) (string, string, error) {
	lib, name, ok := strings.Cut(id, ":")
	if !ok || lib == "" || name == "" || strings.Contains(name, ":") {
		return "", "", protocol.Invalid("%s %q is not Library:Symbol (such as Device:R or Timer:NE555P)", what, id)
	}
	return lib, name, nil
}

// librarySymbol loads one symbol, flattened, named as the schematic's
// lib_symbols names it (Library:Symbol).
func librarySymbol(what, id, dir string) (*node, *symbolLibrary, string, error) {
	libName, name, err := splitLibID(what, id)
	if err != nil {
		return nil, nil, "", err
	}
	lib, err := loadSymbolLibrary(dir, libName)
	if err != nil {
		return nil, nil, "", withWhat(what, id, err)
	}
	flat, parent, err := lib.flatSymbol(name)
	if err != nil {
		return nil, nil, "", withWhat(what, id, err)
	}
	flat.list[1] = str(id)
	return flat, lib, parent, nil
}

// withWhat prefixes a refusal with the argument it answers.
func withWhat(what, id string, err error) error {
	if pe, ok := err.(*protocol.Error); ok && pe.Code != protocol.ToolUnavailable {
		return &protocol.Error{Code: pe.Code, Details: fmt.Sprintf("%s %s: %s", what, id, pe.Details)}
	}
	return err
}

func loadComponent(rc SchematicComponent, dir string) (*genComponent, error) {
	what := "component " + rc.Reference + "'s symbol"
	flat, lib, parent, err := librarySymbol(what, rc.Symbol, dir)
	if err != nil {
		return nil, err
	}
	parsed := parseLibSymbol(flat)
	if parsed.power {
		return nil, protocol.Invalid("component %s: %s is a power port, not a part; give a net named %s with style power_symbol instead",
			rc.Reference, rc.Symbol, propertyValue(flat, "Value"))
	}
	if rc.Footprint != "" {
		if _, _, err := splitLibID("component "+rc.Reference+"'s footprint", rc.Footprint); err != nil {
			return nil, protocol.Invalid("component %s: footprint %q is not Library:Footprint (such as Package_DIP:DIP-8_W7.62mm)", rc.Reference, rc.Footprint)
		}
	}
	gc := &genComponent{SchematicComponent: rc, libID: rc.Symbol, extends: parent, libFile: lib.path, flat: flat, parsed: parsed,
		units: unitCount(flat), pins: map[string][]libPin{}}
	if gc.Value == "" {
		gc.Value = propertyValue(flat, "Value")
	}
	if gc.Footprint == "" {
		gc.Footprint = propertyValue(flat, "Footprint")
	}
	for _, p := range parsed.pins {
		if p.style == 0 || p.style == 1 {
			gc.pins[p.number] = append(gc.pins[p.number], p)
		}
	}
	return gc, nil
}

// unitCount is how many units a symbol has: the highest unit its unit
// sub-symbols (<name>_<unit>_<style>) number, at least one.
func unitCount(flat *node) int {
	n := 1
	for _, sub := range flat.children("symbol") {
		parts := strings.Split(sub.arg(0), "_")
		if len(parts) >= 2 {
			if u, err := strconv.Atoi(parts[len(parts)-2]); err == nil && u > n {
				n = u
			}
		}
	}
	return n
}

// propertyValue is a library symbol's field, or "".
func propertyValue(sym *node, name string) string {
	for _, p := range sym.children("property") {
		if p.arg(0) == name {
			return p.arg(1)
		}
	}
	return ""
}

// resolvePin checks REF.PIN[:NAME] against the component's symbol.
func (c *checkedRequest) resolvePin(s, where string) (pinRef, error) {
	p, err := parsePinRef(s)
	if err != nil {
		return p, protocol.Invalid("%s: %v", where, err)
	}
	gc := c.byRef[p.ref]
	if gc == nil {
		return p, protocol.Invalid("%s: pin %s names component %s, which components does not list (it has %s)", where, s, p.ref, strings.Join(c.references(), ", "))
	}
	lp := gc.pins[p.number]
	if len(lp) == 0 {
		return p, protocol.Invalid("%s: %s (%s) has no pin %s; its pins are %s", where, p.ref, gc.libID, p.number, gc.pinList())
	}
	if p.name != "" && !samePinName(p.name, lp[0].name) {
		return p, protocol.Invalid("%s: pin %s of %s (%s) is named %s in the library, not %s", where, p.number, p.ref, gc.libID, lp[0].name, p.name)
	}
	return p, nil
}

// samePinName compares names as shown: KiCad's overbar markup ~{RESET}
// reads RESET.
func samePinName(given, lib string) bool {
	plain := func(s string) string { return strings.NewReplacer("~{", "", "}", "").Replace(s) }
	return given == lib || plain(given) == plain(lib)
}

func (c *checkedRequest) references() []string {
	refs := make([]string, 0, len(c.byRef))
	for r := range c.byRef {
		refs = append(refs, r)
	}
	naturalSort(refs)
	return refs
}

// pinList lists a symbol's pins as number(name).
func (gc *genComponent) pinList() string {
	nums := make([]string, 0, len(gc.pins))
	for n := range gc.pins {
		nums = append(nums, n)
	}
	naturalSort(nums)
	for i, n := range nums {
		if name := visibleName(gc.pins[n][0].name); name != "" && name != n {
			nums[i] = n + "(" + name + ")"
		}
	}
	return strings.Join(nums, ", ")
}

func naturalSort(l []string) {
	sort.Slice(l, func(i, j int) bool { return naturalLess(l[i], l[j]) })
}

// checkNet checks one net's name, style and pins.
func (c *checkedRequest) checkNet(i int, rn SchematicNet, dir string) (*genNet, error) {
	n := &genNet{SchematicNet: rn}
	where := fmt.Sprintf("nets[%d]", i)
	if rn.Name == "" {
		return nil, protocol.Invalid("%s has no name", where)
	}
	where = "net " + rn.Name
	if strings.ContainsAny(rn.Name, " \t\r\n") {
		return nil, protocol.Invalid("%s: a net name may not hold spaces (KiCad's labels end at them); use _ instead", where)
	}
	if isBusName(rn.Name) {
		return nil, protocol.Invalid("%s: the name reads as a bus (D[0..7] or {A B}); name a single net", where)
	}
	if len(rn.Pins) == 0 {
		return nil, protocol.Invalid("%s has no pins", where)
	}
	switch n.Style {
	case "":
		n.Style = StyleLabel
	case StyleLabel, StyleGlobalLabel, StylePowerSymbol:
	default:
		return nil, protocol.Invalid("%s: style %q is not %s, %s or %s", where, n.Style, StyleLabel, StyleGlobalLabel, StylePowerSymbol)
	}
	if n.PowerSymbol != "" && n.Style != StylePowerSymbol {
		return nil, protocol.Invalid("%s: power_symbol is given but style is %s; give style power_symbol too", where, n.Style)
	}
	if n.Style == StylePowerSymbol {
		id, explicit := n.PowerSymbol, n.PowerSymbol != ""
		if !explicit {
			id = "power:" + n.Name
		}
		flat, _, _, err := librarySymbol(where+": power_symbol", id, dir)
		if err != nil {
			if !explicit {
				return nil, protocol.Invalid("%s: style power_symbol needs a power port; power:%s does not exist, so give power_symbol (such as power:VCC or power:GND, whose value is set to %s) or use style global_label",
					where, n.Name, n.Name)
			}
			return nil, err
		}
		n.powerParsed = parseLibSymbol(flat)
		if !n.powerParsed.power || len(n.powerParsed.pins) != 1 {
			return nil, protocol.Invalid("%s: power_symbol %s is not a power port (a power symbol with one pin, such as power:GND)", where, id)
		}
		n.powerLibID, n.powerSymbol = id, flat
	}
	if n.PowerFlag && c.flag == nil {
		flat, _, _, err := librarySymbol(where+": power_flag", "power:PWR_FLAG", dir)
		if err != nil {
			return nil, err
		}
		c.flag, c.flagParsed = flat, parseLibSymbol(flat)
	}
	seen := map[pinKey]bool{}
	for _, s := range rn.Pins {
		p, err := c.resolvePin(s, where)
		if err != nil {
			return nil, err
		}
		if other := c.netOf[p.key()]; other != nil {
			return nil, protocol.Invalid("pin %s is on two nets, %s and %s: a pin can be on one net only", p, other.Name, rn.Name)
		}
		if seen[p.key()] {
			return nil, protocol.Invalid("%s lists pin %s twice", where, p)
		}
		seen[p.key()] = true
		n.pins = append(n.pins, p)
	}
	for _, p := range n.pins {
		c.netOf[p.key()] = n
	}
	return n, nil
}

// checkHiddenPowerPins refuses what KiCad would wire differently from the
// request: an invisible power-input pin joins the global net named after
// the pin wherever it is drawn, so such a pin may only be put on a global
// net (global label or power port) of that name. Unlisted ones join it
// silently: that is said in the warnings.
func (c *checkedRequest) checkHiddenPowerPins() error {
	for _, gc := range c.components {
		nums := make([]string, 0, len(gc.pins))
		for n := range gc.pins {
			nums = append(nums, n)
		}
		naturalSort(nums)
		for _, num := range nums {
			lp := gc.pins[num][0]
			if lp.kind != "power_in" || !lp.hidden {
				continue
			}
			k := pinKey{gc.Reference, num}
			n := c.netOf[k]
			switch {
			case n == nil && c.ncSet[k]:
				return protocol.Invalid("no_connect lists %s.%s, a hidden power input that KiCad joins to the global net %s by its name: it cannot be left unconnected", gc.Reference, num, lp.name)
			case n == nil:
				c.warnings = append(c.warnings, fmt.Sprintf("%s.%s is a hidden power input pin: KiCad joins it to the global net %s by its name", gc.Reference, num, lp.name))
			case n.Name != lp.name || n.Style == StyleLabel:
				return protocol.Invalid("net %s lists %s.%s, a hidden power input that KiCad joins to the global net %s by its name wherever it is drawn; "+
					"put it on a net named %s with style global_label or power_symbol", n.Name, gc.Reference, num, lp.name, lp.name)
			}
		}
	}
	return nil
}
