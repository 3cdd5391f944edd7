// Package component is the in-process adapter "component": the typed
// component catalogue's MCP face. It searches the catalogue by figures
// (component.search_parametric) and by a goal in words
// (component.search_intent, which falls back to the knowledge base's full
// text per category the catalogue has nothing for), and fills it from a
// catalogue file or inline rows (component.index_catalog) and from
// datasheet figures a person accepts (component.accept_figures). The
// catalogue itself is package components; this folder holds only the
// adapter.
package component

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/components"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// Identity of the adapter.
const (
	AdapterID = "component"
	version   = "0.1.0"
)

// Knowledge is what the adapter needs of the knowledge base: its full-text
// search (search_intent's fallback) and its sources (to check the source
// accept_figures cites). knowledge.Store satisfies it.
type Knowledge interface {
	Search(ctx context.Context, q knowledge.Query) ([]knowledge.Hit, error)
	Source(ctx context.Context, id string) (knowledge.Source, error)
}

// Options are what the adapter works on.
type Options struct {
	// Catalogue is the component catalogue; required.
	Catalogue components.Store
	// Knowledge is the knowledge base; nil: search_intent has no
	// full-text fallback (and says so) and accept_figures is unavailable.
	Knowledge Knowledge
	// Files confines the catalogue files index_catalog reads; nil: it
	// takes inline rows only.
	Files *workspace.Workspace
}

// Adapter serves the component.* tools. Use New.
type Adapter struct {
	cat   components.Store
	kb    Knowledge
	files *workspace.Workspace
	calls *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the adapter over a catalogue.
func New(opts Options) *Adapter {
	return &Adapter{cat: opts.Catalogue, kb: opts.Knowledge, files: opts.Files, calls: adapters.NewInvocations()}
}

// ID is "component".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version.
func (a *Adapter) Version() string { return version }

// Manifests lists the tools.
func (a *Adapter) Manifests() []adapters.Manifest {
	out := make([]adapters.Manifest, len(tools))
	for i, t := range tools {
		out[i] = t.Manifest
	}
	return out
}

// Call runs a tool. Bad arguments are INVALID_PARAMS and change nothing.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	for _, t := range tools {
		if t.Manifest.ToolID == toolID {
			if a.cat == nil {
				return nil, adapters.WithToolID(protocol.Unavailable("this server keeps no component catalogue"), toolID)
			}
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
	return nil, adapters.WithToolID(protocol.Invalid("adapter component has no tool %q; its tools are %s", toolID, strings.Join(ids, ", ")), toolID)
}

// Health is healthy when the catalogue answers; its version names the
// store and whether search_intent has its full-text fallback.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	if a.cat == nil {
		return adapters.HealthStatus{}, protocol.Unavailable("the component catalogue is not configured")
	}
	if _, err := a.cat.Categories(ctx); err != nil {
		return adapters.HealthStatus{}, protocol.Unavailable("the component catalogue does not answer: %v", err)
	}
	v := version + " (" + a.cat.Describe()
	if a.kb == nil {
		v += "; no knowledge base: search_intent has no full-text fallback"
	}
	return a.calls.Healthy(AdapterID, v+")", len(tools)), nil
}
