package adapters

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// Timings of the stdio client. Variables, not constants, only so tests can
// shorten them.
var (
	// stdioStartTimeout bounds the tool/list and health/check handshake.
	stdioStartTimeout = 10 * time.Second
	// stdioHealthTimeout bounds a Health whose context has no deadline.
	stdioHealthTimeout = 10 * time.Second
	// stdioExitGrace is how long a process that closed its stdout (or whose
	// stdin was closed by Close) gets to exit on its own before it is killed.
	stdioExitGrace = 2 * time.Second
)

// StdioAdapter is an adapter running as a separate executable, reached over
// JSON-RPC on its stdin and stdout (ServeStdio is the Go side of that
// protocol; any language can implement it). One reader goroutine routes
// responses by id, so concurrent calls share one process.
//
// The process is supervised on demand: when it has exited, the next Call or
// Health starts it again, once per call. A call in flight when it dies fails
// with a retryable error, since nothing says the tool ran to completion.
type StdioAdapter struct {
	id      string
	command []string
	env     []string

	manifests []Manifest // from tool/list at start; never changed afterwards
	version   string     // from health/check at start

	nextID atomic.Int64

	mu     sync.Mutex
	proc   *stdioProc
	closed bool
}

// StartStdio starts command (program and arguments) as adapter id, with env
// added to this process's environment, and asks it for its tools and version.
// Every tool must declare adapter_id id. The process's stderr goes to ours,
// each line prefixed with the adapter id. ctx bounds the start, not the
// process's life: Close ends that.
func StartStdio(ctx context.Context, id string, command []string, env []string) (*StdioAdapter, error) {
	if id == "" {
		return nil, errors.New("StartStdio: the adapter id is empty")
	}
	if len(command) == 0 || command[0] == "" {
		return nil, fmt.Errorf("StartStdio: adapter %q has no command to run", id)
	}
	s := &StdioAdapter{id: id, command: slices.Clone(command), env: slices.Clone(env)}
	p, err := s.start()
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*StdioAdapter, error) {
		p.stop()
		return nil, fmt.Errorf("starting adapter %q (%s): %w; check that it speaks MetaForge's stdio adapter protocol (one JSON-RPC 2.0 message a line: tool/list, tool/call, health/check)",
			id, command[0], err)
	}
	ctx, cancel := context.WithTimeout(ctx, stdioStartTimeout)
	defer cancel()

	var list ToolListResult
	if err := s.request(ctx, p, MethodToolList, struct{}{}, "", &list); err != nil {
		return fail(err)
	}
	var wrong []string
	for _, m := range list.Tools {
		if m.AdapterID != id {
			wrong = append(wrong, fmt.Sprintf("%s declares adapter_id %q", m.ToolID, m.AdapterID))
		}
	}
	if len(wrong) > 0 {
		return fail(fmt.Errorf("its tools must declare adapter_id %q: %v", id, wrong))
	}
	var st HealthStatus
	if err := s.request(ctx, p, MethodHealthCheck, struct{}{}, "", &st); err != nil {
		return fail(err)
	}
	if st.AdapterID != "" && st.AdapterID != id {
		return fail(fmt.Errorf("health/check says it is adapter %q, not %q", st.AdapterID, id))
	}
	s.manifests, s.version = list.Tools, st.Version

	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	return s, nil
}

// ID is the adapter id StartStdio was given.
func (s *StdioAdapter) ID() string { return s.id }

// Version is what the adapter's health/check reported at start.
func (s *StdioAdapter) Version() string { return s.version }

// Manifests are the adapter's tools as tool/list reported them at start.
func (s *StdioAdapter) Manifests() []Manifest { return slices.Clone(s.manifests) }

// Call runs one tool in the adapter process, starting the process first if it
// is down. ctx's deadline travels as timeout_seconds; when ctx ends first the
// adapter is told (notifications/cancelled) and Call returns ctx's error.
func (s *StdioAdapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*Result, error) {
	p, err := s.running()
	if err != nil {
		return nil, err
	}
	args = ArgumentsOrEmpty(args)
	params := ToolCallParams{ToolID: toolID, Arguments: args}
	if d, ok := ctx.Deadline(); ok {
		secs := math.Ceil(time.Until(d).Seconds())
		params.TimeoutSeconds = int(min(max(secs, MinTimeoutSeconds), MaxTimeoutSeconds))
	}
	var res ToolCallResult
	if err := s.request(ctx, p, MethodToolCall, params, toolID, &res); err != nil {
		return nil, err
	}
	if res.Status != "" && res.Status != "success" {
		return nil, protocol.Refusal("adapter %q answered %s with status %q and no error; an adapter reports a failure as a JSON-RPC error",
			s.id, toolID, res.Status)
	}
	return &Result{Data: res.Data, OutputFiles: res.OutputFiles}, nil
}

// Health asks the adapter process for its health, starting it first if it is
// down. A ctx without a deadline gets stdioHealthTimeout.
func (s *StdioAdapter) Health(ctx context.Context) (HealthStatus, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, stdioHealthTimeout)
		defer cancel()
	}
	p, err := s.running()
	if err != nil {
		return HealthStatus{}, err
	}
	var st HealthStatus
	if err := s.request(ctx, p, MethodHealthCheck, struct{}{}, "", &st); err != nil {
		return HealthStatus{}, err
	}
	return st, nil
}

// Close stops the adapter process: its stdin is closed so it can finish and
// exit, and it is killed if it has not within a short grace. Calls after Close
// fail with TOOL_UNAVAILABLE.
func (s *StdioAdapter) Close() error {
	s.mu.Lock()
	s.closed = true
	p := s.proc
	s.mu.Unlock()
	if p != nil {
		p.stop()
	}
	return nil
}

// running returns the live process, starting a new one if the last exited.
func (s *StdioAdapter) running() (*stdioProc, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, protocol.Unavailable("adapter %q is closed", s.id)
	}
	if s.proc != nil && !s.proc.exited() {
		return s.proc, nil
	}
	p, err := s.start()
	if err != nil {
		why := "it is down and could not be restarted"
		if s.proc != nil {
			why = fmt.Sprintf("it %s and could not be restarted", s.proc.exitDesc)
		}
		return nil, protocol.Unavailable("adapter %q: %s: %v", s.id, why, err)
	}
	s.proc = p
	return p, nil
}

// request sends one request to p and decodes its result into out. Errors are
// *protocol.Error (the adapter's own, or a transient one if the process died)
// or ctx's error.
func (s *StdioAdapter) request(ctx context.Context, p *stdioProc, method string, params any, toolID string, out any) error {
	id := strconv.FormatInt(s.nextID.Add(1), 10)
	rawParams, err := json.Marshal(params)
	if err != nil {
		return protocol.Invalid("%s %s: the arguments cannot be encoded as JSON: %v", method, toolID, err)
	}
	line, err := json.Marshal(RPCRequest{JSONRPC: "2.0", ID: json.RawMessage(strconv.Quote(id)), Method: method, Params: rawParams})
	if err != nil {
		return protocol.Invalid("%s %s: the request cannot be encoded as JSON: %v", method, toolID, err)
	}
	if len(line) > MaxStdioLineBytes {
		return protocol.Invalid("%s %s: the request is %d bytes, over the %d MiB a stdio message may carry; pass large inputs as files and send their paths",
			method, toolID, len(line), MaxStdioLineBytes>>20)
	}
	what := method
	if toolID != "" {
		what += " " + toolID
	}

	ch, ok := p.await(id)
	if !ok {
		return p.exitError(s.id, what)
	}
	defer p.forget(id)

	written := make(chan error, 1)
	go func() { written <- p.writeLine(line) }()
	select {
	case err := <-written:
		if err != nil {
			// A broken pipe means the process is going; say how it went.
			select {
			case <-p.done:
				return p.exitError(s.id, what)
			case <-time.After(stdioExitGrace):
				return protocol.Transient("adapter %q: sending %s failed: %v; the next call restarts the adapter", s.id, what, err)
			case <-ctx.Done():
				return fmt.Errorf("adapter %q: %s: %w", s.id, what, ctx.Err())
			}
		}
	case <-p.done:
		return p.exitError(s.id, what)
	case <-ctx.Done():
		go func() { // if the request does go out, say nobody waits for it
			if <-written == nil {
				p.notifyCancelled(id, ctx.Err())
			}
		}()
		return fmt.Errorf("adapter %q: %s: %w", s.id, what, ctx.Err())
	}

	var resp RPCResponse
	select {
	case resp = <-ch:
	case <-p.done:
		select { // the answer may have come just before the exit
		case resp = <-ch:
		default:
			return p.exitError(s.id, what)
		}
	case <-ctx.Done():
		go p.notifyCancelled(id, ctx.Err())
		return fmt.Errorf("adapter %q: %s: %w", s.id, what, ctx.Err())
	}

	if resp.Error != nil {
		return resp.Error.ProtocolError(toolID)
	}
	if isAbsent(resp.Result) {
		return protocol.Transient("adapter %q answered %s with neither a result nor an error", s.id, what)
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return &protocol.Error{Code: protocol.InternalError, ToolID: toolID,
			Details: fmt.Sprintf("adapter %q answered %s with a result that does not decode: %v", s.id, what, err)}
	}
	return nil
}

// start runs the command and the goroutine that reads its answers.
func (s *StdioAdapter) start() (*stdioProc, error) {
	cmd := exec.Command(s.command[0], s.command[1:]...)
	cmd.Env = append(os.Environ(), s.env...)
	stderr := &prefixWriter{prefix: []byte("[adapter " + s.id + "] "), w: os.Stderr}
	cmd.Stderr = stderr
	// A grandchild holding stderr open must not keep Wait from returning.
	cmd.WaitDelay = stdioExitGrace
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("running %q: %w", s.command[0], err)
	}
	p := &stdioProc{
		cmd:     cmd,
		stdin:   stdin,
		stdout:  stdout,
		stderr:  stderr,
		pending: map[string]chan RPCResponse{},
		done:    make(chan struct{}),
	}
	go p.readLoop()
	return p, nil
}

// stdioProc is one run of the adapter process.
type stdioProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *prefixWriter

	writeMu sync.Mutex

	mu       sync.Mutex
	pending  map[string]chan RPCResponse // nil once the process has exited
	exitDesc string                      // how it ended, set before done closes

	done     chan struct{} // closed once the process has exited and been reaped
	stopOnce sync.Once
}

func (p *stdioProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// await registers a call waiting for the answer with this id.
func (p *stdioProc) await(id string) (chan RPCResponse, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending == nil {
		return nil, false
	}
	ch := make(chan RPCResponse, 1)
	p.pending[id] = ch
	return ch, true
}

func (p *stdioProc) forget(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pending, id)
}

func (p *stdioProc) writeLine(line []byte) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	_, err := p.stdin.Write(append(line, '\n'))
	return err
}

// notifyCancelled tells the adapter nobody waits for request id any more, so
// it can stop the work. Best effort: the process may be gone.
func (p *stdioProc) notifyCancelled(id string, why error) {
	params, _ := json.Marshal(CancelledParams{RequestID: json.RawMessage(strconv.Quote(id)), Reason: why.Error()})
	line, _ := json.Marshal(RPCRequest{JSONRPC: "2.0", Method: MethodCancelled, Params: params})
	_ = p.writeLine(line)
}

// exitError is the error of a call cut off by the process ending: retryable,
// since the tool may well work in a fresh process.
func (p *stdioProc) exitError(adapterID, what string) *protocol.Error {
	p.mu.Lock()
	desc := p.exitDesc
	p.mu.Unlock()
	if desc == "" {
		desc = "stopped"
	}
	return protocol.Transient("adapter %q (%s) %s while %s was in flight, so the call did not complete; the next call restarts the adapter",
		adapterID, p.cmd.Path, desc, what)
}

// readLoop routes each answer to the call waiting on its id, then reaps the
// process once its stdout ends and fails whatever is still waiting.
func (p *stdioProc) readLoop() {
	br := bufio.NewReaderSize(p.stdout, 64<<10)
	killed := ""
	for {
		line, size, tooLarge, err := readLine(br, MaxStdioLineBytes)
		if err != nil {
			break
		}
		if tooLarge {
			killed = fmt.Sprintf("was stopped for writing a %d-byte line, over the %d MiB limit", size, MaxStdioLineBytes>>20)
			_ = p.cmd.Process.Kill()
			break
		}
		p.route(line)
	}

	waited := make(chan error, 1)
	go func() { waited <- p.cmd.Wait() }()
	var werr error
	select {
	case werr = <-waited:
	case <-time.After(stdioExitGrace):
		// It closed its stdout but lives on; it cannot answer, so end it.
		_ = p.cmd.Process.Kill()
		werr = <-waited
	}
	p.stderr.flush()
	desc := killed
	if desc == "" {
		desc = describeExit(werr)
	}
	p.mu.Lock()
	p.exitDesc = desc
	p.pending = nil
	p.mu.Unlock()
	close(p.done)
}

func (p *stdioProc) route(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var resp RPCResponse
	var probe struct {
		Method string `json:"method"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		p.stderr.logf("ignoring a line on stdout that is not a JSON-RPC message (%v); only protocol messages may go to stdout, logs belong on stderr", err)
		return
	}
	if json.Unmarshal(line, &probe) == nil && probe.Method != "" {
		return // a notification from the adapter, such as tool/result progress
	}
	var id string
	if json.Unmarshal(resp.ID, &id) != nil {
		if resp.Error != nil {
			p.stderr.logf("the adapter could not read a request: %d %s: %s", resp.Error.Code, resp.Error.Message, errorDetails(resp.Error))
		} else {
			p.stderr.logf("ignoring an answer with id %s, which no request carried", resp.ID)
		}
		return
	}
	p.mu.Lock()
	ch := p.pending[id]
	delete(p.pending, id)
	p.mu.Unlock()
	if ch != nil {
		ch <- resp // buffered; each id is answered once
	}
}

// stop closes stdin so the process can exit on its own, then kills it if it
// has not within stdioExitGrace.
func (p *stdioProc) stop() {
	p.stopOnce.Do(func() {
		_ = p.stdin.Close()
		select {
		case <-p.done:
			return
		case <-time.After(stdioExitGrace):
		}
		_ = p.cmd.Process.Kill()
		select {
		case <-p.done:
		case <-time.After(stdioExitGrace):
			// Something else holds its stdout open; stop reading it.
			_ = p.stdout.Close()
			<-p.done
		}
	})
}

func errorDetails(e *RPCError) string {
	if e.Data != nil {
		return e.Data.Details
	}
	return ""
}

// describeExit says how a process ended, for error messages.
func describeExit(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exited with exit status 0"
	case errors.As(err, &ee):
		if ee.Exited() {
			return fmt.Sprintf("exited with exit status %d", ee.ExitCode())
		}
		return "was ended by " + ee.String()
	default:
		return "ended: " + err.Error()
	}
}

// prefixWriter copies an adapter's stderr to ours a line at a time, each line
// prefixed with the adapter's id, so interleaved logs stay attributable.
type prefixWriter struct {
	prefix []byte
	w      io.Writer

	mu  sync.Mutex
	buf []byte
}

func (pw *prefixWriter) Write(b []byte) (int, error) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	pw.buf = append(pw.buf, b...)
	for {
		i := bytes.IndexByte(pw.buf, '\n')
		if i < 0 {
			break
		}
		pw.emit(pw.buf[:i+1])
		pw.buf = pw.buf[i+1:]
	}
	if len(pw.buf) > 64<<10 { // a very long unterminated line: flush it anyway
		pw.emit(append(pw.buf, '\n'))
		pw.buf = nil
	}
	return len(b), nil
}

func (pw *prefixWriter) emit(line []byte) {
	out := make([]byte, 0, len(pw.prefix)+len(line))
	out = append(append(out, pw.prefix...), line...)
	_, _ = pw.w.Write(out)
}

// flush writes a last line that had no newline.
func (pw *prefixWriter) flush() {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if len(pw.buf) > 0 {
		pw.emit(append(pw.buf, '\n'))
		pw.buf = nil
	}
}

// logf writes a note about the adapter to stderr under its prefix.
func (pw *prefixWriter) logf(format string, args ...any) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	pw.emit([]byte(fmt.Sprintf(format, args...) + "\n"))
}
