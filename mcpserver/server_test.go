package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/adapters/power"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
)

// stack is the durable path with power and the test fixture adapter.
type stack struct {
	*mcptest.Stack
	fixture *adaptertest.Fixture
}

var (
	shared     *stack
	sharedOnce sync.Once
)

// theStack starts one stack for the package's tests: the embedded server
// takes seconds to start, and the tests do not interfere (callIds are
// unique, fixture keys are per test).
func theStack(t *testing.T) *stack {
	t.Helper()
	sharedOnce.Do(func() {
		fx := &adaptertest.Fixture{}
		shared = &stack{Stack: mcptest.Start(mcptest.Shared{TB: t}, power.New(), fx), fixture: fx}
	})
	if shared == nil {
		t.Fatal("the shared test stack failed to start (see the first test's output)")
	}
	return shared
}

func (s *stack) connect(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	return s.Connect(t, opts)
}

var referenceBudget = map[string]any{
	"rails": []any{
		map[string]any{"name": "5V", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 1000},
		map[string]any{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "5V", "quiescent_ma": 10, "rated_output_ma": 500},
	},
	"loads": []any{map[string]any{"name": "mcu", "rail": "3V3", "current_ma": 200}},
}

var callIDPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

func callID(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	id, _ := res.Meta["callId"].(string)
	if !callIDPattern.MatchString(id) {
		t.Fatalf("_meta.callId = %q, want 16 hex digits; meta %v", id, res.Meta)
	}
	return id
}

func TestInitializeNamesTheServer(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "metaforge-mcp" {
		t.Errorf("serverInfo.name = %q, want metaforge-mcp", init.ServerInfo.Name)
	}
}

func TestToolsListCarriesAnnotationsFromTheTable(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		seen[tool.Name] = tool
	}
	for _, name := range []string{"power.check_budget", "health.check", "call.get_result"} {
		tool := seen[name]
		if tool == nil {
			t.Fatalf("tools/list lacks %s", name)
		}
		want, declared := adapters.AnnotationsFor(name)
		if !declared {
			t.Errorf("%s is not classified in the annotations table", name)
		}
		a := tool.Annotations
		if a == nil || a.ReadOnlyHint != want.ReadOnly || a.IdempotentHint != want.Idempotent || *a.DestructiveHint != want.Destructive {
			t.Errorf("%s annotations = %+v, want %+v", name, a, want)
		}
	}
	// A tool nobody classified is shown with MCP's defaults: not read-only,
	// destructive, so it would be held.
	if a := seen["fixture.flaky"].Annotations; a.ReadOnlyHint || !*a.DestructiveHint {
		t.Errorf("unclassified fixture.flaky annotations = %+v, want not read-only and destructive", a)
	}
}

func TestPowerBudgetRunsAsAWorkflowNamedByCallID(t *testing.T) {
	s := theStack(t)
	cs := s.connect(t, nil)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "power.check_budget", Arguments: referenceBudget})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("power.check_budget failed: %v", res.Content)
	}
	var out struct {
		Rails []struct {
			Name           string   `json:"name"`
			LoadMA         *float64 `json:"load_ma"`
			InputCurrentMA *float64 `json:"input_current_ma"`
		} `json:"rails"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	// A 3.3 V LDO from 5 V with 10 mA quiescent and 200 mA of loads draws
	// 210 mA upstream. Exact arithmetic: tolerance 1e-9 mA.
	if len(out.Rails) != 2 || out.Rails[0].LoadMA == nil || abs(*out.Rails[0].LoadMA-210) > 1e-9 || abs(*out.Rails[1].InputCurrentMA-210) > 1e-9 {
		t.Fatalf("rails = %s, want 5V load 210 mA and LDO input 210 mA", raw)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !json.Valid([]byte(text)) || !strings.Contains(text, `"load_ma":210`) {
		t.Errorf("text content is not the data as JSON: %s", text)
	}

	id := callID(t, res)
	desc, err := s.Temporal.Client.DescribeWorkflowExecution(ctx, "call-"+id, "")
	if err != nil {
		t.Fatalf("workflow call-%s: %v", id, err)
	}
	info := desc.GetWorkflowExecutionInfo()
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED || info.GetTaskQueue() != "metaforge" {
		t.Errorf("workflow status %v on %q, want completed on metaforge", info.GetStatus(), info.GetTaskQueue())
	}
	attrs := map[string]string{}
	for k, p := range info.GetSearchAttributes().GetIndexedFields() {
		var v string
		_ = converter.GetDefaultDataConverter().FromPayload(p, &v)
		attrs[k] = v
	}
	for k, want := range map[string]string{"MfTool": "power.check_budget", "MfAdapter": "power", "MfCaller": "local", "MfClient": "mcptest", "MfHold": "none"} {
		if attrs[k] != want {
			t.Errorf("search attribute %s = %q, want %q (all: %v)", k, attrs[k], want, attrs)
		}
	}
}

func TestUnknownToolSuggestsTheClosest(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "power.chek_budget", Arguments: map[string]any{}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, "did you mean power.check_budget") {
		t.Fatalf("err = %v, want -32602 with a did-you-mean naming power.check_budget", err)
	}
}

func TestInvalidArgumentsNameTheFieldAndStartNoWorkflow(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "call.get_result", Arguments: map[string]any{"call_id": "abc", "wait_seconds": 5}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, "call_id") {
		t.Fatalf("err = %v, want -32602 naming call_id", err)
	}
	if strings.Contains(string(rpcErr.Data), "callId") {
		t.Errorf("an invalid call must not start a workflow, but its error carries a callId: %s", rpcErr.Data)
	}
}

func TestRefusalIsAnErrorResultWithItsReason(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fixture.refuse", Arguments: map[string]any{"key": "refusal"}})
	if err != nil {
		t.Fatalf("a refusal must be a result, not a protocol error: %v", err)
	}
	if !res.IsError {
		t.Fatal("isError = false for a refusal")
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, `fixture refuses key "refusal"; pass another key`) {
		t.Errorf("text %q does not carry the refusal's reason", text)
	}
	callID(t, res)
	e, _ := res.Meta["error"].(map[string]any)
	if e["toolId"] != "fixture.refuse" || !strings.Contains(e["details"].(string), "pass another key") || e["code"] != float64(-32001) {
		t.Errorf("_meta.error = %v", e)
	}
	if _, ok := e["durationMs"].(float64); !ok {
		t.Errorf("_meta.error.durationMs missing: %v", e)
	}
	// Refusals are final: an idempotent tool is not retried for one.
	if n := theStack(t).fixture.Attempts("refusal"); n != 1 {
		t.Errorf("refusal ran %d times, want 1", n)
	}
}

func TestTimeoutIsToolTimeout(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fixture.timeout", Arguments: map[string]any{"key": "timeout"}})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := res.Meta["error"].(map[string]any)
	if !res.IsError || e["code"] != float64(-32006) || e["errorType"] != "TOOL_TIMEOUT" || !strings.Contains(e["details"].(string), "timeout of 1s") {
		t.Fatalf("result = %+v, want isError with code -32006 TOOL_TIMEOUT naming the 1 s timeout", res)
	}
}

func TestTransientFailuresOfAnIdempotentToolAreRetried(t *testing.T) {
	s := theStack(t)
	cs := s.connect(t, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fixture.flaky", Arguments: map[string]any{"key": "flaky", "fail_times": 2}})
	if err != nil || res.IsError {
		t.Fatalf("flaky call: %v %+v", err, res)
	}
	if n := s.fixture.Attempts("flaky"); n != 3 {
		t.Errorf("flaky ran %d times, want 3 (two transient failures, then success)", n)
	}
}

// The call outlives its connection: the client goes away mid-call, the
// workflow finishes anyway, and call.get_result returns its outcome.
func TestCallOutlivesItsConnection(t *testing.T) {
	s := theStack(t)
	announced := make(chan string, 1)
	cs := s.connect(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		if m := regexp.MustCompile(`callId ([0-9a-f]{16})`).FindStringSubmatch(req.Params.Message); m != nil {
			announced <- m[1]
		}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "fixture.sleep", Arguments: map[string]any{"key": "outlive", "sleep_ms": 1500}}
		params.SetProgressToken("outlive")
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()
	var id string
	select {
	case id = <-announced:
	case <-time.After(10 * time.Second):
		t.Fatal("no progress notification announced the callId")
	}
	cancel()
	_ = cs.Close()
	if err := <-done; err == nil {
		t.Fatal("the abandoned call returned a result; the test did not abandon it")
	}

	later := s.connect(t, nil)
	res, err := later.CallTool(context.Background(), &mcp.CallToolParams{Name: "call.get_result", Arguments: map[string]any{"call_id": id, "wait_seconds": 20}})
	if err != nil || res.IsError {
		t.Fatalf("call.get_result: %v %+v", err, res)
	}
	var out struct {
		State  string `json:"state"`
		ToolID string `json:"tool_id"`
		Result struct {
			Status string         `json:"status"`
			Data   map[string]any `json:"data"`
		} `json:"result"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &out)
	if out.State != "completed" || out.ToolID != "fixture.sleep" || out.Result.Status != "success" || out.Result.Data["key"] != "outlive" {
		t.Fatalf("call.get_result = %s, want the completed fixture.sleep call", raw)
	}
	if n := s.fixture.Attempts("outlive"); n != 1 {
		t.Errorf("the abandoned call ran %d times, want once", n)
	}
}

func TestGetResultOfAnUnknownCall(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "call.get_result", Arguments: map[string]any{"call_id": "0000000000000000"}})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := res.Meta["error"].(map[string]any)
	if !res.IsError || e["code"] != float64(-32002) || !strings.Contains(e["details"].(string), "no call 0000000000000000") {
		t.Fatalf("result = %+v, want RESOURCE_NOT_FOUND naming the id", res)
	}
}

func TestHealthCheckToolReportsTemporal(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "health.check"})
	if err != nil || res.IsError {
		t.Fatalf("health.check: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var rep health.Report
	_ = json.Unmarshal(raw, &rep)
	if rep.Status != "healthy" || rep.Components["temporal"].Mode != "embedded" || !rep.Components["temporal"].Reachable || rep.ToolCount != 12 {
		t.Fatalf("health = %s", raw)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
