package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
)

// gateway is one real MetaForge MCP server over HTTP for the package's
// connect and doctor tests, with an adapter whose health can be switched
// off.
type gateway struct {
	stack *mcptest.Stack
	bench *benchAdapter
	url   string // the server's root, without /mcp
}

var (
	gatewayOnce   sync.Once
	sharedGateway *gateway
)

func startGateway(t *testing.T) *gateway {
	t.Helper()
	gatewayOnce.Do(func() {
		bench := &benchAdapter{}
		st := mcptest.Start(mcptest.Shared{TB: t}, bench)
		srv := httptest.NewServer(st.Server.HTTPHandler())
		sharedGateway = &gateway{stack: st, bench: bench, url: srv.URL}
	})
	if sharedGateway == nil {
		t.Fatal("the shared gateway did not start")
	}
	return sharedGateway
}

// benchAdapter registers no tools; its Health fails while down is set, so
// health.check reports it unreachable.
type benchAdapter struct{ down atomic.Bool }

func (*benchAdapter) ID() string                     { return "bench" }
func (*benchAdapter) Version() string                { return "0.0.1" }
func (*benchAdapter) Manifests() []adapters.Manifest { return nil }
func (*benchAdapter) Call(context.Context, string, json.RawMessage) (*adapters.Result, error) {
	return nil, errors.New("bench has no tools")
}

func (b *benchAdapter) Health(context.Context) (adapters.HealthStatus, error) {
	if b.down.Load() {
		return adapters.HealthStatus{}, errors.New("bench container is down")
	}
	return adapters.HealthStatus{AdapterID: "bench", Status: "healthy", Version: "0.0.1"}, nil
}

// otherMCPServer is an MCP server that is not MetaForge.
func otherMCPServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "other-server", Version: "9"}, nil)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// statusServer answers every request with code.
func statusServer(t *testing.T, code int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, http.StatusText(code), code)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// closedPort is a URL nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr + "/mcp"
}

// silentServer reads the request and never answers. (Reading it first
// is what lets the server notice the client hang up.)
func silentServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func TestConnectCandidatesInOrder(t *testing.T) {
	for _, tc := range []struct {
		configured string
		want       []string
	}{
		{"", wellKnownGateways},
		{"fidel-dev:8000", []string{
			"http://fidel-dev:8000/mcp", "http://fidel-dev:8765/mcp",
			"http://localhost:8765/mcp", "http://127.0.0.1:8765/mcp", "http://localhost:8000/mcp"}},
		// A path someone gave is kept; the same host on :8765 still follows.
		{"https://gw.example.com/team/mcp", []string{
			"https://gw.example.com/team/mcp", "https://gw.example.com:8765/mcp",
			"http://localhost:8765/mcp", "http://127.0.0.1:8765/mcp", "http://localhost:8000/mcp"}},
		// Derived and well-known candidates that repeat are probed once.
		{"http://localhost:8765/", []string{
			"http://localhost:8765/mcp", "http://127.0.0.1:8765/mcp", "http://localhost:8000/mcp"}},
	} {
		if got := gatewayCandidates(tc.configured, wellKnownGateways); !slices.Equal(got, tc.want) {
			t.Errorf("gatewayCandidates(%q) =\n  %q\nwant\n  %q", tc.configured, got, tc.want)
		}
	}
}

func TestConnectConfiguredGatewayPrecedence(t *testing.T) {
	t.Setenv("METAFORGE_URL", "http://from-url")
	t.Setenv("METAFORGE_GATEWAY_URL", "http://from-gateway-url")
	if got := configuredGateway("http://from-flag"); got != "http://from-flag" {
		t.Errorf("--url should win, got %q", got)
	}
	if got := configuredGateway(""); got != "http://from-url" {
		t.Errorf("METAFORGE_URL should come before METAFORGE_GATEWAY_URL, got %q", got)
	}
	t.Setenv("METAFORGE_URL", "")
	if got := configuredGateway(""); got != "http://from-gateway-url" {
		t.Errorf("METAFORGE_GATEWAY_URL should be used, got %q", got)
	}
}

func TestConnectFindsMetaforge(t *testing.T) {
	gw := startGateway(t)
	t.Setenv("METAFORGE_MCP_API_KEY", "")
	var out bytes.Buffer
	// No path: /mcp is appended, and the first candidate answers, so nothing
	// else is probed.
	if err := runConnect(context.Background(), []string{"--url", gw.url}, &out); err != nil {
		t.Fatalf("runConnect: %v\n%s", err, out.String())
	}
	want := "Found a MetaForge gateway at " + gw.url + "/mcp\n  version test, MCP 2025-11-25\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestConnectTreatsUnauthorizedAsFound(t *testing.T) {
	for _, code := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		u := statusServer(t, code)
		var out bytes.Buffer
		if err := connect(context.Background(), &out, []string{closedPort(t), u}, probeOptions{Timeout: 2 * time.Second}); err != nil {
			t.Fatalf("%d: connect: %v\n%s", code, err, out.String())
		}
		for _, want := range []string{"Found a MetaForge gateway at " + u, http.StatusText(code), "the token is the next step", "METAFORGE_MCP_API_KEY"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%d: output lacks %q:\n%s", code, want, out.String())
			}
		}
	}
}

func TestConnectRejectsAnotherMCPServer(t *testing.T) {
	gw := startGateway(t)
	other := otherMCPServer(t)
	var out bytes.Buffer
	// The other server comes first and answers initialize perfectly well;
	// it is passed over for the MetaForge one after it.
	err := connect(context.Background(), &out, []string{other, gw.url + "/mcp"}, probeOptions{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, out.String())
	}
	if !strings.HasPrefix(out.String(), "Found a MetaForge gateway at "+gw.url+"/mcp\n") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestConnectListsEveryCandidateWhenNoneIsFound(t *testing.T) {
	other, notFound, refused, silent := otherMCPServer(t), statusServer(t, http.StatusNotFound), closedPort(t), silentServer(t)
	var out bytes.Buffer
	err := connect(context.Background(), &out, []string{other, notFound, refused, silent}, probeOptions{Timeout: 500 * time.Millisecond})
	var status exitStatus
	if !errors.As(err, &status) || status != 1 {
		t.Fatalf("err = %v, want exit status 1\n%s", err, out.String())
	}
	got := out.String()
	lines := map[string]string{
		other:    `not metaforge (name "other-server")`,
		notFound: "404 Not Found",
		refused:  "connection refused",
		silent:   "timeout",
	}
	last := -1
	for _, u := range []string{other, notFound, refused, silent} {
		i := strings.Index(got, u)
		if i < 0 {
			t.Fatalf("%s is not listed:\n%s", u, got)
		}
		if i < last {
			t.Errorf("%s is listed out of order:\n%s", u, got)
		}
		last = i
		line, _, _ := strings.Cut(got[i:], "\n")
		if !strings.Contains(line, lines[u]) {
			t.Errorf("%s: line %q should say %q", u, line, lines[u])
		}
	}
	for _, want := range []string{"No MetaForge gateway found", "make run", "metaforge serve", "--url URL", "metaforge mcp"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

func TestConnectStopsAtTheFirstGateway(t *testing.T) {
	gw := startGateway(t)
	var hits atomic.Int32
	after := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.NotFound(w, nil)
	}))
	defer after.Close()
	cs, found, tried := findGateway(context.Background(), []string{gw.url + "/mcp", after.URL + "/mcp"}, probeOptions{Timeout: 2 * time.Second})
	if cs == nil || found == nil || found.Version != "test" || found.Protocol == "" {
		t.Fatalf("found = %+v", found)
	}
	_ = cs.Close()
	if len(tried) != 1 || hits.Load() != 0 {
		t.Errorf("probed past the gateway: tried %d, later server hit %d times", len(tried), hits.Load())
	}
	if found.URL != gw.url+"/mcp" {
		t.Errorf("found %s", found.URL)
	}
}
