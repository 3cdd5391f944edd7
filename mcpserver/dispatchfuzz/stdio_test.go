package dispatchfuzz

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/metaforge/metaforge/mcpserver"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// stdioConn is a ServeStdio session on pipes, as a client process sees it.
type stdioConn struct {
	in    *io.PipeWriter
	lines chan []byte
	done  chan error
	early map[string][]byte // answers read while awaiting another, by id
}

func serveStdioPipes(t *testing.T, s *mcpserver.Server) *stdioConn {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioConn{in: inW, lines: make(chan []byte, 1024), done: make(chan error, 1), early: map[string][]byte{}}
	go func() {
		c.done <- s.ServeStdio(context.Background(), inR, outW)
		_ = outW.Close()
	}()
	go func() {
		defer close(c.lines)
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				c.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

// send writes frames as lines; it fails the test if the server stops reading.
func (c *stdioConn) send(t *testing.T, frames ...[]byte) {
	t.Helper()
	written := make(chan error, 1)
	go func() {
		var err error
		for _, f := range frames {
			if _, err = c.in.Write(append(f, '\n')); err != nil {
				break
			}
		}
		written <- err
	}()
	select {
	case err := <-written:
		if err != nil {
			t.Fatalf("write to ServeStdio: %v", err)
		}
	case <-time.After(frameBound):
		t.Fatal("ServeStdio stopped reading its input")
	}
}

// await reads lines until the answer to id (as JSON, quotes and all).
func (c *stdioConn) await(t *testing.T, id string) []byte {
	t.Helper()
	if line, ok := c.early[id]; ok {
		delete(c.early, id)
		return line
	}
	deadline := time.After(frameBound)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("stdout closed before the answer to %s", id)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("stdout line %q is not one JSON object: %v", line, err)
			}
			if got, ok := m["id"]; ok {
				if string(got) == id {
					return line
				}
				c.early[string(got)] = line
			}
		case <-deadline:
			t.Fatalf("no answer to %s within %s", id, frameBound)
		}
	}
}

// close ends the input and waits for ServeStdio to return.
func (c *stdioConn) close(t *testing.T) {
	t.Helper()
	_ = c.in.Close()
	go func() {
		for range c.lines { // keep stdout drained until it closes
		}
	}()
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	case <-time.After(frameBound):
		t.Fatal("ServeStdio did not return after its input ended")
	}
}
