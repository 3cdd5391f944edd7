// Package twin is the digital twin's MCP face: the twin.* tools and
// resources, and the Backend that the project, session and constraint
// adapters (adapters/project, adapters/session, adapters/constraint) run
// over too; New serves all four over one twin.Store. Each is its own
// adapter (tool ids are "<adapter>.<name>"). Every write passes the call's
// callId to the store as its idempotency key, so a retried activity never
// writes twice; that is why the write tools may be retried. The rules live
// in the domain package twin (github.com/metaforge/metaforge/twin): a tool
// here decodes its arguments, resolves the session's project, calls twin,
// and encodes the answer. Inside this package "twin." is always the domain
// package; other packages import this one as twinadapter.
package twin

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/constraint"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/adapters/session"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/twin"
)

const version = "0.1.0"

// defaultStashSize is how many CAD exports the geometry stash keeps.
const defaultStashSize = 256

// Backend is what the tools work on.
type Backend struct {
	Store    twin.Store
	Sessions twin.SessionBindings
	Blobs    *twin.BlobStore
	// Stash keeps recent CAD exports for commit_geometry to take
	// server-side.
	Stash *twin.GeometryStash
	// Cypher runs twin.query_cypher; nil when the store has no Cypher.
	Cypher twin.CypherRunner
	// Loops runs design loops (the DesignLoop workflow); nil where there
	// is no Temporal, and the loop tools then say so.
	Loops LoopEngine
	// Metrics runs tiered evaluations (the EvaluateMetric workflow).
	Metrics MetricEngine
	// Thermal runs thermal evaluations (the EvaluateThermal workflow).
	Thermal ThermalEngine
	// Imports run imports of geometry files (the ImportWorkProduct
	// workflow); nil where there is no Temporal.
	Imports ImportEngine
	// Overhangs run overhang checks (the EvaluateOverhang workflow).
	Overhangs OverhangEngine
	// Changes carries engineering changes (the EngineeringChange
	// workflow); nil where there is no Temporal.
	Changes ChangeEngine
	// Activity reads who worked in a project (the ledger); nil when no
	// ledger is configured.
	Activity project.Activity
	// Narrative keeps the sessions' narratives (the ledger's); nil keeps
	// them in the twin.
	Narrative session.Narrative
	// Files confines the files the twin tools read (commit_geometry's
	// file_path) as every adapter's are; nil: no file is read, pass
	// step_base64.
	Files *workspace.Workspace
	// AllowMutations lets twin.query_cypher run queries that write
	// (--allow-twin-mutations); its annotation then stops being read-only.
	AllowMutations bool
}

// New returns the project, session, twin and constraint adapters over one
// backend.
func New(b *Backend) []adapters.Adapter {
	if b.Stash == nil {
		b.Stash = twin.NewGeometryStash(defaultStashSize)
	}
	return []adapters.Adapter{
		newFamily("project", b, bind(project.Tools(), (*Backend).projectService)),
		newFamily("session", b, bind(session.Tools(), (*Backend).sessionService)),
		newFamily("twin", b, twinTools()),
		newFamily("constraint", b, bind(constraint.Tools(), (*Backend).constraintService)),
	}
}

// bind makes another adapter's declared tools tools of a family here, each
// call running on the service the backend makes for it then (the backend's
// engines and ledger may be set after New).
func bind[S any](declared []adapters.Declared[S], service func(*Backend) S) []tool {
	out := make([]tool, 0, len(declared))
	for _, d := range declared {
		out = append(out, tool{Manifest: d.Manifest, Run: func(ctx context.Context, b *Backend, args json.RawMessage) (any, error) {
			return d.Run(ctx, service(b), args)
		}})
	}
	return out
}

func (b *Backend) projectService() *project.Service {
	return &project.Service{Store: b.Store, Sessions: b.Sessions, Activity: b.Activity}
}

func (b *Backend) sessionService() *session.Service {
	return &session.Service{Store: b.Store, Sessions: b.Sessions, Narrative: b.Narrative}
}

func (b *Backend) constraintService() *constraint.Service {
	return &constraint.Service{Store: b.Store, Sessions: b.Sessions}
}
