// Package physics is the adapter "physics": a URDF robot simulated in
// PyBullet, headless and deterministic, one Python process per call
// through the solver runtime (as adapters/freecad's file-based tools run).
// It serves physics.run_simulation, and runs the settling check that the
// cadquery adapter declares as cadquery.validate_physics_stability
// (ValidateStability).
//
// The Go side owns the contract: manifests, argument checks, the URDF and
// its meshes found inside the workspace, joint names and limits checked
// against the URDF, the caps on a run. The Python side (python/, embedded)
// simulates on arguments already checked.
package physics

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Identity of the adapter.
const (
	AdapterID = "physics"
	version   = "0.1.0"
)

// Options configure the adapter.
type Options struct {
	// Python is the interpreter with PyBullet: a path, or a name looked up
	// on PATH. Default: $METAFORGE_PHYSICS_PYTHON, else "python3".
	Python string
}

// Adapter serves the physics.* tools. Use New.
type Adapter struct {
	ws     *workspace.Workspace
	python string
	bundle bundle
	calls  *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the adapter. It starts nothing: each call runs one PyBullet
// process through the solver runtime in the call's context.
func New(ws *workspace.Workspace, opts Options) *Adapter {
	return &Adapter{ws: ws, python: python(opts.Python), bundle: newBundle(), calls: adapters.NewInvocations()}
}

// ID is "physics".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version (Health adds PyBullet's).
func (a *Adapter) Version() string { return version }

// Manifests lists the tools; they are defined here, so they are known
// without PyBullet.
func (a *Adapter) Manifests() []adapters.Manifest {
	out := make([]adapters.Manifest, len(tools))
	for i, t := range tools {
		out[i] = t.Manifest
	}
	return out
}

// Call runs a tool. Bad arguments are INVALID_PARAMS and run nothing; a
// model PyBullet cannot load is TOOL_EXECUTION_ERROR with what it said; a
// Python without PyBullet is TOOL_UNAVAILABLE saying how to install it.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	for _, t := range tools {
		if t.Manifest.ToolID == toolID {
			out, err := t.Run(ctx, a, args)
			if err != nil {
				return nil, adapters.WithToolID(err, toolID)
			}
			res, err := encode(out)
			return res, adapters.WithToolID(err, toolID)
		}
	}
	ids := make([]string, len(tools))
	for i, t := range tools {
		ids[i] = t.Manifest.ToolID
	}
	return nil, adapters.WithToolID(protocol.Invalid("adapter physics has no tool %q; its tools are %s", toolID, strings.Join(ids, ", ")), toolID)
}

// Health is healthy, with PyBullet's version, when the Python imports
// PyBullet; otherwise TOOL_UNAVAILABLE saying how to install it.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	var out struct {
		Version string `json:"version"`
	}
	if err := a.run(ctx, "version", struct{}{}, &out); err != nil {
		return adapters.HealthStatus{}, err
	}
	return a.calls.Healthy(AdapterID, version+" (PyBullet "+out.Version+")", len(tools)), nil
}

// Close does nothing: no process outlives its call.
func (a *Adapter) Close() error { return nil }
