package kicad

import (
	"context"
	"encoding/json"
	"github.com/metaforge/metaforge/adapters"
	"os"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// GerberRequest is the input of kicad.export_gerber.
type GerberRequest struct {
	BoardFile string   `json:"board_file"`
	Layers    []string `json:"layers,omitempty" jsonschema:"Layers to plot, by KiCad name (F.Cu, B.Cu, In1.Cu, F.Mask, F.Paste, F.Silkscreen, Edge.Cuts...) or the board's own layer name. Default: the fabrication set."`
}

// GerberResult is what kicad.export_gerber returns.
type GerberResult struct {
	BoardFile  string       `json:"board_file"`
	OutputDir  string       `json:"output_dir"`
	Gerbers    []GerberFile `json:"gerber_files"`
	DrillFiles []DrillFile  `json:"drill_files"`
}

// GerberFile is one plotted layer.
type GerberFile struct {
	// Layer is KiCad's standard name (F.Cu, F.Silkscreen); BoardLayerName
	// the name this board gave it (a board may call F.Cu "top_cu").
	Layer          string `json:"layer"`
	BoardLayerName string `json:"board_layer_name"`
	Path           string `json:"path"`
	SizeBytes      int64  `json:"size_bytes"`
}

// DrillFile is one Excellon file: plated (PTH) or non-plated (NPTH) holes.
type DrillFile struct {
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	SizeBytes int64  `json:"size_bytes"`
}

func (a *Adapter) exportGerber(ctx context.Context, args json.RawMessage) (*GerberResult, error) {
	var req GerberRequest
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return nil, err
	}
	for _, l := range req.Layers {
		if strings.TrimSpace(l) == "" {
			return nil, protocol.Invalid("layers holds an empty name; name layers as KiCad does (F.Cu, B.Mask, Edge.Cuts)")
		}
	}
	board, err := a.resolveDesign("board_file", req.BoardFile, boardKind)
	if err != nil {
		return nil, err
	}
	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return nil, err
	}
	layers, _ := json.Marshal(req.Layers)
	var out struct {
		Gerbers []struct {
			Layer          string `json:"layer"`
			BoardLayerName string `json:"board_layer_name"`
			Path           string `json:"path"`
		} `json:"gerbers"`
		DrillFiles     []string `json:"drill_files"`
		UnknownLayers  []string `json:"unknown_layers"`
		DisabledLayers []string `json:"disabled_layers"`
		EnabledLayers  []string `json:"enabled_layers"`
	}
	if err := a.runBoard(ctx, "gerber", board, dir, &out, string(layers)); err != nil {
		return nil, err
	}
	if len(out.UnknownLayers) > 0 || len(out.DisabledLayers) > 0 {
		return nil, protocol.Invalid("layers %s are not layers of %s (unknown: %s; not enabled on this board: %s); its enabled layers are %s",
			strings.Join(append(out.UnknownLayers, out.DisabledLayers...), ", "), board,
			orNone(out.UnknownLayers), orNone(out.DisabledLayers), strings.Join(out.EnabledLayers, ", "))
	}
	res := &GerberResult{BoardFile: board, OutputDir: dir, Gerbers: []GerberFile{}, DrillFiles: []DrillFile{}}
	for _, g := range out.Gerbers {
		size, err := fileSize(g.Path)
		if err != nil {
			return nil, err
		}
		res.Gerbers = append(res.Gerbers, GerberFile{Layer: g.Layer, BoardLayerName: g.BoardLayerName, Path: g.Path, SizeBytes: size})
	}
	for _, p := range out.DrillFiles {
		size, err := fileSize(p)
		if err != nil {
			return nil, err
		}
		kind := "PTH"
		if strings.HasSuffix(p, "-NPTH.drl") {
			kind = "NPTH"
		}
		res.DrillFiles = append(res.DrillFiles, DrillFile{Kind: kind, Path: p, SizeBytes: size})
	}
	return res, nil
}

// files are the paths the result names, for the call's output_files.
func (r *GerberResult) files() []string {
	var out []string
	for _, g := range r.Gerbers {
		out = append(out, g.Path)
	}
	for _, d := range r.DrillFiles {
		out = append(out, d.Path)
	}
	return out
}

// fileSize checks that pcbnew really wrote a file it reported.
func fileSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, protocol.Refusal("pcbnew reported %s but did not write it: %v", path, err)
	}
	return st.Size(), nil
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}
