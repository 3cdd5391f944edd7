package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The seed corpora are in testdata/fuzz/<target>; plain go test runs them.
// A short fuzzing run of the screen (the dispatcher's target, fed by
// testdata/fuzz/FuzzDispatch, is in ./dispatchfuzz):
//
//	go test ./mcpserver -run '^$' -fuzz '^FuzzScreen$' -fuzztime 30s

// FuzzScreen feeds hostile input to the stdio line reader and the screen every
// frame passes (the limits of frames.go): whatever it is, a frame is either
// answered with a well-formed JSON-RPC error, routed to the legacy dialect, or
// passed on as a message the SDK can decode within the limits.
func FuzzScreen(f *testing.F) {
	f.Fuzz(func(t *testing.T, input []byte, batches bool) {
		err := readLines(bytes.NewReader(input), func(line []byte, tooLong bool) error {
			if tooLong || len(line) == 0 || len(line) > MaxFrameBytes || !bytes.Equal(line, bytes.TrimSpace(line)) || bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("readLines gave %q (tooLong %v)", line, tooLong)
			}
			checkVerdict(t, line, screen(line, batches))
			return nil
		})
		if err != nil {
			t.Fatalf("readLines: %v", err)
		}
		checkVerdict(t, input, screen(input, batches)) // an HTTP body is not split
	})
}

func checkVerdict(t *testing.T, frame []byte, v verdict) {
	t.Helper()
	switch {
	case v.reply != nil:
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(v.reply, &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error == nil || resp.Error.Message == "" {
			t.Fatalf("reply %q to %q is not a JSON-RPC error (%v)", v.reply, frame, err)
		}
		if resp.Error.Code != -32700 && resp.Error.Code != -32600 {
			t.Fatalf("reply to %q has code %d", frame, resp.Error.Code)
		}
		if v.status != http.StatusBadRequest && v.status != http.StatusRequestEntityTooLarge {
			t.Fatalf("reply to %q has HTTP status %d", frame, v.status)
		}
		if id := string(resp.ID); id != "null" && idOf([]byte(`{"id":`+id+`}`)) == nil {
			t.Fatalf("reply to %q has id %s", frame, id)
		}
	case v.legacy != nil:
		if !legacyMethods[v.legacy.Method] {
			t.Fatalf("%q routed to the legacy dialect as %q", frame, v.legacy.Method)
		}
		if id := v.legacy.ID; len(id) > 0 && string(id) != "null" && idOf([]byte(`{"id":`+string(id)+`}`)) == nil {
			t.Fatalf("%q routed to the legacy dialect with id %s", frame, id)
		}
	default:
		if len(frame) > MaxFrameBytes || nestingDepth(frame) > MaxJSONDepth {
			t.Fatalf("%q passed on beyond the limits", frame)
		}
		trimmed := bytes.TrimSpace(frame)
		if len(trimmed) > 0 && trimmed[0] == '[' {
			var batch []json.RawMessage
			if err := json.Unmarshal(trimmed, &batch); err != nil || len(batch) == 0 || len(batch) > MaxBatch {
				t.Fatalf("batch %q passed on (%d messages, %v)", frame, len(batch), err)
			}
			for _, m := range batch {
				if _, err := jsonrpc.DecodeMessage(m); err != nil {
					t.Fatalf("batch %q passed on with an undecodable message: %v", frame, err)
				}
			}
			return
		}
		if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
			t.Fatalf("%q passed on but the SDK cannot decode it: %v", frame, err)
		}
	}
}

// frameBound is how long any one frame may take to be answered or
// ignored: the slowest tool on this stack sleeps at most a second.
const frameBound = 15 * time.Second

// postAnswer is one POST's status, headers and the JSON-RPC messages in
// its body (a JSON body, or the data lines of an event stream).
type postAnswer struct {
	StatusCode int
	Header     http.Header
	Messages   [][]byte
}

func mcpPost(t *testing.T, client *http.Client, base, session, body string) postAnswer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	}
	return do(t, client, req)
}

func rpcPost(t *testing.T, client *http.Client, base, body string) postAnswer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/rpc", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return do(t, client, req)
}

func do(t *testing.T, client *http.Client, req *http.Request) postAnswer {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v (no answer within %s?)", req.Method, req.URL.Path, err, frameBound)
	}
	defer resp.Body.Close()
	out := postAnswer{StatusCode: resp.StatusCode, Header: resp.Header}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, MaxFrameBytes+1024)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out.Messages = append(out.Messages, []byte(data))
			}
		}
		return out
	}
	body, _ := io.ReadAll(resp.Body)
	if len(bytes.TrimSpace(body)) > 0 {
		out.Messages = append(out.Messages, body)
	}
	return out
}

// answerTo is the message answering id, or nil.
func answerTo(a postAnswer, id string) []byte {
	for _, m := range a.Messages {
		var msg struct {
			ID any `json:"id"`
		}
		if json.Unmarshal(m, &msg) == nil && msg.ID == id {
			return m
		}
	}
	return nil
}
