package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/calculix"
	"github.com/metaforge/metaforge/adapters/call"
	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/adapters/kicad"
	"github.com/metaforge/metaforge/adapters/power"
	"github.com/metaforge/metaforge/adapters/spice"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/worker"
)

// BenchmarkHealthCheck measures health.check with 32 MCP clients calling it
// at once, each its own session over Streamable HTTP, through the durable
// path, with the solver adapters of cmd/metaforge's catalogue, whose probes
// start Python (cadquery, kicad) or a solver. Run it with a fixed number of
// calls (-benchtime 640x):
//
//   - inprocess-c32: Checker.Check from 32 goroutines, no MCP: what the
//     tool itself costs.
//   - healthz-c32: GET /healthz from 32 HTTP clients: the same report
//     without a workflow, what a load balancer or a monitor asks.
//   - durable-c32: health.check {} over MCP; x-power-p50 is its p50 over
//     power.check_budget's in the same stack, the cheapest durable call.
//   - durable-c32-refresh: health.check {"refresh": true}, a probe per call
//     (shared by callers that ask together); skipped where the tool has no
//     refresh, as on code from before it.
//   - power-c32: power.check_budget over MCP, the reference.
func BenchmarkHealthCheck(b *testing.B) {
	e, err := startHealthEnv()
	if err != nil {
		b.Fatalf("start the durable stack with the solver adapters: %v", err)
	}
	b.Cleanup(e.close)
	sessions := e.sessions(b, concurrency)
	checkArgs := json.RawMessage(`{}`)
	b.Run(fmt.Sprintf("inprocess-c%d", concurrency), func(b *testing.B) {
		runConcurrent(b, concurrency, func(ctx context.Context, _ int) error {
			if r := e.checker.Check(ctx); r.Service != "metaforge-mcp" {
				return fmt.Errorf("not a health report: %+v", r)
			}
			return nil
		})
	})
	b.Run(fmt.Sprintf("healthz-c%d", concurrency), func(b *testing.B) {
		clients := make([]*http.Client, concurrency)
		for i := range clients {
			clients[i] = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: callTimeout}
			if err := getHealthz(context.Background(), clients[i], e.http.URL+"/healthz"); err != nil {
				b.Fatal(err) // and each client's connection is open before the clock runs
			}
		}
		runConcurrent(b, concurrency, func(ctx context.Context, w int) error {
			return getHealthz(ctx, clients[w], e.http.URL+"/healthz")
		})
	})
	var healthP50 time.Duration
	b.Run(fmt.Sprintf("durable-c%d", concurrency), func(b *testing.B) {
		healthP50 = runConcurrent(b, concurrency, func(ctx context.Context, w int) error {
			return callHealth(ctx, sessions[w], checkArgs)
		}).p50
	})
	b.Run(fmt.Sprintf("durable-c%d-refresh", concurrency), func(b *testing.B) {
		if !takesRefresh(b, sessions[0]) {
			b.Skip("health.check takes no refresh argument in this code")
		}
		runConcurrent(b, concurrency, func(ctx context.Context, w int) error {
			return callHealth(ctx, sessions[w], json.RawMessage(`{"refresh":true}`))
		})
	})
	b.Run(fmt.Sprintf("power-c%d", concurrency), func(b *testing.B) {
		powerP50 := runConcurrent(b, concurrency, func(ctx context.Context, w int) error {
			return callDurable(ctx, sessions[w])
		}).p50
		if healthP50 > 0 && powerP50 > 0 {
			b.ReportMetric(float64(healthP50)/float64(powerP50), "x-health-over-power-p50")
		}
	})
}

// healthEnv is a durable stack of its own, with the solver adapters.
type healthEnv struct {
	env
	checker *health.Checker
	reg     *adapters.Registry
	wsDir   string
}

func startHealthEnv() (*healthEnv, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logger := quietLogger()
	e := &healthEnv{}
	t, err := worker.ConnectTemporal(ctx, worker.TemporalOptions{Embed: worker.DevServerOptions{}, Logger: logger})
	if err != nil {
		return nil, err
	}
	e.temporal = t
	if e.wsDir, err = os.MkdirTemp("", "metaforge-bench-health-"); err != nil {
		e.close()
		return nil, err
	}
	ws := workspace.New(e.wsDir, gmshFixtures())
	e.reg = adapters.NewRegistry()
	e.checker = &health.Checker{
		Service:    "metaforge-mcp",
		Version:    "bench",
		Started:    time.Now(),
		Registry:   e.reg,
		Components: map[string]health.Probe{"temporal": t.Probe},
		Skip:       map[string]bool{"health": true},
	}
	for _, a := range []adapters.Adapter{
		power.New(),
		spice.NewIn(ws),
		cadquery.New(ws, cadquery.Options{}),
		gmsh.New(ws),
		calculix.New(ws),
		kicad.New(ws),
		call.New(worker.CallLookup{Client: t.Client}),
		&health.Adapter{Checker: e.checker},
	} {
		if err := e.reg.Register(a); err != nil {
			e.close()
			return nil, err
		}
	}
	cs, err := e.serve(ctx, e.reg, e.checker, logger)
	if err != nil {
		e.close()
		return nil, err
	}
	defer cs.Close()
	// The first health.check waits for the first probe of everything.
	if err := callHealth(ctx, cs, json.RawMessage(`{}`)); err != nil {
		e.close()
		return nil, fmt.Errorf("first health.check: %w", err)
	}
	return e, nil
}

func (e *healthEnv) close() {
	// The checker's prober, where the code has one, stops first: its
	// probes ask Temporal.
	if c, ok := any(e.checker).(interface{ Close() }); ok {
		c.Close()
	}
	e.env.close()
	if e.reg != nil {
		for _, a := range e.reg.Adapters() {
			if c, ok := a.(interface{ Close() error }); ok {
				_ = c.Close()
			}
		}
	}
	if e.wsDir != "" {
		_ = os.RemoveAll(e.wsDir)
	}
}

// getHealthz asks /healthz and checks it answered a report.
func getHealthz(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r health.Report
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != http.StatusOK || r.Service != "metaforge-mcp" {
		return fmt.Errorf("/healthz answered %d, not a health report (%v)", resp.StatusCode, err)
	}
	return nil
}

// callHealth calls health.check over MCP and checks it answered a report.
func callHealth(ctx context.Context, cs *mcp.ClientSession, args json.RawMessage) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "health.check", Arguments: args})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) == 0 {
		return fmt.Errorf("health.check answered isError or nothing: %v", res.Content)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || !strings.Contains(text.Text, `"service":"metaforge-mcp"`) {
		return fmt.Errorf("health.check did not answer a report: %v", res.Content[0])
	}
	return nil
}

// takesRefresh says whether health.check's input schema names refresh.
func takesRefresh(b *testing.B, cs *mcp.ClientSession) bool {
	b.Helper()
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			b.Fatal(err)
		}
		if tool.Name == "health.check" {
			s, _ := json.Marshal(tool.InputSchema)
			return strings.Contains(string(s), `"refresh"`)
		}
	}
	return false
}
