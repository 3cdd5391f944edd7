//go:build linux

package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkHeldCalls measures approval holds on the real `metaforge serve`
// binary, driven from outside over raw HTTP as an untrusted MCP client is:
//
//   - the serve process's resident memory (VmRSS) after start-up and a few
//     warm-up holds, and again with 1000 project.create calls held at once,
//     each its own open tools/call request (answered as SSE) waiting in its
//     own ToolCall workflow; the difference per held call;
//   - the serve process's CPU while the holds only wait;
//   - how long GET /v1/approvals takes to list them;
//   - the time from sending POST /v1/approvals/{id}/decision to the client
//     reading the tool's result on its still-open request, for 200
//     decisions one at a time (the others still held), then for the rest
//     decided 16 at once.
//
// METAFORGE_BENCH_HOLDS sets how many calls are held (1000), and
// METAFORGE_BENCH_HOLD_WAVE how many are sent at once (50): the next wave
// goes when the approvals list shows every call so far.
//
// The scenario runs once per process whatever b.N is (it needs a fresh
// server to measure memory), so -benchtime 1x is the natural setting; under
// `make bench` the later, larger b.N reports the same figures again. ns/op
// is suppressed: the figures are the metrics. When the server cannot hold
// the calls, the benchmark logs what it measured up to then (memory, CPU,
// the calls that failed and the holds left behind) and fails.
//
// Linux only: memory and CPU are read from /proc/<pid>.
func BenchmarkHeldCalls(b *testing.B) {
	heldOnce.Do(func() { heldRun, heldErr = runHeldScenario(b) })
	if heldErr != nil {
		b.Fatal(heldErr)
	}
	if b.N > 1 {
		b.Logf("the scenario runs once per process; b.N=%d repeats its figures", b.N)
	}
	heldRun.report(b)
}

const (
	heldSessions = 10 // MCP sessions the calls are spread over
	heldWarmups  = 5  // holds approved one by one before anything is measured
	// sequentialDecisions are decided one at a time while the rest stay
	// held; the remaining ones bulkConcurrency at a time.
	sequentialDecisions = 200
	bulkConcurrency     = 16
	holdWindowSeconds   = 3600 // METAFORGE_APPROVAL_HOLD_SECONDS: a slow run outlasts 600 s
	// idleWindow is how long the holds wait untouched before their memory
	// and CPU are read.
	idleWindow  = 10 * time.Second
	listSamples = 5
)

var (
	heldOnce sync.Once
	heldRun  *heldFigures
	heldErr  error
)

// heldFigures is what one run of the scenario measured.
type heldFigures struct {
	held                                     int // calls held at once
	rssBeforeKiB, rssHeldKiB, rssReleasedKiB int64
	cpuBefore, cpuHeld                       float64 // cores busy while idle / while only holding
	openTime                                 time.Duration
	list                                     latency
	sequential, sequentialPost, bulk         latency
	bulkPerSecond                            float64
	listErrors                               int // failed listings while the holds opened
}

func (f *heldFigures) report(b *testing.B) {
	mib := func(kib int64) float64 { return float64(kib) / 1024 }
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(f.held), "held_calls")
	b.ReportMetric(mib(f.rssBeforeKiB), "rss_before_MiB")
	b.ReportMetric(mib(f.rssHeldKiB), "rss_after_MiB")
	b.ReportMetric(float64(f.rssHeldKiB-f.rssBeforeKiB)/float64(f.held), "KiB/held_call")
	b.ReportMetric(f.cpuHeld, "cpu_cores_while_held")
	if f.rssReleasedKiB > 0 {
		b.ReportMetric(mib(f.rssReleasedKiB), "rss_released_MiB")
	}
	b.ReportMetric(f.openTime.Seconds(), "open_s")
	b.ReportMetric(float64(f.listErrors), "list_errors_while_opening")
	b.ReportMetric(ms(f.list.p50), "list_p50_ms")
	b.ReportMetric(ms(f.sequential.p50), "decision_to_result_p50_ms")
	b.ReportMetric(ms(f.sequential.p99), "decision_to_result_p99_ms")
	b.ReportMetric(ms(f.sequential.max), "decision_to_result_max_ms")
	b.ReportMetric(ms(f.sequentialPost.p50), "decision_post_p50_ms")
	if f.bulk.p50 > 0 {
		b.ReportMetric(ms(f.bulk.p50), "bulk16_decision_to_result_p50_ms")
		b.ReportMetric(ms(f.bulk.p99), "bulk16_decision_to_result_p99_ms")
		b.ReportMetric(f.bulkPerSecond, "bulk16_decisions/s")
	}
}

// heldCall is one tools/call waiting on the server.
type heldCall struct {
	index int
	done  chan struct{}
	at    time.Time // when the client read the result
	res   toolResult
	err   error
}

// toolResult is the part of a CallToolResult the benchmark checks.
type toolResult struct {
	IsError bool `json:"isError"`
	Meta    struct {
		CallID   string `json:"callId"`
		Approval struct {
			Outcome string `json:"outcome"`
		} `json:"approval"`
	} `json:"_meta"`
	StructuredContent struct {
		Name      string `json:"name"`
		ProjectID string `json:"project_id"`
	} `json:"structuredContent"`
}

func (r toolResult) check(name string) error {
	switch {
	case r.IsError:
		return fmt.Errorf("isError (approval %q)", r.Meta.Approval.Outcome)
	case r.Meta.Approval.Outcome != "approved":
		return fmt.Errorf("approval outcome %q, want approved", r.Meta.Approval.Outcome)
	case r.StructuredContent.Name != name || r.StructuredContent.ProjectID == "":
		return fmt.Errorf("structuredContent %+v, want a project named %q", r.StructuredContent, name)
	}
	return nil
}

func runHeldScenario(b *testing.B) (*heldFigures, error) {
	n, wave := heldEnv("METAFORGE_BENCH_HOLDS", 1000), heldEnv("METAFORGE_BENCH_HOLD_WAVE", 50)
	dir, err := os.MkdirTemp("", "metaforge-bench-holds-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	binary, err := buildMetaforge(b, dir)
	if err != nil {
		return nil, err
	}
	srv, err := startServe(b, binary, dir)
	if err != nil {
		return nil, err
	}
	defer srv.stop(b)
	transport := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConns:        2 * n,
		MaxIdleConnsPerHost: 2 * n,
		MaxConnsPerHost:     0, // no limit: every held call has its own connection
		IdleConnTimeout:     time.Minute,
	}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel() // ends any call still open when the scenario fails

	sessions := make([]*mcpSession, heldSessions)
	for i := range sessions {
		if sessions[i], err = openSession(ctx, hc, srv.base, fmt.Sprintf("metaforge-bench-holds-%d", i)); err != nil {
			return nil, err
		}
	}
	token, err := os.ReadFile(filepath.Join(srv.dataDir, "operator-token"))
	if err != nil {
		return nil, fmt.Errorf("the operator token metaforge serve writes: %w", err)
	}
	a := &approver{hc: hc, base: srv.base, token: strings.TrimSpace(string(token)), logf: b.Logf, pid: srv.pid}

	// Warm-up: a few holds decided one by one, so the hold path, the
	// approvals listing and the Update path have all run once.
	for i := range heldWarmups {
		c := startHeld(ctx, sessions[0], -1-i)
		ids, err := a.waitPending(ctx, 1, []*heldCall{c})
		if err != nil {
			return nil, fmt.Errorf("warm-up hold %d: %w", i, err)
		}
		for id := range ids { // the one warm-up hold
			if _, err := a.decide(ctx, id); err != nil {
				return nil, fmt.Errorf("warm-up hold %d: %w", i, err)
			}
		}
		<-c.done
		if c.err == nil {
			c.err = c.res.check(heldName(c.index))
		}
		if c.err != nil {
			return nil, fmt.Errorf("warm-up hold %d: %w", i, c.err)
		}
	}
	time.Sleep(2 * time.Second)
	f := &heldFigures{}
	if f.cpuBefore, err = cpuOver(srv.pid, 5*time.Second); err != nil {
		return nil, err
	}
	before, err := procStatus(srv.pid)
	if err != nil {
		return nil, err
	}
	f.rssBeforeKiB = before["VmRSS"]
	b.Logf("serve after start-up and %d warm-up holds: VmRSS %d KiB, %d threads, %.2f cores busy", heldWarmups, before["VmRSS"], before["Threads"], f.cpuBefore)

	// n held calls, each its own request on its own connection, opened in
	// waves. Every call stays open until its hold is decided.
	calls := make([]*heldCall, n)
	a.listErrors = nil
	openStart := time.Now()
	var ids map[string]int
	for opened := 0; opened < n; {
		next := min(opened+wave, n)
		for i := opened; i < next; i++ {
			calls[i] = startHeld(ctx, sessions[i%heldSessions], i)
		}
		opened = next
		if ids, err = a.waitPending(ctx, opened, calls[:opened]); err != nil {
			break
		}
	}
	f.openTime = time.Since(openStart)
	f.listErrors = len(a.listErrors)
	for _, e := range a.listErrors {
		b.Logf("GET /v1/approvals failed while the holds were opening, %s", e)
	}
	if err != nil {
		b.Logf("opening %d holds %d at a time failed after %s: %v", n, wave, f.openTime.Round(time.Millisecond), err)
		// What the server holds now, and what that costs it.
		cpu, _ := cpuOver(srv.pid, idleWindow)
		st, _ := procStatus(srv.pid)
		b.Logf("serve: VmRSS %d KiB (%d KiB before the holds), %d threads, %.2f cores busy over %s",
			st["VmRSS"], f.rssBeforeKiB, st["Threads"], cpu, idleWindow)
		b.Logf("%s", a.orphans(ctx, calls))
		b.Logf("serve's stderr (last lines, without the embedded Temporal's):\n%s", srv.tail(10))
		return nil, fmt.Errorf("holding %d calls, %d at a time: %w", n, wave, err)
	}
	f.held = n
	atCount, _ := procStatus(srv.pid)
	b.Logf("GET /v1/approvals listed %d holds %s after the first request (waves of %d); VmRSS then %d KiB",
		n, f.openTime.Round(time.Millisecond), wave, atCount["VmRSS"])
	if f.cpuHeld, err = cpuOver(srv.pid, idleWindow); err != nil {
		return f, err
	}
	held, err := procStatus(srv.pid)
	if err != nil {
		return f, err
	}
	f.rssHeldKiB = held["VmRSS"]
	b.Logf("serve with %d holds, after %s: VmRSS %d KiB (peak VmHWM %d KiB), %d threads, %.2f cores busy while only holding",
		n, idleWindow, held["VmRSS"], held["VmHWM"], held["Threads"], f.cpuHeld)
	if e := countEnded(calls); e > 0 {
		return f, fmt.Errorf("%d held calls ended before any decision: %s", e, failures(calls))
	}

	var lists []time.Duration
	for range listSamples {
		t0 := time.Now()
		got, err := a.list(ctx)
		lists = append(lists, time.Since(t0))
		if err != nil {
			return f, err
		}
		if len(got) != n {
			return f, fmt.Errorf("GET /v1/approvals listed %d holds, want %d", len(got), n)
		}
	}
	f.list = percentiles(lists)
	b.Logf("GET /v1/approvals with %d holds: p50 %.1f ms, max %.1f ms (%d samples)", n, ms(f.list.p50), ms(f.list.max), listSamples)

	// Decisions, oldest hold first, as the approvals page lists them.
	byID := map[string]*heldCall{}
	for id, i := range ids {
		byID[id] = calls[i]
	}
	order, err := a.list(ctx)
	if err != nil {
		return f, err
	}
	decide := func(id string) (total, post time.Duration, err error) {
		c := byID[id]
		t0 := time.Now()
		if _, err := a.decide(ctx, id); err != nil {
			return 0, 0, err
		}
		post = time.Since(t0)
		select {
		case <-c.done:
		case <-time.After(2 * time.Minute):
			return 0, post, fmt.Errorf("approval %s: no result 2 min after the decision", id)
		}
		if c.err != nil {
			return 0, post, fmt.Errorf("approval %s: %w", id, c.err)
		}
		if err := c.res.check(heldName(c.index)); err != nil {
			return 0, post, fmt.Errorf("approval %s: %w", id, err)
		}
		if c.res.Meta.CallID != id {
			return 0, post, fmt.Errorf("approval %s answered callId %s", id, c.res.Meta.CallID)
		}
		return c.at.Sub(t0), post, nil
	}
	var seq, seqPost []time.Duration
	for _, id := range order[:min(sequentialDecisions, len(order))] {
		total, post, err := decide(id)
		if err != nil {
			return f, fmt.Errorf("sequential decision %d: %w", len(seq), err)
		}
		seq, seqPost = append(seq, total), append(seqPost, post)
	}
	f.sequential, f.sequentialPost = percentiles(seq), percentiles(seqPost)
	b.Logf("%d decisions one at a time: decision -> result p50 %.1f / p99 %.1f / max %.1f ms; the decision POST alone p50 %.1f / p99 %.1f ms",
		len(seq), ms(f.sequential.p50), ms(f.sequential.p99), ms(f.sequential.max), ms(f.sequentialPost.p50), ms(f.sequentialPost.p99))

	if rest := order[len(seq):]; len(rest) > 0 {
		bulk := make([][]time.Duration, bulkConcurrency)
		var next atomic.Int64
		var failed atomic.Pointer[error]
		var wg sync.WaitGroup
		bulkStart := time.Now()
		for w := range bulkConcurrency {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= len(rest) || failed.Load() != nil {
						return
					}
					total, _, err := decide(rest[i])
					if err != nil {
						failed.CompareAndSwap(nil, &err)
						return
					}
					bulk[w] = append(bulk[w], total)
				}
			})
		}
		wg.Wait()
		bulkTime := time.Since(bulkStart)
		if err := failed.Load(); err != nil {
			return f, fmt.Errorf("bulk decisions: %w", *err)
		}
		f.bulk = percentiles(slices.Concat(bulk...))
		f.bulkPerSecond = float64(len(rest)) / bulkTime.Seconds()
		b.Logf("%d decisions %d at a time in %s (%.1f/s): decision -> result p50 %.1f / p99 %.1f / max %.1f ms",
			len(rest), bulkConcurrency, bulkTime.Round(time.Millisecond), f.bulkPerSecond, ms(f.bulk.p50), ms(f.bulk.p99), ms(f.bulk.max))
	}

	if e := countEnded(calls); e != n {
		return f, fmt.Errorf("%d of %d calls returned", e, n)
	}
	if pending, err := a.list(ctx); err != nil || len(pending) != 0 {
		return f, fmt.Errorf("after every decision GET /v1/approvals lists %d holds (%v)", len(pending), err)
	}
	time.Sleep(5 * time.Second)
	if released, err := procStatus(srv.pid); err == nil {
		f.rssReleasedKiB = released["VmRSS"]
		b.Logf("serve 5 s after the last result: VmRSS %d KiB, %d threads", released["VmRSS"], released["Threads"])
	}
	return f, nil
}

// heldEnv is a positive count from the environment, or def.
func heldEnv(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func heldName(i int) string {
	if i < 0 {
		return fmt.Sprintf("warm-up-%d", -i)
	}
	return fmt.Sprintf("held-%04d", i)
}

var heldNameRe = regexp.MustCompile(`name: (held-\d{4,}|warm-up-\d+)`)

// startHeld sends one project.create and returns at once; the call's done
// channel closes when its result (or an error) has been read.
func startHeld(ctx context.Context, s *mcpSession, index int) *heldCall {
	c := &heldCall{index: index, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		raw, err := s.request(ctx, "tools/call", map[string]any{
			"name":      "project.create",
			"arguments": map[string]any{"name": heldName(index)},
		})
		c.at = time.Now()
		if err != nil {
			c.err = err
			return
		}
		c.err = json.Unmarshal(raw, &c.res)
	}()
	return c
}

func countEnded(calls []*heldCall) int {
	n := 0
	for _, c := range calls {
		if c == nil {
			continue
		}
		select {
		case <-c.done:
			n++
		default:
		}
	}
	return n
}

// orphans waits for the server to settle after calls failed, then counts
// the holds still pending whose tools/call has already answered an error:
// calls a person could approve although their client was told they failed.
func (a *approver) orphans(ctx context.Context, calls []*heldCall) string {
	time.Sleep(20 * time.Second)
	holds, err := a.listHolds(ctx)
	if err != nil {
		return fmt.Sprintf("could not list the holds after the failure: %v; %d calls sent, %d ended: %s",
			err, countSent(calls), countEnded(calls), failures(calls))
	}
	failedAndHeld, open := 0, 0
	for _, h := range holds {
		m := heldNameRe.FindStringSubmatch(h.Summary)
		if m == nil || !strings.HasPrefix(m[1], "held-") {
			continue
		}
		i, _ := strconv.Atoi(strings.TrimPrefix(m[1], "held-"))
		if i >= len(calls) || calls[i] == nil {
			continue
		}
		select {
		case <-calls[i].done:
			if calls[i].err != nil {
				failedAndHeld++
			}
		default:
			open++
		}
	}
	return fmt.Sprintf("20 s after the failure: %d holds pending; %d of them are calls whose client was answered an error, %d are calls still open; %d calls sent in all, %d ended: %s",
		len(holds), failedAndHeld, open, countSent(calls), countEnded(calls), failures(calls))
}

func countSent(calls []*heldCall) int {
	n := 0
	for _, c := range calls {
		if c != nil {
			n++
		}
	}
	return n
}

var callIDRe = regexp.MustCompile(`call-[0-9a-f]{16}`)

// failures groups the errors of the calls that ended, by message (with
// their call ids left out).
func failures(calls []*heldCall) string {
	counts := map[string]int{}
	for _, c := range calls {
		if c == nil {
			continue
		}
		select {
		case <-c.done:
			msg := "returned a result"
			if c.err != nil {
				msg = callIDRe.ReplaceAllString(c.err.Error(), "call-<id>")
			}
			counts[msg]++
		default:
		}
	}
	var parts []string
	for msg, n := range counts {
		parts = append(parts, fmt.Sprintf("%d× %s", n, msg))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

// ---------------------------------------------------------------------------
// The MCP client: Streamable HTTP by hand.

const heldProtocolVersion = "2025-06-18"

type mcpSession struct {
	hc       *http.Client
	endpoint string
	id       string
	nextID   atomic.Int64
}

func openSession(ctx context.Context, hc *http.Client, base, name string) (*mcpSession, error) {
	s := &mcpSession{hc: hc, endpoint: base + "/mcp"}
	if _, err := s.request(ctx, "initialize", map[string]any{
		"protocolVersion": heldProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": name, "version": "0"},
	}); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if s.id == "" {
		return nil, errors.New("initialize: the response had no Mcp-Session-Id")
	}
	resp, err := s.post(ctx, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("notifications/initialized: HTTP %d: %s", resp.StatusCode, body)
	}
	return s, nil
}

func (s *mcpSession) post(ctx context.Context, msg any) (*http.Response, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", heldProtocolVersion)
	}
	return s.hc.Do(req)
}

// request sends a JSON-RPC request and returns its result, read from a
// JSON body or from the SSE stream the server answers with.
func (s *mcpSession) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := s.nextID.Add(1)
	resp, err := s.post(ctx, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if s.id == "" {
		s.id = resp.Header.Get("Mcp-Session-Id")
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("%s: HTTP %d: %s", method, resp.StatusCode, body)
	}
	type response struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	answer := func(data []byte) (json.RawMessage, bool, error) {
		var r response
		if json.Unmarshal(data, &r) != nil || string(r.ID) != strconv.FormatInt(id, 10) {
			return nil, false, nil // a notification, a priming event, another id
		}
		if r.Error != nil {
			return nil, true, fmt.Errorf("%s: JSON-RPC error %d: %s", method, r.Error.Code, r.Error.Message)
		}
		return r.Result, true, nil
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		res, ok, err := answer(body)
		if !ok && err == nil {
			err = fmt.Errorf("%s: not the response: %.300s", method, body)
		}
		return res, err
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		case line == "":
			if res, ok, err := answer(data); ok {
				return res, err
			}
			data = data[:0]
		}
	}
	if res, ok, err := answer(data); ok {
		return res, err
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: reading the SSE stream: %w", method, err)
	}
	return nil, fmt.Errorf("%s: the SSE stream ended without the response", method)
}

// ---------------------------------------------------------------------------
// The approvals API.

type approver struct {
	hc   *http.Client
	base string
	// token is the operator's, read from serve's data dir: only a
	// verified person decides, and sees the held calls' arguments.
	token string
	logf  func(format string, args ...any)
	pid   int // serve's, for the progress lines
	// listErrors are the failed listings waitPending retried.
	listErrors []string
}

type pendingHold struct {
	ApprovalID string `json:"approval_id"`
	Summary    string `json:"summary"`
}

// list returns the pending approval ids, oldest first.
func (a approver) list(ctx context.Context) ([]string, error) {
	holds, err := a.listHolds(ctx)
	ids := make([]string, len(holds))
	for i, h := range holds {
		ids[i] = h.ApprovalID
	}
	return ids, err
}

func (a approver) listHolds(ctx context.Context) ([]pendingHold, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/v1/approvals", nil)
	if err != nil {
		return nil, err
	}
	body, err := a.do(req)
	if err != nil {
		return nil, err
	}
	var out struct {
		Approvals []pendingHold `json:"approvals"`
		Count     int           `json:"count"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("GET /v1/approvals: %w", err)
	}
	if out.Count != len(out.Approvals) {
		return nil, fmt.Errorf("GET /v1/approvals: count %d but %d approvals", out.Count, len(out.Approvals))
	}
	return out.Approvals, nil
}

// waitPending polls the approvals list until it holds n calls and returns
// each approval id with the index of the call it holds. It gives up when a
// call ends while still waiting to be listed, or after five minutes.
func (a *approver) waitPending(ctx context.Context, n int, calls []*heldCall) (map[string]int, error) {
	start := time.Now()
	deadline := start.Add(5 * time.Minute)
	lastLog := start
	var failingSince time.Time
	failing := 0
	for {
		t0 := time.Now()
		holds, err := a.listHolds(ctx)
		if err != nil {
			// The listing can fail while the server is busy starting the
			// holds; count it and ask again, for a minute.
			a.listErrors = append(a.listErrors, fmt.Sprintf("after %s (took %s): %v",
				time.Since(start).Round(time.Millisecond), time.Since(t0).Round(time.Millisecond), err))
			if failing++; failing == 1 {
				failingSince = t0
			}
			if time.Since(failingSince) > time.Minute || time.Now().After(deadline) {
				return nil, fmt.Errorf("GET /v1/approvals failed for %s, %d times in a row: %w",
					time.Since(failingSince).Round(time.Second), failing, err)
			}
			time.Sleep(250 * time.Millisecond)
			continue
		}
		failing = 0
		if a.logf != nil && time.Since(lastLog) > 5*time.Second {
			var rss int64
			if a.pid != 0 {
				st, _ := procStatus(a.pid)
				rss = st["VmRSS"]
			}
			a.logf("after %s: %d of %d listed as held, %d calls ended (this listing took %s); serve VmRSS %d KiB",
				time.Since(start).Round(time.Millisecond), len(holds), n, countEnded(calls), time.Since(t0).Round(time.Millisecond), rss)
			lastLog = time.Now()
		}
		if len(holds) >= n {
			ids := map[string]int{}
			for _, h := range holds {
				m := heldNameRe.FindStringSubmatch(h.Summary)
				if m == nil {
					return nil, fmt.Errorf("approval %s: summary %q names no call of this benchmark", h.ApprovalID, h.Summary)
				}
				if strings.HasPrefix(m[1], "warm-up-") {
					ids[h.ApprovalID] = 0
					continue
				}
				i, _ := strconv.Atoi(strings.TrimPrefix(m[1], "held-"))
				ids[h.ApprovalID] = i
			}
			if len(ids) != n {
				return nil, fmt.Errorf("GET /v1/approvals listed %d holds, want %d", len(ids), n)
			}
			return ids, nil
		}
		if e := countEnded(calls); e > 0 {
			return nil, fmt.Errorf("%d calls ended while %d of %d were listed: %s", e, len(holds), n, failures(calls))
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("only %d of %d calls listed as held after 5 min", len(holds), n)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (a approver) decide(ctx context.Context, id string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/v1/approvals/"+id+"/decision",
		strings.NewReader(`{"decision":"approve","approver":"bench"}`))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return a.do(req)
}

// do sends one REST request and returns its body, or an error naming the
// request and status unless it answered 200.
func (a approver) do(req *http.Request) ([]byte, error) {
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: HTTP %d: %.500s", req.Method, req.URL.Path, resp.StatusCode, body)
	}
	return body, nil
}

// ---------------------------------------------------------------------------
// The serve process.

// buildMetaforge builds cmd/metaforge into dir, as e2e's TestMain does, or
// returns METAFORGE_BENCH_BINARY when that names a binary to run instead.
func buildMetaforge(b *testing.B, dir string) (string, error) {
	if bin := os.Getenv("METAFORGE_BENCH_BINARY"); bin != "" {
		b.Logf("running %s (METAFORGE_BENCH_BINARY), not a fresh build", bin)
		return bin, nil
	}
	binary := filepath.Join(dir, "metaforge")
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("go is not on PATH: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, goTool, "build", "-o", binary, "./cmd/metaforge")
	build.Dir = ".."
	build.Env = os.Environ()
	if os.Getenv("GOTOOLCHAIN") == "" {
		build.Env = append(build.Env, "GOTOOLCHAIN="+runtime.Version())
	}
	start := time.Now()
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/metaforge: %w\n%s", err, out)
	}
	b.Logf("built metaforge in %s", time.Since(start).Round(time.Millisecond))
	return binary, nil
}

type serveProcess struct {
	cmd     *exec.Cmd
	pid     int
	base    string
	dataDir string
	stderr  string // its stderr, a file
	done    chan struct{}
}

// startServe starts `metaforge serve` on free ports, with holds that last
// holdWindowSeconds, and waits for /healthz.
func startServe(b *testing.B, binary, dir string) (*serveProcess, error) {
	ports, err := freeTCPPorts(2)
	if err != nil {
		return nil, err
	}
	stderr, err := os.Create(filepath.Join(dir, "serve.stderr"))
	if err != nil {
		return nil, err
	}
	defer stderr.Close()
	dataDir := filepath.Join(dir, "data")
	cmd := exec.Command(binary, "serve",
		"--data-dir", dataDir,
		"--temporal-port", strconv.Itoa(ports[0]),
		"--ui-port", "0",
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", ports[1]))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TEMPORAL_") && !strings.HasPrefix(kv, "NEO4J_") && !strings.HasPrefix(kv, "METAFORGE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, fmt.Sprintf("METAFORGE_APPROVAL_HOLD_SECONDS=%d", holdWindowSeconds))
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serveProcess{cmd: cmd, pid: cmd.Process.Pid, base: fmt.Sprintf("http://127.0.0.1:%d", ports[1]), dataDir: dataDir,
		stderr: stderr.Name(), done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	hc := &http.Client{Timeout: 2 * time.Second}
	for time.Since(started) < 2*time.Minute {
		select {
		case <-p.done:
			return nil, fmt.Errorf("metaforge serve exited (%v) before /healthz answered:\n%s", cmd.ProcessState, p.tail(30))
		default:
		}
		resp, err := hc.Get(p.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				b.Logf("metaforge serve (pid %d) answered /healthz after %s", p.pid, time.Since(started).Round(time.Millisecond))
				return p, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.stop(b)
	return nil, fmt.Errorf("metaforge serve did not answer /healthz within 2 min:\n%s", p.tail(30))
}

// stop sends SIGTERM, and SIGKILL to its process group if it has not
// exited within 20 s.
func (p *serveProcess) stop(b *testing.B) {
	t0 := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		b.Logf("metaforge serve stopped %s after SIGTERM (%v)", time.Since(t0).Round(time.Millisecond), p.cmd.ProcessState)
		return
	case <-time.After(20 * time.Second):
	}
	b.Logf("metaforge serve still running 20 s after SIGTERM; SIGKILL")
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		b.Errorf("metaforge serve (pid %d) did not end after SIGKILL", p.pid)
	}
}

// tail is the end of serve's stderr without the embedded Temporal's lines.
func (p *serveProcess) tail(n int) string {
	raw, _ := os.ReadFile(p.stderr)
	var keep []string
	for _, l := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		if !strings.Contains(l, " component=temporal ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep[max(len(keep)-n, 0):], "\n")
}

func freeTCPPorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// procStatus reads the kB and count fields of /proc/<pid>/status (VmRSS,
// VmHWM, Threads, ...).
func procStatus(pid int) (map[string]int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(raw), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) == 0 {
			continue
		}
		if v, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			out[name] = v
		}
	}
	if out["VmRSS"] == 0 {
		return nil, fmt.Errorf("/proc/%d/status has no VmRSS", pid)
	}
	return out, nil
}

// cpuOver is the CPU the process used over d, in cores (1.0 = one core
// busy the whole time), from utime+stime in /proc/<pid>/stat.
func cpuOver(pid int, d time.Duration) (float64, error) {
	ticks := func() (int64, error) {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0, err
		}
		// The fields after the command name, which is in parentheses.
		fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		if len(fields) < 13 {
			return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
		}
		utime, err1 := strconv.ParseInt(fields[11], 10, 64)
		stime, err2 := strconv.ParseInt(fields[12], 10, 64)
		return utime + stime, errors.Join(err1, err2)
	}
	t0, err := ticks()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	time.Sleep(d)
	t1, err := ticks()
	if err != nil {
		return 0, err
	}
	const clockTicks = 100 // USER_HZ, 100 on Linux
	return float64(t1-t0) / clockTicks / time.Since(start).Seconds(), nil
}
