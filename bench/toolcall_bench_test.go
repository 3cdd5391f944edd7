// Package bench measures what one MCP tools/call costs: the tool alone, in
// this process, against the same tool through the durable path every real
// call takes (MCP Streamable HTTP -> mcpserver -> ToolCall workflow on an
// embedded Temporal dev server -> InvokeTool activity -> the adapter).
//
// Run it with `make bench`, or:
//
//	go test ./bench -run '^$' -bench . -benchtime 500x -count 1
//
// Every figure of one run comes from the same process on the same machine,
// so compare the ratios (durable p50 / in-process p50) rather than absolute
// times across machines.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/calculix"
	"github.com/metaforge/metaforge/adapters/call"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/adapters/power"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/worker"
)

// referenceArgs is the reference power.check_budget call: a 5 V supply rated
// 1000 mA, a 3.3 V LDO from it (quiescent 10 mA, rated 500 mA), and a
// 200 mA load on 3.3 V. It passes: 200 of 400 mA on 3V3, 210 of 800 mA on 5V0.
const referenceArgs = `{
	"rails": [
		{"name": "5V0", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 1000},
		{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "rated_output_ma": 500, "input_rail": "5V0", "quiescent_ma": 10}
	],
	"loads": [
		{"name": "U1", "rail": "3V3", "current_ma": 200}
	]
}`

const (
	tool = power.ToolCheckBudget
	// warmupCalls run through the durable path before anything is
	// measured: the first workflows fill Temporal's caches, open its gRPC
	// connections and start its task queues.
	warmupCalls = 50
	// concurrency is the number of MCP clients in the throughput run, each
	// with its own session and its own HTTP connection pool, as separate
	// agents would be.
	concurrency = 32
	callTimeout = 30 * time.Second
)

// env is the durable stack: one embedded Temporal, its workers, and the MCP
// server on a loopback HTTP listener. It is started once per process.
type env struct {
	registry *adapters.Registry
	dataDir  string
	temporal *worker.Temporal
	workers  *worker.Workers
	http     *httptest.Server
	endpoint string
}

var (
	envOnce   sync.Once
	sharedEnv *env
	envErr    error

	// inProcessP50 is the baseline the durable p50 is divided by; the
	// in-process sub-benchmark sets it, or baselineP50 samples it.
	inProcessP50 time.Duration
)

func TestMain(m *testing.M) {
	code := m.Run()
	stopFloor()
	if sharedEnv != nil {
		sharedEnv.close()
	}
	if benchWorkspace != nil {
		_ = os.RemoveAll(filepath.Dir(benchWorkspace.Root))
	}
	for _, f := range atExit {
		f()
	}
	os.Exit(code)
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))
}

// durableEnv starts the stack the first time it is asked for.
func durableEnv(b *testing.B) *env {
	b.Helper()
	envOnce.Do(func() { sharedEnv, envErr = startEnv() })
	if envErr != nil {
		b.Fatalf("start the durable stack: %v", envErr)
	}
	return sharedEnv
}

func startEnv() (*env, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logger := quietLogger()
	e := &env{}
	// Free ports, no UI, and an in-memory SQLite store, unless
	// METAFORGE_BENCH_STORE=file asks for a SQLite file (in a fresh
	// temporary directory) as metaforge serve keeps in --data-dir.
	embed := worker.DevServerOptions{}
	if os.Getenv("METAFORGE_BENCH_STORE") == "file" {
		dir, err := os.MkdirTemp("", "metaforge-bench-")
		if err != nil {
			return nil, err
		}
		e.dataDir, embed.DataDir = dir, dir
	}
	t, err := worker.ConnectTemporal(ctx, worker.TemporalOptions{Embed: embed, Logger: logger})
	if err != nil {
		e.close()
		return nil, err
	}
	e.temporal = t
	reg, checker, err := catalog(t)
	if err != nil {
		e.close()
		return nil, err
	}
	e.registry = reg
	cs, err := e.serve(ctx, reg, checker, logger)
	if err != nil {
		e.close()
		return nil, err
	}
	_ = cs.Close()
	return e, nil
}

// serve starts the workers of reg on e's Temporal and the MCP server over
// them on a loopback listener, then warms the path up with warmupCalls
// reference calls on a session it returns open.
func (e *env) serve(ctx context.Context, reg *adapters.Registry, checker *health.Checker, logger *slog.Logger) (*mcp.ClientSession, error) {
	var err error
	if e.workers, err = worker.StartWorkers(e.temporal.Client, reg, worker.AllQueues(reg), logger); err != nil {
		return nil, err
	}
	srv := mcpserver.New(mcpserver.Options{
		Registry: reg,
		Engine:   mcpserver.TemporalEngine{Client: e.temporal.Client, Eager: true},
		Health:   checker,
		Caller:   mcpserver.CallerUntrusted,
		// An untrusted caller's fair share (2 running per session), but
		// not its rate of 5 calls a second, which would refuse the
		// benchmark's back-to-back calls: what is measured is the path.
		Limits:  mcpserver.Limits{Classes: map[string]mcpserver.ClassLimits{mcpserver.CallerUntrusted: {Running: 2}}},
		Version: "bench",
		Logger:  logger,
	})
	e.http = httptest.NewServer(srv.HTTPHandler())
	e.endpoint = e.http.URL + "/mcp"
	cs, err := e.connect(ctx)
	if err != nil {
		return nil, err
	}
	for i := range warmupCalls {
		if err := callDurable(ctx, cs); err != nil {
			_ = cs.Close()
			return nil, fmt.Errorf("warm-up call %d: %w", i, err)
		}
	}
	return cs, nil
}

// benchWorkspace is where the solver adapters of the bench write; removed
// when the process ends.
var benchWorkspace *workspace.Workspace

// catalog registers power, call, health and calculix as cmd/metaforge's
// catalog does.
func catalog(t *worker.Temporal) (*adapters.Registry, *health.Checker, error) {
	dir, err := os.MkdirTemp("", "metaforge-bench-ws-")
	if err != nil {
		return nil, nil, err
	}
	benchWorkspace = workspace.New(dir, gmshFixtures())
	reg := adapters.NewRegistry()
	checker := &health.Checker{
		Service:    "metaforge-mcp",
		Version:    "bench",
		Started:    time.Now(),
		Registry:   reg,
		Components: map[string]health.Probe{"temporal": t.Probe},
		Skip:       map[string]bool{"health": true},
	}
	for _, a := range []adapters.Adapter{
		power.New(),
		call.New(worker.CallLookup{Client: t.Client}),
		&health.Adapter{Checker: checker},
		calculix.New(benchWorkspace),
	} {
		if err := reg.Register(a); err != nil {
			return nil, nil, err
		}
	}
	return reg, checker, nil
}

func (e *env) close() {
	if e.http != nil {
		// Sessions left open keep a standalone SSE stream, which Close
		// would wait for.
		e.http.CloseClientConnections()
		e.http.Close()
	}
	if e.workers != nil {
		e.workers.Stop()
	}
	if e.temporal != nil {
		e.temporal.Close()
	}
	if e.dataDir != "" {
		_ = os.RemoveAll(e.dataDir)
	}
}

// connect opens one MCP session over Streamable HTTP, with its own HTTP
// connection pool, as a separate agent would have.
func (e *env) connect(ctx context.Context) (*mcp.ClientSession, error) {
	transport := &mcp.StreamableClientTransport{
		Endpoint:   e.endpoint,
		HTTPClient: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()},
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "metaforge-bench", Version: "0"}, nil)
	return client.Connect(ctx, transport, nil)
}

func (e *env) sessions(b *testing.B, n int) []*mcp.ClientSession {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := make([]*mcp.ClientSession, n)
	for i := range out {
		cs, err := e.connect(ctx)
		if err != nil {
			b.Fatalf("connect MCP session %d: %v", i, err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		// One call per session, so no session's first call is measured.
		if err := callDurable(ctx, cs); err != nil {
			b.Fatalf("first call on session %d: %v", i, err)
		}
		out[i] = cs
	}
	return out
}

// callDurable makes the reference call over MCP and checks its answer.
func callDurable(ctx context.Context, cs *mcp.ClientSession) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(referenceArgs)})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s answered isError: %v", tool, res.Content)
	}
	if len(res.Content) == 0 {
		return fmt.Errorf("%s answered no content", tool)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || !strings.Contains(text.Text, `"status":"pass"`) {
		return fmt.Errorf("%s did not pass the reference budget: %v", tool, res.Content[0])
	}
	return nil
}

// callInProcess makes the reference call on the adapter, with no MCP and no
// Temporal, and checks its answer.
func callInProcess(ctx context.Context, a *power.Adapter) error {
	res, err := a.Call(ctx, tool, json.RawMessage(referenceArgs))
	if err != nil {
		return err
	}
	if !strings.Contains(string(res.Data), `"status":"pass"`) {
		return fmt.Errorf("%s did not pass the reference budget: %s", tool, res.Data)
	}
	return nil
}

// BenchmarkToolCall measures power.check_budget in-process (the baseline),
// as a bare Temporal workflow with one local activity (the floor, see
// floor_bench_test.go), as a ToolCall workflow started by the engine with
// no MCP (engine_bench_test.go), through the durable path one call at a
// time (latency), and the floor and the durable path at 32 at once
// (throughput). Sub-benchmarks run in
// this order, so the baselines of the ratios are from the same run.
func BenchmarkToolCall(b *testing.B) {
	b.Run("inprocess", benchInProcess)
	b.Run("floor", benchFloor)
	b.Run("engine-c1", benchEngineSequential)
	b.Run("durable-c1", benchDurableSequential)
	b.Run(fmt.Sprintf("floor-c%d", concurrency), benchFloorConcurrent)
	b.Run(fmt.Sprintf("durable-c%d", concurrency), benchDurableConcurrent)
}

func benchInProcess(b *testing.B) {
	ctx := context.Background()
	a := power.New()
	if err := callInProcess(ctx, a); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := callInProcess(ctx, a); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	l := percentiles(lat)
	inProcessP50 = l.p50
	reportLatency(b, l)
}

func benchDurableSequential(b *testing.B) {
	e := durableEnv(b)
	cs := e.sessions(b, 1)[0]
	l := runSequential(b, func(ctx context.Context) error { return callDurable(ctx, cs) })
	b.ReportMetric(float64(l.p50)/float64(baselineP50()), "x-inprocess-p50")
	b.ReportMetric(float64(l.p50)/float64(floorBaseline(b)), "x-floor-p50")
}

// runSequential makes b.N calls one after another and reports their
// latency and the process CPU per call.
func runSequential(b *testing.B, call func(ctx context.Context) error) latency {
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	cpu0 := processCPU()
	for range b.N {
		start := time.Now()
		if err := call(ctx); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	cpu := processCPU() - cpu0
	b.StopTimer()
	l := percentiles(lat)
	reportLatency(b, l)
	reportCPU(b, cpu)
	return l
}

func benchDurableConcurrent(b *testing.B) {
	e := durableEnv(b)
	sessions := e.sessions(b, concurrency)
	runConcurrent(b, concurrency, func(ctx context.Context, w int) error { return callDurable(ctx, sessions[w]) })
}

// runConcurrent makes b.N calls from n workers at once and reports their
// latency, calls/s and CPU per call.
func runConcurrent(b *testing.B, n int, do func(ctx context.Context, worker int) error) latency {
	ctx := context.Background()
	lat := make([][]time.Duration, n)
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	b.ResetTimer()
	cpu0 := processCPU()
	start := time.Now()
	for w := range n {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				t0 := time.Now()
				if err := do(ctx, w); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := processCPU() - cpu0
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	l := percentiles(slices.Concat(lat...))
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	reportLatency(b, l)
	reportCPU(b, cpu)
	return l
}

// baselineP50 is the in-process p50 of this run, sampled here if the
// in-process sub-benchmark was filtered out.
func baselineP50() time.Duration {
	if inProcessP50 > 0 {
		return inProcessP50
	}
	a := power.New()
	lat := make([]time.Duration, 0, 2000)
	for range cap(lat) {
		start := time.Now()
		_ = callInProcess(context.Background(), a)
		lat = append(lat, time.Since(start))
	}
	inProcessP50 = percentiles(lat).p50
	return inProcessP50
}

// latency is the nearest-rank p50 and p99, and the maximum, of durations.
type latency struct{ p50, p99, max time.Duration }

func percentiles(d []time.Duration) latency {
	if len(d) == 0 {
		return latency{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	rank := func(q float64) time.Duration {
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return s[max(i, 0)]
	}
	return latency{rank(0.50), rank(0.99), s[len(s)-1]}
}

func reportLatency(b *testing.B, l latency) {
	b.ReportMetric(ms(l.p50), "p50-ms")
	b.ReportMetric(ms(l.p99), "p99-ms")
	b.ReportMetric(ms(l.max), "max-ms")
}

// reportCPU reports the process CPU time per call: everything this process
// did for the calls, across all cores. Unlike wall time it hardly depends on
// what else the machine runs, which makes it the steadier figure to compare.
func reportCPU(b *testing.B, cpu time.Duration) {
	if cpu > 0 {
		b.ReportMetric(ms(cpu)/float64(b.N), "cpu-ms/call")
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
