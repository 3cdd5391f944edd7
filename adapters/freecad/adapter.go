package freecad

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Options configure the adapter.
type Options struct {
	// Python is the interpreter with FreeCAD's modules. Default:
	// $METAFORGE_FREECAD_PYTHON, else /usr/bin/python3 (see python()).
	Python string
	// Mesher is the gmsh adapter: freecad.generate_mesh bakes the part's
	// placements into a STEP and has it mesh that, and
	// freecad.list_named_faces reads its face tables. Without one, the
	// adapter does not offer those two tools.
	Mesher adapters.Adapter
	// Sessions runs the editing sessions (the CadSession workflows).
	// Without it, the session tools answer TOOL_UNAVAILABLE.
	Sessions SessionEngine
}

// Adapter serves the freecad.* tools. Use New.
type Adapter struct {
	ws     *workspace.Workspace
	python string
	mesher adapters.Adapter
	bundle bundle
	calls  *adapters.Invocations
	tools  []tool

	// sessions runs the editing sessions (see session_tools.go).
	sessions SessionEngine
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the adapter. It starts nothing: each stateless call runs
// one FreeCAD process through the solver runtime in the call's context.
func New(ws *workspace.Workspace, opts Options) *Adapter {
	py := opts.Python
	if py == "" {
		py = python()
	}
	a := &Adapter{ws: ws, python: py, mesher: opts.Mesher, sessions: opts.Sessions, bundle: newBundle(), calls: adapters.NewInvocations()}
	a.tools = a.toolList()
	return a
}

// ID is "freecad".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version (Health adds FreeCAD's).
func (a *Adapter) Version() string { return version }

// Manifests lists the tools; they are defined here, so they are known
// without FreeCAD.
func (a *Adapter) Manifests() []adapters.Manifest {
	out := make([]adapters.Manifest, len(a.tools))
	for i, t := range a.tools {
		out[i] = t.Manifest
	}
	return out
}

// Call runs a tool. Bad arguments are INVALID_PARAMS and run nothing; a
// part or file FreeCAD cannot handle is TOOL_EXECUTION_ERROR with its
// message; a Python without FreeCAD is TOOL_UNAVAILABLE saying how to
// install it.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	for _, t := range a.tools {
		if t.Manifest.ToolID == toolID {
			out, err := t.Run(ctx, a, args)
			if err != nil {
				return nil, adapters.WithToolID(err, toolID)
			}
			res, err := encode(out)
			return res, adapters.WithToolID(err, toolID)
		}
	}
	ids := make([]string, len(a.tools))
	for i, t := range a.tools {
		ids[i] = t.Manifest.ToolID
	}
	return nil, adapters.WithToolID(protocol.Invalid("adapter freecad has no tool %q; its tools are %s", toolID, strings.Join(ids, ", ")), toolID)
}

// Health is healthy, with FreeCAD's version, when the Python imports
// FreeCAD; otherwise TOOL_UNAVAILABLE saying how to install it.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	var out struct {
		Version string `json:"version"`
	}
	if err := a.run(ctx, "version", struct{}{}, "", &out); err != nil {
		return adapters.HealthStatus{}, err
	}
	return a.calls.Healthy(AdapterID, version+" (FreeCAD "+out.Version+")", len(a.tools)), nil
}

// Close does nothing: no process outlives its call.
func (a *Adapter) Close() error { return nil }
