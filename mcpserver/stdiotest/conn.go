// Package stdiotest runs a stdio MCP server on pipes and talks to it as a
// client process would: frames in as lines, answers awaited by id. It
// depends on nothing of the server but ServeStdio, so the server's own
// tests and the fuzz package share it.
package stdiotest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"
)

// Server is what is served: ServeStdio reads frames from in and writes
// answers to out until in ends.
type Server interface {
	ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error
}

// Conn is one ServeStdio session on pipes.
type Conn struct {
	in    *io.PipeWriter
	lines chan []byte
	done  chan error
	// early are answers read while awaiting another, by id.
	early map[string][]byte
}

// Serve starts s on pipes.
func Serve(t testing.TB, s Server) *Conn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &Conn{in: inW, lines: make(chan []byte, 1024), done: make(chan error, 1), early: map[string][]byte{}}
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

// Send writes frames as lines; it fails the test if the server stops
// reading (10 s without taking a line).
func (c *Conn) Send(t testing.TB, frames ...[]byte) {
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
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio stopped reading its input")
	}
}

// Await reads lines until the answer to id (as JSON, quotes and all),
// returning it and the messages without an id (notifications) that came
// before it. Answers come in any order: those to other ids are kept for
// their own Await.
func (c *Conn) Await(t testing.TB, id string, within time.Duration) (answer []byte, notes [][]byte) {
	t.Helper()
	if line, ok := c.early[id]; ok {
		delete(c.early, id)
		return line, nil
	}
	deadline := time.After(within)
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
			got, ok := m["id"]
			switch {
			case !ok:
				notes = append(notes, line)
			case string(got) == id:
				return line, notes
			default:
				c.early[string(got)] = line
			}
		case <-deadline:
			t.Fatalf("no answer to %s within %s", id, within)
		}
	}
}

// Close ends the input and waits (20 s at most) for ServeStdio to return.
func (c *Conn) Close(t testing.TB) {
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
	case <-time.After(20 * time.Second):
		t.Fatal("ServeStdio did not return after its input ended")
	}
}

// Lines is every line the server writes, for a test that reads them
// itself instead of awaiting answers by id.
func (c *Conn) Lines() <-chan []byte { return c.lines }
