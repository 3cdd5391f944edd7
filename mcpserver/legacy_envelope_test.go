package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/mcpserver/stdiotest"
	"github.com/metaforge/metaforge/worker/workertest"
)

// boundedFixture is the fixture adapter without its slow tools and with
// its sleeps capped, so no call to this stack may rightly run long: a slow
// answer is then a hang, which the fuzz targets catch.
type boundedFixture struct{ *adaptertest.Fixture }

const maxFixtureSleepMs = 1000

func (b boundedFixture) Manifests() []adapters.Manifest {
	var out []adapters.Manifest
	for _, m := range b.Fixture.Manifests() {
		if slices.Contains([]string{"fixture.echo", "fixture.refuse", "fixture.sleep"}, m.ToolID) {
			out = append(out, m)
		}
	}
	return out
}

func (b boundedFixture) Call(ctx context.Context, toolID string, raw json.RawMessage) (*adapters.Result, error) {
	var args map[string]any
	if json.Unmarshal(raw, &args) == nil {
		if ms, ok := args["sleep_ms"].(float64); ok && ms > maxFixtureSleepMs {
			args["sleep_ms"] = maxFixtureSleepMs
			raw, _ = json.Marshal(args)
		}
	}
	return b.Fixture.Call(ctx, toolID, raw)
}

// sharedTB keeps what a test starts alive for the whole process, so every
// test and fuzz iteration shares one Temporal.
type sharedTB struct{ testing.TB }

func (sharedTB) Cleanup(func()) {}

var (
	realOnce sync.Once
	realSrv  *Server
)

// realServer is a Server over the real durable path: the embedded Temporal,
// MetaForge's workers, and the bounded fixture adapter. Nothing is faked.
func realServer(t testing.TB) *Server {
	t.Helper()
	realOnce.Do(func() {
		tb := sharedTB{t}
		tmp := workertest.StartTemporal(tb)
		reg := adapters.NewRegistry()
		if err := reg.Register(boundedFixture{&adaptertest.Fixture{}}); err != nil {
			t.Fatal(err)
		}
		workertest.StartWorkers(tb, tmp, reg)
		realSrv = New(Options{
			Registry: reg,
			Engine:   TemporalEngine{Client: tmp.Client, Eager: true},
			Health: &health.Checker{Service: ServerName, Version: "test", Started: time.Now(), Registry: reg,
				Components: map[string]health.Probe{"temporal": tmp.Probe}},
			Caller:  CallerLocal,
			Version: "test",
			Logger:  workertest.QuietLogger(),
		})
	})
	if realSrv == nil {
		t.Fatal("the shared server failed to start (see the first test's output)")
	}
	return realSrv
}

// rpcServer serves POST /rpc as http.go mounts it.
func rpcServer(t testing.TB, s *Server) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("POST /rpc", s.RPCHandler())
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// legacyExchange sends one legacy request and returns its answer and any
// notifications before it.
type legacyExchange func(t *testing.T, id, frame string) (answer []byte, notes [][]byte)

func overStdio(t *testing.T, s *Server) legacyExchange {
	c := stdiotest.Serve(t, s)
	t.Cleanup(func() { c.Close(t) })
	return func(t *testing.T, id, frame string) ([]byte, [][]byte) {
		c.Send(t, []byte(frame))
		return c.Await(t, id, 30*time.Second)
	}
}

func overRPC(t *testing.T, s *Server) legacyExchange {
	ts := rpcServer(t, s)
	return func(t *testing.T, _, frame string) ([]byte, [][]byte) {
		resp, err := http.Post(ts.URL+"/rpc", "application/json", strings.NewReader(frame))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("POST /rpc %s: %d %s %s", frame, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		return body, nil
	}
}

// A field is a key's JSON type: "string", "number", "integer", "boolean",
// "object", "array", or "2.0"-style literals written as `=value`.
// An optional key ends in "?".
type fields map[string]string

// shape checks v is an object with exactly the keys of want (those ending
// in "?" may be missing), each of its type, plus those of extra: keys
// MetaForge adds to the dialect's envelope, each named in the test.
func shape(t *testing.T, where string, v any, want, extra fields) map[string]any {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s = %#v, want a JSON object", where, v)
	}
	all := fields{}
	for k, f := range want {
		all[k] = f
	}
	for k, f := range extra {
		all[k] = f
	}
	for k, f := range all {
		name, optional := strings.CutSuffix(k, "?")
		got, present := obj[name]
		if !present {
			if !optional {
				t.Errorf("%s lacks %q: %v", where, name, obj)
			}
			continue
		}
		if !isKind(got, f) {
			t.Errorf("%s.%s = %#v, want %s", where, name, got, f)
		}
	}
	for k := range obj {
		if _, ok := all[k]; !ok {
			if _, ok := all[k+"?"]; !ok {
				t.Errorf("%s has %q, which the dialect's envelope does not: %v", where, k, obj)
			}
		}
	}
	return obj
}

func isKind(v any, kind string) bool {
	if lit, ok := strings.CutPrefix(kind, "="); ok {
		return fmt.Sprint(v) == lit
	}
	switch kind {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		n, ok := v.(float64)
		return ok && n == math.Trunc(n)
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	}
	return false
}

func decodeObject(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%q is not a JSON object: %v", raw, err)
	}
	return m
}

// The envelopes of the legacy dialect, key for key. The JSON-RPC envelope
// (success and error response) is exact.
var (
	successEnvelope = fields{"jsonrpc": "=2.0", "id": "string", "result": "object"}
	errorEnvelope   = fields{"jsonrpc": "=2.0", "id": "string", "error": "object"}
	errorBody       = fields{"code": "integer", "message": "string", "data?": "object"}
	// tool/list: the manifest, and its resource_limits.
	manifestFields = fields{"tool_id": "string", "adapter_id": "string", "name": "string", "description": "string",
		"capability": "string", "input_schema": "object", "output_schema": "object", "phase": "integer", "resource_limits": "object"}
	resourceLimitFields = fields{"max_memory_mb": "integer", "max_cpu_seconds": "integer", "max_disk_mb": "integer"}
	// A tool/call result.
	callResultFields = fields{"tool_id": "string", "status": "=success", "data": "object", "duration_ms": "number", "output_files": "array"}
	// A tool/call error's data (McpErrorData).
	errorDataFields = fields{"error_type": "string", "tool_id": "string", "details": "string", "duration_ms": "number"}
	// call_id is MetaForge's addition to both: every call, failed or not,
	// names the id it can be cited and fetched by.
	grounding = fields{"call_id": "string"}
	// tool/result is a notification, so it has no id.
	progressEnvelope = fields{"jsonrpc": "=2.0", "method": "=tool/result", "params": "object"}
	progressParams   = fields{"request_id": "string", "progress": "number", "message": "string"}
	// health/check, the roll-up over every adapter, with auth and client.
	healthFields = fields{"service": "=metaforge-mcp", "status": "string", "version": "string", "uptime_seconds": "number",
		"adapter_count": "integer", "tool_count": "integer", "unreachable_adapters?": "array", "detail?": "string",
		"adapters": "array", "auth": "object", "client": "object"}
	adapterHealthFields = fields{"adapter_id": "string", "version": "string", "tools_registered": "integer", "reachable": "boolean", "error?": "string"}
	// components is MetaForge's addition: Temporal, which every call
	// depends on, is reported like an adapter. checked_at and age_ms are
	// too: the report is a measurement kept by a background prober, so it
	// says how old it is, in the report and per adapter. unserved_tools
	// lists the spec's tools this build does not serve, with why.
	healthExtra        = fields{"components": "object", "checked_at": "string", "age_ms": "integer", "unserved_tools?": "array"}
	adapterHealthExtra = fields{"checked_at": "string", "age_ms": "integer"}
)

var hexCallID = regexp.MustCompile(`^[0-9a-f]{16}$`)

// TestLegacyEnvelopes checks each answer of the legacy dialect against
// the dialect's envelopes, field for field, on both of its transports.
func TestLegacyEnvelopes(t *testing.T) {
	s := realServer(t)
	for name, open := range map[string]func(*testing.T, *Server) legacyExchange{"stdio": overStdio, "POST /rpc": overRPC} {
		t.Run(name, func(t *testing.T) {
			exchange := open(t, s)
			success := func(t *testing.T, id, frame string) map[string]any {
				t.Helper()
				raw, _ := exchange(t, id, frame)
				env := shape(t, "response", decodeObject(t, raw), successEnvelope, nil)
				if env["id"] != strings.Trim(id, `"`) {
					t.Errorf("id = %v, want %s", env["id"], id)
				}
				return env["result"].(map[string]any)
			}
			failure := func(t *testing.T, id, frame string, code int) (map[string]any, map[string]any) {
				t.Helper()
				raw, _ := exchange(t, id, frame)
				env := shape(t, "error response", decodeObject(t, raw), errorEnvelope, nil)
				e := shape(t, "error", env["error"], errorBody, nil)
				if e["code"] != float64(code) {
					t.Fatalf("error.code = %v, want %d: %s", e["code"], code, raw)
				}
				data, _ := e["data"].(map[string]any)
				return e, data
			}

			t.Run("tool/list", func(t *testing.T) {
				res := shape(t, "tool/list result", success(t, `"l1"`, `{"jsonrpc":"2.0","id":"l1","method":"tool/list","params":{"capability":"test"}}`),
					fields{"tools": "array"}, nil)
				tools := res["tools"].([]any)
				if len(tools) != 3 {
					t.Fatalf("tool/list capability test = %d tools, want the 3 fixture tools", len(tools))
				}
				for i, tool := range tools {
					m := shape(t, fmt.Sprintf("tools[%d]", i), tool, manifestFields, nil)
					shape(t, fmt.Sprintf("tools[%d].resource_limits", i), m["resource_limits"], resourceLimitFields, nil)
					if m["capability"] != "test" || m["adapter_id"] != "fixture" || !strings.HasPrefix(m["tool_id"].(string), "fixture.") {
						t.Errorf("tools[%d] = %v", i, m)
					}
				}
				none := success(t, `"l2"`, `{"jsonrpc":"2.0","id":"l2","method":"tool/list","params":{"capability":"stress_analysis"}}`)
				if tools, ok := none["tools"].([]any); !ok || len(tools) != 0 {
					t.Errorf("tool/list for a capability nobody has = %v, want tools: []", none)
				}
			})

			t.Run("tool/call", func(t *testing.T) {
				res := shape(t, "tool/call result", success(t, `"c1"`,
					`{"jsonrpc":"2.0","id":"c1","method":"tool/call","params":{"tool_id":"fixture.echo","arguments":{"key":"env"},"timeout_seconds":30,"trace_id":"abc-123-def"}}`),
					callResultFields, grounding)
				if res["tool_id"] != "fixture.echo" || res["data"].(map[string]any)["key"] != "env" || !hexCallID.MatchString(fmt.Sprint(res["call_id"])) {
					t.Errorf("tool/call result = %v", res)
				}
				for i, f := range res["output_files"].([]any) {
					if _, ok := f.(string); !ok {
						t.Errorf("output_files[%d] = %#v, want a string", i, f)
					}
				}
			})

			t.Run("tool/error", func(t *testing.T) {
				e, data := failure(t, `"e1"`, `{"jsonrpc":"2.0","id":"e1","method":"tool/call","params":{"tool_id":"fixture.refuse","arguments":{"key":"env"}}}`, -32001)
				shape(t, "error.data", data, errorDataFields, grounding)
				if e["message"] != "Tool execution failed" || data["error_type"] != "TOOL_EXECUTION_ERROR" || data["tool_id"] != "fixture.refuse" ||
					data["details"] != `fixture refuses key "env"; pass another key` {
					t.Errorf("tool/call refusal = %v", e)
				}
			})

			// An unknown tool_id is METHOD_NOT_FOUND, a bad argument
			// INVALID_PARAMS; both still carry McpErrorData.
			t.Run("taxonomy", func(t *testing.T) {
				for _, c := range []struct {
					id, frame, errorType, toolID string
					code                         int
				}{
					{`"u1"`, `{"jsonrpc":"2.0","id":"u1","method":"tool/call","params":{"tool_id":"fixture.ecko"}}`, "METHOD_NOT_FOUND", "fixture.ecko", -32601},
					{`"u2"`, `{"jsonrpc":"2.0","id":"u2","method":"tool/call","params":{"tool_id":"fixture.echo","timeout_seconds":4000}}`, "INVALID_PARAMS", "fixture.echo", -32602},
					{`"u3"`, `{"jsonrpc":"2.0","id":"u3","method":"tool/call","params":{"tool_id":"fixture.echo","arguments":{"key":5}}}`, "INVALID_PARAMS", "fixture.echo", -32602},
					{`"u4"`, `{"jsonrpc":"2.0","id":"u4","method":"tool/call","params":{"arguments":{}}}`, "INVALID_PARAMS", "", -32602},
					{`"u5"`, `{"jsonrpc":"2.0","id":"u5","method":"tool/call","params":{"tool_id":"fixture.echo","trace_id":7}}`, "INVALID_PARAMS", "", -32602},
				} {
					_, data := failure(t, c.id, c.frame, c.code)
					shape(t, "error.data of "+c.id, data, errorDataFields, nil)
					if data["error_type"] != c.errorType || data["tool_id"] != c.toolID || data["details"] == "" {
						t.Errorf("%s: error.data = %v, want error_type %s tool_id %q", c.id, data, c.errorType, c.toolID)
					}
				}
				if name == "POST /rpc" {
					// Over stdio an unknown method goes on to the SDK, which
					// answers it as MCP does.
					failure(t, `"u6"`, `{"jsonrpc":"2.0","id":"u6","method":"tool/cancel"}`, -32601)
				}
			})

			t.Run("health/check", func(t *testing.T) {
				res := shape(t, "health/check result", success(t, `"h1"`, `{"jsonrpc":"2.0","id":"h1","method":"health/check","params":{}}`), healthFields, healthExtra)
				if res["status"] != "healthy" {
					t.Fatalf("health/check status = %v: %v", res["status"], res)
				}
				// Absent, not empty, when healthy: their absence is the signal.
				for _, k := range []string{"unreachable_adapters", "detail"} {
					if _, ok := res[k]; ok {
						t.Errorf("a healthy report has %s", k)
					}
				}
				adapters := res["adapters"].([]any)
				if len(adapters) != int(res["adapter_count"].(float64)) {
					t.Errorf("adapters %v, adapter_count %v", adapters, res["adapter_count"])
				}
				for i, a := range adapters {
					shape(t, fmt.Sprintf("adapters[%d]", i), a, adapterHealthFields, adapterHealthExtra)
				}
				if c := res["client"].(map[string]any); c["connected"] != false {
					t.Errorf("client = %v, want connected false: the dialect has no handshake", c)
				}
			})

			t.Run("number id", func(t *testing.T) {
				raw, _ := exchange(t, "7", `{"jsonrpc":"2.0","id":7,"method":"tool/list"}`)
				if env := decodeObject(t, raw); env["id"] != float64(7) {
					t.Errorf("answer to id 7 = %s", raw)
				}
			})
		})
	}
}

// TestLegacyToolResultEnvelope checks the tool/result notifications a long
// legacy tool/call sends as they leave the server.
func TestLegacyToolResultEnvelope(t *testing.T) {
	s := realServer(t)
	setProgressEvery(t, 50*time.Millisecond)
	for _, id := range []string{`"long-1"`, `42`} {
		var mu sync.Mutex
		var sent [][]byte
		req := legacyOf([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tool/call","params":{"tool_id":"fixture.sleep","arguments":{"key":"p","sleep_ms":600}}}`))
		answer := s.answerLegacyStreaming(context.Background(), req, func(line []byte) {
			mu.Lock()
			defer mu.Unlock()
			sent = append(sent, line)
		})
		mu.Lock()
		n := len(sent)
		mu.Unlock()
		time.Sleep(150 * time.Millisecond)
		mu.Lock()
		if len(sent) != n {
			t.Errorf("id %s: %d tool/result sent after the answer", id, len(sent)-n)
		}
		mu.Unlock()
		if env := decodeObject(t, answer); env["result"] == nil {
			t.Fatalf("id %s: answer %s", id, answer)
		}
		checkProgress(t, sent, strings.Trim(id, `"`))
	}

	// A notification has no request_id to report against.
	var sent [][]byte
	req := legacyOf([]byte(`{"jsonrpc":"2.0","method":"tool/call","params":{"tool_id":"fixture.sleep","arguments":{"key":"p","sleep_ms":300}}}`))
	if answer := s.answerLegacyStreaming(context.Background(), req, func(line []byte) { sent = append(sent, line) }); answer != nil || len(sent) != 0 {
		t.Errorf("a tool/call notification: answer %s, %d tool/result", answer, len(sent))
	}
}

// TestLegacyToolResultOverStdio: the same notifications reach a stdio
// client, before the answer they report on.
func TestLegacyToolResultOverStdio(t *testing.T) {
	s := realServer(t)
	setProgressEvery(t, 50*time.Millisecond)
	c := stdiotest.Serve(t, s)
	defer c.Close(t)
	c.Send(t, []byte(`{"jsonrpc":"2.0","id":"long-2","method":"tool/call","params":{"tool_id":"fixture.sleep","arguments":{"key":"q","sleep_ms":600}}}`))
	answer, notes := c.Await(t, `"long-2"`, 30*time.Second)
	if env := decodeObject(t, answer); env["result"] == nil {
		t.Fatalf("answer %s", answer)
	}
	checkProgress(t, notes, "long-2")
}

func checkProgress(t *testing.T, sent [][]byte, requestID string) {
	t.Helper()
	if len(sent) == 0 {
		t.Fatalf("request %s: no tool/result while a 600 ms call ran", requestID)
	}
	last := -1.0
	for i, line := range sent {
		env := shape(t, fmt.Sprintf("tool/result %d", i), decodeObject(t, line), progressEnvelope, nil)
		p := shape(t, fmt.Sprintf("tool/result %d params", i), env["params"], progressParams, nil)
		progress, _ := p["progress"].(float64)
		if p["request_id"] != requestID || progress < last || progress < 0 || progress > 1 || !strings.Contains(p["message"].(string), "callId ") {
			t.Errorf("tool/result %d = %s (request %s)", i, line, requestID)
		}
		last = progress
	}
}

func setProgressEvery(t *testing.T, d time.Duration) {
	was := legacyProgressEvery
	legacyProgressEvery = d
	t.Cleanup(func() { legacyProgressEvery = was })
}

// TestLegacyRPCEndpoint covers what POST /rpc answers besides the dialect.
func TestLegacyRPCEndpoint(t *testing.T) {
	ts := rpcServer(t, realServer(t))
	post := func(body string) (int, []byte) {
		resp, err := http.Post(ts.URL+"/rpc", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, raw
	}
	codeOf := func(raw []byte) float64 {
		var m struct {
			Error struct {
				Code float64 `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &m)
		return m.Error.Code
	}
	for _, c := range []struct {
		name, body string
		status     int
		code       float64
	}{
		{"a legacy notification", `{"jsonrpc":"2.0","method":"tool/list"}`, 204, 0},
		{"an MCP request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200, -32601},
		{"an MCP notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 204, 0},
		{"a response", `{"jsonrpc":"2.0","id":1,"result":{}}`, 400, -32600},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"tool/list"}]`, 400, -32600},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"tool/li`, 400, -32700},
		{"nested 129 deep", string(nested(129)), 400, -32700},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"tool/list"}`, 400, -32600},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tool/list"}`, 400, -32600},
		{"no jsonrpc member, as the dialect's schema allows", `{"id":"x","method":"tool/list"}`, 200, 0},
	} {
		status, raw := post(c.body)
		if status != c.status || codeOf(raw) != c.code {
			t.Errorf("%s: %d %s, want %d code %v", c.name, status, raw, c.status, c.code)
		}
	}
	big := `{"jsonrpc":"2.0","id":"big","method":"tool/list","params":{"pad":"` + strings.Repeat("a", MaxFrameBytes) + `"}}`
	if status, raw := post(big); status != http.StatusRequestEntityTooLarge || codeOf(raw) != -32600 {
		t.Errorf("a body over 16 MiB: %d %.200s", status, raw)
	}
	if status, raw := post(`{"jsonrpc":"2.0","id":"after","method":"tool/list"}`); status != 200 || codeOf(raw) != 0 {
		t.Errorf("tool/list after the hostile bodies: %d %s", status, raw)
	}
	resp, err := http.Get(ts.URL + "/rpc")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /rpc = %d, want 405", resp.StatusCode)
	}
}
