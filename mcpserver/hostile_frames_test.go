package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/internal/hostile"
	"github.com/metaforge/metaforge/mcpserver/stdiotest"
	"github.com/metaforge/metaforge/protocol"
)

// hostileFrame is one frame of the catalogue; code, when not 0, is the
// JSON-RPC error it must be answered with on every transport.
type hostileFrame struct {
	name  string
	frame []byte
	code  int
}

// expectedCodes are the corpus frames with one right answer: those past a
// limit, unreadable, or not a request at all.
var expectedCodes = map[string]int{
	"nested_129": -32700, "truncated": -32700, "truncated_string": -32700,
	"batch_101": -32600, "empty_batch": -32600, "bare_null": -32600, "bare_number": -32600, "bare_string": -32600,
	"id_array": -32600, "id_bool": -32600, "id_object": -32600,
	"huge_int_id": -32600, "huge_number_id": -32600, "negative_float_id": -32600,
}

// hostileFrames are the dispatcher's fuzz seed corpus (the catalogue of
// hostile frames, testdata/fuzz/FuzzDispatch), the protocol edges, and a
// frame over 16 MiB, too big to keep as a file.
func hostileFrames(t *testing.T) []hostileFrame {
	files, err := filepath.Glob("testdata/fuzz/FuzzDispatch/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no hostile frames in testdata/fuzz/FuzzDispatch (%v)", err)
	}
	var out []hostileFrame
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(string(b), "\n", 3)
		lit := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(lines[1]), "[]byte("), ")")
		frame, err := strconv.Unquote(lit)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		base := filepath.Base(name)
		out = append(out, hostileFrame{base, []byte(frame), expectedCodes[base]})
	}
	for _, e := range badIDEdges {
		out = append(out, hostileFrame{e.name, []byte(e.frame), e.code})
	}
	big := append([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`), bytes.Repeat([]byte("a"), MaxFrameBytes)...)
	out = append(out, hostileFrame{"over 16 MiB", append(big, `"}}`...), -32600})
	return out
}

// wellFormed says what is wrong with the answers to a frame, or "": each
// is a JSON-RPC 2.0 message, an error has a code of the taxonomy, and the
// frame's expected code is among them.
func wellFormed(answers [][]byte, code int) string {
	found := code == 0
	var messages [][]byte
	for _, a := range answers {
		var batch []json.RawMessage
		if json.Unmarshal(a, &batch) == nil { // a batch's answers
			for _, m := range batch {
				messages = append(messages, m)
			}
			continue
		}
		messages = append(messages, a)
	}
	for _, a := range messages {
		var m struct {
			JSONRPC string           `json:"jsonrpc"`
			Error   *json.RawMessage `json:"error"`
		}
		if json.Unmarshal(a, &m) != nil || m.JSONRPC != "2.0" {
			return fmt.Sprintf("answered %.200q, not a JSON-RPC message", a)
		}
		if m.Error == nil {
			continue
		}
		c, msg := replyError(a)
		if _, known := protocol.CodeByName(c.Name()); !known {
			return fmt.Sprintf("answered code %d (%s), not one of the taxonomy", c, msg)
		}
		found = found || int(c) == code
	}
	if !found {
		return fmt.Sprintf("answered %.300q, want an error with code %d", answers, code)
	}
	return ""
}

// TestHostileFrames sends every hostile frame over /mcp, /rpc and stdio
// to the real stack: each is held when it is answered as JSON-RPC with the
// right code (or handled as what it is) and the server still answers its
// health check and ping after it.
func TestHostileFrames(t *testing.T) {
	s := realServer(t)
	tl := hostile.New(t, "frames")
	ts := httptest.NewServer(s.HTTPHandler())
	defer ts.Close()
	client := &http.Client{Timeout: frameBound}
	health := `{"jsonrpc":"2.0","id":"probe-health","method":"health/check"}`
	healthy := func(a []byte) bool {
		return bytes.Contains(a, []byte(`"result"`)) && bytes.Contains(a, []byte(`"status"`))
	}

	for _, f := range hostileFrames(t) {
		// /mcp, in a session of its own on the revision with batches.
		session := mcpPost(t, client, ts.URL, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`).Header.Get("Mcp-Session-Id")
		mcpPost(t, client, ts.URL, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		a := mcpPost(t, client, ts.URL, session, string(f.frame))
		switch {
		case a.StatusCode >= 500:
			tl.Failed("/mcp "+f.name, "HTTP %d", a.StatusCode)
		case wellFormed(a.Messages, f.code) != "":
			tl.Failed("/mcp "+f.name, "%s", wellFormed(a.Messages, f.code))
		case !healthy(answerTo(mcpPost(t, client, ts.URL, session, health), "probe-health")):
			tl.Failed("/mcp "+f.name, "no health check after it")
		case answerTo(mcpPost(t, client, ts.URL, session, `{"jsonrpc":"2.0","id":"probe-ping","method":"ping"}`), "probe-ping") == nil:
			tl.Failed("/mcp "+f.name, "no answer to ping after it")
		default:
			tl.Held("/mcp " + f.name)
		}

		a = rpcPost(t, client, ts.URL, string(f.frame))
		switch {
		case a.StatusCode >= 500:
			tl.Failed("/rpc "+f.name, "HTTP %d", a.StatusCode)
		case wellFormed(a.Messages, f.code) != "":
			tl.Failed("/rpc "+f.name, "%s", wellFormed(a.Messages, f.code))
		case !healthy(answerTo(rpcPost(t, client, ts.URL, health), "probe-health")):
			tl.Failed("/rpc "+f.name, "no health check after it")
		default:
			tl.Held("/rpc " + f.name)
		}

		tl.Check("stdio "+f.name, hostileOverStdio(t, s, f, health, healthy))
	}
}

// hostileOverStdio sends f on an initialized stdio session and reads what
// answers it until the health check after it is answered (and, for a frame
// with a right answer, until that came).
func hostileOverStdio(t *testing.T, s *Server, f hostileFrame, health string, healthy func([]byte) bool) error {
	c := stdiotest.Serve(t, s)
	defer c.Close(t)
	c.Send(t, []byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`))
	c.Await(t, `"init"`, frameBound)
	c.Send(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if bytes.IndexByte(f.frame, '\n') < 0 || len(f.frame) > MaxFrameBytes {
		c.Send(t, f.frame)
	} else {
		c.Send(t, bytes.Split(f.frame, []byte("\n"))...) // a line each, as a client writes them
	}
	c.Send(t, []byte(health), []byte(`{"jsonrpc":"2.0","id":"probe-ping","method":"ping"}`))
	var answers [][]byte
	deadline := time.After(frameBound)
	gotHealth, gotPing := false, false
	for !gotHealth || !gotPing || (f.code != 0 && wellFormed(answers, f.code) != "") {
		select {
		case line, ok := <-c.Lines():
			if !ok {
				return fmt.Errorf("stdout closed")
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(line, &m)
			switch string(m.ID) {
			case `"probe-health"`:
				if !healthy(line) {
					return fmt.Errorf("health check after it answered %s", line)
				}
				gotHealth = true
			case `"probe-ping"`:
				gotPing = true
			default:
				answers = append(answers, bytes.TrimSpace(line))
			}
		case <-deadline:
			return fmt.Errorf("within %s: health %v, ping %v, answers %.300q", frameBound, gotHealth, gotPing, answers)
		}
	}
	if msg := wellFormed(answers, f.code); msg != "" {
		return fmt.Errorf("%s", msg)
	}
	return nil
}
