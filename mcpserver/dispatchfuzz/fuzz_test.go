package dispatchfuzz

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/stdiotest"
)

// A short fuzzing run (make fuzz-short runs one):
//
//	go test ./mcpserver/dispatchfuzz -run '^$' -fuzz '^FuzzDispatch$' -fuzztime 30s -fuzzminimizetime 20x -parallel 2
//
// -fuzzminimizetime bounds how long a worker shrinks each new interesting
// input; at its default (a minute) the workers spend a short run
// minimizing, not fuzzing.

// frameBound is how long any one frame may take to be answered or ignored.
const frameBound = 15 * time.Second

// seedCorpus is the hostile frames of mcpserver's catalogue, which its
// TestHostileFrames runs against the real stack: one list, seeding the
// fuzzer here.
const seedCorpus = "../testdata/fuzz/FuzzDispatch"

// fastFixture is the fixture adapter's echo, refuse and sleep, with sleeps
// capped at a few milliseconds: an input is about the frame, not the wait.
type fastFixture struct{ *adaptertest.Fixture }

const maxSleepMs = 5

func (f fastFixture) Manifests() []adapters.Manifest {
	var out []adapters.Manifest
	for _, m := range f.Fixture.Manifests() {
		if slices.Contains([]string{"fixture.echo", "fixture.refuse", "fixture.sleep"}, m.ToolID) {
			out = append(out, m)
		}
	}
	return out
}

func (f fastFixture) Call(ctx context.Context, toolID string, raw json.RawMessage) (*adapters.Result, error) {
	var args map[string]any
	if json.Unmarshal(raw, &args) == nil {
		if ms, ok := args["sleep_ms"].(float64); ok && ms > maxSleepMs {
			args["sleep_ms"] = maxSleepMs
			raw, _ = json.Marshal(args)
		}
	}
	return f.Fixture.Call(ctx, toolID, raw)
}

var (
	once    sync.Once
	server  *mcpserver.Server
	client  *http.Client
	inputs  atomic.Int64
	started time.Time
)

// fuzzServer is one Server per process over the fast fixture, with the
// fuzz-only in-memory engine behind its dispatcher, and an HTTP client
// that reaches its handler in-process.
func fuzzServer(t testing.TB) (*mcpserver.Server, *http.Client) {
	once.Do(func() {
		reg := adapters.NewRegistry()
		if err := reg.Register(fastFixture{&adaptertest.Fixture{}}); err != nil {
			t.Fatal(err)
		}
		server = mcpserver.New(mcpserver.Options{
			Registry: reg,
			Engine:   &fuzzOnlyEngine{reg: reg},
			Health:   &health.Checker{Service: mcpserver.ServerName, Version: "fuzz", Started: time.Now(), Registry: reg},
			Caller:   mcpserver.CallerLocal,
			Version:  "fuzz",
			Logger:   quietLogger(),
			// A fuzzing worker sends its inputs as fast as it can, all from
			// one caller: the limits are not what is fuzzed.
			Limits: mcpserver.Limits{MaxRunning: 1 << 20, Classes: map[string]mcpserver.ClassLimits{mcpserver.CallerLocal: {}}},
		})
		client = &http.Client{Timeout: frameBound, Transport: inProcess{server.HTTPHandler()}}
		started = time.Now()
	})
	return server, client
}

// inProcess serves a request by calling the handler, as over a socket but
// without one: a request costs the handler's work, not a round trip.
type inProcess struct{ h http.Handler }

func (p inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// FuzzDispatch feeds each frame to a Server over stdio (ServeStdio on
// pipes), POST /mcp and POST /rpc, and checks it is answered or ignored
// within frameBound with no panic, and that afterwards the same server
// still answers ping, tools/list and tool/list. Each process prints how
// many inputs it ran, and how fast.
func FuzzDispatch(f *testing.F) {
	for _, frame := range loadSeeds(f) {
		f.Add(frame)
	}
	f.Cleanup(func() {
		if n := inputs.Load(); n > 0 {
			took := time.Since(started)
			fmt.Printf("FuzzDispatch: %d inputs in %s, %.0f a second (pid %d)\n", n, took.Round(time.Millisecond), float64(n)/took.Seconds(), os.Getpid())
		}
	})
	f.Fuzz(func(t *testing.T, frame []byte) {
		s, c := fuzzServer(t)
		dispatchOverStdio(t, s, frame)
		dispatchOverHTTP(t, c, frame)
		inputs.Add(1)
	})
}

// loadSeeds reads the corpus files (go test fuzz v1, one []byte each).
func loadSeeds(f *testing.F) [][]byte {
	files, err := filepath.Glob(filepath.Join(seedCorpus, "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed corpus in %s (%v)", seedCorpus, err)
	}
	var out [][]byte
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		lines := strings.SplitN(string(b), "\n", 3)
		lit, ok := strings.CutPrefix(strings.TrimSpace(lines[1]), "[]byte(")
		lit, ok2 := strings.CutSuffix(lit, ")")
		frame, err := strconv.Unquote(lit)
		if len(lines) < 2 || lines[0] != "go test fuzz v1" || !ok || !ok2 || err != nil {
			f.Fatalf("%s is not a go test fuzz v1 file of one []byte", name)
		}
		out = append(out, []byte(frame))
	}
	return out
}

func dispatchOverStdio(t *testing.T, s *mcpserver.Server, frame []byte) {
	c := stdiotest.Serve(t, s)
	c.Send(t, frame, []byte(`{"jsonrpc":"2.0","id":"probe-legacy","method":"tool/list","params":{"capability":"test"}}`),
		[]byte(`{"jsonrpc":"2.0","id":"probe-ping","method":"ping"}`))
	legacy, _ := c.Await(t, `"probe-legacy"`, frameBound)
	if tools := toolsIn(legacy, "tools"); tools != 3 {
		t.Fatalf("stdio: tool/list after %q lists %d tools", frame, tools)
	}
	c.Await(t, `"probe-ping"`, frameBound) // any answer: the SDK's reader is alive
	c.Close(t)
}

func dispatchOverHTTP(t *testing.T, c *http.Client, frame []byte) {
	// A session of its own, on the revision with batches, so the frame
	// reaches the SDK's dispatcher, not only its session check.
	session := post(t, c, "/mcp", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`).header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("initialize issued no Mcp-Session-Id")
	}
	defer func() {
		req, _ := http.NewRequest(http.MethodDelete, "http://in-process/mcp", nil)
		req.Header.Set("Mcp-Session-Id", session)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	post(t, c, "/mcp", session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	if a := post(t, c, "/mcp", session, string(frame)); a.status >= 500 {
		t.Fatalf("POST /mcp %q: %d", frame, a.status)
	}
	if answerTo(post(t, c, "/mcp", session, `{"jsonrpc":"2.0","id":"probe-ping","method":"ping"}`), "probe-ping") == nil {
		t.Fatalf("POST /mcp: no answer to ping after %q", frame)
	}
	if n := toolsIn(answerTo(post(t, c, "/mcp", session, `{"jsonrpc":"2.0","id":"probe-list","method":"tools/list"}`), "probe-list"), "tools"); n != 3 {
		t.Fatalf("POST /mcp: tools/list after %q lists %d tools", frame, n)
	}
	if a := post(t, c, "/rpc", "", string(frame)); a.status >= 500 {
		t.Fatalf("POST /rpc %q: %d", frame, a.status)
	}
	if n := toolsIn(answerTo(post(t, c, "/rpc", "", `{"jsonrpc":"2.0","id":"probe-rpc","method":"tool/list"}`), "probe-rpc"), "tools"); n != 3 {
		t.Fatalf("POST /rpc: tool/list after %q lists %d tools", frame, n)
	}
}

// answer is one POST's status, headers and the JSON-RPC messages in its
// body (a JSON body, or the data lines of an event stream).
type answer struct {
	status   int
	header   http.Header
	messages [][]byte
}

func post(t *testing.T, c *http.Client, path, session, body string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://in-process"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	out := answer{status: resp.StatusCode, header: resp.Header}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, mcpserver.MaxFrameBytes+1024)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out.messages = append(out.messages, []byte(data))
			}
		}
		return out
	}
	b, _ := io.ReadAll(resp.Body)
	if len(bytes.TrimSpace(b)) > 0 {
		out.messages = append(out.messages, b)
	}
	return out
}

// answerTo is the message answering id, or nil.
func answerTo(a answer, id string) []byte {
	for _, m := range a.messages {
		var msg struct {
			ID any `json:"id"`
		}
		if json.Unmarshal(m, &msg) == nil && msg.ID == id {
			return m
		}
	}
	return nil
}

// toolsIn counts result.<key> in a JSON-RPC success response; -1 if none.
func toolsIn(msg []byte, key string) int {
	var m struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	var list []json.RawMessage
	if json.Unmarshal(msg, &m) != nil || json.Unmarshal(m.Result[key], &list) != nil {
		return -1
	}
	return len(list)
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
