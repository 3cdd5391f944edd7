// Package knowledge is the knowledge.* tools: documents (datasheets,
// notes, catalogues) ingested into the knowledge base and searched by
// full text, ranked by BM25. The knowledge base itself (its store, its
// document reading, its chunking) is the top-level knowledge package;
// an ingest's durable process is described by the IngestEngine this
// adapter is given and run by the call's workflow.
package knowledge

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/workspace"
	kb "github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// AdapterID is the adapter's id, and its tools' prefix.
const AdapterID = "knowledge"

const version = "1.0.0"

// IngestCall is one ingest the call has checked: the call's own copy of
// the document (File, hashing to SHA256), where it came from, and how to
// label it.
type IngestCall struct {
	CallID string
	File   string
	SHA256 string
	Origin string
	Title  string
	Format string
	Tags   map[string]string
}

// IngestEngine describes an ingest as the durable process that runs it
// (a batch of pages at a time, surviving a restart); the call's workflow
// runs that process as its child and answers when it has indexed.
type IngestEngine interface {
	IngestProcess(c IngestCall) (adapters.Process, error)
}

// Options are what the adapter works on.
type Options struct {
	// Store is the knowledge base; nil: every tool says there is none.
	Store kb.Store
	// Files confines the files knowledge.ingest reads (the read roots)
	// and gives each call its folder, where the ingest's copy is kept.
	Files *workspace.Workspace
	// Ingest runs ingests; nil: knowledge.ingest says it needs Temporal.
	Ingest IngestEngine
}

// Adapter serves the knowledge.* tools. Use New.
type Adapter struct {
	store  kb.Store
	files  *workspace.Workspace
	ingest IngestEngine
	calls  *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the adapter over its options.
func New(o Options) *Adapter {
	return &Adapter{store: o.Store, files: o.Files, ingest: o.Ingest, calls: adapters.NewInvocations()}
}

// tool is one knowledge.* tool, declared with the Go type of its
// arguments.
type tool = adapters.Declared[*Adapter]

// tools are the adapter's tools, in the order Manifests lists them.
func tools() []tool {
	return []tool{ingestTool, searchTool, extractTool, populateBOMTool}
}

// ID is "knowledge".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version and what its search is, so health.check
// says plainly it is full text ranked by BM25, not semantic search.
func (a *Adapter) Version() string {
	if a.store == nil {
		return version + " (no knowledge base)"
	}
	return version + " (" + a.store.Describe() + ")"
}

// Manifests lists the tools.
func (a *Adapter) Manifests() []adapters.Manifest {
	ts := tools()
	out := make([]adapters.Manifest, len(ts))
	for i, t := range ts {
		out[i] = t.Manifest
		out[i].AdapterID = AdapterID
	}
	return out
}

// Call runs a tool. Bad arguments are INVALID_PARAMS and change nothing.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	ts := tools()
	for _, t := range ts {
		if t.Manifest.ToolID != toolID {
			continue
		}
		out, err := t.Run(ctx, a, args)
		if err != nil {
			return nil, adapters.WithToolID(err, toolID)
		}
		if res, ok := out.(*adapters.Result); ok {
			return res, nil
		}
		raw, err := json.Marshal(out)
		if err != nil {
			return nil, adapters.WithToolID(&protocol.Error{Code: protocol.InternalError, Details: "the result cannot be encoded as JSON: " + err.Error()}, toolID)
		}
		return &adapters.Result{Data: raw}, nil
	}
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.Manifest.ToolID
	}
	return nil, adapters.WithToolID(protocol.Invalid("adapter knowledge has no tool %q; its tools are %s", toolID, strings.Join(ids, ", ")), toolID)
}

// Health is healthy with what the search is and where it is kept
// (Store.Describe); without a store, TOOL_UNAVAILABLE saying so.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	if a.store == nil {
		return adapters.HealthStatus{}, errNoStore
	}
	return a.calls.Healthy(AdapterID, a.Version(), len(tools())), nil
}

var errNoStore = protocol.Unavailable("this server has no knowledge base: run it with a data dir (SQLite) or DATABASE_URL (PostgreSQL)")

// method adapts a method expression, (*Adapter).f, to the handler order
// Declare calls: context first.
func method[In any](f func(*Adapter, context.Context, In) (any, error)) func(context.Context, *Adapter, In) (any, error) {
	return func(ctx context.Context, a *Adapter, in In) (any, error) { return f(a, ctx, in) }
}
