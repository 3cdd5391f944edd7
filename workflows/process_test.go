package workflows_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	sdkworker "go.temporal.io/sdk/worker"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

// probeInput is the stand-in process's input: how it should end.
type probeInput struct {
	Answer  float64       `json:"answer"`
	Fail    string        `json:"fail,omitempty"`
	Sleep   time.Duration `json:"sleep,omitempty"`
	Forever bool          `json:"forever,omitempty"`
}

// probe stands in for a process a tool prepared (an evaluation, a loop).
func probe(ctx workflow.Context, in probeInput) (map[string]any, error) {
	if in.Forever {
		_ = workflow.GetSignalChannel(ctx, "never").Receive(ctx, nil)
	}
	if in.Sleep > 0 {
		_ = workflow.Sleep(ctx, in.Sleep)
	}
	if in.Fail != "" {
		return nil, temporal.NewNonRetryableApplicationError(in.Fail, "TOOL_EXECUTION_ERROR", nil)
	}
	return map[string]any{"answer": in.Answer, "from": "probe"}, nil
}

// processHarness is the ToolCall harness whose tool prepares p.
func processHarness(t *testing.T, p workflows.ChildProcess) *harness {
	t.Helper()
	h := newHarness(t, func(context.Context, workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		return workflows.InvokeToolResponse{Data: json.RawMessage(`{}`), DurationMs: 5, Attempt: 1, Process: &p}, nil
	})
	h.env.RegisterWorkflowWithOptions(probe, workflow.RegisterOptions{Name: "Probe"})
	return h
}

func probeProcess(t *testing.T, in probeInput) workflows.ChildProcess {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return workflows.ChildProcess{Kind: "Probe", ID: "probe-1", Input: raw, SearchAttributes: map[string]string{"MfProject": "p1"}}
}

var processCall = workflows.ToolCallInput{CallID: "00000000000000aa", ToolID: "fixture.long", AdapterID: "fixture", TimeoutSeconds: 60, Idempotent: true}

// An attached process's result is the call's answer, and the call takes as
// long as the process did.
func TestAttachedProcessAnswersTheCall(t *testing.T) {
	h := processHarness(t, probeProcess(t, probeInput{Answer: 4.2, Sleep: 3 * time.Second}))
	res := h.run(t, processCall)
	var out map[string]any
	if res.Status != workflows.StatusSuccess || json.Unmarshal(res.Data, &out) != nil || out["answer"] != 4.2 || out["from"] != "probe" {
		t.Fatalf("result %+v (data %s), want the probe's answer", res, res.Data)
	}
	if res.DurationMs < 3000 {
		t.Fatalf("duration %v ms, want at least the process's 3 s", res.DurationMs)
	}
}

// A failed process fails the call with its own words.
func TestAttachedProcessFailure(t *testing.T) {
	res := processHarness(t, probeProcess(t, probeInput{Fail: "cad_model m1 cannot be read as a cantilever"})).run(t, processCall)
	if res.Status != workflows.StatusError || res.Error.Type != protocol.ToolExecutionError.Name() ||
		!strings.Contains(res.Error.Details, "cannot be read as a cantilever") {
		t.Fatalf("failed process: %+v", res.Error)
	}
}

// On the real server (the test environment has no parent-close policy nor
// a child's execution timeout): a process that outlives the tool's
// timeout is a TOOL_TIMEOUT, and a detached one is left running, its
// parent the call, while the call answers what the tool said it would.
func TestProcessesOnTheEmbeddedServer(t *testing.T) {
	tmp := workertest.StartTemporal(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var next workflows.ChildProcess
	wf := sdkworker.New(tmp.Client, workflows.TaskQueue, sdkworker.Options{})
	wf.RegisterWorkflowWithOptions(workflows.ToolCall, workflow.RegisterOptions{Name: "ToolCall"})
	wf.RegisterWorkflowWithOptions(probe, workflow.RegisterOptions{Name: "Probe"})
	tools := sdkworker.New(tmp.Client, workflows.AdapterTaskQueue("fixture"), sdkworker.Options{})
	tools.RegisterActivityWithOptions(func(context.Context, workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
		p := next
		return workflows.InvokeToolResponse{Data: json.RawMessage(`{}`), Attempt: 1, Process: &p}, nil
	}, activity.RegisterOptions{Name: workflows.InvokeToolActivity})
	for _, w := range []sdkworker.Worker{wf, tools} {
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
	}
	call := func(in workflows.ToolCallInput, p workflows.ChildProcess) workflows.ToolCallResult {
		t.Helper()
		next = p
		run, err := tmp.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: workflows.CallWorkflowID(in.CallID),
			TaskQueue: workflows.TaskQueue}, "ToolCall", in)
		if err != nil {
			t.Fatal(err)
		}
		var res workflows.ToolCallResult
		if err := run.Get(ctx, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}

	timed := processCall
	timed.CallID, timed.TimeoutSeconds = "00000000000000b1", 2
	p := probeProcess(t, probeInput{Forever: true})
	p.ID = "probe-timed"
	if res := call(timed, p); res.Status != workflows.StatusError || res.Error.Code != int(protocol.ToolTimeout) ||
		!strings.Contains(res.Error.Details, "timeout of 2s") {
		t.Fatalf("a process past the tool's timeout: %+v", res.Error)
	}

	detached := processCall
	detached.CallID = "00000000000000b2"
	p = probeProcess(t, probeInput{Forever: true})
	p.ID, p.Detached, p.Answer = "probe-detached", true, json.RawMessage(`{"run_id":"r1"}`)
	if res := call(detached, p); res.Status != workflows.StatusSuccess || string(res.Data) != `{"run_id":"r1"}` {
		t.Fatalf("detached: %+v (data %s)", res, res.Data)
	}
	d, err := tmp.Client.DescribeWorkflowExecution(ctx, "probe-detached", "")
	if err != nil {
		t.Fatal(err)
	}
	info := d.GetWorkflowExecutionInfo()
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING || info.GetParentExecution().GetWorkflowId() != workflows.CallWorkflowID(detached.CallID) {
		t.Fatalf("the detached process is %v with parent %v, want running under its call", info.GetStatus(), info.GetParentExecution())
	}
	_ = tmp.Client.TerminateWorkflow(ctx, "probe-detached", "", "test over")

	// A second call starting the same process finds the first instead of
	// failing (the loop tools report it as a duplicate).
	again := processCall
	again.CallID = "00000000000000b3"
	p = probeProcess(t, probeInput{Sleep: time.Hour})
	p.ID, p.Detached, p.Answer = "probe-again", true, json.RawMessage(`{}`)
	first := call(again, p)
	again.CallID = "00000000000000b4"
	if second := call(again, p); first.Status != workflows.StatusSuccess || second.Status != workflows.StatusSuccess {
		t.Fatalf("starting the same process twice: %+v, %+v", first.Error, second.Error)
	}
	_ = tmp.Client.TerminateWorkflow(ctx, "probe-again", "", "test over")
}

// A followed process is read until the adapter says its answer is settled,
// on timers; one that never settles is answered as it stands when the
// follow time is up. With no kind, nothing is started.
func TestFollowedProcess(t *testing.T) {
	for _, c := range []struct {
		name          string
		kind          string
		settleAfter   int32
		followSeconds int
		wantReads     int32
	}{
		{"settles on the third read", "Probe", 3, 60, 3},
		{"never settles", "Probe", 1 << 30, 5, 0},
		{"nothing to start", "", 2, 60, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := probeProcess(t, probeInput{Sleep: time.Hour})
			p.Kind, p.Detached, p.Follow, p.FollowSeconds = c.kind, c.kind != "", true, c.followSeconds
			h := processHarness(t, p)
			var reads atomic.Int32
			h.env.RegisterActivityWithOptions(func(ctx context.Context, req workflows.FollowProcessRequest) (workflows.FollowProcessResponse, error) {
				if req.Process.ID != p.ID || req.Duplicate {
					return workflows.FollowProcessResponse{}, errors.New("unexpected request")
				}
				n := reads.Add(1)
				data, _ := json.Marshal(map[string]any{"read": n})
				return workflows.FollowProcessResponse{Data: data, Settled: n >= c.settleAfter}, nil
			}, activity.RegisterOptions{Name: workflows.FollowProcessActivity})
			res := h.run(t, processCall)
			var out map[string]float64
			if res.Status != workflows.StatusSuccess || json.Unmarshal(res.Data, &out) != nil {
				t.Fatalf("followed: %+v", res)
			}
			if c.wantReads > 0 && (reads.Load() != c.wantReads || out["read"] != float64(c.wantReads)) {
				t.Fatalf("%d reads answering read %v, want %d", reads.Load(), out["read"], c.wantReads)
			}
			if c.wantReads == 0 && (reads.Load() < 3 || out["read"] != float64(reads.Load())) {
				t.Fatalf("%d reads answering read %v: want several, answering the last", reads.Load(), out["read"])
			}
		})
	}
}
