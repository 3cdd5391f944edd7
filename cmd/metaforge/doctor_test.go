package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/worker/workertest"
)

// doctor runs `metaforge doctor ARGS` and returns its output and exit
// status.
func doctor(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	err := runDoctor(context.Background(), args, &out)
	var status exitStatus
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &status):
		return out.String(), int(status)
	}
	t.Fatalf("runDoctor: %v\n%s", err, out.String())
	return "", 0
}

func wantLines(t *testing.T, out string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile(p).MatchString(out) {
			t.Errorf("output does not match %q:\n%s", p, out)
		}
	}
}

func TestDoctorHealthy(t *testing.T) {
	gw := startGateway(t)
	out, code := doctor(t, "--url", gw.url, "--api-key", "")
	if code != doctorHealthy {
		t.Fatalf("exit %d, want %d:\n%s", code, doctorHealthy, out)
	}
	wantLines(t, out,
		`(?m)^MetaForge gateway at `+regexp.QuoteMeta(gw.url)+`/mcp\n  version test, MCP 2025-11-25$`,
		`(?m)^Status: healthy$`,
		`(?m)^Adapters: 3 of 3 answered$`,
		`(?m)^  ok +bench +0\.0\.1 +0 tools`,
		`(?m)^  ok +temporal +embedded`,
		`(?m)^Client: metaforge-doctor \S+ asked for MCP 2025-11-25; the server answered 2025-11-25 \(no skew\)$`,
		// With or without the profile block, the report says which.
		`(?m)^Profile: (this server reports no profile block|none in force; this connection is served 2 of 2 registered tools\.$)`,
		`(?m)^Tools: 2 served on this connection, 2 registered \(tool_count\)$`,
	)
	if strings.Contains(out, "DOWN") || strings.Contains(out, "->") {
		t.Errorf("a healthy report names something down:\n%s", out)
	}
}

func TestDoctorDegraded(t *testing.T) {
	gw := startGateway(t)
	gw.bench.down.Store(true)
	t.Cleanup(func() { gw.bench.down.Store(false) })
	out, code := doctor(t, "--url", gw.url+"/mcp", "--api-key", "")
	if code != doctorDegraded {
		t.Fatalf("exit %d, want %d:\n%s", code, doctorDegraded, out)
	}
	wantLines(t, out,
		`(?m)^Status: degraded$`,
		`(?m)^  1 of 3 adapters did not answer: bench\.`,
		`(?m)^Adapters: 2 of 3 answered$`,
		`(?m)^  DOWN +bench +0\.0\.1 +0 tools +adapter is down: bench container is down$`,
		`(?m)^  -> bench: it answered with an error: start its container or process`,
		`(?m)^  ok +temporal`,
	)
}

func TestDoctorAuthPosture(t *testing.T) {
	gw := startGateway(t)
	t.Run("open", func(t *testing.T) {
		out, _ := doctor(t, "--url", gw.url, "--api-key", "")
		// mcptest's server declares no transport, so it reports stdio's.
		wantLines(t, out,
			`(?m)^Auth: open over stdio; identifies the caller: no$`,
			`(?m)^  no API key and no OAuth configured`,
		)
	})

	// The same registry and Temporal behind an HTTP server with an API key.
	keyed := mcpserver.New(mcpserver.Options{
		Registry:  gw.stack.Registry,
		Engine:    mcpserver.TemporalEngine{Client: gw.stack.Temporal.Client, Eager: true},
		Health:    gw.stack.Health,
		Caller:    mcpserver.CallerUntrusted,
		Version:   "test",
		Logger:    workertest.QuietLogger(),
		Transport: mcpserver.TransportHTTP,
		Auth:      mcpserver.Auth{APIKey: "sesame"},
	})
	srv := httptest.NewServer(keyed.HTTPHandler())
	defer srv.Close()

	t.Run("api key", func(t *testing.T) {
		out, code := doctor(t, "--url", srv.URL, "--api-key", "sesame")
		if code != doctorHealthy {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		wantLines(t, out,
			`(?m)^Auth: api_key over http; identifies the caller: no$`,
			`(?m)^  a shared API key \(METAFORGE_MCP_API_KEY\) admits the call but identifies nobody`,
		)
	})
	t.Run("no key", func(t *testing.T) {
		out, code := doctor(t, "--url", srv.URL, "--api-key", "")
		if code != doctorUnreachable {
			t.Fatalf("exit %d, want %d:\n%s", code, doctorUnreachable, out)
		}
		wantLines(t, out, `refused this connection \(401 Unauthorized\)`, `pass --api-key KEY or set METAFORGE_MCP_API_KEY`)
	})
	t.Run("wrong key", func(t *testing.T) {
		out, code := doctor(t, "--url", srv.URL, "--api-key", "open-sesame")
		if code != doctorUnreachable {
			t.Fatalf("exit %d, want %d:\n%s", code, doctorUnreachable, out)
		}
		wantLines(t, out, `was not accepted`)
	})
}

func TestDoctorUnreachable(t *testing.T) {
	refused := closedPort(t)
	out, code := doctor(t, "--url", refused, "--api-key", "")
	if code != doctorUnreachable {
		t.Fatalf("exit %d, want %d:\n%s", code, doctorUnreachable, out)
	}
	wantLines(t, out, `No MetaForge gateway found`, regexp.QuoteMeta(refused)+` +connection refused`)
}

func TestDoctorFallsBackToHealthz(t *testing.T) {
	// A gateway whose tool calls cannot run (its Temporal is gone) still
	// answers initialize and /healthz.
	s := mcp.NewServer(&mcp.Implementation{Name: mcpserver.ServerName, Version: "test"}, nil)
	s.AddTool(&mcp.Tool{Name: "health.check", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "health.check failed: no Temporal"}}}, nil
		})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(health.Report{Service: mcpserver.ServerName, Status: "degraded", ToolCount: 1,
			Detail:     "temporal (external) is not reachable: connection refused.",
			Components: map[string]health.Component{"temporal": {Mode: "external", Address: "10.0.0.9:7233", Error: "connection refused"}}})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	out, code := doctor(t, "--url", srv.URL, "--api-key", "")
	if code != doctorDegraded {
		t.Fatalf("exit %d, want %d:\n%s", code, doctorDegraded, out)
	}
	wantLines(t, out,
		`(?m)^health.check did not answer through MCP: health.check failed: no Temporal$`,
		`(?m)^  `+regexp.QuoteMeta(srv.URL)+`/healthz answered instead`,
		`(?m)^Status: degraded$`,
		`(?m)^  DOWN +temporal +external at 10\.0\.0\.9:7233.*connection refused$`,
		`(?m)^  -> temporal: every tool call runs through Temporal`,
		`(?m)^Auth: not reported$`,
	)
}

func TestDoctorProfileBlock(t *testing.T) {
	active, served := "core", 21
	for _, tc := range []struct {
		name    string
		profile *toolProfile
		want    string
	}{
		{"absent", nil, `(?m)^Profile: this server reports no profile block`},
		{"none in force", &toolProfile{ServedToolCount: &served}, `(?m)^Profile: none in force; this connection is served 21 of 100 registered tools\.$`},
		{"active", &toolProfile{Active: &active, ServedToolCount: &served, Detail: "Profile 'core' serves 21 of 100 registered tools on this connection.",
			Available: []string{"core", "mechanical"}, Missing: []string{"freecad.mesh"}},
			`(?m)^Profile: core, serving 21 of 100 registered tools\n  Profile 'core' serves 21 of 100.*\n  -> the profile asks for tools no loaded adapter registers \(freecad\.mesh\).*\n  available profiles \(connect with \?profile=NAME\): core, mechanical$`},
		{"error", &toolProfile{Error: "unknown profile 'cad'", Detail: "only health.check answers"}, `(?m)^Profile: error: unknown profile 'cad'\n  only health.check answers$`},
	} {
		var out bytes.Buffer
		r := doctorReport{Profile: tc.profile}
		r.ToolCount = 100
		writeProfile(&out, r)
		if !regexp.MustCompile(tc.want).MatchString(out.String()) {
			t.Errorf("%s: output does not match %q:\n%s", tc.name, tc.want, out.String())
		}
	}
}

func TestDoctorHealthzURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:8765/mcp":       "http://h:8765/healthz",
		"http://h:8765/team/mcp/": "http://h:8765/team/healthz",
		"https://h/x?profile=cad": "https://h/x/healthz",
	} {
		if got := healthzURL(in); got != want {
			t.Errorf("healthzURL(%q) = %q, want %q", in, got, want)
		}
	}
}
