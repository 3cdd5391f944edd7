// Package mcpserver speaks MCP (stdio and Streamable HTTP) and the legacy
// tool/list, tool/call, health/check dialect. It never runs a tool itself:
// every tools/call starts a ToolCall workflow and relays its result. It
// screens what clients send against the input limits, decides which calls
// are held for a person (the hold itself lives in the workflow), and
// serves /healthz, the approvals routes and the REST routes it is given.
package mcpserver

import (
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/approvals"
)

// ServerName is what initialize reports as serverInfo.name.
const ServerName = "metaforge-mcp"

// ProtocolVersions are the MCP revisions served. A newer client is answered
// with the newest of these, per the SDK's negotiation.
var ProtocolVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// Options configure a Server.
type Options struct {
	Registry *adapters.Registry
	Engine   Engine
	Health   *health.Checker
	// Caller is the class this transport's connections belong to.
	Caller string
	// SessionID identifies a transport's one session where the transport
	// has no session ids of its own (stdio: METAFORGE_SESSION_ID).
	SessionID string
	Version   string
	Logger    *slog.Logger
	// Routes are REST routes and pages served beside /mcp (the runs).
	Routes []Routes
	// AllowTwinMutations is --allow-twin-mutations: twin.query_cypher may
	// write, and is annotated as a write.
	AllowTwinMutations bool
	// Transport is TransportStdio or TransportHTTP: whether a client can
	// always be reached, and what health.check reports.
	Transport string
	// Holds is how writes are held for approval.
	Holds HoldPolicy
	// Auth is what the HTTP transport enforces (ignored over stdio).
	Auth Auth
	// HowToDecide tells a caller refused a decision how to decide here
	// (the operator token's file, the pages' URL); "" for a general
	// sentence.
	HowToDecide string
	// DashboardURL is METAFORGE_DASHBOARD_URL as configured, the base of
	// the links results carry: never invented, so "" means no links.
	DashboardURL string
	// Observers hear every call that ended (the ledger, the metrics).
	Observers []CallObserver
	// Middleware wraps every request the server receives (tracing).
	Middleware []mcp.Middleware
	// Profile is the deployment's default tool profile (--profile), empty
	// for every tool. A connection's own ?profile= wins over it; stdio,
	// with no URL, is served this one. Check it with ValidateProfile.
	Profile string
	// Limits bound the calls each caller class may run, queue and start
	// per second; unset fields take DefaultClassLimits.
	Limits Limits
	// TaskMaxTTL is the longest ttl a task is granted (DefaultTaskMaxTTL):
	// no longer than the Temporal namespace keeps a closed workflow.
	TaskMaxTTL time.Duration
	// TaskPollInterval is the polling interval tasks suggest
	// (DefaultTaskPollInterval).
	TaskPollInterval time.Duration
}

// Transports.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Server is one MCP server over a registry. Build one per transport: the
// transport decides the caller class.
type Server struct {
	opts  Options
	holds HoldPolicy
	// mcp serves the deployment's default profile (stdio, and HTTP
	// connections that choose none); servers has one per profile.
	mcp     *mcp.Server
	servers profileServers
	// down are the adapters the last health check found down.
	down downAdapters
	// streams counts open GET /mcp streams per session; asks are the
	// questions open; posts the POSTs being served.
	streams sessionCounts
	asks    openAsks
	posts   postContexts
	decided decisionWaiters
	// held is told of the holds this server sees end, when its queue
	// keeps an index of them (approvals.Index); else nil.
	held approvals.Tracker
	// limits, sched and rates are the call limits and their state.
	limits Limits
	sched  *scheduler
	rates  rateBuckets
	// taskAsks are the tasks whose question is being put to a client.
	taskAsks asking
}

// New builds the server and the SDK server for the default profile; the
// other profiles' are built when a connection first asks for one.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Caller == "" {
		opts.Caller = CallerUntrusted
	}
	if opts.Transport == "" {
		opts.Transport = TransportStdio
	}
	if opts.TaskMaxTTL <= 0 {
		opts.TaskMaxTTL = DefaultTaskMaxTTL
	}
	if opts.TaskPollInterval <= 0 {
		opts.TaskPollInterval = DefaultTaskPollInterval
	}
	s := &Server{opts: opts, holds: opts.Holds.withDefaults(), limits: opts.Limits.withDefaults()}
	s.sched = newScheduler(s.limits.MaxRunning)
	if s.holds.Decider != nil {
		s.held, _ = s.holds.Decider.(approvals.Tracker)
		s.holds.Decider = wakingDecider{Decider: s.holds.Decider, wake: s.decided.wake}
	}
	s.mcp = s.serverFor(opts.Profile)
	return s
}

// MCP is the SDK server for the default profile, for transports to connect.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// toolFor is a manifest as MCP's tools/list shows it, with its annotations
// from the one table.
func toolFor(m adapters.Manifest, allowTwinMutations bool) *mcp.Tool {
	ann, _ := adapters.AnnotationsFor(m.ToolID)
	ann = ann.Given(allowTwinMutations)
	t := &mcp.Tool{
		Name:        m.ToolID,
		Title:       m.Name,
		Description: m.Description,
		InputSchema: m.InputSchema,
		Annotations: &mcp.ToolAnnotations{
			Title:           m.Name,
			ReadOnlyHint:    ann.ReadOnly,
			DestructiveHint: &ann.Destructive,
			IdempotentHint:  ann.Idempotent,
			OpenWorldHint:   &ann.OpenWorld,
		},
	}
	// The approval class is shown with the hints, so a client knows which
	// calls will be held before it makes them.
	t.Meta = mcp.Meta{adapters.ApprovalMetaKey: ann.Approval()}
	if len(m.OutputSchema) > 0 {
		t.OutputSchema = m.OutputSchema
	}
	return t
}
