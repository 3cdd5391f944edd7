package activities_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/metaforge/metaforge/activities"
	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// fixtureAdapter is a test fixture, not a real tool: adapter "fixture" whose
// tools each behave one scripted way, and which counts the calls that reach
// it.
type fixtureAdapter struct {
	mu    sync.Mutex
	calls map[string]int
}

func (a *fixtureAdapter) ID() string      { return "fixture" }
func (a *fixtureAdapter) Version() string { return "0.0.0-test" }

func (a *fixtureAdapter) Manifests() []adapters.Manifest {
	tool := func(name string, schema string) adapters.Manifest {
		return adapters.Manifest{
			ToolID: "fixture." + name, AdapterID: "fixture", Name: name, Description: "test fixture",
			Capability: "test", InputSchema: json.RawMessage(schema), Idempotent: true, TimeoutSeconds: 30,
		}
	}
	const anyObject = `{"type":"object"}`
	return []adapters.Manifest{
		tool("echo", `{"type":"object","properties":{
			"x":{"type":"number"},
			"label":{"type":"string"}},
			"required":["x"],"additionalProperties":false}`),
		tool("empty", anyObject),
		tool("refuse", anyObject),
		tool("transient", anyObject),
		tool("broken", anyObject),
		tool("unavailable", anyObject),
		tool("slow", anyObject),
	}
}

func (a *fixtureAdapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	a.mu.Lock()
	a.calls[toolID]++
	a.mu.Unlock()
	switch toolID {
	case "fixture.echo":
		return &adapters.Result{Data: json.RawMessage(`{"echo":` + string(args) + `}`), OutputFiles: []string{"out/echo.txt"}}, nil
	case "fixture.empty":
		return &adapters.Result{}, nil
	case "fixture.refuse":
		return nil, protocol.Refusal("rail %s is over budget by %d mA", "3V3", 120)
	case "fixture.transient":
		return nil, protocol.Transient("solver process exited with status %d", 137)
	case "fixture.broken":
		return nil, errors.New("write |1: broken pipe")
	case "fixture.unavailable":
		return nil, protocol.Unavailable("license server is down")
	case "fixture.slow":
		select {
		case <-time.After(2500 * time.Millisecond):
			return &adapters.Result{Data: json.RawMessage(`{"slow":true}`)}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, errors.New("fixture has no tool " + toolID)
}

func (a *fixtureAdapter) Health(context.Context) (adapters.HealthStatus, error) {
	return adapters.HealthStatus{AdapterID: "fixture", Status: "ok", Version: a.Version(), ToolsAvailable: len(a.Manifests())}, nil
}

func (a *fixtureAdapter) callsTo(toolID string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls[toolID]
}

// newEnv returns an activity test environment running InvokeTool over a real
// registry that holds the fixture adapter.
func newEnv(t *testing.T) (*testsuite.TestActivityEnvironment, *fixtureAdapter) {
	t.Helper()
	fx := &fixtureAdapter{calls: map[string]int{}}
	reg := adapters.NewRegistry()
	if err := reg.Register(fx); err != nil {
		t.Fatalf("register fixture adapter: %v", err)
	}
	var s testsuite.WorkflowTestSuite
	s.SetLogger(sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestActivityEnvironment()
	tools := &activities.Tools{Registry: reg}
	env.RegisterActivityWithOptions(tools.InvokeTool, activity.RegisterOptions{Name: workflows.InvokeToolActivity})
	return env, fx
}

func invoke(env *testsuite.TestActivityEnvironment, toolID, args string) (workflows.InvokeToolResponse, error) {
	req := workflows.InvokeToolRequest{CallID: "0123456789abcdef", ToolID: toolID, Arguments: json.RawMessage(args), TimeoutSeconds: 30}
	val, err := env.ExecuteActivity(workflows.InvokeToolActivity, req)
	var out workflows.InvokeToolResponse
	if err != nil {
		return out, err
	}
	if gerr := val.Get(&out); gerr != nil {
		return out, gerr
	}
	return out, nil
}

// appError asserts err is an ApplicationError of the given type and
// retryability, and returns it with its decoded failure details.
func appError(t *testing.T, err error, wantType string, wantNonRetryable bool) (*temporal.ApplicationError, workflows.InvokeToolFailure) {
	t.Helper()
	if err == nil {
		t.Fatalf("InvokeTool succeeded, want a %s error", wantType)
	}
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) {
		t.Fatalf("error %v (%T) is not a *temporal.ApplicationError", err, err)
	}
	if appErr.Type() != wantType {
		t.Errorf("Type() = %q, want %q", appErr.Type(), wantType)
	}
	if appErr.NonRetryable() != wantNonRetryable {
		t.Errorf("NonRetryable() = %v, want %v", appErr.NonRetryable(), wantNonRetryable)
	}
	var detail workflows.InvokeToolFailure
	if !appErr.HasDetails() {
		t.Fatalf("error carries no InvokeToolFailure details")
	}
	if derr := appErr.Details(&detail); derr != nil {
		t.Fatalf("decode details: %v", derr)
	}
	if detail.Attempt != 1 {
		t.Errorf("details attempt = %d, want 1", detail.Attempt)
	}
	if detail.DurationMs < 0 {
		t.Errorf("details duration_ms = %v, want >= 0", detail.DurationMs)
	}
	return appErr, detail
}

func TestInvokeToolSuccess(t *testing.T) {
	env, fx := newEnv(t)
	out, err := invoke(env, "fixture.echo", `{"x":4.5,"label":"r1"}`)
	if err != nil {
		t.Fatalf("InvokeTool: %v", err)
	}
	var got map[string]map[string]any
	if err := json.Unmarshal(out.Data, &got); err != nil {
		t.Fatalf("data %s: %v", out.Data, err)
	}
	if got["echo"]["x"] != 4.5 || got["echo"]["label"] != "r1" || len(got["echo"]) != 2 {
		t.Errorf("data = %s, want the arguments echoed", out.Data)
	}
	if out.Attempt != 1 {
		t.Errorf("attempt = %d, want 1", out.Attempt)
	}
	if len(out.OutputFiles) != 1 || out.OutputFiles[0] != "out/echo.txt" {
		t.Errorf("output files = %v, want [out/echo.txt]", out.OutputFiles)
	}
	if out.DurationMs < 0 || out.DurationMs > 5000 {
		t.Errorf("duration_ms = %v, want a small non-negative number", out.DurationMs)
	}
	if n := fx.callsTo("fixture.echo"); n != 1 {
		t.Errorf("adapter called %d times, want 1", n)
	}
}

func TestInvokeToolEmptyDataBecomesEmptyObject(t *testing.T) {
	env, _ := newEnv(t)
	out, err := invoke(env, "fixture.empty", `{}`)
	if err != nil {
		t.Fatalf("InvokeTool: %v", err)
	}
	if string(out.Data) != "{}" {
		t.Errorf("data = %q, want {}", out.Data)
	}
	if out.OutputFiles != nil {
		t.Errorf("output files = %v, want none", out.OutputFiles)
	}
}

func TestInvokeToolUnknownTool(t *testing.T) {
	env, _ := newEnv(t)
	_, err := invoke(env, "fixture.nope", `{}`)
	appErr, _ := appError(t, err, "TOOL_UNAVAILABLE", true)
	want := "no adapter on this worker serves fixture.nope; start a worker that has it"
	if appErr.Message() != want {
		t.Errorf("Message() = %q, want %q", appErr.Message(), want)
	}
}

func TestInvokeToolInvalidArguments(t *testing.T) {
	for _, tc := range []struct {
		name, args, wantPrefix, wantMention string
	}{
		{"wrong type", `{"x":"ten"}`, "argument x: ", `want "number"`},
		{"missing required", `{"label":"r1"}`, "arguments: ", `["x"]`},
		{"unknown field", `{"x":1,"y":2}`, "unknown argument y; this tool takes ", "label, x"},
		{"not an object", `[1,2]`, "arguments must be a JSON object", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, fx := newEnv(t)
			_, err := invoke(env, "fixture.echo", tc.args)
			appErr, _ := appError(t, err, "INVALID_PARAMS", true)
			msg := appErr.Message()
			t.Logf("message: %s", msg)
			if !strings.HasPrefix(msg, tc.wantPrefix) {
				t.Errorf("Message() = %q, want it to start with %q", msg, tc.wantPrefix)
			}
			if tc.wantMention != "" && !strings.Contains(msg, tc.wantMention) {
				t.Errorf("Message() = %q does not name field %q", msg, tc.wantMention)
			}
			if n := fx.callsTo("fixture.echo"); n != 0 {
				t.Errorf("adapter called %d times with invalid arguments, want 0", n)
			}
		})
	}
}

func TestInvokeToolRefusalIsFinal(t *testing.T) {
	env, _ := newEnv(t)
	_, err := invoke(env, "fixture.refuse", `{}`)
	appErr, _ := appError(t, err, "TOOL_EXECUTION_ERROR", true)
	if want := "rail 3V3 is over budget by 120 mA"; appErr.Message() != want {
		t.Errorf("Message() = %q, want %q", appErr.Message(), want)
	}
}

func TestInvokeToolAdapterUnavailableIsFinal(t *testing.T) {
	env, _ := newEnv(t)
	_, err := invoke(env, "fixture.unavailable", `{}`)
	appErr, _ := appError(t, err, "TOOL_UNAVAILABLE", true)
	if want := "license server is down"; appErr.Message() != want {
		t.Errorf("Message() = %q, want %q", appErr.Message(), want)
	}
}

func TestInvokeToolTransientIsRetryable(t *testing.T) {
	env, _ := newEnv(t)
	_, err := invoke(env, "fixture.transient", `{}`)
	appErr, _ := appError(t, err, "TOOL_EXECUTION_ERROR", false)
	if want := "solver process exited with status 137"; appErr.Message() != want {
		t.Errorf("Message() = %q, want %q", appErr.Message(), want)
	}
}

func TestInvokeToolPlainErrorIsRetryable(t *testing.T) {
	env, _ := newEnv(t)
	_, err := invoke(env, "fixture.broken", `{}`)
	appErr, _ := appError(t, err, "TOOL_EXECUTION_ERROR", false)
	if want := "write |1: broken pipe"; appErr.Message() != want {
		t.Errorf("Message() = %q, want %q", appErr.Message(), want)
	}
}

// A call that outlasts the heartbeat interval keeps heartbeating, so that a
// worker that dies mid-call is noticed by the heartbeat timeout.
func TestInvokeToolHeartbeatsDuringLongCall(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 2.5s")
	}
	env, _ := newEnv(t)
	var mu sync.Mutex
	beats := 0
	env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) {
		mu.Lock()
		beats++
		mu.Unlock()
	})
	out, err := invoke(env, "fixture.slow", `{}`)
	if err != nil {
		t.Fatalf("InvokeTool: %v", err)
	}
	if string(out.Data) != `{"slow":true}` {
		t.Errorf("data = %s", out.Data)
	}
	if out.DurationMs < 2500 {
		t.Errorf("duration_ms = %v, want >= 2500", out.DurationMs)
	}
	mu.Lock()
	defer mu.Unlock()
	if beats < 1 {
		t.Errorf("%d heartbeats during a 2.5s call, want at least 1", beats)
	}
}
