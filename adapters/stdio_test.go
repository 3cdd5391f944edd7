package adapters

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// stdioFixtureEnv makes the test binary, run as a child, serve the fixture
// adapter over its stdin and stdout instead of running tests: the adapter
// under test is then a real separate process.
const stdioFixtureEnv = "METAFORGE_STDIO_TEST_ADAPTER"

// stdioFixtureEnvVars start the fixture. Under -race a process sleeps a second
// on exit by default; the fixture exits often, so it is told not to.
var stdioFixtureEnvVars = []string{stdioFixtureEnv + "=1", "GORACE=atexit_sleep_ms=0"}

func TestMain(m *testing.M) {
	if os.Getenv(stdioFixtureEnv) == "1" {
		if err := ServeStdio(context.Background(), &stdioFixture{}, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "fixture adapter:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// stdioFixture is a test-only adapter. Its tools exist to exercise the stdio
// transport: echo, refuse, crash the process, sleep, and count cancellations.
type stdioFixture struct {
	cancelled atomic.Int64
}

func (f *stdioFixture) ID() string      { return "fixture" }
func (f *stdioFixture) Version() string { return "0.0.1-test" }

func (f *stdioFixture) Manifests() []Manifest {
	var ms []Manifest
	for _, name := range []string{"echo", "fail", "flaky", "crash", "sleep", "stats"} {
		ms = append(ms, Manifest{
			ToolID: "fixture." + name, AdapterID: "fixture", Name: "Test fixture " + name,
			Description: "Test fixture for the stdio transport; not a real tool.", Capability: "test_fixture",
			InputSchema: json.RawMessage(`{"type":"object"}`),
		})
	}
	return ms
}

func (f *stdioFixture) Call(ctx context.Context, toolID string, args json.RawMessage) (*Result, error) {
	switch toolID {
	case "fixture.echo":
		data, _ := json.Marshal(map[string]any{"echo": args, "pid": os.Getpid()})
		return &Result{Data: data, OutputFiles: []string{"/output/fixture.txt"}}, nil
	case "fixture.fail":
		var a struct{ Invalid bool }
		_ = json.Unmarshal(args, &a)
		if a.Invalid {
			return nil, protocol.Invalid("fixture.fail: field 'invalid' must be false")
		}
		return nil, protocol.Refusal("fixture.fail always refuses; call fixture.echo instead")
	case "fixture.flaky":
		return nil, errors.New("fixture.flaky: disk hiccup")
	case "fixture.crash":
		os.Exit(3)
	case "fixture.sleep":
		var a struct {
			MS  int    `json:"ms"`
			Tag string `json:"tag"`
		}
		_ = json.Unmarshal(args, &a)
		select {
		case <-time.After(time.Duration(a.MS) * time.Millisecond):
		case <-ctx.Done():
			f.cancelled.Add(1)
			return nil, ctx.Err()
		}
		data, _ := json.Marshal(map[string]string{"tag": a.Tag})
		return &Result{Data: data}, nil
	case "fixture.stats":
		data, _ := json.Marshal(map[string]int64{"cancelled": f.cancelled.Load()})
		return &Result{Data: data}, nil
	}
	return nil, protocol.Invalid("no tool %q", toolID)
}

func (f *stdioFixture) Health(ctx context.Context) (HealthStatus, error) {
	return HealthStatus{AdapterID: "fixture", Status: "healthy", Version: f.Version(), ToolsAvailable: len(f.Manifests())}, nil
}

// startFixture runs this test binary as the fixture adapter process.
func startFixture(t *testing.T, command ...string) *StdioAdapter {
	t.Helper()
	if len(command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		command = []string{exe}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, err := StartStdio(ctx, "fixture", command, stdioFixtureEnvVars)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

func callFixture(t *testing.T, a Adapter, toolID string, args string) (map[string]any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := a.Call(ctx, toolID, json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	var data map[string]any
	if err := json.Unmarshal(res.Data, &data); err != nil {
		t.Fatalf("%s: data %s: %v", toolID, res.Data, err)
	}
	return data, nil
}

func asProtocolError(t *testing.T, err error) *protocol.Error {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("want a *protocol.Error, got %T: %v", err, err)
	}
	return pe
}

func TestStdioManifestsAndVersion(t *testing.T) {
	a := startFixture(t)
	if a.ID() != "fixture" || a.Version() != "0.0.1-test" {
		t.Fatalf("id %q version %q", a.ID(), a.Version())
	}
	ms := a.Manifests()
	if len(ms) != 6 || ms[0].ToolID != "fixture.echo" || ms[0].AdapterID != "fixture" || string(ms[0].InputSchema) != `{"type":"object"}` {
		t.Fatalf("manifests: %+v", ms)
	}
	r := NewRegistry()
	if err := r.Register(a); err != nil {
		t.Fatalf("a stdio adapter registers like any other: %v", err)
	}
	st, err := a.Health(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.AdapterID != "fixture" || st.Status != "healthy" || st.ToolsAvailable != 6 || st.UptimeSeconds <= 0 {
		t.Fatalf("health: %+v", st)
	}
}

func TestStdioStartRejectsWrongAdapterID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, err = StartStdio(context.Background(), "other", []string{exe}, stdioFixtureEnvVars)
	if err == nil || !strings.Contains(err.Error(), `fixture.echo declares adapter_id "fixture"`) {
		t.Fatalf("want an adapter_id mismatch, got %v", err)
	}
	_, err = StartStdio(context.Background(), "x", []string{filepath.Join(t.TempDir(), "missing")}, nil)
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("want a start error naming the program, got %v", err)
	}
}

func TestStdioCallRoundTrip(t *testing.T) {
	a := startFixture(t)
	ctx := context.Background()
	res, err := a.Call(ctx, "fixture.echo", json.RawMessage(`{"x":1,"s":"hé\nllo"}`))
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Echo map[string]any `json:"echo"`
	}
	if err := json.Unmarshal(res.Data, &data); err != nil {
		t.Fatal(err)
	}
	if data.Echo["x"] != 1.0 || data.Echo["s"] != "hé\nllo" {
		t.Fatalf("echo: %s", res.Data)
	}
	if len(res.OutputFiles) != 1 || res.OutputFiles[0] != "/output/fixture.txt" {
		t.Fatalf("output files: %v", res.OutputFiles)
	}
	// No arguments at all is an empty object.
	if d, err := callFixture(t, a, "fixture.echo", ""); err != nil || fmt.Sprint(d["echo"]) != "map[]" {
		t.Fatalf("no arguments: %v %v", d, err)
	}
}

func TestStdioErrorsKeepTheirMeaning(t *testing.T) {
	a := startFixture(t)

	_, err := callFixture(t, a, "fixture.fail", `{}`)
	pe := asProtocolError(t, err)
	if pe.Code != protocol.ToolExecutionError || pe.Retryable || pe.ToolID != "fixture.fail" ||
		pe.Details != "fixture.fail always refuses; call fixture.echo instead" {
		t.Fatalf("refusal: %+v", pe)
	}

	_, err = callFixture(t, a, "fixture.fail", `{"invalid":true}`)
	if pe := asProtocolError(t, err); pe.Code != protocol.InvalidParams || pe.Retryable || !strings.Contains(pe.Details, "'invalid'") {
		t.Fatalf("invalid params: %+v", pe)
	}

	_, err = callFixture(t, a, "fixture.flaky", `{}`)
	if pe := asProtocolError(t, err); pe.Code != protocol.ToolExecutionError || !pe.Retryable || pe.Details != "fixture.flaky: disk hiccup" {
		t.Fatalf("plain error: %+v", pe)
	}

	_, err = callFixture(t, a, "fixture.ecko", `{}`)
	if pe := asProtocolError(t, err); pe.Code != protocol.MethodNotFound || !strings.Contains(pe.Details, `"fixture.echo"`) {
		t.Fatalf("unknown tool wants a did-you-mean: %+v", pe)
	}
}

func TestStdioCrashIsRetryableAndRestarts(t *testing.T) {
	a := startFixture(t)
	before, err := callFixture(t, a, "fixture.echo", `{}`)
	if err != nil {
		t.Fatal(err)
	}

	_, err = callFixture(t, a, "fixture.crash", `{}`)
	pe := asProtocolError(t, err)
	if !pe.Retryable || pe.Code != protocol.ToolExecutionError ||
		!strings.Contains(pe.Details, `"fixture"`) || !strings.Contains(pe.Details, "exit status 3") {
		t.Fatalf("crash: %+v", pe)
	}

	after, err := callFixture(t, a, "fixture.echo", `{}`)
	if err != nil {
		t.Fatalf("the call after a crash restarts the adapter: %v", err)
	}
	if before["pid"] == after["pid"] {
		t.Fatalf("same pid %v before and after the crash", before["pid"])
	}

	// Health restarts a crashed adapter too.
	if _, err := callFixture(t, a, "fixture.crash", `{}`); err == nil {
		t.Fatal("crash succeeded")
	}
	if st, err := a.Health(context.Background()); err != nil || st.Status != "healthy" {
		t.Fatalf("health after a crash: %+v %v", st, err)
	}
}

func TestStdioHealthSaysWhenTheAdapterCannotRestart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses a shell script")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "fixture.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec '"+exe+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := startFixture(t, script)
	if _, err := callFixture(t, a, "fixture.crash", `{}`); err == nil {
		t.Fatal("crash succeeded")
	}
	if err := os.Remove(script); err != nil {
		t.Fatal(err)
	}
	_, err = a.Health(context.Background())
	pe := asProtocolError(t, err)
	if pe.Code != protocol.ToolUnavailable || !strings.Contains(pe.Details, "exit status 3 and could not be restarted") {
		t.Fatalf("health of an adapter that cannot restart: %+v", pe)
	}
}

func TestStdioConcurrentCalls(t *testing.T) {
	a := startFixture(t)
	const n = 20
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			tag := fmt.Sprintf("call-%d", i)
			d, err := callFixture(t, a, "fixture.sleep", fmt.Sprintf(`{"ms":300,"tag":%q}`, tag))
			if err != nil {
				errs <- err
			} else if d["tag"] != tag {
				errs <- fmt.Errorf("call %s got the answer of %v", tag, d["tag"])
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if el := time.Since(start); el > n*300*time.Millisecond/2 {
		t.Errorf("%d calls of 300ms took %v: they did not run concurrently", n, el)
	}
}

func TestStdioContextCancelIsPromptAndReachesTheAdapter(t *testing.T) {
	a := startFixture(t)
	before, err := callFixture(t, a, "fixture.echo", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	// No deadline, so no timeout_seconds: only the cancellation can stop the sleep.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err = a.Call(ctx, "fixture.sleep", json.RawMessage(`{"ms":30000}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want the context's error, got %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("cancel took %v", el)
	}
	// The adapter was told, and stopped the sleep; the process lives on.
	deadline := time.Now().Add(5 * time.Second)
	for {
		d, err := callFixture(t, a, "fixture.stats", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if d["cancelled"] == 1.0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the adapter never saw the cancellation: %v", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
	after, err := callFixture(t, a, "fixture.echo", `{}`)
	if err != nil || after["pid"] != before["pid"] {
		t.Fatalf("a cancel must not restart the adapter: %v %v %v", before, after, err)
	}
}

func TestStdioClose(t *testing.T) {
	a := startFixture(t)
	start := time.Now()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > stdioExitGrace {
		t.Errorf("Close took %v: the adapter did not exit when its stdin closed", el)
	}
	_, err := callFixture(t, a, "fixture.echo", `{}`)
	if pe := asProtocolError(t, err); pe.Code != protocol.ToolUnavailable {
		t.Fatalf("call after Close: %+v", pe)
	}
}

func TestStdioPythonAdapter(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed to prove an adapter can be written in another language: apt-get install python3")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, err := StartStdio(ctx, "pyecho", []string{py, "testdata/echo_adapter.py"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if ms := a.Manifests(); len(ms) != 1 || ms[0].ToolID != "pyecho.echo" || a.Version() != "0.1.0-py" {
		t.Fatalf("manifests %+v version %q", ms, a.Version())
	}
	d, err := callFixture(t, a, "pyecho.echo", `{"message":"hello from Go"}`)
	if err != nil || d["message"] != "hello from Go" {
		t.Fatalf("call: %v %v", d, err)
	}
	_, err = callFixture(t, a, "pyecho.echo", `{}`)
	if pe := asProtocolError(t, err); pe.Code != protocol.InvalidParams || pe.Retryable || pe.Details != "pass a string 'message' to echo" {
		t.Fatalf("error: %+v", pe)
	}
}

// stdioSession drives ServeStdio in-process, line by line.
type stdioSession struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func serveFixture(t *testing.T, ctx context.Context) *stdioSession {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdioSession{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	go func() {
		err := ServeStdio(ctx, &stdioFixture{}, inR, outW)
		outW.Close()
		s.done <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return s
}

func (s *stdioSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *stdioSession) recv() RPCResponse {
	s.t.Helper()
	line, err := s.out.ReadBytes('\n')
	if err != nil {
		s.t.Fatalf("reading a response: %v", err)
	}
	var r RPCResponse
	if err := json.Unmarshal(line, &r); err != nil {
		s.t.Fatalf("response %q: %v", line, err)
	}
	return r
}

func TestServeStdioBadLinesAreAnsweredAndServingContinues(t *testing.T) {
	s := serveFixture(t, context.Background())

	s.send(`{"jsonrpc":"2.0","id":1,"method":`)
	if r := s.recv(); string(r.ID) != "null" || r.Error == nil || r.Error.Code != -32700 || r.Error.Data.ErrorType != "PARSE_ERROR" {
		t.Fatalf("bad line: %+v", r)
	}
	s.send(`{"jsonrpc":"2.0","id":"a","method":"tool/list","params":{"capability":"nope"}}`)
	if r := s.recv(); string(r.ID) != `"a"` || string(r.Result) != `{"tools":[]}` {
		t.Fatalf("after a bad line: %+v", r)
	}

	// 16 MiB of payload plus the envelope: over the limit.
	big := `{"jsonrpc":"2.0","id":2,"method":"tool/call","params":{"tool_id":"fixture.echo","arguments":{"x":"` +
		strings.Repeat("x", MaxStdioLineBytes) + `"}}}`
	sent := make(chan error, 1) // the server answers before it has read it all
	go func() { _, err := io.WriteString(s.in, big+"\n"); sent <- err }()
	if r := s.recv(); string(r.ID) != "null" || r.Error == nil || r.Error.Code != -32600 || r.Error.Message != "request too large" {
		t.Fatalf("too large: %+v", r)
	}
	if err := <-sent; err != nil {
		t.Fatalf("sending the big line: %v", err)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tool/call","params":{"tool_id":"fixture.echo","arguments":{"after":"big"}}}`)
	if r := s.recv(); string(r.ID) != "3" || r.Error != nil || !strings.Contains(string(r.Result), `"after":"big"`) {
		t.Fatalf("after a big line: %+v", r)
	}

	s.send(`{"jsonrpc":"2.0","method":"tool/list"}`) // a notification: no answer
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tool/frobnicate"}`)
	if r := s.recv(); string(r.ID) != "4" || r.Error == nil || r.Error.Code != -32601 {
		t.Fatalf("unknown method: %+v", r)
	}
	s.send(`[1,2]`)
	if r := s.recv(); r.Error == nil || r.Error.Code != -32600 {
		t.Fatalf("not an object: %+v", r)
	}
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tool/call","params":{"tool_id":"fixture.echo","timeout_seconds":99999}}`)
	if r := s.recv(); string(r.ID) != "5" || r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("bad timeout: %+v", r)
	}
	s.send(`{"jsonrpc":"2.0","id":6,"method":"tool/call","params":{"tool_id":"fixture.flaky"}}`)
	if r := s.recv(); r.Error == nil || r.Error.Code != -32001 || r.Error.Message != "Tool execution failed" ||
		r.Error.Data.ToolID != "fixture.flaky" || !r.Error.Data.Retryable {
		t.Fatalf("plain error: %+v", r.Error)
	}
}

func TestServeStdioFinishesCallsInFlightAtEOF(t *testing.T) {
	s := serveFixture(t, context.Background())
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tool/call","params":{"tool_id":"fixture.sleep","arguments":{"ms":200,"tag":"late"}}}`)
	s.in.Close()
	if r := s.recv(); string(r.ID) != "1" || !strings.Contains(string(r.Result), `"tag":"late"`) {
		t.Fatalf("the call in flight at EOF: %+v", r)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("ServeStdio at EOF: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return at EOF")
	}
}

func TestServeStdioTimeoutSeconds(t *testing.T) {
	s := serveFixture(t, context.Background())
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tool/call","params":{"tool_id":"fixture.sleep","arguments":{"ms":5000},"timeout_seconds":1}}`)
	r := s.recv()
	if r.Error == nil || r.Error.Code != int(protocol.ToolTimeout) || r.Error.Data.ErrorType != "TOOL_TIMEOUT" || r.Error.Data.Retryable {
		t.Fatalf("timeout: %+v", r.Error)
	}
}

func TestServeStdioContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := serveFixture(t, ctx)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tool/call","params":{"tool_id":"fixture.sleep","arguments":{"ms":30000}}}`)
	go func() { _, _ = io.Copy(io.Discard, s.out) }()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case err := <-s.done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want context.Canceled, got %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("ServeStdio did not return when its context ended")
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("took %v", el)
	}
}
