package adapters_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/protocol"
)

// serve serves a over a test HTTP server and dials it.
func serve(t *testing.T, a adapters.Adapter) (*adapters.HTTPAdapter, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(adapters.HTTPHandler(a))
	t.Cleanup(srv.Close)
	c, err := adapters.DialHTTP(context.Background(), a.ID(), srv.URL)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	return c, srv
}

// pair is the fixture twice, in process and over HTTP, each with its own
// attempt counters so the same calls give the same answers.
func pair(t *testing.T) (local, viaHTTP adapters.Adapter) {
	c, _ := serve(t, &adaptertest.Fixture{})
	return &adaptertest.Fixture{}, c
}

func TestManifestsAndIdentity(t *testing.T) {
	local, viaHTTP := pair(t)
	if !reflect.DeepEqual(viaHTTP.Manifests(), local.Manifests()) {
		t.Fatalf("manifests differ:\nremote     %+v\nin process %+v", viaHTTP.Manifests(), local.Manifests())
	}
	if viaHTTP.ID() != "fixture" || viaHTTP.Version() != "test" {
		t.Fatalf("ID %q, Version %q", viaHTTP.ID(), viaHTTP.Version())
	}
	// The registry takes the client as it takes the adapter.
	if err := adapters.NewRegistry().Register(viaHTTP); err != nil {
		t.Fatal(err)
	}
}

func TestResultsAsInProcess(t *testing.T) {
	local, viaHTTP := pair(t)
	for _, args := range []string{`{"key":"a"}`, `{"key":"a"}`, `{}`} {
		want, err := local.Call(context.Background(), "fixture.echo", json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		got, err := viaHTTP.Call(context.Background(), "fixture.echo", json.RawMessage(args))
		if err != nil {
			t.Fatalf("remote %s: %v", args, err)
		}
		if !sameJSON(t, got.Data, want.Data) || !reflect.DeepEqual(got.OutputFiles, want.OutputFiles) {
			t.Fatalf("%s: remote %s %v, in process %s %v", args, got.Data, got.OutputFiles, want.Data, want.OutputFiles)
		}
	}
}

// Each class of failure reaches the caller with the code, details and
// retryability the adapter gave, which is all the retry policy reads.
func TestErrorsAsInProcess(t *testing.T) {
	local, viaHTTP := pair(t)
	cases := []struct {
		name, tool, args string
		code             protocol.Code
		retryable        bool
	}{
		{"invalid params", "fixture.echo", `{"key": 5}`, protocol.InvalidParams, false},
		{"refusal", "fixture.refuse", `{"key": "r"}`, protocol.ToolExecutionError, false},
		{"transient", "fixture.flaky", `{"key": "f", "fail_times": 2}`, protocol.ToolExecutionError, true},
		{"transient again", "fixture.flaky", `{"key": "f", "fail_times": 2}`, protocol.ToolExecutionError, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, lerr := local.Call(context.Background(), c.tool, json.RawMessage(c.args))
			_, rerr := viaHTTP.Call(context.Background(), c.tool, json.RawMessage(c.args))
			want, got := asProtocol(t, lerr), asProtocol(t, rerr)
			if want.Code != c.code || want.Retryable != c.retryable {
				t.Fatalf("the fixture changed: %v", lerr)
			}
			if got.Code != want.Code || got.Details != want.Details || got.Retryable != want.Retryable {
				t.Fatalf("remote %+v, in process %+v", got, want)
			}
		})
	}
	// The third attempt of flaky succeeds on both.
	if _, err := viaHTTP.Call(context.Background(), "fixture.flaky", json.RawMessage(`{"key": "f", "fail_times": 2}`)); err != nil {
		t.Fatalf("flaky after two failures: %v", err)
	}
}

// A call that runs out its deadline fails as the context's deadline, on
// both forms; the remote one also carries the server's TOOL_TIMEOUT.
func TestTimeoutAsInProcess(t *testing.T) {
	local, viaHTTP := pair(t)
	for name, a := range map[string]adapters.Adapter{"in process": local, "remote": viaHTTP} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		start := time.Now()
		_, err := a.Call(ctx, "fixture.timeout", json.RawMessage(`{}`))
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: %v, want the context's deadline", name, err)
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Fatalf("%s: took %s to give up", name, el)
		}
		var pe *protocol.Error
		if name == "remote" && (!errors.As(err, &pe) || pe.Code != protocol.ToolTimeout || pe.Retryable) {
			t.Fatalf("remote: %v, want TOOL_TIMEOUT too", err)
		}
	}
}

// observed reports the context each call ended with.
type observed struct {
	adapters.Adapter
	ended chan error
}

func (o *observed) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	res, err := o.Adapter.Call(ctx, toolID, args)
	o.ended <- ctx.Err()
	return res, err
}

// Cancelling the caller's context cancels the call on the server, promptly.
func TestCancellationReachesTheAdapter(t *testing.T) {
	served := &observed{Adapter: &adaptertest.Fixture{}, ended: make(chan error, 1)}
	c, _ := serve(t, served)
	for name, a := range map[string]adapters.Adapter{"in process": served, "remote": c} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, err := a.Call(ctx, "fixture.sleep", json.RawMessage(`{"sleep_ms": 60000}`))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v, want context.Canceled", name, err)
		}
		select {
		case got := <-served.ended:
			if !errors.Is(got, context.Canceled) {
				t.Fatalf("%s: the adapter's call ended with %v", name, got)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the adapter's call was not cancelled", name)
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Fatalf("%s: took %s", name, el)
		}
	}
}

func asProtocol(t *testing.T, err error) *protocol.Error {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("%v is not a *protocol.Error", err)
	}
	return pe
}

func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}
