package omniverseusd

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
	// Python is the interpreter with usd-core. Default:
	// $METAFORGE_USD_PYTHON, else python3.
	Python string
}

// Adapter serves the omniverse_usd.* tools. Use New.
type Adapter struct {
	ws     *workspace.Workspace
	python string
	bundle bundle
	calls  *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the adapter. It starts nothing: each call runs one Python
// process through the solver runtime in the call's context.
func New(ws *workspace.Workspace, opts Options) *Adapter {
	py := opts.Python
	if py == "" {
		py = python()
	}
	return &Adapter{ws: ws, python: py, bundle: newBundle(), calls: adapters.NewInvocations()}
}

// ID is "omniverse_usd".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version (Health adds usd-core's).
func (a *Adapter) Version() string { return version }

// Manifests lists the tools; they are defined here, so they are known
// without usd-core.
func (a *Adapter) Manifests() []adapters.Manifest {
	out := make([]adapters.Manifest, len(tools))
	for i, t := range tools {
		out[i] = t.Manifest
	}
	return out
}

// Call runs a tool. Bad arguments are INVALID_PARAMS and run nothing; a
// file usd-core cannot handle is TOOL_EXECUTION_ERROR with its message; a
// Python without usd-core is TOOL_UNAVAILABLE saying how to install it.
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
	return nil, adapters.WithToolID(protocol.Invalid("adapter omniverse_usd has no tool %q; its tools are %s", toolID, strings.Join(ids, ", ")), toolID)
}

// Health is healthy, with usd-core's version, when the Python imports
// pxr; otherwise TOOL_UNAVAILABLE saying how to install it.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	var out struct {
		Version string `json:"version"`
	}
	if err := a.run(ctx, "version", struct{}{}, "", &out); err != nil {
		return adapters.HealthStatus{}, err
	}
	return a.calls.Healthy(AdapterID, version+" (usd-core "+out.Version+")", len(tools)), nil
}

// Close does nothing: no process outlives its call.
func (a *Adapter) Close() error { return nil }
