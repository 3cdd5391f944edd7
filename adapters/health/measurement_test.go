package health_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/protocol"
)

// counted is a test adapter that counts the probes it answers, and the
// most that ran at once; it answers down while down is set, and takes
// slow to answer.
type counted struct {
	id            string
	slow          time.Duration
	down          atomic.Bool
	probes        atomic.Int64
	running, most atomic.Int64
}

func (c *counted) ID() string      { return c.id }
func (c *counted) Version() string { return "1" }
func (c *counted) Manifests() []adapters.Manifest {
	return []adapters.Manifest{{ToolID: c.id + ".run", AdapterID: c.id, Name: "run", InputSchema: json.RawMessage(`{"type":"object"}`)}}
}
func (c *counted) Call(context.Context, string, json.RawMessage) (*adapters.Result, error) {
	return nil, errors.New("not called")
}
func (c *counted) Health(ctx context.Context) (adapters.HealthStatus, error) {
	c.probes.Add(1)
	now := c.running.Add(1)
	defer c.running.Add(-1)
	for m := c.most.Load(); now > m && !c.most.CompareAndSwap(m, now); m = c.most.Load() {
	}
	select {
	case <-time.After(c.slow):
	case <-ctx.Done():
		return adapters.HealthStatus{}, ctx.Err()
	}
	if c.down.Load() {
		return adapters.HealthStatus{}, protocol.Unavailable("%s is down", c.id)
	}
	return adapters.HealthStatus{Status: "healthy"}, nil
}

func byID(r health.Report) map[string]health.AdapterReport {
	out := map[string]health.AdapterReport{}
	for _, a := range r.Adapters {
		out[a.AdapterID] = a
	}
	return out
}

// Callers answer from the last measurement, with its time and age, and the
// age never reaches the interval: the prober measures again before it.
func TestAnswersFromTheLastMeasurementWithItsAge(t *testing.T) {
	a := &counted{id: "cadquery"}
	c := checker(t, a)
	c.Interval = 400 * time.Millisecond
	first := c.Check(context.Background())
	if a.probes.Load() != 1 || first.Status != "healthy" {
		t.Fatalf("first check: %d probes, report %+v; want one probe, healthy", a.probes.Load(), first)
	}
	time.Sleep(50 * time.Millisecond)
	second := c.Check(context.Background())
	if a.probes.Load() != 1 {
		t.Errorf("a second check within the interval probed again (%d probes)", a.probes.Load())
	}
	if !second.CheckedAt.Equal(first.CheckedAt) || second.AgeMS < 50 || second.AgeMS >= 400 {
		t.Errorf("second report checked_at %s age %d ms, want the first's (%s) and 50..400 ms", second.CheckedAt, second.AgeMS, first.CheckedAt)
	}
	if got := byID(second)["cadquery"]; !got.CheckedAt.Equal(second.CheckedAt) || got.AgeMS != second.AgeMS {
		t.Errorf("adapter checked_at %s age %d, want the report's %s %d", got.CheckedAt, got.AgeMS, second.CheckedAt, second.AgeMS)
	}
	b, _ := json.Marshal(second)
	var raw struct {
		CheckedAt string `json:"checked_at"`
		AgeMS     *int64 `json:"age_ms"`
	}
	if err := json.Unmarshal(b, &raw); err != nil || raw.AgeMS == nil {
		t.Fatalf("report JSON has no age_ms: %s", b)
	}
	if _, err := time.Parse(time.RFC3339, raw.CheckedAt); err != nil {
		t.Errorf("checked_at %q is not RFC 3339: %v", raw.CheckedAt, err)
	}

	// Over several intervals, every answer is younger than the interval
	// and the prober, not the callers, keeps it so.
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		r := c.Check(context.Background())
		if r.AgeMS >= 400 {
			t.Fatalf("report is %d ms old (checked_at %s), want under the 400 ms interval", r.AgeMS, r.CheckedAt)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := a.probes.Load(); n < 4 || n > 7 {
		t.Errorf("%d probes over about 1.55 s at a 400 ms interval, want one each 300 ms (4 to 7)", n)
	}
}

// A caller that finds the measurement older than the interval (the prober
// is late: its probe takes longer than the quarter interval it has) waits
// for the probe rather than serve it stale.
func TestACallerNeverGetsAMeasurementOlderThanTheInterval(t *testing.T) {
	a := &counted{id: "kicad", slow: 60 * time.Millisecond}
	c := checker(t, a)
	c.Interval = 100 * time.Millisecond
	waited := 0
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		start := time.Now()
		r := c.Check(context.Background())
		if time.Since(start) > 30*time.Millisecond {
			waited++
		}
		if r.AgeMS >= 100 {
			t.Fatalf("report is %d ms old (checked_at %s), want under the 100 ms interval", r.AgeMS, r.CheckedAt)
		}
		time.Sleep(7 * time.Millisecond)
	}
	if waited == 0 {
		t.Errorf("no caller waited for a probe, though each probe (60 ms) ends after its measurement is 100 ms old")
	}
}

// refresh probes now, and answers a measurement begun after it asked.
func TestRefreshProbesNow(t *testing.T) {
	a := &counted{id: "cadquery"}
	c := checker(t, a)
	c.Check(context.Background())
	asked := time.Now()
	r := c.Refresh(context.Background())
	if a.probes.Load() != 2 {
		t.Errorf("%d probes after a check and a refresh, want 2", a.probes.Load())
	}
	if r.CheckedAt.Before(asked.Truncate(time.Millisecond)) || r.AgeMS > 100 {
		t.Errorf("refreshed report checked_at %s (asked %s), age %d ms", r.CheckedAt, asked, r.AgeMS)
	}

	// Through the tool: {"refresh": true} probes, {} does not, and an
	// argument it does not take says which it does.
	tool := &health.Adapter{Checker: c}
	for _, tc := range []struct {
		args   string
		probes int64
	}{{`{"refresh":true}`, 3}, {`{}`, 3}, {`{"refresh":false}`, 3}, {`{"refresh":true}`, 4}} {
		res, err := tool.Call(context.Background(), "health.check", json.RawMessage(tc.args))
		if err != nil || !strings.Contains(string(res.Data), `"age_ms"`) {
			t.Fatalf("health.check %s: %v %v", tc.args, res, err)
		}
		if n := a.probes.Load(); n != tc.probes {
			t.Errorf("after health.check %s: %d probes, want %d", tc.args, n, tc.probes)
		}
	}
	_, err := tool.Call(context.Background(), "health.check", json.RawMessage(`{"refesh":true}`))
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.InvalidParams || !strings.Contains(perr.Error(), "refresh") {
		t.Errorf("a misspelt argument: %v, want invalid params naming refresh", err)
	}
}

// An adapter that goes down is seen within the interval without anyone
// refreshing, then probed again after a short backoff (not the interval),
// alone; and seen back up as soon.
func TestAnAdapterGoingDownIsSeenAndRetriedSoon(t *testing.T) {
	flaky, steady := &counted{id: "kicad"}, &counted{id: "power"}
	c := checker(t, flaky, steady)
	c.Interval, c.RetryAfter = 400*time.Millisecond, 40*time.Millisecond
	if r := c.Check(context.Background()); r.Status != "healthy" {
		t.Fatalf("report = %+v", r)
	}
	flaky.down.Store(true)
	went := time.Now()
	for c.Check(context.Background()).Status != "degraded" {
		if time.Since(went) > 400*time.Millisecond {
			t.Fatal("the adapter that went down is still reported reachable after the 400 ms interval")
		}
		time.Sleep(5 * time.Millisecond)
	}
	flakyBefore, steadyBefore := flaky.probes.Load(), steady.probes.Load()
	time.Sleep(200 * time.Millisecond) // retries at 40, 80 (+40), 160 (+80) ms
	if n := flaky.probes.Load() - flakyBefore; n < 2 {
		t.Errorf("the adapter found down was probed %d times in the 200 ms after, want 2 or more (backoff from 40 ms)", n)
	}
	if n := steady.probes.Load() - steadyBefore; n > 1 {
		t.Errorf("the adapter that answered was probed %d times while the other was retried, want at most one (its interval)", n)
	}
	r := c.Check(context.Background())
	got := byID(r)
	// kicad's own measurement is its last retry's: newer than power's,
	// unless a probe of everything has just run.
	retried := got["kicad"].CheckedAt.After(got["power"].CheckedAt) || got["kicad"].AgeMS < 100
	if r.Status != "degraded" || !strings.Contains(got["kicad"].Error, "kicad is down") || !retried {
		t.Errorf("report = %+v, want kicad down with a newer measurement than power's", r)
	}

	flaky.down.Store(false)
	back := time.Now()
	for c.Check(context.Background()).Status != "healthy" {
		if time.Since(back) > 400*time.Millisecond {
			t.Fatal("the adapter that came back is still reported down after the interval")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Concurrent callers share one probe: 32 checks on a cold checker probe
// once, 32 refreshes at most twice more, and no adapter is ever probed
// twice at once.
func TestConcurrentCallersShareOneProbe(t *testing.T) {
	a := &counted{id: "cadquery", slow: 100 * time.Millisecond}
	c := checker(t, a)
	all := func(f func(context.Context) health.Report) {
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				if r := f(context.Background()); r.Status != "healthy" {
					t.Errorf("report = %+v", r)
				}
			})
		}
		wg.Wait()
	}
	all(c.Check)
	if n := a.probes.Load(); n != 1 {
		t.Errorf("32 concurrent checks probed %d times, want 1", n)
	}
	all(c.Refresh)
	if n := a.probes.Load(); n < 2 || n > 3 {
		t.Errorf("32 concurrent refreshes after one check: %d probes in all, want 2 or 3", n)
	}
	if m := a.most.Load(); m != 1 {
		t.Errorf("%d probes of one adapter ran at once, want 1", m)
	}
}

// Close stops the prober and the probe under way: no probe after it, and
// no goroutine of the checker left.
func TestCloseStopsTheProber(t *testing.T) {
	before := runtime.NumGoroutine()
	a := &counted{id: "gmsh", slow: 20 * time.Millisecond}
	reg := adapters.NewRegistry()
	if err := reg.Register(a); err != nil {
		t.Fatal(err)
	}
	c := &health.Checker{Service: "metaforge-mcp", Version: "test", Started: time.Now(), Registry: reg, Interval: 40 * time.Millisecond}
	c.Check(context.Background())
	time.Sleep(100 * time.Millisecond)
	if a.probes.Load() < 2 {
		t.Fatalf("%d probes in 100 ms at a 40 ms interval: the prober is not running", a.probes.Load())
	}
	c.Close()
	n := a.probes.Load()
	time.Sleep(100 * time.Millisecond)
	c.Check(context.Background())
	if a.probes.Load() != n {
		t.Errorf("probed %d times after Close", a.probes.Load()-n)
	}
	for deadline := time.Now().Add(time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Close, %d before:\n%s", after, before, buf[:runtime.Stack(buf, true)])
	}
}

// With nobody asking for four intervals the prober rests (a probe can cost
// a Python start); the next caller finds the measurement old, probes
// first, and wakes it.
func TestTheProberRestsWhenNobodyAsks(t *testing.T) {
	a := &counted{id: "cadquery"}
	c := checker(t, a)
	c.Interval = 50 * time.Millisecond
	c.Check(context.Background())
	time.Sleep(400 * time.Millisecond) // 8 intervals: it rests after 4
	rested := a.probes.Load()
	if rested < 3 || rested > 8 {
		t.Errorf("%d probes in the 400 ms after one check, want 3 to 8 (every 37 ms for 200 ms, then none)", rested)
	}
	time.Sleep(200 * time.Millisecond)
	if n := a.probes.Load(); n != rested {
		t.Errorf("%d probes while nobody asked, want none once it rests", n-rested)
	}
	r := c.Check(context.Background())
	if a.probes.Load() != rested+1 || r.AgeMS >= 50 {
		t.Errorf("the check after the rest: %d probes, age %d ms; want one probe first, and a fresh answer", a.probes.Load()-rested, r.AgeMS)
	}
	time.Sleep(100 * time.Millisecond)
	if a.probes.Load() < rested+3 {
		t.Errorf("the prober did not wake: %d probes in the 100 ms after the check", a.probes.Load()-rested-1)
	}
}
