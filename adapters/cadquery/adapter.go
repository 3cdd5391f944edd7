// Package cadquery is the adapter "cadquery": parametric parts, booleans,
// mass properties, exports, agent scripts and assemblies with a real
// interference check, done by CadQuery 2.8 in a warm Python process.
//
// The Go side owns the contract: the manifests, every argument check, the
// resolution of input files inside the workspace, the call's output folder
// and the materials table. The Python kernel (python/, embedded) only does
// geometry on arguments already checked, so a bad call fails here, clearly,
// before anything runs. The kernel starts on the first call (importing
// CadQuery takes seconds) and stays warm.
package cadquery

import (
	"context"
	"encoding/json"
	"os"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Identity of the adapter.
const (
	AdapterID = "cadquery"
	version   = "0.1.0"
)

// EnvPython names the Python the adapter runs when Options.Python is empty.
const EnvPython = "METAFORGE_CADQUERY_PYTHON"

// Options configure the adapter.
type Options struct {
	// Python is the interpreter with CadQuery installed: a path, or a name
	// looked up on PATH. Default: $METAFORGE_CADQUERY_PYTHON, else "python3".
	Python string
}

// Adapter serves the cadquery.* tools. Use New; Close stops its process.
type Adapter struct {
	ws     *workspace.Workspace
	kernel *kernel
	calls  *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the adapter. It starts nothing: the Python process starts on
// the first call.
func New(ws *workspace.Workspace, opts Options) *Adapter {
	python := opts.Python
	if python == "" {
		python = os.Getenv(EnvPython)
	}
	if python == "" {
		python = "python3"
	}
	a := &Adapter{ws: ws, calls: adapters.NewInvocations()}
	a.kernel = newKernel(python, ws.Root, a.Manifests())
	return a
}

// ID is "cadquery".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version (Health adds CadQuery's).
func (a *Adapter) Version() string { return version }

// Manifests lists the tools. They are defined here, not asked of Python,
// so they are known before (and without) CadQuery.
func (a *Adapter) Manifests() []adapters.Manifest {
	out := make([]adapters.Manifest, len(tools))
	for i, t := range tools {
		out[i] = t.manifest
	}
	return out
}

// Call runs a tool. Bad arguments are INVALID_PARAMS and run nothing;
// geometry CadQuery cannot make is TOOL_EXECUTION_ERROR with its message;
// a Python without CadQuery is TOOL_UNAVAILABLE saying how to install it.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	for _, t := range tools {
		if t.manifest.ToolID == toolID {
			res, err := t.call(a, ctx, args)
			return res, adapters.WithToolID(err, toolID)
		}
	}
	return nil, adapters.WithToolID(protocol.Invalid("adapter cadquery has no tool %q; its tools are %s", toolID, toolIDs()), toolID)
}

// Close stops the Python process. Calls after Close fail with
// TOOL_UNAVAILABLE.
func (a *Adapter) Close() error { return a.kernel.close() }
