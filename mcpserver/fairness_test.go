package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// batchSession is an MCP session over raw HTTP POSTs on the 2025-03-26
// revision, the one with JSON-RPC batches, as a flooding client speaks it.
type batchSession struct {
	url, id string
	client  *http.Client
}

func openBatchSession(t *testing.T, base string) *batchSession {
	t.Helper()
	s := &batchSession{url: base + "/mcp", client: &http.Client{Timeout: 5 * time.Minute}}
	resp, _ := s.post(context.Background(), t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`)
	s.id = resp.Header.Get("Mcp-Session-Id")
	if s.id == "" {
		t.Fatal("initialize issued no Mcp-Session-Id")
	}
	s.post(context.Background(), t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// post sends one body and returns the response and the JSON-RPC messages
// in it (a JSON body or an event stream's data lines).
func (s *batchSession) post(ctx context.Context, t *testing.T, body string) (*http.Response, []json.RawMessage) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			t.Errorf("POST /mcp: %v", err)
		}
		return &http.Response{Header: http.Header{}}, nil
	}
	defer resp.Body.Close()
	var msgs []json.RawMessage
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				msgs = append(msgs, json.RawMessage(data))
			}
		}
		return resp, msgs
	}
	b, _ := io.ReadAll(resp.Body)
	var batch []json.RawMessage
	switch {
	case json.Unmarshal(b, &batch) == nil:
		msgs = batch
	case len(strings.TrimSpace(string(b))) > 0:
		msgs = append(msgs, b)
	}
	return resp, msgs
}

func median(samples []time.Duration) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return s[len(s)/2]
}

// p99 is the 99th percentile of samples (nearest rank).
func p99(samples []time.Duration) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return s[(len(s)*99+99)/100-1]
}

// One session floods the server with batches of 100 calls; another
// session's health.check must stay near as quick as when the server is
// idle (p99 within floodSlowdown), because the flood's calls wait their
// turn in their own session's queue instead of all running at once.
//
// This machine is shared, and one burst of someone else's load decides a
// p99: a round (idle samples, then as many under the flood) is tried up to
// three times and one within bounds passes. Without the scheduler every
// round failed by ten times or more (p99 2-3.5 s against 0.1-0.2 s idle).
// The flood's running share still costs CPU on two cores: on a busy CI
// machine under the race detector it measured 2.1-2.2x in every round, so
// the bound is 3x, still well clear of the 10x a starving server shows.
func TestFloodingSessionDoesNotStarveAnother(t *testing.T) {
	s := theStack(t)
	cs := s.ConnectHTTP(t, nil)
	health := func() time.Duration {
		started := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "health.check", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("health.check: %v %+v", err, res)
		}
		return time.Since(started)
	}
	health() // warm up the path
	for round := 1; ; round++ {
		idle, flooded := floodRound(t, s.URL(), round, health)
		idleP99, floodP99 := p99(idle), p99(flooded)
		t.Logf("round %d: health.check p99 idle %s, under a flood of 100 calls %s (%d and %d samples; medians %s and %s)",
			round, idleP99, floodP99, len(idle), len(flooded), median(idle), median(flooded))
		enough := len(idle) >= minFloodSamples && len(flooded) >= minFloodSamples
		if enough && floodP99 <= floodSlowdown*idleP99 {
			return
		}
		if round == 3 {
			t.Fatalf("in %d rounds health.check never kept its p99 under the flood within %dx its idle p99 over at least %d samples each", round, floodSlowdown, minFloodSamples)
		}
		// The flood's calls that started run on in Temporal: the next
		// round's idle samples wait them out.
		time.Sleep(floodSleep + 5*time.Second)
	}
}

// floodSamples is how many health.checks are timed idle and under the
// flood each; floodSampling bounds the time spent on each (the race
// detector slows every call tenfold). floodSleep is each flood call's.
const (
	floodSamples  = 100
	floodSampling = 20 * time.Second
	floodSleep    = time.Second
	// floodSlowdown is how many times its idle p99 health.check may take
	// under the flood.
	floodSlowdown = 3
	// minFloodSamples is the fewest samples a round's p99 is taken from:
	// a round with fewer (the machine was busy) is tried again.
	minFloodSamples = 10
)

// floodRound times health.check idle, then while another session floods
// the server: it sends a batch of 100 calls of fixture.sleep (floodSleep
// each), and another as soon as one is answered, until the samples are
// taken; then it hangs up, and what of its batch still waits is dropped.
func floodRound(t *testing.T, base string, round int, health func() time.Duration) (idle, flooded []time.Duration) {
	sample := func() []time.Duration {
		var out []time.Duration
		for deadline := time.Now().Add(floodSampling); len(out) < floodSamples && time.Now().Before(deadline); {
			out = append(out, health())
		}
		return out
	}
	idle = sample()
	flood := openBatchSession(t, base)
	ctx, hangUp := context.WithCancel(context.Background())
	floodDone := make(chan int, 1)
	go func() {
		batches := 0
		for ; ctx.Err() == nil; batches++ {
			var calls []string
			for i := range 100 {
				calls = append(calls, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fixture.sleep","arguments":{"key":"flood-%d-%d-%d","sleep_ms":%d}}}`,
					i+1, round, batches, i, floodSleep.Milliseconds()))
			}
			flood.post(ctx, t, "["+strings.Join(calls, ",")+"]")
		}
		floodDone <- batches
	}()
	time.Sleep(200 * time.Millisecond) // the first batch is in
	flooded = sample()
	hangUp()
	t.Logf("round %d: the flood sent %d batches of 100 calls", round, <-floodDone)
	return idle, flooded
}
