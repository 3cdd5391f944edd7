//go:build linux

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/metaforge/metaforge/workflows"
)

// BenchmarkCluster measures scale on a real Temporal cluster: the
// deployment of deploy/compose.yaml as processes on loopback, driven over
// MCP as BenchmarkToolCall drives its durable path (the Go SDK's
// Streamable HTTP client, one session and one connection pool per
// concurrent caller).
//
//   - The cluster of deploy/start-temporal.sh on PostgreSQL
//     (clustertest.PortBench, its databases dropped first), its frontend
//     and its core (history, matching, worker services) two processes.
//   - `metaforge serve --no-worker` with TEMPORAL_ADDRESS.
//   - `metaforge worker` processes, as many as each round says.
//
// Sub-benchmarks:
//
//	toolcall  power.check_budget (a local activity of its workflow) from
//	          32 sessions, over one then two workers of the in-process
//	          queues (metaforge, adapter-power, adapter-health, adapter-call)
//	spice     spice.run_simulation (the op point of a divider: ngspice)
//	          from 8 sessions, the workflows on one worker of the
//	          in-process queues, over one then two adapter-spice workers
//
// Each makes b.N calls in rounds of one worker and of two, alternating
// (roundPattern), each after a warm-up when its workers changed, so that
// a load others put on a shared machine weighs on both settings alike. It reports calls/s with one worker and
// with two and their ratio (x-calls/s), and the CPU every part of the
// deployment spent per call (cluster_cpu_test.go) with one and with two:
// the ratio of those (x-cpu/call) hardly depends on what else the machine
// runs.
//
// With two workers the call histories say who ran each call (for a local
// activity the worker that completed its workflow task, for an activity
// its ActivityTaskStarted identity, "pid@host"); the benchmark fails unless
// each worker ran between 35% and 65% of the calls (checked from
// minShareCalls calls).
//
// METAFORGE_BENCH_PPROF_DIR=DIR also writes Go CPU profiles of the
// cluster's processes over METAFORGE_BENCH_PPROF_SECONDS (5) of each
// round, with `go tool pprof -top` of each beside it (.top.txt);
// profiling costs the server CPU, so take the figures from a run without
// it.
//
// Linux only (/proc). It starts and stops its own cluster on PortBench.
func BenchmarkCluster(b *testing.B) {
	top := startClusterTopology(b)
	b.Run("toolcall", func(b *testing.B) { top.compare(b, toolcallPhase) })
	b.Run("spice", func(b *testing.B) { top.compare(b, spicePhase) })
}

const (
	// spiceConcurrency is the callers of the spice phases: each call
	// runs one ngspice process, so more than a few per core only queue.
	spiceConcurrency = 8
	// minShareCalls is the fewest two-worker calls the worker shares are
	// checked on (b.N=1, the framework's first probe, has none).
	minShareCalls      = 40
	minShare, maxShare = 0.35, 0.65
	// firstWarmups is the calls per session before a phase's first
	// round; roundWarmups those after its workers changed.
	firstWarmups, roundWarmups = 10, 3
)

// phase is one kind of call and the workers it is measured over.
type phase struct {
	name        string
	concurrency int
	// workers sets the topology for n workers of what is measured and
	// says whether that changed it.
	workers func(t *clusterTopology, b *testing.B, n int) bool
	// measured are the workers whose shares are read.
	measured func(t *clusterTopology) []*mfProcess
	call     func(ctx context.Context, cs *mcp.ClientSession) (callID string, err error)
	// ranOn reads which worker pid ran the call from its history.
	ranOn func(ctx context.Context, t *clusterTopology, callID string) (pid int, err error)
}

var toolcallPhase = phase{
	name:        "toolcall",
	concurrency: concurrency,
	workers:     func(t *clusterTopology, b *testing.B, n int) bool { return t.setWorkers(b, n, 0) },
	measured:    func(t *clusterTopology) []*mfProcess { return t.inProc },
	call:        callBudget,
	ranOn:       ranLocally,
}

var spicePhase = phase{
	name:        "spice",
	concurrency: spiceConcurrency,
	workers:     func(t *clusterTopology, b *testing.B, n int) bool { return t.setWorkers(b, 1, n) },
	measured:    func(t *clusterTopology) []*mfProcess { return t.spice },
	call:        callDivider,
	ranOn:       ranActivity,
}

// roundPattern is the number of workers of each round: a quarter of the
// calls with one worker, half with two, a quarter with one, twice over,
// so a load others put on a shared machine, growing or shrinking during
// the run, weighs on both settings alike.
var roundPattern = []int{1, 2, 2, 1, 1, 2, 2, 1}

// setting is what the rounds with one number of workers measured.
type setting struct {
	workers int
	calls   []string
	lat     []time.Duration
	cpu     cpuUse
	// slot is the worker each pid was in its round: 0 the first (kept
	// between rounds), 1 the second (a new process each time).
	slot   map[int]int
	labels [][]string // the processes of each slot
}

func (s *setting) rate() float64 { return float64(len(s.calls)) / s.cpu.elapsed.Seconds() }

func (s *setting) cpuPerCall() float64 { return s.cpu.total() * 1000 / float64(len(s.calls)) }

// compare measures p in the rounds of roundPattern and reports one worker
// against two.
func (t *clusterTopology) compare(b *testing.B, p phase) {
	settings := map[int]*setting{}
	for _, n := range roundPattern {
		settings[n] = &setting{workers: n, slot: map[int]int{}, labels: make([][]string, n)}
	}
	per := b.N / len(roundPattern)
	// The framework's first probe (b.N=1) logs nothing: a benchmark's
	// log is cut at 10 lines, the probe's first.
	logf := b.Logf
	if per == 0 {
		logf = func(string, ...any) {}
	}
	// The first round of a phase came out slower than the later ones
	// with the same workers (a fresh cluster's caches, PostgreSQL's
	// among them, and the processes' heaps still growing), which favoured
	// two workers: a longer warm-up first.
	if per > 0 {
		p.workers(t, b, roundPattern[0])
		if _, _, err := t.run(t.sessions[:p.concurrency], firstWarmups*p.concurrency, p.call); err != nil {
			b.Fatalf("%s: warm-up: %v", p.name, err)
		}
	}
	b.ResetTimer()
	b.StopTimer()
	var rounds []string
	for i, n := range roundPattern {
		calls := per
		if i == len(roundPattern)-1 {
			calls = b.N - per*(len(roundPattern)-1)
		}
		if calls > 0 {
			rate := t.round(b, p, settings[n], calls, fmt.Sprintf("%s-%dworker-round%d", p.name, n, i+1), logf)
			rounds = append(rounds, fmt.Sprintf("%dw %.1f", n, rate))
		}
	}
	logf("%s: calls/s of each round: %s", p.name, strings.Join(rounds, ", "))
	one, two := settings[1], settings[2]
	b.ReportMetric(one.rate(), "calls/s-1w")
	b.ReportMetric(ms(percentiles(one.lat).p50), "p50-ms-1w")
	b.ReportMetric(ms(percentiles(one.lat).max), "max-ms-1w")
	b.ReportMetric(one.cpuPerCall(), "cpu-ms/call-1w")
	logf("%s, 1 worker: %d calls, %.1f calls/s; CPU ms per call: %s", p.name, len(one.calls), one.rate(), one.cpu.perCall(len(one.calls)))
	t.checkShares(b, p, one, logf)
	if len(two.calls) == 0 {
		return
	}
	b.ReportMetric(two.rate(), "calls/s-2w")
	b.ReportMetric(ms(percentiles(two.lat).p50), "p50-ms-2w")
	b.ReportMetric(ms(percentiles(two.lat).max), "max-ms-2w")
	b.ReportMetric(two.cpuPerCall(), "cpu-ms/call-2w")
	b.ReportMetric(two.rate()/one.rate(), "x-calls/s")
	b.ReportMetric(two.cpuPerCall()/one.cpuPerCall(), "x-cpu/call")
	logf("%s, 2 workers: %d calls, %.1f calls/s; CPU ms per call: %s", p.name, len(two.calls), two.rate(), two.cpu.perCall(len(two.calls)))
	logf("%s: 2 workers / 1 worker: calls/s x%.2f, CPU per call x%.2f", p.name, two.rate()/one.rate(), two.cpuPerCall()/one.cpuPerCall())
	t.checkShares(b, p, two, logf)
}

// round sets the workers, warms them up when they changed, and makes
// calls calls of p, adding what it measured to s; it returns the round's
// calls/s.
func (t *clusterTopology) round(b *testing.B, p phase, s *setting, calls int, name string, logf func(string, ...any)) float64 {
	sessions := t.sessions[:p.concurrency]
	if p.workers(t, b, s.workers) {
		// Warm-up: every session calls a few times, so every worker has
		// polled, cached and connected before anything is measured.
		if _, _, err := t.run(sessions, roundWarmups*p.concurrency, p.call); err != nil {
			b.Fatalf("%s: warm-up: %v", name, err)
		}
	}
	var profiles func() error
	if dir := os.Getenv("METAFORGE_BENCH_PPROF_DIR"); dir != "" && calls >= minShareCalls {
		seconds := 5
		if v, err := strconv.Atoi(os.Getenv("METAFORGE_BENCH_PPROF_SECONDS")); err == nil && v > 0 {
			seconds = v
		}
		profiles = t.clusterProfiles(dir, name, seconds)
	}
	b.StartTimer()
	before := t.sampleCPU()
	ids, lat, err := t.run(sessions, calls, p.call)
	after := t.sampleCPU()
	b.StopTimer()
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	if profiles != nil {
		if err := profiles(); err != nil {
			logf("%s: %v", name, err)
		}
	}
	if len(after.missingPIDs) > 0 {
		logf("%s: processes not read: %v", name, after.missingPIDs)
	}
	use := after.since(before)
	s.calls, s.lat, s.cpu = append(s.calls, ids...), append(s.lat, lat...), s.cpu.plus(use)
	for i, w := range p.measured(t) {
		if _, seen := s.slot[w.pid]; !seen {
			s.slot[w.pid] = i
			s.labels[i] = append(s.labels[i], fmt.Sprintf("%s (pid %d)", w.label, w.pid))
		}
	}
	return float64(calls) / use.elapsed.Seconds()
}

// checkShares reads who ran each call of s and reports each worker's
// share; with two workers it fails unless each ran between minShare and
// maxShare of them.
func (t *clusterTopology) checkShares(b *testing.B, p phase, s *setting, logf func(string, ...any)) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bySlot := make([]int, s.workers)
	others := map[int]int{}
	for _, id := range s.calls {
		pid, err := p.ranOn(ctx, t, id)
		if err != nil {
			b.Fatalf("history of call %s: %v", id, err)
		}
		if slot, ok := s.slot[pid]; ok {
			bySlot[slot]++
		} else {
			others[pid]++
		}
	}
	var shares []string
	for i, n := range bySlot {
		shares = append(shares, fmt.Sprintf("%s: %d (%.1f%%)", strings.Join(s.labels[i], " then "), n,
			100*float64(n)/float64(len(s.calls))))
	}
	logf("%s, %d worker(s): calls per worker: %s", p.name, s.workers, strings.Join(shares, "; "))
	if len(others) > 0 {
		b.Fatalf("%s: calls ran on processes that were not its workers then (calls by pid: %v)", p.name, others)
	}
	if s.workers < 2 {
		return
	}
	for i, n := range bySlot {
		b.ReportMetric(100*float64(n)/float64(len(s.calls)), fmt.Sprintf("share-w%d-%%", i+1))
	}
	if len(s.calls) < minShareCalls {
		logf("%d calls with two workers: the shares are checked from %d", len(s.calls), minShareCalls)
		return
	}
	for i, n := range bySlot {
		if share := float64(n) / float64(len(s.calls)); share < minShare || share > maxShare {
			b.Fatalf("%s: worker %d ran %.1f%% of %d calls, outside %.0f-%.0f%%: the queue does not spread its tasks over its workers (%s)",
				p.name, i+1, 100*share, len(s.calls), 100*minShare, 100*maxShare, strings.Join(shares, "; "))
		}
	}
}

// run makes total calls from the sessions at once (one caller per
// session) and returns their callIds and latencies; it stops at the
// first failure.
func (t *clusterTopology) run(sessions []*mcp.ClientSession, total int,
	call func(context.Context, *mcp.ClientSession) (string, error)) ([]string, []time.Duration, error) {
	ctx := context.Background()
	ids := make([][]string, len(sessions))
	lat := make([][]time.Duration, len(sessions))
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for w, cs := range sessions {
		wg.Go(func() {
			for next.Add(1) <= int64(total) && failed.Load() == nil {
				t0 := time.Now()
				id, err := call(ctx, cs)
				if err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
				ids[w] = append(ids[w], id)
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		return nil, nil, *err
	}
	return slices.Concat(ids...), slices.Concat(lat...), nil
}

// callBudget is the reference power.check_budget (toolcall_bench_test.go).
func callBudget(ctx context.Context, cs *mcp.ClientSession) (string, error) {
	text, id, err := callText(ctx, cs, tool, json.RawMessage(referenceArgs))
	if err == nil && !strings.Contains(text, `"status":"pass"`) {
		err = fmt.Errorf("%s did not pass the reference budget: %.300s", tool, text)
	}
	return id, err
}

// dividerArgs is a short ngspice run: the operating point of a 10 V
// divider of two 1 kΩ resistors, whose v(out) is 5 V.
var dividerArgs = json.RawMessage(`{"netlist": "divider\nV1 in 0 DC 10\nR1 in out 1k\nR2 out 0 1k\n",
	"analysis_type": "op", "vectors": ["v(out)"]}`)

func callDivider(ctx context.Context, cs *mcp.ClientSession) (string, error) {
	text, id, err := callText(ctx, cs, "spice.run_simulation", dividerArgs)
	if err != nil {
		return id, err
	}
	var out struct {
		Converged bool `json:"converged"`
		Vectors   []struct {
			Name  string  `json:"name"`
			Final float64 `json:"final"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return id, fmt.Errorf("spice.run_simulation: %v: %.300s", err, text)
	}
	for _, v := range out.Vectors {
		if v.Name == "v(out)" && out.Converged && math.Abs(v.Final-5) < 1e-3 {
			return id, nil
		}
	}
	return id, fmt.Errorf("spice.run_simulation: want converged with v(out) 5 V: %.300s", text)
}

// callText makes one tools/call and returns its text and callId.
func callText(ctx context.Context, cs *mcp.ClientSession, name string, args json.RawMessage) (text, callID string, err error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", name, err)
	}
	callID, _ = res.Meta["callId"].(string)
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	switch {
	case res.IsError:
		return text, callID, fmt.Errorf("%s (call %s) answered isError: %.300s", name, callID, text)
	case callID == "":
		return text, callID, fmt.Errorf("%s answered no _meta.callId", name)
	}
	return text, callID, nil
}

// ranLocally is the worker that ran a call's tool as a local activity:
// the one that completed the workflow task whose completion recorded the
// LocalActivity marker.
func ranLocally(ctx context.Context, t *clusterTopology, callID string) (int, error) {
	id := workflows.CallWorkflowID(callID)
	it := t.temporal.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	completedBy := ""
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return 0, err
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			completedBy = ev.GetWorkflowTaskCompletedEventAttributes().GetIdentity()
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			if ev.GetMarkerRecordedEventAttributes().GetMarkerName() == "LocalActivity" {
				return pidOfIdentity(completedBy), nil
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			return 0, fmt.Errorf("%s scheduled an activity: the tool did not run as a local activity", id)
		}
	}
	return 0, fmt.Errorf("%s: no LocalActivity marker in its history", id)
}

// ranActivity is the worker that ran a call's InvokeTool activity, as its
// ActivityTaskStarted event records it.
func ranActivity(ctx context.Context, t *clusterTopology, callID string) (int, error) {
	id := workflows.CallWorkflowID(callID)
	it := t.temporal.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	invokes := map[int64]bool{} // scheduled event ids of InvokeTool
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return 0, err
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			a := ev.GetActivityTaskScheduledEventAttributes()
			if a.GetActivityType().GetName() == workflows.InvokeToolActivity {
				if q := a.GetTaskQueue().GetName(); q != spiceQueue {
					return 0, fmt.Errorf("%s: InvokeTool scheduled on %q, want %q", id, q, spiceQueue)
				}
				invokes[ev.GetEventId()] = true
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			a := ev.GetActivityTaskStartedEventAttributes()
			if invokes[a.GetScheduledEventId()] {
				if a.GetAttempt() != 1 {
					return 0, fmt.Errorf("%s: InvokeTool ran on attempt %d, want 1", id, a.GetAttempt())
				}
				return pidOfIdentity(a.GetIdentity()), nil
			}
		}
	}
	return 0, fmt.Errorf("%s: no InvokeTool ActivityTaskStarted in its history", id)
}
