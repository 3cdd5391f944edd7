package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// lazyStream lets a POST's answer stay plain JSON unless the server has
// something to say before it (a held call's question, progress), so a call
// that is not held keeps its JSON response. The SDK answers every POST as
// text/event-stream, one event per Write; this holds back a lone response
// event and, if nothing else came, sends it as application/json when the
// handler ends. The first event that is not a response switches the answer to
// a stream.
type lazyStream struct {
	w         http.ResponseWriter
	status    int
	held      []byte // the data of a response event not yet sent
	streaming bool   // writes pass straight through
}

func (l *lazyStream) Header() http.Header { return l.w.Header() }

func (l *lazyStream) WriteHeader(code int) {
	if l.streaming {
		l.w.WriteHeader(code)
		return
	}
	l.status = code
	if code != http.StatusOK || !l.isEventStream() {
		l.passThrough()
	}
}

func (l *lazyStream) Write(p []byte) (int, error) {
	if !l.streaming && !l.isEventStream() {
		l.passThrough()
	}
	if l.streaming {
		return l.w.Write(p)
	}
	if data, ok := responseEvent(p); ok && l.held == nil {
		l.held = data
		return len(p), nil
	}
	l.startStream()
	return l.w.Write(p)
}

// Flush flushes only a stream: a held response waits for the end.
func (l *lazyStream) Flush() {
	if l.streaming {
		_ = http.NewResponseController(l.w).Flush()
	}
}

func (l *lazyStream) isEventStream() bool {
	return l.w.Header().Get("Content-Type") == "text/event-stream"
}

func (l *lazyStream) passThrough() {
	l.streaming = true
	if l.status != 0 {
		l.w.WriteHeader(l.status)
	}
}

// startStream commits to text/event-stream, sending any held response
// first.
func (l *lazyStream) startStream() {
	l.streaming = true
	l.w.WriteHeader(http.StatusOK)
	if l.held != nil {
		_, _ = l.w.Write(append(append([]byte("event: message\ndata: "), l.held...), "\n\n"...))
		l.held = nil
	}
}

// finish sends a lone held response as JSON once the handler is done.
func (l *lazyStream) finish() {
	if l.streaming {
		return
	}
	if l.held == nil {
		if l.status != 0 {
			l.w.WriteHeader(l.status)
		}
		return
	}
	h := l.w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Connection")
	l.w.WriteHeader(http.StatusOK)
	_, _ = l.w.Write(l.held)
}

// responseEvent is the data of one SSE event if it carries a JSON-RPC
// response (an id and a result or error, no method).
func responseEvent(p []byte) ([]byte, bool) {
	var data []byte
	for _, line := range bytes.Split(p, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			if data != nil {
				return nil, false
			}
			data = d
		} else if len(line) > 0 && !bytes.HasPrefix(line, []byte("event:")) {
			return nil, false // an id:, retry: or comment line: leave it as a stream
		}
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if data == nil || json.Unmarshal(data, &msg) != nil || msg.Method != "" || len(msg.ID) == 0 || (msg.Result == nil && msg.Error == nil) {
		return nil, false
	}
	return bytes.Clone(data), true
}
