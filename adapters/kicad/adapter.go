// Package kicad is the in-process adapter "kicad": design-rule checks,
// Gerber and drill export and board netlists through KiCad 6's pcbnew
// Python module (KiCad 6 has no command-line tool), and BOM, netlist,
// SPICE deck and pin mapping read straight from the KiCad 6 schematic
// files, whose connectivity it follows itself since eeschema has no
// headless API in KiCad 6; and it draws new schematics from parts and nets
// with symbols from KiCad's installed libraries. ERC runs kicad-cli where
// KiCad 7+ has it, and otherwise checks the parsed schematic with KiCad 6's
// rules itself.
package kicad

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Identity of the adapter and its tools.
const (
	AdapterID         = "kicad"
	ToolRunDRC        = "kicad.run_drc"
	ToolRunERC        = "kicad.run_erc"
	ToolExportGerber  = "kicad.export_gerber"
	ToolExportBOM     = "kicad.export_bom"
	ToolExportNetlist = "kicad.export_netlist"
	ToolGetPinMapping = "kicad.get_pin_mapping"
	version           = "0.1.0"
)

// Adapter serves the kicad.* tools. Use New.
type Adapter struct {
	// Python runs the board script; default METAFORGE_KICAD_PYTHON, else
	// DefaultPython.
	Python string
	// SymbolDir holds KiCad's symbol libraries (*.kicad_sym) that
	// kicad.generate_schematic places symbols from; default
	// KICAD6_SYMBOL_DIR, else DefaultSymbolDir.
	SymbolDir string

	ws    *workspace.Workspace
	calls *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the kicad adapter. Design files are confined to ws's roots
// and each call writes only into its own folder of ws.
func New(ws *workspace.Workspace) *Adapter {
	return &Adapter{ws: ws, calls: adapters.NewInvocations()}
}

// ID is "kicad".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version.
func (a *Adapter) Version() string { return version }

// Call runs a tool. Bad input is INVALID_PARAMS and runs nothing; a board
// pcbnew cannot load is a refusal; a missing pcbnew or kicad-cli is
// TOOL_UNAVAILABLE.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	var (
		out   any
		files []string
		err   error
	)
	switch toolID {
	case ToolRunDRC:
		var r *DRCResult
		if r, err = a.runDRC(ctx, args); err == nil {
			out, files = r, []string{r.ReportFile}
		}
	case ToolRunERC:
		var r *ERCResult
		if r, err = a.runERC(ctx, args); err == nil {
			out, files = r, []string{r.ReportFile}
		}
	case ToolExportGerber:
		var r *GerberResult
		if r, err = a.exportGerber(ctx, args); err == nil {
			out, files = r, r.files()
		}
	case ToolExportBOM:
		out, err = a.exportBOM(args)
	case ToolExportNetlist:
		var r *NetlistResult
		if r, err = a.exportNetlist(ctx, args); err == nil {
			out = r
			if r.Spice != nil {
				files = []string{r.Spice.NetlistFile}
			}
		}
	case ToolGetPinMapping:
		out, err = a.pinMapping(ctx, args)
	case ToolGenerateSchematic:
		var r *SchematicResult
		if r, err = a.generateSchematic(ctx, args); err == nil {
			out, files = r, []string{r.SchematicFile}
		}
	default:
		err = protocol.Invalid("adapter kicad has no tool %q: call one of %s, %s, %s, %s, %s, %s, %s",
			toolID, ToolRunDRC, ToolRunERC, ToolExportGerber, ToolExportBOM, ToolExportNetlist, ToolGetPinMapping, ToolGenerateSchematic)
	}
	if err != nil {
		return nil, adapters.WithToolID(err, toolID)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, adapters.WithToolID(protocol.Refusal("could not encode the result: %v", err), toolID)
	}
	return &adapters.Result{Data: data, OutputFiles: files}, nil
}

// Health imports pcbnew with the configured Python: healthy with KiCad's
// version, or TOOL_UNAVAILABLE saying what to install. The schematic tools
// would still work without it, but the board tools are the adapter's core.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	hctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := a.pcbnewVersion(hctx)
	if err != nil {
		var pe *protocol.Error
		if ctx.Err() != nil || (errors.As(err, &pe) && pe.Code == protocol.ToolUnavailable) {
			return adapters.HealthStatus{}, err
		}
		return adapters.HealthStatus{}, protocol.Unavailable("%s did not answer whether it can import pcbnew: %v", a.python(), err)
	}
	return a.calls.Healthy(AdapterID, version+" (KiCad "+v+")", len(a.Manifests())), nil
}
