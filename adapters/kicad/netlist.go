package kicad

import (
	"context"
	"encoding/json"
	"github.com/metaforge/metaforge/adapters"

	"github.com/metaforge/metaforge/protocol"
)

// Netlist formats.
const (
	FormatJSON  = "json"
	FormatSpice = "spice"
)

// NetlistRequest is the input of kicad.export_netlist.
type NetlistRequest struct {
	FileChoice
	Format string `json:"format,omitempty" jsonschema:"json: the nets in the result. spice: also a SPICE deck file (schematic_file only)."`
}

// NetlistResult is what kicad.export_netlist returns.
type NetlistResult struct {
	// Source says whose connectivity this is: the board's copper (pcbnew's
	// pads and their nets) or the schematic's wiring.
	Source     string       `json:"source"`
	SourceFile string       `json:"source_file"`
	Format     string       `json:"format"`
	NetCount   int          `json:"net_count"`
	Nets       []Net        `json:"nets"`
	Warnings   []string     `json:"warnings,omitempty"`
	Spice      *SpiceExport `json:"spice,omitempty"`
}

func (a *Adapter) exportNetlist(ctx context.Context, args json.RawMessage) (*NetlistResult, error) {
	var req NetlistRequest
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return nil, err
	}
	switch req.Format {
	case "":
		req.Format = FormatJSON
	case FormatJSON, FormatSpice:
	default:
		return nil, protocol.Invalid("format %q is not %q or %q", req.Format, FormatJSON, FormatSpice)
	}
	if req.Format == FormatSpice && req.BoardFile != "" {
		return nil, protocol.Invalid("format spice needs schematic_file: the SPICE models are fields of the schematic's symbols, a board has none")
	}
	src, err := a.readNets(ctx, req.FileChoice)
	if err != nil {
		return nil, err
	}
	res := &NetlistResult{Source: src.kind, SourceFile: src.file, Format: req.Format, NetCount: len(src.nets), Nets: src.nets, Warnings: src.warnings}
	if res.Nets == nil {
		res.Nets = []Net{}
	}
	if req.Format == FormatSpice {
		dir, err := a.ws.ForCall(ctx)
		if err != nil {
			return nil, err
		}
		if res.Spice, err = a.writeSpice(src, dir); err != nil {
			return nil, err
		}
	}
	return res, nil
}
