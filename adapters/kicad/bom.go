package kicad

import (
	"encoding/json"
	"github.com/metaforge/metaforge/adapters"
	"sort"
	"strings"
)

// BOMRequest is the input of kicad.export_bom.
type BOMRequest struct {
	SchematicFile string `json:"schematic_file"`
}

// BOMResult is what kicad.export_bom returns.
type BOMResult struct {
	SchematicFile   string    `json:"schematic_file"`
	Lines           []BOMLine `json:"lines"`
	LineCount       int       `json:"line_count"`
	TotalReferences int       `json:"total_references"`
	// NotInBOM are real components whose symbol says (in_bom no).
	NotInBOM []string `json:"not_in_bom"`
	// PowerAndFlags counts the '#' symbols (power ports, PWR_FLAG) left out.
	PowerAndFlags int    `json:"power_and_flag_symbols"`
	FieldsSource  string `json:"fields_source"`
}

// BOMLine is the components sharing a value, footprint and fields.
type BOMLine struct {
	References []string          `json:"references"`
	Quantity   int               `json:"quantity"`
	Value      string            `json:"value"`
	Footprint  string            `json:"footprint"`
	Fields     map[string]string `json:"fields"`
}

const fieldsSource = "Reference, value and footprint are per placement (the root's symbol_instances). Other fields (Datasheet, MPN, ...) " +
	"are the placed symbol's own properties in its sheet file; in a sheet placed more than once they are shared by every placement, " +
	"since KiCad 6 stores only reference, unit, value and footprint per placement. Simulation fields (Spice_*, Sim.*) and KiCad's " +
	"internal ki_* fields are left out; empty and \"~\" values are dropped."

func (a *Adapter) exportBOM(args json.RawMessage) (*BOMResult, error) {
	var req BOMRequest
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return nil, err
	}
	sch, err := a.resolveDesign("schematic_file", req.SchematicFile, schematicKind)
	if err != nil {
		return nil, err
	}
	d, err := a.loadDesign(sch)
	if err != nil {
		return nil, err
	}
	return buildBOM(d), nil
}

// buildBOM makes one component per reference (the units of U1 are one
// part) and groups components whose value, footprint and fields agree.
func buildBOM(d *design) *BOMResult {
	res := &BOMResult{SchematicFile: d.root.path, Lines: []BOMLine{}, NotInBOM: []string{}, FieldsSource: fieldsSource}
	seen := map[string]bool{}
	lines := map[string]*BOMLine{}
	var order []string
	for _, p := range d.parts {
		if strings.HasPrefix(p.reference, "#") {
			res.PowerAndFlags++
			continue
		}
		if seen[p.reference] {
			continue
		}
		seen[p.reference] = true
		if !p.sym.inBOM {
			res.NotInBOM = append(res.NotInBOM, p.reference)
			continue
		}
		fields := bomFields(p.sym)
		key, _ := json.Marshal([]any{p.value, p.footprint, fields})
		l, ok := lines[string(key)]
		if !ok {
			l = &BOMLine{Value: p.value, Footprint: p.footprint, Fields: fields}
			lines[string(key)] = l
			order = append(order, string(key))
		}
		l.References = append(l.References, p.reference)
	}
	for _, k := range order {
		l := lines[k]
		sort.Slice(l.References, func(i, j int) bool { return naturalLess(l.References[i], l.References[j]) })
		l.Quantity = len(l.References)
		res.TotalReferences += l.Quantity
		res.Lines = append(res.Lines, *l)
	}
	sort.Slice(res.Lines, func(i, j int) bool { return naturalLess(res.Lines[i].References[0], res.Lines[j].References[0]) })
	sort.Slice(res.NotInBOM, func(i, j int) bool { return naturalLess(res.NotInBOM[i], res.NotInBOM[j]) })
	res.LineCount = len(res.Lines)
	return res
}

// bomFields are the symbol's properties a buyer cares about.
func bomFields(s *placedSymbol) map[string]string {
	out := map[string]string{}
	for _, p := range s.props {
		n := p.name
		switch {
		case n == "Reference", n == "Value", n == "Footprint",
			strings.HasPrefix(n, "ki_"), strings.HasPrefix(strings.ToLower(n), "spice"), strings.HasPrefix(n, "Sim."):
			continue
		case strings.TrimSpace(p.value) == "", p.value == "~":
			continue
		}
		out[n] = p.value
	}
	return out
}
