package workflows_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/workflows"
)

// invokeFunc stands in for the InvokeTool activity.
type invokeFunc func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error)

// attempt is what one run of the stand-in activity saw.
type attempt struct {
	req  workflows.InvokeToolRequest
	info activity.Info
}

// harness runs the ToolCall workflow in the SDK's test environment with a
// stand-in InvokeTool activity, recording every attempt of it.
type harness struct {
	env      *testsuite.TestWorkflowEnvironment
	mu       sync.Mutex
	attempts []attempt
}

func quietLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func newHarness(t *testing.T, fn invokeFunc) *harness {
	t.Helper()
	h := &harness{}
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	h.env = s.NewTestWorkflowEnvironment()
	h.env.SetTestTimeout(30 * time.Second)
	h.env.RegisterWorkflowWithOptions(workflows.ToolCall, workflow.RegisterOptions{Name: "ToolCall"})
	h.env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		h.mu.Lock()
		h.attempts = append(h.attempts, attempt{req: req, info: activity.GetInfo(ctx)})
		h.mu.Unlock()
		return fn(ctx, req)
	}, activity.RegisterOptions{Name: workflows.InvokeToolActivity})
	return h
}

func (h *harness) run(t *testing.T, in workflows.ToolCallInput) workflows.ToolCallResult {
	t.Helper()
	h.env.ExecuteWorkflow("ToolCall", in)
	if !h.env.IsWorkflowCompleted() {
		t.Fatalf("workflow did not complete")
	}
	if err := h.env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow failed (a failed call must be a result, not a failed workflow): %v", err)
	}
	var res workflows.ToolCallResult
	if err := h.env.GetWorkflowResult(&res); err != nil {
		t.Fatalf("decode result: %v", err)
	}
	return res
}

func (h *harness) calls() []attempt {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]attempt(nil), h.attempts...)
}

// attemptNumbers lists info.Attempt of each run, which must count 1, 2, ...
func (h *harness) attemptNumbers() []int32 {
	var out []int32
	for _, a := range h.calls() {
		out = append(out, a.info.Attempt)
	}
	return out
}

func seq(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i + 1)
	}
	return out
}

func input(toolID string, timeoutSeconds int, idempotent bool, retries int) workflows.ToolCallInput {
	return workflows.ToolCallInput{
		CallID:         "00c0ffee00c0ffee",
		ToolID:         toolID,
		AdapterID:      "fixture",
		Arguments:      json.RawMessage(`{"rails":[{"name":"3V3"}]}`),
		TimeoutSeconds: timeoutSeconds,
		Idempotent:     idempotent,
		Retries:        retries,
		Caller:         "test",
	}
}

// transient fails the way InvokeTool reports a retryable tool failure.
func transient(ctx context.Context, msg string, durationMs float64) error {
	return temporal.NewApplicationError(msg, "TOOL_EXECUTION_ERROR",
		workflows.InvokeToolFailure{DurationMs: durationMs, Attempt: activity.GetInfo(ctx).Attempt})
}

func wantError(t *testing.T, res workflows.ToolCallResult, code int, typ, details string) {
	t.Helper()
	if res.Status != workflows.StatusError {
		t.Fatalf("status = %q, want %q (result %+v)", res.Status, workflows.StatusError, res)
	}
	if res.Error == nil {
		t.Fatalf("error result without an error")
	}
	if res.Error.Code != code || res.Error.Type != typ {
		t.Errorf("error = %d %s, want %d %s", res.Error.Code, res.Error.Type, code, typ)
	}
	if res.Error.Details != details {
		t.Errorf("details = %q\nwant      %q", res.Error.Details, details)
	}
	if res.Data != nil {
		t.Errorf("error result carries data %s", res.Data)
	}
}

func TestToolCallSuccessPassesResultThrough(t *testing.T) {
	h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		return workflows.InvokeToolResponse{
			Data:        json.RawMessage(`{"total_ma":420}`),
			OutputFiles: []string{"out/budget.csv"},
			DurationMs:  12.5,
			Attempt:     activity.GetInfo(ctx).Attempt,
		}, nil
	})
	in := input("fixture.check", 30, true, 3)
	res := h.run(t, in)

	if res.Status != workflows.StatusSuccess || res.Error != nil {
		t.Fatalf("result %+v, want success", res)
	}
	if res.CallID != in.CallID || res.ToolID != in.ToolID {
		t.Errorf("call/tool = %s/%s, want %s/%s", res.CallID, res.ToolID, in.CallID, in.ToolID)
	}
	if string(res.Data) != `{"total_ma":420}` {
		t.Errorf("data = %s", res.Data)
	}
	if res.DurationMs != 12.5 {
		t.Errorf("duration_ms = %v, want 12.5", res.DurationMs)
	}
	if res.Attempts != 1 {
		t.Errorf("attempts = %d, want 1", res.Attempts)
	}
	if !reflect.DeepEqual(res.OutputFiles, []string{"out/budget.csv"}) {
		t.Errorf("output files = %v", res.OutputFiles)
	}

	calls := h.calls()
	if len(calls) != 1 {
		t.Fatalf("activity ran %d times, want 1", len(calls))
	}
	want := workflows.InvokeToolRequest{CallID: in.CallID, ToolID: in.ToolID, Arguments: in.Arguments, TimeoutSeconds: 30}
	if got := calls[0].req; got.CallID != want.CallID || got.ToolID != want.ToolID ||
		string(got.Arguments) != string(want.Arguments) || got.TimeoutSeconds != want.TimeoutSeconds {
		t.Errorf("activity request = %+v, want %+v", got, want)
	}
	if name := calls[0].info.ActivityType.Name; name != "InvokeTool" {
		t.Errorf("activity type = %q, want InvokeTool", name)
	}
}

// The activity runs on the adapter's queue, bounded by the tool's timeout;
// only a call long enough to need one gets a heartbeat timeout.
func TestToolCallActivityOptions(t *testing.T) {
	for _, tc := range []struct {
		adapter       string
		timeout       int
		wantHeartbeat time.Duration
	}{
		{"power", 5, 0},
		{"fixture", 10, 0},
		{"fixture", 11, workflows.HeartbeatTimeout},
		{"spice", 3600, workflows.HeartbeatTimeout},
	} {
		h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
			return workflows.InvokeToolResponse{Data: json.RawMessage(`{}`), Attempt: activity.GetInfo(ctx).Attempt}, nil
		})
		in := input(tc.adapter+".tool", tc.timeout, true, 3)
		in.AdapterID = tc.adapter
		h.run(t, in)
		calls := h.calls()
		if len(calls) != 1 {
			t.Fatalf("timeout %d: activity ran %d times, want 1", tc.timeout, len(calls))
		}
		info := calls[0].info
		if info.TaskQueue != "adapter-"+tc.adapter {
			t.Errorf("timeout %d: task queue = %q, want %q", tc.timeout, info.TaskQueue, "adapter-"+tc.adapter)
		}
		if want := time.Duration(tc.timeout) * time.Second; info.StartToCloseTimeout != want {
			t.Errorf("timeout %d: StartToClose = %s, want %s", tc.timeout, info.StartToCloseTimeout, want)
		}
		if info.HeartbeatTimeout != tc.wantHeartbeat {
			t.Errorf("timeout %d: heartbeat timeout = %s, want %s", tc.timeout, info.HeartbeatTimeout, tc.wantHeartbeat)
		}
		if info.ScheduleToCloseTimeout != 0 && info.ScheduleToCloseTimeout < time.Duration(tc.timeout)*time.Second {
			t.Errorf("timeout %d: ScheduleToClose %s would cut the call short", tc.timeout, info.ScheduleToCloseTimeout)
		}
	}
}

func TestToolCallIdempotentRetriesTransientFailure(t *testing.T) {
	h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		n := activity.GetInfo(ctx).Attempt
		if n < 3 {
			return workflows.InvokeToolResponse{}, transient(ctx, "solver process exited with status 137", 4)
		}
		return workflows.InvokeToolResponse{Data: json.RawMessage(`{"ok":true}`), DurationMs: 9, Attempt: n}, nil
	})
	res := h.run(t, input("fixture.flaky", 30, true, 3))
	if res.Status != workflows.StatusSuccess || res.Error != nil {
		t.Fatalf("result %+v, want success", res)
	}
	if string(res.Data) != `{"ok":true}` || res.DurationMs != 9 {
		t.Errorf("data/duration = %s/%v, want the third attempt's", res.Data, res.DurationMs)
	}
	if res.Attempts != 3 {
		t.Errorf("attempts = %d, want 3", res.Attempts)
	}
	if got := h.attemptNumbers(); !reflect.DeepEqual(got, seq(3)) {
		t.Errorf("activity attempts = %v, want %v", got, seq(3))
	}
}

func TestToolCallIdempotentGivesUpAfterRetries(t *testing.T) {
	for _, retries := range []int{1, 2, 3} {
		h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
			return workflows.InvokeToolResponse{}, transient(ctx, "solver process exited with status 137", 4.25)
		})
		res := h.run(t, input("fixture.flaky", 30, true, retries))
		wantError(t, res, -32001, "TOOL_EXECUTION_ERROR", "solver process exited with status 137")
		if got := h.attemptNumbers(); !reflect.DeepEqual(got, seq(1+retries)) {
			t.Errorf("retries=%d: activity attempts = %v, want %v", retries, got, seq(1+retries))
		}
		if res.Attempts != int32(1+retries) || res.DurationMs != 4.25 {
			t.Errorf("retries=%d: attempts/duration = %d/%v, want %d/4.25 from the last attempt's details",
				retries, res.Attempts, res.DurationMs, 1+retries)
		}
	}
}

func TestToolCallNonIdempotentRunsOnce(t *testing.T) {
	h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		return workflows.InvokeToolResponse{}, transient(ctx, "connection to the PLM reset", 7)
	})
	res := h.run(t, input("fixture.write", 30, false, 3))
	wantError(t, res, -32001, "TOOL_EXECUTION_ERROR", "connection to the PLM reset")
	if got := h.attemptNumbers(); !reflect.DeepEqual(got, seq(1)) {
		t.Errorf("activity attempts = %v, want [1]", got)
	}
	if res.Attempts != 1 || res.DurationMs != 7 {
		t.Errorf("attempts/duration = %d/%v, want 1/7", res.Attempts, res.DurationMs)
	}
}

// A final error stops retries even for an idempotent tool, and its type
// becomes the result's code.
func TestToolCallNonRetryableErrorsRunOnce(t *testing.T) {
	for _, tc := range []struct {
		errType  string
		wantCode int
		wantType string
	}{
		{"INVALID_PARAMS", -32602, "INVALID_PARAMS"},
		{"TOOL_UNAVAILABLE", -32003, "TOOL_UNAVAILABLE"},
		{"TOOL_EXECUTION_ERROR", -32001, "TOOL_EXECUTION_ERROR"}, // a refusal
		{"SOMETHING_ELSE", -32001, "TOOL_EXECUTION_ERROR"},       // unknown types are execution errors
	} {
		h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
			return workflows.InvokeToolResponse{}, temporal.NewNonRetryableApplicationError("argument x: want number", tc.errType, nil,
				workflows.InvokeToolFailure{DurationMs: 0.5, Attempt: activity.GetInfo(ctx).Attempt})
		})
		res := h.run(t, input("fixture.check", 30, true, 3))
		wantError(t, res, tc.wantCode, tc.wantType, "argument x: want number")
		if got := h.attemptNumbers(); !reflect.DeepEqual(got, seq(1)) {
			t.Errorf("%s: activity attempts = %v, want [1]", tc.errType, got)
		}
		if res.Attempts != 1 || res.DurationMs != 0.5 {
			t.Errorf("%s: attempts/duration = %d/%v, want 1/0.5", tc.errType, res.Attempts, res.DurationMs)
		}
	}
}

// An error that is not an ApplicationError from InvokeTool (a panic, say)
// still ends the call with a result, not a failed workflow.
func TestToolCallPanicIsExecutionError(t *testing.T) {
	h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		panic("nil map in the adapter")
	})
	res := h.run(t, input("fixture.check", 30, false, 0))
	if res.Status != workflows.StatusError || res.Error == nil || res.Error.Code != -32001 || res.Error.Type != "TOOL_EXECUTION_ERROR" {
		t.Fatalf("result %+v, want a TOOL_EXECUTION_ERROR", res)
	}
	if got := h.attemptNumbers(); !reflect.DeepEqual(got, seq(1)) {
		t.Errorf("activity attempts = %v, want [1]", got)
	}
}

// A non-idempotent tool that really outlasts its StartToClose timeout in the
// test environment: a timeout result, and no second run.
func TestToolCallTimeoutNonIdempotent(t *testing.T) {
	h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		select {
		case <-ctx.Done(): // the StartToClose deadline
			return workflows.InvokeToolResponse{}, ctx.Err()
		case <-time.After(10 * time.Second):
			return workflows.InvokeToolResponse{Data: json.RawMessage(`{}`)}, nil
		}
	})
	start := time.Now()
	res := h.run(t, input("fixture.solve", 1, false, 3))
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the call took %s; the 1s timeout did not stop it", took)
	}
	wantError(t, res, -32006, "TOOL_TIMEOUT",
		"fixture.solve exceeded its timeout of 1s; it is not idempotent, so it was not run again; pass a larger timeout_seconds (up to 3600) or a smaller problem")
	if res.DurationMs != 1000 {
		t.Errorf("duration_ms = %v, want 1000", res.DurationMs)
	}
	if got := h.attemptNumbers(); !reflect.DeepEqual(got, seq(1)) {
		t.Errorf("activity attempts = %v, want [1]", got)
	}
}

// An idempotent tool's timeouts are retried. The test environment does not
// retry an attempt it timed out itself, so the activity reports the
// StartToClose timeout the way the server would.
func TestToolCallTimeoutIdempotentRetried(t *testing.T) {
	h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		return workflows.InvokeToolResponse{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil)
	})
	res := h.run(t, input("fixture.solve", 45, true, 2))
	wantError(t, res, -32006, "TOOL_TIMEOUT",
		"fixture.solve exceeded its timeout of 45s after 3 attempts; pass a larger timeout_seconds (up to 3600) or a smaller problem")
	if res.DurationMs != 45000 {
		t.Errorf("duration_ms = %v, want 45000", res.DurationMs)
	}
	if got := h.attemptNumbers(); !reflect.DeepEqual(got, seq(3)) {
		t.Errorf("activity attempts = %v, want %v", got, seq(3))
	}
}

func TestToolCallTimeoutThenSuccess(t *testing.T) {
	h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		n := activity.GetInfo(ctx).Attempt
		if n == 1 {
			return workflows.InvokeToolResponse{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil)
		}
		return workflows.InvokeToolResponse{Data: json.RawMessage(`{"converged":true}`), Attempt: n}, nil
	})
	res := h.run(t, input("fixture.solve", 45, true, 3))
	if res.Status != workflows.StatusSuccess || string(res.Data) != `{"converged":true}` || res.Attempts != 2 {
		t.Fatalf("result %+v, want success on attempt 2", res)
	}
}

func TestToolCallTimeoutNonIdempotentNotRetried(t *testing.T) {
	h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		return workflows.InvokeToolResponse{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil)
	})
	res := h.run(t, input("fixture.write", 45, false, 3))
	wantError(t, res, -32006, "TOOL_TIMEOUT",
		"fixture.write exceeded its timeout of 45s; it is not idempotent, so it was not run again; pass a larger timeout_seconds (up to 3600) or a smaller problem")
	if got := h.attemptNumbers(); !reflect.DeepEqual(got, seq(1)) {
		t.Errorf("activity attempts = %v, want [1]", got)
	}
}

// A worker that dies mid-call stops heartbeating: Temporal reports a
// heartbeat timeout, which the call reports as the worker having gone, not
// as the tool being slow.
func TestToolCallHeartbeatTimeout(t *testing.T) {
	for _, tc := range []struct {
		idempotent bool
		retries    int
		wantRuns   int
		details    string
	}{
		{false, 3, 1, "the worker running fixture.solve stopped responding (no heartbeat for 10s); it is not idempotent, so it was not run again"},
		{true, 1, 2, "the worker running fixture.solve stopped responding (no heartbeat for 10s) after 2 attempts"},
	} {
		h := newHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
			return workflows.InvokeToolResponse{}, temporal.NewHeartbeatTimeoutError()
		})
		res := h.run(t, input("fixture.solve", 600, tc.idempotent, tc.retries))
		wantError(t, res, -32001, "TOOL_EXECUTION_ERROR", tc.details)
		if got := h.attemptNumbers(); !reflect.DeepEqual(got, seq(tc.wantRuns)) {
			t.Errorf("idempotent=%v: activity attempts = %v, want %v", tc.idempotent, got, seq(tc.wantRuns))
		}
	}
}
