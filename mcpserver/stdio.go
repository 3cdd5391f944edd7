package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/protocol"
)

// ServeStdio serves MCP on newline-delimited JSON-RPC until in ends or ctx
// is done. Only protocol messages are written to out. Each line is
// screened first: one that breaks a limit or is not JSON-RPC is answered
// with an error and the connection goes on; legacy requests are answered
// here; the rest flow to the SDK through a pipe.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &lineWriter{w: out}
	toSDK, fromScreen := io.Pipe()
	session, err := s.mcp.Connect(ctx, &mcp.IOTransport{Reader: toSDK, Writer: nopWriteCloser{w}, MaxLineLength: MaxFrameBytes + 1}, nil)
	if err != nil {
		return fmt.Errorf("start MCP session on stdio: %w", err)
	}
	sessionDone := make(chan error, 1)
	go func() { sessionDone <- session.Wait() }()

	var legacy sync.WaitGroup
	readDone := make(chan error, 1)
	initialized := false // an initialize went on to the SDK
	go func() {
		readDone <- readLines(in, func(line []byte, tooLong bool) error {
			if tooLong {
				w.writeLine(errorResponse(nil, protocol.InvalidRequest, fmt.Sprintf("request too large: a message line is over %d bytes (16 MiB); send large data as a file path", MaxFrameBytes), nil))
				return nil
			}
			v := screenMCP(line, sessionHasBatches(session), initialized)
			switch {
			case v.reply != nil:
				w.writeLine(v.reply)
			case v.ignore:
			case v.legacy != nil:
				legacy.Go(func() {
					if resp := s.answerLegacyStreaming(ctx, v.legacy, w.writeLine); resp != nil {
						w.writeLine(resp)
					}
				})
			default:
				initialized = initialized || sendsInitialize(line)
				s.noteLateAnswer(session.ID(), line)
				if _, err := fromScreen.Write(append(v.forward(line), '\n')); err != nil {
					return err
				}
			}
			return nil
		})
	}()

	select {
	case readErr := <-readDone:
		legacy.Wait()
		_ = fromScreen.Close()
		waitErr := <-sessionDone
		if readErr != nil && !errors.Is(readErr, io.ErrClosedPipe) {
			return readErr
		}
		if waitErr != nil && !errors.Is(waitErr, io.EOF) && ctx.Err() == nil {
			return waitErr
		}
		return nil
	case waitErr := <-sessionDone:
		// The SDK ended the session while input was still open. Say so
		// rather than sit deaf on a connection nobody answers.
		_ = fromScreen.CloseWithError(io.ErrClosedPipe)
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("the MCP session ended while stdin was open: %v", waitErr)
	}
}

// sendsInitialize says whether a frame that passed the screen holds an
// initialize request.
func sendsInitialize(frame []byte) bool {
	var batch []json.RawMessage
	if json.Unmarshal(frame, &batch) != nil {
		batch = []json.RawMessage{frame}
	}
	for _, m := range batch {
		if req := requestOf(m); req != nil && req.Method == "initialize" {
			return true
		}
	}
	return false
}

// sessionHasBatches says whether the session negotiated a revision with
// JSON-RPC batches. Before initialize nothing is negotiated: no batches.
func sessionHasBatches(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && batchesAllowed(p.ProtocolVersion)
}

// readLines calls fn for each non-blank line of r. A line longer than
// MaxFrameBytes is skipped to its end and reported as tooLong, so one
// hostile line costs its own answer and nothing else.
func readLines(r io.Reader, fn func(line []byte, tooLong bool) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > MaxFrameBytes+1 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		line := bytes.TrimSpace(buf)
		if tooLong || len(line) > 0 {
			if ferr := fn(line, tooLong); ferr != nil {
				return ferr
			}
		}
		buf, tooLong = buf[:0], false
		if err != nil { // io.EOF
			return nil
		}
	}
}

// lineWriter serialises whole lines from the SDK and from the screen onto
// one stream, so no two messages interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write is called by the SDK with one complete message line at a time.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lineWriter) writeLine(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(append(b, '\n'))
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
