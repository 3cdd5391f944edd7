package main

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/freecad"
	"github.com/metaforge/metaforge/adapters/health"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/dashboard"
	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/simresults"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/workflows"
)

// always and never are runWorkers answers for commands that know already.
func always(*worker.Temporal) bool { return true }
func never(*worker.Temporal) bool  { return false }

// runtime is what serve, mcp and worker share: Temporal, the catalogue,
// and (unless turned off) the workers.
type runtime struct {
	temporal *worker.Temporal
	twin     *twinadapter.Backend
	registry *adapters.Registry
	health   *health.Checker
	workers  *worker.Workers
	// cadDocuments are the live documents of the CAD sessions this
	// process's workers hold.
	cadDocuments *freecad.Documents
	runs         *runs.Service
	changes      *runs.Changes
	ops          *operations
	profile      string
	// limits are --max-running-calls and --limits-<class>.
	limits mcpserver.Limits
	// approvals is the queue of held calls every MCP server of this
	// process lists and decides through, one index for all of them.
	approvals *approvals.Index
	// library is the knowledge base and the component catalogue.
	library *library
	// results serves FEA results' fields to the dashboard's /sim page,
	// read from the calls' files in the workspace.
	results simresults.Handler
}

// startRuntime connects to (or embeds) Temporal, builds the catalogue, and
// starts workers when asked.
func startRuntime(ctx context.Context, opts worker.TemporalOptions, rtOpts runtimeOptions, logger *slog.Logger) (*runtime, error) {
	ops, err := startOperations(ctx, rtOpts.solvers, logger)
	if err != nil {
		return nil, err
	}
	if opts.Interceptors, err = ops.temporalInterceptors(); err != nil {
		ops.stop()
		return nil, err
	}
	tw := rtOpts.twin
	if tw == nil {
		if tw, err = openTwin(ctx, rtOpts.dataDir, rtOpts.allowTwinMutations, logger); err != nil {
			ops.stop()
			return nil, err
		}
	}
	t, err := worker.ConnectTemporal(ctx, opts)
	if err != nil {
		_ = tw.Store.Close(ctx)
		ops.stop()
		return nil, err
	}
	rt := &runtime{temporal: t, twin: tw, runs: &runs.Service{Client: t.Client, Namespace: t.Namespace}, ops: ops, profile: rtOpts.profile,
		approvals: &approvals.Index{Queue: approvals.Queue{Client: t.Client, Namespace: t.Namespace}}}
	rt.changes = &runs.Changes{Client: t.Client, Namespace: t.Namespace}
	tw.Loops, tw.Metrics, tw.Thermal, tw.Changes = &runs.Loops{Client: t.Client}, runs.Metrics{}, runs.Metrics{}, rt.changes
	tw.Imports, tw.Overhangs = runs.WorkProducts{}, runs.Metrics{}
	if ops.ledger != nil {
		tw.Activity = projectSessions{ledger: ops.ledger}
		tw.Narrative = sessionNarrative{ledger: ops.ledger}
	}
	ws := workspaceFor(rtOpts.dataDir, rtOpts.roots)
	rt.results = simresults.New(worker.CallLookup{Client: t.Client}, tw.Store, ws)
	if rt.library, err = openLibrary(ctx, rtOpts.dataDir); err != nil {
		rt.stop()
		return nil, err
	}
	rt.registry, rt.health, err = catalog(ctx, t, tw, ws, rt.runs, rt.library, map[string]health.Probe{
		"ledger":         ops.ledgerProbe,
		"solver_runtime": ops.solvers.probe,
		"knowledge":      rt.library.probe,
	})
	if err != nil {
		rt.stop()
		return nil, err
	}
	rt.health.OnProbe = ops.metrics.ObserveProbe
	rt.health.Interval = rtOpts.healthInterval
	if err := ops.solvers.check(rt.registry); err != nil {
		rt.stop()
		return nil, err
	}
	if rtOpts.runWorkers(t) {
		queues, err := worker.ParseQueues(rtOpts.queues, rt.registry)
		if err != nil {
			rt.stop()
			return nil, err
		}
		// The CAD sessions' live documents, held by this process's
		// freecad worker (each a FreeCAD process, stopped with it).
		rt.cadDocuments = freecad.NewDocuments(ws.Root)
		rt.workers, err = worker.StartWorkersWith(t.Client, rt.registry, queues, logger, worker.Deps{
			Runtimes: ops.solvers.runtimes, WorkspaceRoot: ws.Root, ReadRoots: ws.Extra, Twin: tw, CadDocuments: rt.cadDocuments,
			Knowledge: rt.library.knowledge,
		})
		if err != nil {
			rt.stop()
			return nil, err
		}
	}
	rt.health.Elsewhere = rt.servedElsewhere
	return rt, nil
}

// servedElsewhere measures, for health, an adapter whose task queue this
// process does not serve, by the workers polling it; one served here is
// asked directly (ok false).
func (rt *runtime) servedElsewhere(ctx context.Context, adapterID string) (reachable bool, detail string, ok bool) {
	if rt.workers != nil && slices.Contains(rt.workers.Queues(), workflows.AdapterTaskQueue(adapterID)) {
		return false, "", false
	}
	reachable, detail = worker.QueueWorkers(ctx, rt.temporal.Client, adapterID)
	return reachable, detail, true
}

// stop stops the workers, then Temporal. Workflows in flight stay in
// Temporal's database.
func (rt *runtime) stop() {
	if rt.health != nil {
		rt.health.Close() // its probes ask the workers and Temporal
	}
	if rt.workers != nil {
		rt.workers.Stop()
	}
	if rt.cadDocuments != nil {
		_ = rt.cadDocuments.CloseAll()
	}
	rt.temporal.Close()
	_ = rt.twin.Store.Close(context.Background())
	rt.library.close()
	rt.ops.stop()
	// Adapters that run a process of their own (cadquery's Python) stop it.
	if rt.registry != nil {
		for _, a := range rt.registry.Adapters() {
			if c, ok := a.(interface{ Close() error }); ok {
				_ = c.Close()
			}
		}
	}
}

// operatorAccess is how the local operator decides on an HTTP server: the
// token serve wrote to its data dir, and the sentence telling others how.
type operatorAccess struct {
	token string
	howTo string
}

// mcpServer is the MCP server over this runtime, for one transport's caller
// class. Eager start needs this process's own workflow worker.
func (rt *runtime) mcpServer(caller, sessionID string, holds mcpserver.HoldPolicy, op operatorAccess, logger *slog.Logger) *mcpserver.Server {
	transport := mcpserver.TransportStdio
	var a mcpserver.Auth
	if caller != mcpserver.CallerLocal {
		transport, a = mcpserver.TransportHTTP, httpAuth()
		a.OperatorToken = op.token
	}
	authority := approvals.Authority{Identify: a.Person, HowTo: op.howTo}
	holds.Decider = rt.approvals
	return mcpserver.New(mcpserver.Options{
		Transport:          transport,
		Auth:               a,
		HowToDecide:        op.howTo,
		Holds:              holds,
		Registry:           rt.registry,
		Engine:             mcpserver.TemporalEngine{Client: rt.temporal.Client, Eager: rt.workers != nil},
		Health:             rt.health,
		Caller:             caller,
		SessionID:          sessionID,
		AllowTwinMutations: rt.twin.AllowMutations,
		Version:            version,
		Logger:             logger,
		Routes: append([]mcpserver.Routes{runs.Handler{Runs: rt.runs, Authority: authority, Logger: logger,
			TemporalUI: rt.temporal.UIAddress}, runs.ChangesHandler{Changes: rt.changes, Runs: rt.runs, Store: rt.twin.Store,
			Authority: authority, Logger: logger, TemporalUI: rt.temporal.UIAddress},
			runs.Releases{Runs: rt.runs, Twin: rt.twin.Store, Authority: authority, Logger: logger,
				TemporalUI: rt.temporal.UIAddress}, runs.BOM{Twin: rt.twin.Store}, runs.Waveforms{Runs: rt.runs},
			runs.TwinViews{Twin: rt.twin.Store, Blobs: rt.twin.Blobs, Runs: rt.runs, MeshCache: browserMeshCache(rt.twin.Blobs)},
			runs.Projects{Twin: rt.twin.Store, Runs: rt.runs, Holds: rt.approvals, Authority: authority, Logger: logger}, runs.Requirements{Twin: rt.twin.Store},
			runs.Calls{Runs: rt.runs, Lookup: worker.CallLookup{Client: rt.temporal.Client}, Authority: authority},
			knowledge.Handler{Store: rt.library.knowledgeStore()}, rt.results, dashboard.Handler{}}, rt.ops.routes()...),
		Observers:    rt.ops.observers(),
		DashboardURL: os.Getenv("METAFORGE_DASHBOARD_URL"),
		Profile:      rt.profile,
		Limits:       rt.limits,
		Middleware:   []mcp.Middleware{rt.ops.tracing.Middleware(rt.registered)},
		TaskMaxTTL:   taskMaxTTL(rt.temporal.Client, rt.temporal.Namespace, logger),
	})
}

// registered says whether a tool id is in the catalogue.
func (rt *runtime) registered(toolID string) bool {
	_, _, ok := rt.registry.Tool(toolID)
	return ok
}

// runtimeOptions are what a command asks of the runtime.
type runtimeOptions struct {
	dataDir            string
	allowTwinMutations bool
	// runWorkers says whether to run workers for the Temporal found.
	runWorkers func(*worker.Temporal) bool
	// queues is --queues ("" or "all": every queue).
	queues string
	// solvers choose where solver runs happen; roots which files tools
	// may read and write.
	solvers solverFlags
	roots   fileRoots
	// profile is --profile, the tool profile served by default.
	profile string
	// healthInterval is --health-interval (zero: health's default).
	healthInterval time.Duration
	// twin is a twin opened by the caller (a test's, which it can
	// observe); nil opens the one the environment names (openTwin).
	twin *twinadapter.Backend
}
