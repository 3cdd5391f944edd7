package workflows_test

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/workflows"
)

// localHarness is the ToolCall harness (its stand-in InvokeTool on the
// adapter's queue) with InvokeToolLocal, the local activity, stood in for
// too, recording every attempt of each.
type localHarness struct {
	*harness
	mu    sync.Mutex
	local []activity.Info
	// localRequests are what the local runs were given.
	localRequests []workflows.InvokeToolRequest
	// answerNotLocal makes the local stand-in answer as a worker without
	// the tool in its process does.
	answerNotLocal bool
}

func newLocalHarness(t *testing.T, fn invokeFunc) *localHarness {
	t.Helper()
	h := &localHarness{harness: newHarness(t, fn)}
	h.env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		h.mu.Lock()
		h.local = append(h.local, activity.GetInfo(ctx))
		h.localRequests = append(h.localRequests, req)
		notLocal := h.answerNotLocal
		h.mu.Unlock()
		if notLocal {
			return workflows.InvokeToolResponse{}, temporal.NewNonRetryableApplicationError(
				req.ToolID+" does not run in this worker's process", workflows.NotLocal, nil)
		}
		return fn(ctx, req)
	}, activity.RegisterOptions{Name: workflows.InvokeToolLocalActivity})
	return h
}

// runs are the attempts that ran locally and on the adapter's queue.
func (h *localHarness) runs() (local, queued []activity.Info) {
	h.mu.Lock()
	local = append([]activity.Info(nil), h.local...)
	h.mu.Unlock()
	for _, a := range h.calls() {
		queued = append(queued, a.info)
	}
	return local, queued
}

func localInput(idempotent bool, retries int) workflows.ToolCallInput {
	in := input("power.check_budget", 5, idempotent, retries)
	in.AdapterID = "power"
	in.Local = true
	return in
}

func okResponse(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
	return workflows.InvokeToolResponse{Data: json.RawMessage(`{"status":"pass"}`), DurationMs: 0.02, Attempt: activity.GetInfo(ctx).Attempt}, nil
}

// A call marked Local runs as one local activity with the tool's
// timeout, and nothing goes to the adapter's queue.
func TestToolCallLocalRunsAsLocalActivity(t *testing.T) {
	h := newLocalHarness(t, okResponse)
	in := localInput(true, 3)
	res := h.run(t, in)
	if res.Status != workflows.StatusSuccess || string(res.Data) != `{"status":"pass"}` || res.Attempts != 1 {
		t.Fatalf("result %+v, want the tool's data on attempt 1", res)
	}
	local, queued := h.runs()
	if len(local) != 1 || len(queued) != 0 {
		t.Fatalf("ran %d times locally and %d on the queue, want 1 and 0", len(local), len(queued))
	}
	if !local[0].IsLocalActivity {
		t.Errorf("the local run's info says it is not a local activity")
	}
	if local[0].StartToCloseTimeout != 5*time.Second {
		t.Errorf("StartToClose = %s, want the tool's 5s", local[0].StartToCloseTimeout)
	}
	if got := h.localRequests[0]; got.CallID != in.CallID || got.ToolID != in.ToolID || string(got.Arguments) != string(in.Arguments) || got.Caller != in.Caller {
		t.Errorf("local request %+v does not carry the call", got)
	}
}

// The local run keeps the tool's retry policy: an idempotent tool that
// fails transiently is tried again, up to 1+Retries times in all, and the
// result reports the attempt that answered.
func TestToolCallLocalRetriesIdempotent(t *testing.T) {
	h := newLocalHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		if n := activity.GetInfo(ctx).Attempt; n < 3 {
			return workflows.InvokeToolResponse{}, transient(ctx, "the twin's connection reset", 1)
		}
		return okResponse(ctx, req)
	})
	res := h.run(t, localInput(true, 3))
	if res.Status != workflows.StatusSuccess || res.Attempts != 3 {
		t.Fatalf("result %+v, want success on attempt 3", res)
	}
	local, queued := h.runs()
	var attempts []int32
	for _, i := range local {
		attempts = append(attempts, i.Attempt)
	}
	if !reflect.DeepEqual(attempts, seq(3)) || len(queued) != 0 {
		t.Errorf("local attempts %v and %d on the queue, want %v and 0", attempts, len(queued), seq(3))
	}
}

// Every attempt of a tool that keeps failing is used, then the call ends
// with the last attempt's error, as on the queue.
func TestToolCallLocalGivesUpAfterRetries(t *testing.T) {
	h := newLocalHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		return workflows.InvokeToolResponse{}, transient(ctx, "the twin's connection reset", 2.5)
	})
	res := h.run(t, localInput(true, 2))
	wantError(t, res, -32001, "TOOL_EXECUTION_ERROR", "the twin's connection reset")
	if res.Attempts != 3 || res.DurationMs != 2.5 {
		t.Errorf("attempts/duration = %d/%v, want 3/2.5", res.Attempts, res.DurationMs)
	}
	if local, queued := h.runs(); len(local) != 3 || len(queued) != 0 {
		t.Errorf("ran %d times locally and %d on the queue, want 3 and 0", len(local), len(queued))
	}
}

// A tool that overruns its timeout is cut off and, being idempotent, tried
// again within the same bounds; the call reports a timeout.
func TestToolCallLocalTimeoutRetried(t *testing.T) {
	h := newLocalHarness(t, func(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		<-ctx.Done()
		return workflows.InvokeToolResponse{}, ctx.Err()
	})
	in := localInput(true, 1)
	in.TimeoutSeconds = 1
	res := h.run(t, in)
	wantError(t, res, -32006, "TOOL_TIMEOUT",
		"power.check_budget exceeded its timeout of 1s after 2 attempts; pass a larger timeout_seconds (up to 3600) or a smaller problem")
	if local, queued := h.runs(); len(local) != 2 || len(queued) != 0 {
		t.Errorf("ran %d times locally and %d on the queue, want 2 (1 + 1 retry) and 0", len(local), len(queued))
	}
}

// A worker that does not have the tool in its own process answers
// NotLocal; the call then runs on the adapter's queue, once, as any other.
func TestToolCallLocalFallsBackToAdapterQueue(t *testing.T) {
	h := newLocalHarness(t, okResponse)
	h.answerNotLocal = true
	res := h.run(t, localInput(true, 3))
	if res.Status != workflows.StatusSuccess || string(res.Data) != `{"status":"pass"}` {
		t.Fatalf("result %+v, want the tool's data from the adapter's queue", res)
	}
	local, queued := h.runs()
	if len(local) != 1 || len(queued) != 1 {
		t.Fatalf("ran %d times locally and %d on the queue, want 1 (answering not_local) and 1", len(local), len(queued))
	}
	if queued[0].TaskQueue != "adapter-power" || queued[0].IsLocalActivity {
		t.Errorf("fallback ran on %q (local %v), want adapter-power as a regular activity", queued[0].TaskQueue, queued[0].IsLocalActivity)
	}
}

// A call not marked Local never tries the local activity.
func TestToolCallNotLocalGoesToQueue(t *testing.T) {
	h := newLocalHarness(t, okResponse)
	in := localInput(true, 3)
	in.Local = false
	h.run(t, in)
	if local, queued := h.runs(); len(local) != 0 || len(queued) != 1 {
		t.Errorf("ran %d times locally and %d on the queue, want 0 and 1", len(local), len(queued))
	}
}
