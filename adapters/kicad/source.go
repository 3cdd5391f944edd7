package kicad

import (
	"context"
	"sort"

	"github.com/metaforge/metaforge/protocol"
)

// Where a netlist came from.
const (
	SourceBoard     = "board"
	SourceSchematic = "schematic"
)

// netSource is a design's connectivity, read from a board (pcbnew's pads
// and their nets) or a schematic (its wiring): the nets, and each
// component's value and footprint.
type netSource struct {
	kind, file string
	nets       []Net
	components map[string]component
	warnings   []string
	design     *design // the schematic, when read from one
}

type component struct{ value, footprint string }

// FileChoice is the board_file-or-schematic_file pair of several tools.
type FileChoice struct {
	BoardFile     string `json:"board_file,omitempty"`
	SchematicFile string `json:"schematic_file,omitempty"`
}

// readNets reads the connectivity of the one file the request names.
func (a *Adapter) readNets(ctx context.Context, fc FileChoice) (*netSource, error) {
	if (fc.BoardFile == "") == (fc.SchematicFile == "") {
		return nil, protocol.Invalid("give exactly one of board_file (a .kicad_pcb) or schematic_file (a root .kicad_sch)")
	}
	read := func() (*netSource, error) { return a.schematicNets(fc.SchematicFile) }
	if fc.BoardFile != "" {
		read = func() (*netSource, error) { return a.boardNets(ctx, fc.BoardFile) }
	}
	src, err := read()
	if err != nil {
		return nil, err
	}
	// A board stores "/VPP{slash}MCLR" where the schematic's label reads
	// VPP/MCLR; both are given as KiCad shows them.
	src.showNetNames()
	return src, nil
}

func (a *Adapter) schematicNets(path string) (*netSource, error) {
	sch, err := a.resolveDesign("schematic_file", path, schematicKind)
	if err != nil {
		return nil, err
	}
	d, err := a.loadDesign(sch)
	if err != nil {
		return nil, err
	}
	if err := d.refuseCrossSheetBuses(); err != nil {
		return nil, err
	}
	c := connect(d)
	src := &netSource{kind: SourceSchematic, file: sch, nets: c.nets(d), components: map[string]component{}, warnings: c.warnings, design: d}
	for _, p := range d.parts {
		if _, seen := src.components[p.reference]; !seen && p.reference != "" && p.reference[0] != '#' {
			src.components[p.reference] = component{value: p.value, footprint: p.footprint}
		}
	}
	return src, nil
}

// boardPads is what the board script reports of a board's footprints.
type boardPads struct {
	NetCount   int `json:"net_count"`
	Footprints []struct {
		Reference      string `json:"reference"`
		Value          string `json:"value"`
		Footprint      string `json:"footprint"`
		ExcludeFromBOM bool   `json:"exclude_from_bom"`
		BoardOnly      bool   `json:"board_only"`
		Pads           []struct {
			Number  string `json:"number"`
			PinName string `json:"pin_name"`
			Net     string `json:"net"`
		} `json:"pads"`
	} `json:"footprints"`
}

func (a *Adapter) boardNets(ctx context.Context, path string) (*netSource, error) {
	board, err := a.resolveDesign("board_file", path, boardKind)
	if err != nil {
		return nil, err
	}
	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return nil, err
	}
	var bp boardPads
	if err := a.runBoard(ctx, "pads", board, dir, &bp); err != nil {
		return nil, err
	}
	src := &netSource{kind: SourceBoard, file: board, components: map[string]component{}}
	byNet := map[string][]Pin{}
	for _, fp := range bp.Footprints {
		src.components[fp.Reference] = component{value: fp.Value, footprint: fp.Footprint}
		seen := map[string]bool{}
		for _, pad := range fp.Pads {
			// A pad number used twice (a thermal tab drawn as several
			// pads) is one pin.
			if pad.Net == "" || pad.Number == "" || seen[pad.Number] {
				continue
			}
			seen[pad.Number] = true
			byNet[pad.Net] = append(byNet[pad.Net], Pin{Reference: fp.Reference, Pin: pad.Number, PinName: pad.PinName})
		}
	}
	for name, pins := range byNet {
		sortPins(pins)
		src.nets = append(src.nets, Net{Name: name, Pins: pins})
	}
	sort.Slice(src.nets, func(i, j int) bool { return src.nets[i].Name < src.nets[j].Name })
	return src, nil
}
