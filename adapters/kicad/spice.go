package kicad

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// SpiceExport describes the SPICE netlist kicad.export_netlist wrote.
type SpiceExport struct {
	NetlistFile string `json:"netlist_file"`
	// Nodes maps each SPICE node to the schematic net it stands for.
	Nodes            map[string]string `json:"nodes"`
	Simulated        []string          `json:"simulated_parts"`
	Excluded         []ExcludedPart    `json:"excluded_parts"`
	Includes         []string          `json:"includes"`
	AnalysisCommands []string          `json:"analysis_commands"`
	// SkippedDirectives are schematic text the deck leaves out (.control
	// blocks, which the spice adapter refuses).
	SkippedDirectives []string `json:"skipped_directives,omitempty"`
}

// ExcludedPart is a component the deck leaves out, and why.
type ExcludedPart struct {
	Reference string `json:"reference"`
	Reason    string `json:"reason"`
}

// spicePart is one component as the deck sees it: all its units' pins.
type spicePart struct {
	ref   string
	sym   *placedSymbol
	value string
	pins  map[string]bool
}

var (
	analysisWords = map[string]bool{".tran": true, ".ac": true, ".op": true, ".dc": true}
	// passivePrefixes are the elements the reference letter alone defines.
	passivePrefixes = map[string]bool{"R": true, "C": true, "L": true, "V": true, "I": true, "D": true, "Q": true, "M": true, "J": true}
	// elementLetters are the SPICE elements a Spice_Primitive may name.
	elementLetters = "RCLVIDQMJXEFGHB"
	twoPin         = map[string]bool{"R": true, "C": true, "L": true, "V": true, "I": true, "D": true}
	// kiloStyle is KiCad's 4k7 notation, which ngspice does not read.
	kiloStyle = regexp.MustCompile(`^(\d+)([pnumkKMGR])(\d+)$`)
	nodeChars = regexp.MustCompile(`[^A-Za-z0-9_]+`)
)

// writeSpice writes the design's SPICE deck into dir. Components come from
// their Spice_* fields (KiCad 6's convention) or, for R C L V I D Q M J,
// from the reference letter and the value. A part that cannot be written
// honestly is left out, with a comment in the deck and a reason.
func (a *Adapter) writeSpice(src *netSource, dir string) (*SpiceExport, error) {
	d := src.design
	ex := &SpiceExport{Nodes: map[string]string{}, Simulated: []string{}, Excluded: []ExcludedPart{}, Includes: []string{}, AnalysisCommands: []string{}}
	pinNet := map[pinKey]string{}
	for _, n := range src.nets {
		for _, p := range n.Pins {
			pinNet[pinKey{p.Reference, p.Pin}] = n.Name
		}
	}
	nodeOf := spiceNodes(src.nets, ex.Nodes)

	parts := map[string]*spicePart{}
	var refs []string
	for _, p := range d.parts {
		if p.reference == "" || p.reference[0] == '#' {
			continue
		}
		sp, ok := parts[p.reference]
		if !ok {
			sp = &spicePart{ref: p.reference, sym: p.sym, value: p.value, pins: map[string]bool{}}
			parts[p.reference] = sp
			refs = append(refs, p.reference)
		}
		for _, lp := range p.pins() {
			sp.pins[lp.number] = true
		}
	}
	sort.Slice(refs, func(i, j int) bool { return naturalLess(refs[i], refs[j]) })

	var body []string
	includes := map[string]bool{}
	for _, ref := range refs {
		line, include, reason := a.spiceLine(parts[ref], pinNet, nodeOf, d.root.path)
		if reason != "" {
			ex.Excluded = append(ex.Excluded, ExcludedPart{Reference: ref, Reason: reason})
			body = append(body, "* "+ref+" left out: "+reason)
			continue
		}
		if include != "" && !includes[include] {
			includes[include] = true
			ex.Includes = append(ex.Includes, include)
		}
		ex.Simulated = append(ex.Simulated, ref)
		body = append(body, line)
	}
	directives := a.spiceDirectives(d, ex)

	var deck strings.Builder
	fmt.Fprintf(&deck, "KiCad schematic %s (exported by MetaForge)\n", filepath.Base(d.root.path))
	for _, inc := range ex.Includes {
		fmt.Fprintf(&deck, ".include \"%s\"\n", inc)
	}
	for _, l := range body {
		deck.WriteString(l + "\n")
	}
	for _, l := range directives {
		deck.WriteString(l + "\n")
	}
	deck.WriteString(".end\n")
	name := strings.TrimSuffix(filepath.Base(d.root.path), filepath.Ext(d.root.path)) + ".cir"
	ex.NetlistFile = filepath.Join(dir, name)
	if err := os.WriteFile(ex.NetlistFile, []byte(deck.String()), 0o644); err != nil {
		return nil, protocol.Transient("cannot write %s: %v", ex.NetlistFile, err)
	}
	return ex, nil
}

// spiceLine is the element line of one part, the model file it needs, or
// the reason it cannot be simulated.
func (a *Adapter) spiceLine(p *spicePart, pinNet map[pinKey]string, nodeOf map[string]string, root string) (line, include, reason string) {
	if en := strings.ToUpper(strings.TrimSpace(p.sym.prop("Spice_Netlist_Enabled"))); en == "N" || en == "0" || en == "FALSE" {
		return "", "", "Spice_Netlist_Enabled is " + p.sym.prop("Spice_Netlist_Enabled")
	}
	prim := strings.ToUpper(strings.TrimSpace(p.sym.prop("Spice_Primitive")))
	if prim == "" {
		letter := strings.ToUpper(p.ref[:1])
		if !passivePrefixes[letter] {
			return "", "", fmt.Sprintf("no Spice_Primitive field, and the reference letter %s is not a SPICE element", letter)
		}
		prim = letter
	}
	if len(prim) != 1 || !strings.Contains(elementLetters, prim) {
		return "", "", fmt.Sprintf("Spice_Primitive %q is not a SPICE element this exporter writes (%s)", prim, elementLetters)
	}
	model := strings.TrimSpace(p.sym.prop("Spice_Model"))
	if model == "" {
		model = strings.TrimSpace(p.value)
	}
	if model == "" {
		return "", "", "no Spice_Model and no value"
	}
	if prim == "R" || prim == "C" || prim == "L" {
		model = spiceValue(model)
	}
	var order []string
	if seq := strings.TrimSpace(p.sym.prop("Spice_Node_Sequence")); seq != "" {
		order = strings.FieldsFunc(seq, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	} else {
		for pin := range p.pins {
			order = append(order, pin)
		}
		sort.Slice(order, func(i, j int) bool { return naturalLess(order[i], order[j]) })
	}
	if twoPin[prim] && len(order) != 2 {
		return "", "", fmt.Sprintf("a %s element has 2 nodes but the symbol gives %d pins (%s)", prim, len(order), strings.Join(order, " "))
	}
	nodes := make([]string, 0, len(order))
	for _, pin := range order {
		if !p.pins[pin] {
			return "", "", fmt.Sprintf("Spice_Node_Sequence names pin %s, which the symbol does not have", pin)
		}
		net, ok := pinNet[pinKey{p.ref, pin}]
		if !ok {
			return "", "", fmt.Sprintf("pin %s is on no net", pin)
		}
		nodes = append(nodes, nodeOf[net])
	}
	if lib := strings.TrimSpace(p.sym.prop("Spice_Lib_File")); lib != "" {
		if !filepath.IsAbs(lib) {
			lib = filepath.Join(sheetDir(root), lib)
		}
		real, err := a.ws.ResolveRead("Spice_Lib_File of "+p.ref, lib)
		if err != nil {
			return "", "", "its Spice_Lib_File cannot be used: " + err.Error()
		}
		include = real
	}
	name := p.ref
	if !strings.HasPrefix(strings.ToUpper(name), prim) {
		name = prim + name
	}
	return name + " " + strings.Join(nodes, " ") + " " + model, include, ""
}

// spiceNodes names a SPICE node for each net: GND and 0 are node 0, other
// names are made safe for SPICE and unique.
func spiceNodes(nets []Net, nodes map[string]string) map[string]string {
	nodeOf := map[string]string{}
	used := map[string]bool{"0": true}
	for _, n := range nets {
		base := strings.TrimPrefix(n.Name, "/")
		if strings.EqualFold(base, "GND") || base == "0" {
			nodeOf[n.Name] = "0"
			nodes["0"] = n.Name
			continue
		}
		s := strings.Trim(nodeChars.ReplaceAllString(base, "_"), "_")
		if s == "" {
			s = "n"
		}
		cand := s
		for i := 2; used[strings.ToLower(cand)]; i++ {
			cand = fmt.Sprintf("%s_%d", s, i)
		}
		used[strings.ToLower(cand)] = true
		nodeOf[n.Name], nodes[cand] = cand, n.Name
	}
	return nodeOf
}

// spiceDirectives are the dot lines of the schematic's text items, in
// sheet order: the simulation command and any .model, .param or .include.
// Lines starting with '*' are comments in KiCad too and are skipped;
// .control blocks are skipped and reported.
func (a *Adapter) spiceDirectives(d *design, ex *SpiceExport) []string {
	var out []string
	done := map[*sheetFile]bool{}
	for _, inst := range d.instances {
		if done[inst.file] {
			continue
		}
		done[inst.file] = true
		for _, text := range inst.file.texts {
			inControl, kept := false, false
			for _, raw := range strings.Split(text, "\n") {
				line := strings.TrimSpace(raw)
				word := strings.ToLower(strings.Fields(line + " x")[0])
				switch {
				case inControl:
					ex.SkippedDirectives = append(ex.SkippedDirectives, line)
					inControl = word != ".endc"
				case word == ".control":
					inControl = true
					ex.SkippedDirectives = append(ex.SkippedDirectives, line)
				case strings.HasPrefix(line, "+") && kept:
					out = append(out, line)
				case strings.HasPrefix(line, ".") && word != ".end":
					if word == ".include" || word == ".inc" || word == ".lib" {
						line = absoluteInclude(line, sheetDir(d.root.path))
					}
					if analysisWords[word] {
						ex.AnalysisCommands = append(ex.AnalysisCommands, line)
					}
					out = append(out, line)
					kept = true
				default:
					kept = false
				}
			}
		}
	}
	return out
}

// absoluteInclude makes a relative .include path absolute, taken from the
// schematic's folder: the deck is read from the call's folder.
func absoluteInclude(line, dir string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return line
	}
	p := strings.Trim(f[1], `"'`)
	if filepath.IsAbs(p) {
		return line
	}
	f[1] = `"` + filepath.Join(dir, p) + `"`
	return strings.Join(f, " ")
}

// spiceValue rewrites KiCad's 4k7 and 4R7 notation as 4.7k and 4.7, which
// ngspice reads; any other value is passed as written.
func spiceValue(v string) string {
	m := kiloStyle.FindStringSubmatch(v)
	if m == nil {
		return v
	}
	if m[2] == "R" {
		return m[1] + "." + m[3]
	}
	return m[1] + "." + m[3] + m[2]
}
