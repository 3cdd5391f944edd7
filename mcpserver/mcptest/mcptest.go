// Package mcptest runs the whole durable path for tests: the real embedded
// Temporal server, MetaForge's workers, and an MCP server over a registry,
// reached by a real MCP client.
package mcptest

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/activities"
	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/call"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
)

// Stack is a running durable path.
type Stack struct {
	Temporal *worker.Temporal
	Registry *adapters.Registry
	Server   *mcpserver.Server
	Health   *health.Checker

	httpOnce sync.Once
	http     *httptest.Server
}

// Start runs Temporal, workers and an MCP server over the given adapters
// plus call.get_result and health.check, for the test's life (or longer:
// pass a testing.TB whose Cleanup outlives one test to share it).
func Start(t testing.TB, extra ...adapters.Adapter) *Stack {
	t.Helper()
	return StartConfigured(t, nil, extra...)
}

// StartConfigured is Start with the MCP server's options adjusted by
// configure before the server is built. By default holds can be decided
// through the approvals queue over this stack's Temporal.
func StartConfigured(t testing.TB, configure func(*mcpserver.Options), extra ...adapters.Adapter) *Stack {
	t.Helper()
	return start(t, worker.Deps{}, configure, extra)
}

// StartWithTwin is Start with the twin the workflows' activities use
// (gates, design loops, evaluations), as metaforge serve wires it.
func StartWithTwin(t testing.TB, tw activities.Twin, extra ...adapters.Adapter) *Stack {
	t.Helper()
	return start(t, worker.Deps{Twin: tw}, nil, extra)
}

// StartWithTwinConfigured is StartWithTwin with the server's options
// adjusted by configure (its routes, its auth).
func StartWithTwinConfigured(t testing.TB, tw activities.Twin, configure func(*mcpserver.Options), extra ...adapters.Adapter) *Stack {
	t.Helper()
	return start(t, worker.Deps{Twin: tw}, configure, extra)
}

// StartWithDeps is Start with the workers' dependencies given whole (the
// twin, the knowledge base), as metaforge serve wires them.
func StartWithDeps(t testing.TB, deps worker.Deps, extra ...adapters.Adapter) *Stack {
	t.Helper()
	return start(t, deps, nil, extra)
}

func start(t testing.TB, deps worker.Deps, configure func(*mcpserver.Options), extra []adapters.Adapter) *Stack {
	t.Helper()
	tmp := workertest.StartTemporal(t)
	reg := adapters.NewRegistry()
	checker := &health.Checker{Service: "metaforge-mcp", Version: "test", Started: time.Now(), Registry: reg,
		Components: map[string]health.Probe{"temporal": tmp.Probe}, Skip: map[string]bool{"health": true}}
	all := append([]adapters.Adapter{call.New(worker.CallLookup{Client: tmp.Client}), &health.Adapter{Checker: checker}}, extra...)
	for _, a := range all {
		if err := reg.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	workertest.StartWorkersWith(t, tmp, reg, deps)
	opts := mcpserver.Options{
		Registry: reg,
		Engine:   mcpserver.TemporalEngine{Client: tmp.Client, Eager: true},
		Health:   checker,
		Caller:   mcpserver.CallerLocal,
		Version:  "test",
		Logger:   workertest.QuietLogger(),
		Holds:    mcpserver.HoldPolicy{Decider: &approvals.Index{Queue: approvals.Queue{Client: tmp.Client}}, QueueReachable: true},
	}
	if configure != nil {
		configure(&opts)
	}
	srv := mcpserver.New(opts)
	t.Cleanup(checker.Close) // first, while Temporal and the workers its probes ask still run
	return &Stack{Temporal: tmp, Registry: reg, Server: srv, Health: checker}
}

// Connect opens a client session named "mcptest" through in-memory
// transports; it closes when the test ends.
func (s *Stack) Connect(t testing.TB, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.Server.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcptest", Version: "1"}, opts)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// ConnectHTTP opens a client session over Streamable HTTP on loopback, as a
// remote client connects: the session has an Mcp-Session-Id.
func (s *Stack) ConnectHTTP(t testing.TB, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "mcptest", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.URL() + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// URL is the base URL of the stack's HTTP server (/mcp, /rpc, /v1), for
// tests that speak raw HTTP, such as a client sending JSON-RPC batches.
func (s *Stack) URL() string {
	s.httpOnce.Do(func() { s.http = httptest.NewServer(s.Server.HTTPHandler()) })
	return s.http.URL
}

// Shared lets a package start one stack for all its tests: the process ends
// with the tests, so nothing needs stopping.
type Shared struct{ testing.TB }

// Cleanup drops the function: a shared stack lives as long as the process.
func (Shared) Cleanup(func()) {}
