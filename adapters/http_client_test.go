package adapters_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/protocol"
)

// A server that stops answering leaves idempotent calls retryable.
func TestUnreachableIsTransient(t *testing.T) {
	c, srv := serve(t, &adaptertest.Fixture{})
	srv.Close()
	_, err := c.Call(context.Background(), "fixture.echo", json.RawMessage(`{}`))
	if pe := asProtocol(t, err); pe.Code != protocol.ToolExecutionError || !pe.Retryable || !strings.Contains(pe.Details, srv.URL) {
		t.Fatalf("%v, want a retryable TOOL_EXECUTION_ERROR naming the server", err)
	}
}

// Something other than the adapter answering (a proxy's error page) is
// transient too.
func TestNotAnAnswerIsTransient(t *testing.T) {
	var broken atomic.Bool
	handler := adapters.HTTPHandler(&adaptertest.Fixture{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	c, err := adapters.DialHTTP(context.Background(), "fixture", srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	broken.Store(true)
	_, err = c.Call(context.Background(), "fixture.echo", json.RawMessage(`{}`))
	if pe := asProtocol(t, err); !pe.Retryable || !strings.Contains(pe.Details, "502") {
		t.Fatalf("%v, want a retryable error naming HTTP 502", err)
	}
}

func TestDialRefuses(t *testing.T) {
	_, srv := serve(t, &adaptertest.Fixture{})
	for name, c := range map[string]struct{ id, url, says string }{
		"another adapter": {"spice", srv.URL, `must declare adapter_id "spice"`},
		"not a URL":       {"fixture", "localhost:8104", "not an http:// or https:// URL"},
		"nobody there":    {"fixture", "http://127.0.0.1:1", "127.0.0.1:1"},
		"no adapter":      {"fixture", srv.URL + "/elsewhere", "404"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := adapters.DialHTTP(context.Background(), c.id, c.url)
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("Dial(%q, %q): %v, want an error saying %q", c.id, c.url, err, c.says)
			}
			t.Log(err)
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := adapters.DialHTTP(ctx, "fixture", srv.URL); !errors.Is(err, context.Canceled) {
		t.Fatalf("Dial with a cancelled context: %v", err)
	}
}
