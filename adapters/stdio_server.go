package adapters

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// MaxStdioLineBytes bounds one JSON-RPC message on the stdio transport, in
// either direction. One line is read whole into memory, so without a bound one
// runaway message could exhaust it; large inputs and outputs belong in files.
const MaxStdioLineBytes = 16 << 20

var nullID = json.RawMessage("null")

// ServeStdio serves adapter a over JSON-RPC 2.0, one message per line: requests
// on in, responses on out. This is how an adapter runs as its own executable
// (see StartStdio for the other end).
//
// Every request is handled in its own goroutine, so a slow tool does not hold
// up a health check; responses are written whole, one per line. A bad line is
// answered with an error and serving continues. ServeStdio returns nil at the
// end of in once the calls in flight have answered, or ctx.Err() when ctx ends
// (after the calls in flight, whose contexts are then cancelled, return). Call
// must honour its context for either to be prompt. A read blocked on in is
// abandoned, not interrupted, when ctx ends.
func ServeStdio(ctx context.Context, a Adapter, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &stdioServer{adapter: a, out: out, started: time.Now(), calls: map[string]*inflight{}}
	var wg sync.WaitGroup
	defer wg.Wait() // runs before cancel: at EOF, calls in flight finish with a live context

	type readResult struct {
		line     []byte
		tooLarge bool
		size     int
		err      error
	}
	lines := make(chan readResult)
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, size, tooLarge, err := readLine(br, MaxStdioLineBytes)
			select {
			case lines <- readResult{line, tooLarge, size, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()

	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case r := <-lines:
			switch {
			case errors.Is(r.err, io.EOF):
				wg.Wait()
				return s.writeError()
			case r.err != nil:
				return fmt.Errorf("serving adapter %q: reading requests: %w", a.ID(), r.err)
			case r.tooLarge:
				s.replyError(nullID, protocol.InvalidRequest, "request too large", "", fmt.Sprintf(
					"a request line of %d bytes exceeds the %d MiB limit; pass large inputs as files and send their paths",
					r.size, MaxStdioLineBytes>>20), false, 0)
			default:
				s.handleLine(ctx, r.line, &wg)
			}
		}
	}
}

type stdioServer struct {
	adapter Adapter
	started time.Time

	outMu    sync.Mutex
	out      io.Writer
	writeErr error

	mu             sync.Mutex
	calls          map[string]*inflight // by canonical request id, for notifications/cancelled
	lastInvocation *time.Time
}

type inflight struct{ cancel context.CancelFunc }

// handleLine answers one message. Requests run in their own goroutine;
// malformed messages are answered here, in order.
func (s *stdioServer) handleLine(ctx context.Context, line []byte, wg *sync.WaitGroup) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var req RPCRequest
	if err := json.Unmarshal(line, &req); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || !json.Valid(line) {
			s.replyError(nullID, protocol.ParseError, "Parse error", "", "the line is not valid JSON: "+err.Error(), false, 0)
			return
		}
		s.replyError(idOrNull(line), protocol.InvalidRequest, "Invalid request", "",
			`a request must be one JSON object with "jsonrpc": "2.0", "id", "method" and "params": `+err.Error(), false, 0)
		return
	}
	isNotification := req.ID == nil
	if !isNotification && !validID(req.ID) {
		s.replyError(nullID, protocol.InvalidRequest, "Invalid request", "", "id must be a string, a number or null", false, 0)
		return
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		if !isNotification {
			s.replyError(req.ID, protocol.InvalidRequest, "Invalid request", "",
				`a request needs "jsonrpc": "2.0" and a "method"`, false, 0)
		}
		return
	}
	if isNotification {
		// Notifications get no answer. The one that matters is a client
		// giving up on a call: stop the work nobody waits for.
		if req.Method == MethodCancelled {
			var p CancelledParams
			if json.Unmarshal(req.Params, &p) == nil && p.RequestID != nil {
				s.mu.Lock()
				if c := s.calls[canonicalID(p.RequestID)]; c != nil {
					c.cancel()
				}
				s.mu.Unlock()
			}
		}
		return
	}
	switch req.Method {
	case MethodToolList, MethodToolCall, MethodHealthCheck:
	default:
		s.replyError(req.ID, protocol.MethodNotFound, "Method not found", "", fmt.Sprintf(
			"unknown method %q; an adapter serves %s, %s and %s", req.Method, MethodToolList, MethodToolCall, MethodHealthCheck), false, 0)
		return
	}
	// A call is tracked before its goroutine starts, so a cancellation on the
	// very next line finds it.
	callCtx, untrack := ctx, func() {}
	if req.Method == MethodToolCall {
		callCtx, untrack = s.track(ctx, req.ID)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer untrack()
		switch req.Method {
		case MethodToolList:
			s.toolList(req)
		case MethodToolCall:
			s.toolCall(ctx, callCtx, req)
		case MethodHealthCheck:
			s.healthCheck(ctx, req)
		}
	}()
}

// track registers a call for notifications/cancelled; untrack ends it.
func (s *stdioServer) track(ctx context.Context, id json.RawMessage) (callCtx context.Context, untrack func()) {
	callCtx, cancel := context.WithCancel(ctx)
	key, me := canonicalID(id), &inflight{cancel: cancel}
	s.mu.Lock()
	s.calls[key] = me
	s.mu.Unlock()
	return callCtx, func() {
		cancel()
		s.mu.Lock()
		if s.calls[key] == me {
			delete(s.calls, key)
		}
		s.mu.Unlock()
	}
}

func (s *stdioServer) toolList(req RPCRequest) {
	var p ToolListParams
	if !isAbsent(req.Params) {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			s.replyError(req.ID, protocol.InvalidParams, "Invalid params", "", "tool/list params must be {\"capability\"?: string}: "+err.Error(), false, 0)
			return
		}
	}
	tools := []Manifest{}
	for _, m := range s.adapter.Manifests() {
		if p.Capability == "" || m.Capability == p.Capability {
			tools = append(tools, m)
		}
	}
	s.reply(req.ID, ToolListResult{Tools: tools})
}

// toolCall runs one tool. ctx is the server's, callCtx the call's own (which
// a notifications/cancelled ends).
func (s *stdioServer) toolCall(ctx, callCtx context.Context, req RPCRequest) {
	var p ToolCallParams
	if isAbsent(req.Params) {
		s.replyError(req.ID, protocol.InvalidParams, "Invalid params", "", `tool/call needs params {"tool_id", "arguments"}`, false, 0)
		return
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		s.replyError(req.ID, protocol.InvalidParams, "Invalid params", "",
			`tool/call params must be {"tool_id", "arguments", "timeout_seconds"?, "trace_id"?}: `+err.Error(), false, 0)
		return
	}
	if p.ToolID == "" {
		s.replyError(req.ID, protocol.InvalidParams, "Invalid params", "", "tool/call needs a tool_id; tool/list names the tools", false, 0)
		return
	}
	var ids []string
	known := false
	for _, m := range s.adapter.Manifests() {
		ids = append(ids, m.ToolID)
		known = known || m.ToolID == p.ToolID
	}
	if !known {
		details := fmt.Sprintf("adapter %q has no tool %q", s.adapter.ID(), p.ToolID)
		if near := closest(p.ToolID, ids, 3); len(near) > 0 {
			details += fmt.Sprintf("; did you mean %q?", near)
		} else {
			details += "; tool/list names its tools"
		}
		s.replyError(req.ID, protocol.MethodNotFound, "Method not found", p.ToolID, details, false, 0)
		return
	}
	if p.TimeoutSeconds != 0 && (p.TimeoutSeconds < MinTimeoutSeconds || p.TimeoutSeconds > MaxTimeoutSeconds) {
		s.replyError(req.ID, protocol.InvalidParams, "Invalid params", p.ToolID, fmt.Sprintf(
			"timeout_seconds %d is outside %d..%d", p.TimeoutSeconds, MinTimeoutSeconds, MaxTimeoutSeconds), false, 0)
		return
	}
	args := ArgumentsOrEmpty(p.Arguments)

	if p.TimeoutSeconds > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(callCtx, time.Duration(p.TimeoutSeconds)*time.Second)
		defer cancel()
	}
	now := time.Now()
	s.mu.Lock()
	s.lastInvocation = &now
	s.mu.Unlock()

	res, err := s.safeCall(callCtx, p.ToolID, args)
	durMS := float64(time.Since(now).Milliseconds())
	if err != nil {
		var pe *protocol.Error
		switch {
		case errors.As(err, &pe):
			toolID := pe.ToolID
			if toolID == "" {
				toolID = p.ToolID
			}
			s.replyError(req.ID, pe.Code, pe.Code.Message(), toolID, pe.Details, pe.Retryable, durMS)
		case p.TimeoutSeconds > 0 && errors.Is(callCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
			// Not retryable: a call that ran out its limit would likely do so again.
			s.replyError(req.ID, protocol.ToolTimeout, fmt.Sprintf("Tool exceeded timeout of %ds", p.TimeoutSeconds), p.ToolID,
				fmt.Sprintf("execution exceeded the %d second limit: %v", p.TimeoutSeconds, err), false, durMS)
		default:
			// The adapter could not say how it failed, so it may work next time.
			s.replyError(req.ID, protocol.ToolExecutionError, protocol.ToolExecutionError.Message(), p.ToolID, err.Error(), true, durMS)
		}
		return
	}
	if res != nil && res.Process != nil {
		// The adapter protocol carries data and files; a durable process
		// is run by the call's workflow, which only an in-process adapter
		// can hand it to.
		s.replyError(req.ID, protocol.ToolExecutionError, protocol.ToolExecutionError.Message(), p.ToolID,
			fmt.Sprintf("%s's work is a durable process, which runs only where the adapter is served in process; serve %s in the worker", p.ToolID, s.adapter.ID()), false, durMS)
		return
	}
	out := ToolCallResult{ToolID: p.ToolID, Status: "success", Data: json.RawMessage("{}"), DurationMS: durMS, OutputFiles: []string{}}
	if res != nil {
		if !isAbsent(res.Data) {
			out.Data = res.Data
		}
		if res.OutputFiles != nil {
			out.OutputFiles = res.OutputFiles
		}
	}
	s.reply(req.ID, out)
}

// safeCall turns a panicking tool into an INTERNAL_ERROR answer, so one bug
// in one tool does not take the adapter and every call in flight down with it.
func (s *stdioServer) safeCall(ctx context.Context, toolID string, args json.RawMessage) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &protocol.Error{Code: protocol.InternalError, ToolID: toolID,
				Details: fmt.Sprintf("adapter %q panicked in %s: %v", s.adapter.ID(), toolID, r)}
		}
	}()
	return s.adapter.Call(ctx, toolID, args)
}

func (s *stdioServer) healthCheck(ctx context.Context, req RPCRequest) {
	st, err := s.adapter.Health(ctx)
	if err != nil {
		var pe *protocol.Error
		if errors.As(err, &pe) {
			s.replyError(req.ID, pe.Code, pe.Code.Message(), pe.ToolID, pe.Details, pe.Retryable, 0)
		} else {
			s.replyError(req.ID, protocol.ToolUnavailable, protocol.ToolUnavailable.Message(), "",
				fmt.Sprintf("adapter %q failed its health check: %v", s.adapter.ID(), err), false, 0)
		}
		return
	}
	// Fill what the adapter left blank from what the server knows.
	if st.AdapterID == "" {
		st.AdapterID = s.adapter.ID()
	}
	if st.Version == "" {
		st.Version = s.adapter.Version()
	}
	if st.Status == "" {
		st.Status = "healthy"
	}
	if st.UptimeSeconds == 0 {
		st.UptimeSeconds = time.Since(s.started).Seconds()
	}
	if st.LastInvocation == nil {
		s.mu.Lock()
		st.LastInvocation = s.lastInvocation
		s.mu.Unlock()
	}
	s.reply(req.ID, st)
}

func (s *stdioServer) reply(id json.RawMessage, result any) {
	raw, err := json.Marshal(result)
	if err != nil {
		s.replyError(id, protocol.InternalError, "Internal error", "", "the result could not be encoded as JSON: "+err.Error(), false, 0)
		return
	}
	s.write(RPCResponse{JSONRPC: "2.0", ID: id, Result: raw})
}

func (s *stdioServer) replyError(id json.RawMessage, code protocol.Code, message, toolID, details string, retryable bool, durMS float64) {
	s.write(RPCResponse{JSONRPC: "2.0", ID: id, Error: &RPCError{
		Code:    int(code),
		Message: message,
		Data: &RPCErrorData{
			ErrorType:  code.Name(),
			ToolID:     toolID,
			Details:    details,
			DurationMS: durMS,
			Retryable:  retryable,
		},
	}})
}

// write sends one message as one line. A response too large for the client
// to read is replaced by an error saying so, or the client would wait forever.
func (s *stdioServer) write(resp RPCResponse) {
	line, err := json.Marshal(resp)
	if err == nil && len(line) > MaxStdioLineBytes {
		err = fmt.Errorf("the response is %d bytes, over the %d MiB a line may carry; write large outputs to files and return their paths in output_files",
			len(line), MaxStdioLineBytes>>20)
	}
	if err != nil {
		line, _ = json.Marshal(RPCResponse{JSONRPC: "2.0", ID: resp.ID, Error: &RPCError{
			Code: int(protocol.InternalError), Message: "Internal error",
			Data: &RPCErrorData{ErrorType: protocol.InternalError.Name(), Details: err.Error()},
		}})
	}
	line = append(line, '\n')
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if s.writeErr != nil {
		return
	}
	if _, err := s.out.Write(line); err != nil {
		s.writeErr = err
	}
}

func (s *stdioServer) writeError() error {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if s.writeErr != nil {
		return fmt.Errorf("serving adapter %q: writing responses: %w", s.adapter.ID(), s.writeErr)
	}
	return nil
}

// readLine reads one line, without its line ending. A line longer than max is
// read to its end and dropped (tooLarge, with its size), so the stream stays in
// step and memory stays bounded. A last line without a newline still counts.
func readLine(r *bufio.Reader, max int) (line []byte, size int, tooLarge bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		size += len(chunk)
		if !tooLarge {
			if len(line)+len(chunk) > max+2 { // +2 for "\r\n"
				tooLarge, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (!errors.Is(err, io.EOF) || size == 0) {
			return nil, size, false, err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > max {
			tooLarge, line = true, nil
		}
		return line, size, tooLarge, nil
	}
}

// isAbsent reports a missing or null JSON value.
func isAbsent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, nullID)
}

// validID reports whether raw is a JSON-RPC id: a string, a number or null.
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64, nil:
		return true
	}
	return false
}

// idOrNull recovers the id of a message that is not a valid request, so the
// error still reaches the caller waiting on it.
func idOrNull(line []byte) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) == nil && m["id"] != nil && validID(m["id"]) {
		return m["id"]
	}
	return nullID
}

// canonicalID is a request id as a map key: "7" and 7 stay distinct, spacing
// does not matter.
func canonicalID(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}
