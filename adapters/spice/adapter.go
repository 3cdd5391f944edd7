// Package spice is the in-process adapter "spice": it runs ngspice in batch
// mode on a netlist with one analysis (op, dc, ac, transient) and reports
// each vector's final, minimum and maximum and a decimated waveform, read
// from ngspice's rawfile (ASCII or binary). It writes nothing outside a
// temporary directory that it removes.
package spice

import (
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Identity of the adapter and its tool.
const (
	AdapterID         = "spice"
	ToolRunSimulation = "spice.run_simulation"
	version           = "0.1.0"
)

const description = "Run ngspice in batch mode on netlist text or a netlist_path, with one analysis card built from " +
	"analysis_type (op, dc, ac, transient) and params (dc: source, start, stop, step; ac: variation, points, fstart, fstop; " +
	"transient: tstep, tstop, tstart), or none when the netlist carries its own single analysis card. " +
	"Parses ngspice's rawfile: per vector final/min/max (AC: magnitude in dB and phase in degrees), " +
	"a waveform keyed with the scale, min-max decimated to max_points (default 500) so extremes are kept, " +
	"converged, and ngspice's error lines in log when it fails. " +
	"A netlist that does not parse or converge is a result with converged false, not an error. " +
	".control blocks are refused (they run arbitrary commands). Read-only: nothing is written outside a temporary directory."

// Adapter serves spice.run_simulation. The zero value runs "ngspice" from
// PATH with no path confinement; use New.
type Adapter struct {
	// Files confines netlist_path and the files a deck includes to its
	// read roots; NewIn sets it.
	Files *workspace.Workspace
	// AllowedRoots confines them, when Files is nil, to these directories
	// (symlinks resolved, whole path components compared). Empty:
	// unconfined, for a standalone `metaforge adapter spice`.
	AllowedRoots []string
	// Binary is the ngspice executable; default "ngspice" on PATH.
	Binary string
	// ASCIIRawfile asks ngspice for an ASCII rawfile (SPICE_ASCIIRAWFILE=1)
	// instead of its default binary one. Both are parsed.
	ASCIIRawfile bool

	calls *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the spice adapter, confining netlist_path to allowedRoots
// (none: unconfined).
func New(allowedRoots ...string) *Adapter {
	return &Adapter{AllowedRoots: allowedRoots, calls: adapters.NewInvocations()}
}

// NewIn returns the spice adapter reading files as ws allows, as every
// other adapter of the server does.
func NewIn(ws *workspace.Workspace) *Adapter {
	return &Adapter{Files: ws, calls: adapters.NewInvocations()}
}

// ID is "spice".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version.
func (a *Adapter) Version() string { return version }

// Manifests declares spice.run_simulation: idempotent (the same deck gives
// the same result), 120 seconds.
func (a *Adapter) Manifests() []adapters.Manifest {
	return []adapters.Manifest{{
		ToolID:         ToolRunSimulation,
		AdapterID:      AdapterID,
		Name:           "Run SPICE simulation",
		Description:    description,
		Capability:     "circuit_simulation",
		InputSchema:    inputSchema,
		OutputSchema:   json.RawMessage(outputSchema),
		Idempotent:     true,
		TimeoutSeconds: 120,
	}}
}

// Call runs a tool. Bad input is INVALID_PARAMS and runs nothing; a circuit
// ngspice cannot parse or solve is a result with converged false; a missing
// ngspice is TOOL_UNAVAILABLE.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()

	if toolID != ToolRunSimulation {
		return nil, adapters.WithToolID(protocol.Invalid("adapter spice has no tool %q: call %s", toolID, ToolRunSimulation), toolID)
	}
	req, err := decodeRequest(args)
	if err != nil {
		return nil, adapters.WithToolID(err, toolID)
	}
	j, err := a.prepare(req)
	if err != nil {
		return nil, adapters.WithToolID(err, toolID)
	}
	out, err := a.run(ctx, j)
	if err != nil {
		return nil, adapters.WithToolID(err, toolID)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, adapters.WithToolID(protocol.Refusal("could not encode the simulation result: %v", err), toolID)
	}
	return &adapters.Result{Data: data}, nil
}

var ngspiceVersion = regexp.MustCompile(`ngspice-[0-9][0-9A-Za-z.+-]*`)

// Health runs `ngspice -v`: healthy with ngspice's version, or
// TOOL_UNAVAILABLE when it is not installed or does not answer.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	bin := a.Binary
	if bin == "" {
		bin = "ngspice"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return adapters.HealthStatus{}, protocol.Unavailable("ngspice is not installed (%s not found on PATH): install it with `apt-get install ngspice`", bin)
	}
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	outb, err := exec.CommandContext(hctx, path, "-v").CombinedOutput()
	if err != nil {
		return adapters.HealthStatus{}, protocol.Unavailable("`%s -v` failed: %v", path, err)
	}
	ng := ngspiceVersion.FindString(string(outb))
	if ng == "" {
		ng = "ngspice (version not reported)"
	}
	return a.calls.Healthy(AdapterID, version+" ("+ng+")", len(a.Manifests())), nil
}
