// Package gazebo is the adapter "gazebo": SDFormat worlds and models
// checked by libsdformat, the parser Gazebo itself loads them with.
//
// Debian bookworm has libsdformat12 but no Gazebo simulator and no `gz
// sdf` command, so gazebo.validate_world runs metaforge-sdfcheck, a small
// program against the library built by deploy/sdfcheck/build.sh, through
// the solver runtime. Simulating (gazebo.run_simulation) and reading a
// simulation's statistics (gazebo.extract_results) need Gazebo itself:
// they are not served, and Unserved says why, for health to list.
package gazebo

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Identity of the adapter and its tool.
const (
	AdapterID         = "gazebo"
	ToolValidateWorld = "gazebo.validate_world"
	version           = "0.1.0"
)

// Options configure the adapter.
type Options struct {
	// Checker is the metaforge-sdfcheck program. Default: $METAFORGE_SDFCHECK,
	// else metaforge-sdfcheck on PATH, else where build.sh puts it for a
	// user that is not root (see checkerPath).
	Checker string
}

// Adapter serves gazebo.validate_world. Use New.
type Adapter struct {
	ws      *workspace.Workspace
	checker string
	calls   *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the adapter, reading files as ws allows. It runs nothing
// until called: the checker is looked for at each call, so one built after
// the server started is found.
func New(ws *workspace.Workspace, opts Options) *Adapter {
	return &Adapter{ws: ws, checker: opts.Checker, calls: adapters.NewInvocations()}
}

// ID is "gazebo".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version (Health adds libsdformat's).
func (a *Adapter) Version() string { return version }

// Manifests declares gazebo.validate_world: a read, idempotent (the same
// file gives the same report).
func (a *Adapter) Manifests() []adapters.Manifest {
	return []adapters.Manifest{{
		ToolID:         ToolValidateWorld,
		AdapterID:      AdapterID,
		Name:           "Validate SDF world or model",
		Description:    validateDescription,
		Capability:     "sdf_validation",
		InputSchema:    validateInputSchema,
		OutputSchema:   json.RawMessage(validateOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 60,
	}}
}

// Call runs a tool. Bad arguments (no such file, not .sdf or .world) are
// INVALID_PARAMS and run nothing; a file libsdformat rejects is a result
// with valid false and its errors; a missing checker is TOOL_UNAVAILABLE
// saying how to build it.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	if toolID != ToolValidateWorld {
		return nil, adapters.WithToolID(protocol.Invalid("adapter gazebo has no tool %q: call %s (gazebo.run_simulation and gazebo.extract_results are not served: %s)",
			toolID, ToolValidateWorld, noGazebo), toolID)
	}
	out, err := a.validateWorld(ctx, args)
	if err != nil {
		return nil, adapters.WithToolID(err, toolID)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, adapters.WithToolID(&protocol.Error{Code: protocol.InternalError, Details: "the result cannot be encoded as JSON: " + err.Error()}, toolID)
	}
	return &adapters.Result{Data: data}, nil
}

// Health asks the checker its version: healthy with libsdformat's, or
// TOOL_UNAVAILABLE saying how to build it.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	v, err := a.checkerVersion(ctx)
	if err != nil {
		return adapters.HealthStatus{}, err
	}
	return a.calls.Healthy(AdapterID, version+" (libsdformat "+v.Library+", SDF "+v.Protocol+")", len(a.Manifests())), nil
}
