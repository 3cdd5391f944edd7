package worker_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

// workerProcessEnv, when set to a Temporal address, makes the test binary a
// worker process: the one TestWorkerKilledMidActivity kills.
const workerProcessEnv = "METAFORGE_TEST_WORKER_OF"

func TestMain(m *testing.M) {
	if addr := os.Getenv(cadWorkerEnv); addr != "" {
		runCadWorkerProcess(addr)
		return
	}
	if addr := os.Getenv(knowledgeWorkerEnv); addr != "" {
		runKnowledgeWorkerProcess(addr)
		return
	}
	if addr := os.Getenv(workerProcessEnv); addr != "" {
		runWorkerProcess(addr)
		return
	}
	os.Exit(m.Run())
}

// runWorkerProcess serves every queue of a registry holding the test
// fixture adapter (and, when asked, the loop twin of loop_crash_test.go,
// its impact walks slowed for change_crash_test.go) until it is killed.
func runWorkerProcess(addr string) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	c, err := client.Dial(client.Options{HostPort: addr, Logger: sdklog.NewStructuredLogger(workertest.QuietLogger())})
	if err != nil {
		panic(err)
	}
	reg := adapters.NewRegistry()
	if err := reg.Register(&adaptertest.Fixture{}); err != nil {
		panic(err)
	}
	tw, err := loopTwin(ctx)
	if err != nil {
		panic(err)
	}
	w, err := worker.StartWorkersWith(c, reg, worker.AllQueues(reg), workertest.QuietLogger(), worker.Deps{Twin: changeTwin(tw)})
	if err != nil {
		panic(err)
	}
	os.Stdout.WriteString("worker ready\n")
	<-ctx.Done()
	w.Stop()
}

// startWorkerProcess starts a worker process on Temporal at addr, env
// (KEY=VALUE) added to its environment.
func startWorkerProcess(t *testing.T, addr string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), workerProcessEnv+"="+addr), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "worker ready\n" {
		t.Fatalf("worker process did not start: %q %v", line, err)
	}
	return cmd
}

// A worker process is killed (SIGKILL) while it runs two calls. Once a
// worker is back, the idempotent call runs again and completes; the
// non-idempotent one is not run twice and ends with an error saying so.
func TestWorkerKilledMidActivity(t *testing.T) {
	tmp := workertest.StartTemporal(t)
	first := startWorkerProcess(t, tmp.Address)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := func(callID, tool string) client.WorkflowRun {
		run, err := tmp.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: workflows.CallWorkflowID(callID), TaskQueue: workflows.TaskQueue},
			"ToolCall", workflows.ToolCallInput{
				CallID: callID, ToolID: tool, AdapterID: "fixture", TimeoutSeconds: 60,
				Arguments: []byte(`{"key":"` + callID + `","sleep_ms":3000}`), Idempotent: tool == "fixture.sleep", Retries: 3, Caller: "local",
			})
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	idempotent := start("00000000000000a1", "fixture.sleep")
	once := start("00000000000000a2", "fixture.sleep_once")

	for _, id := range []string{"00000000000000a1", "00000000000000a2"} {
		waitForActivityStarted(t, ctx, tmp.Client, workflows.CallWorkflowID(id))
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	startWorkerProcess(t, tmp.Address)

	var res workflows.ToolCallResult
	if err := idempotent.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != workflows.StatusSuccess || res.Attempts != 2 {
		t.Errorf("idempotent call after the crash: status %s attempts %d error %+v, want success on attempt 2", res.Status, res.Attempts, res.Error)
	}
	if err := once.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != workflows.StatusError || res.Error == nil || res.Error.Code != -32001 || !strings.Contains(res.Error.Details, "not idempotent, so it was not run again") {
		t.Errorf("non-idempotent call after the crash: %+v %+v, want TOOL_EXECUTION_ERROR saying it was not run again", res, res.Error)
	}
}

// A worker process is killed (SIGKILL) while a short tool runs as a local
// activity of its call's workflow, inside the workflow task. Nothing of the
// run is in history yet, so once the task times out another worker runs
// the workflow task again, the tool with it, and the call succeeds: the
// reason only an idempotent tool may run locally.
func TestWorkerKilledMidLocalActivity(t *testing.T) {
	tmp := workertest.StartTemporal(t)
	first := startWorkerProcess(t, tmp.Address)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const callID = "00000000000000b1"
	run, err := tmp.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: workflows.CallWorkflowID(callID), TaskQueue: workflows.TaskQueue},
		"ToolCall", workflows.ToolCallInput{
			CallID: callID, ToolID: "fixture.local_sleep", AdapterID: "fixture", TimeoutSeconds: 30,
			Arguments: []byte(`{"key":"` + callID + `","sleep_ms":4000}`), Idempotent: true, Retries: 3, Caller: "local", Local: true,
		})
	if err != nil {
		t.Fatal(err)
	}
	// The local activity runs inside the workflow task: kill while it is
	// started on the first worker.
	firstIdentity := waitForWorkflowTaskStarted(t, ctx, tmp.Client, run.GetID())
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	startWorkerProcess(t, tmp.Address)

	var res workflows.ToolCallResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != workflows.StatusSuccess {
		t.Fatalf("the call after the crash: %+v %+v, want success", res, res.Error)
	}
	var timedOut, locals int
	var completedBy string
	it := tmp.Client.GetWorkflowHistory(ctx, run.GetID(), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
			timedOut++
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			if ev.GetMarkerRecordedEventAttributes().GetMarkerName() == "LocalActivity" {
				locals++
			}
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			completedBy = ev.GetWorkflowTaskCompletedEventAttributes().GetIdentity()
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			t.Errorf("an activity was scheduled on a queue; the short tool should have run locally")
		}
	}
	if timedOut == 0 || locals != 1 || completedBy == "" || completedBy == firstIdentity {
		t.Errorf("history: %d workflow tasks timed out, %d local activities, completed by %q (the killed worker was %q); want the dead worker's task timed out and one local activity recorded by the new worker",
			timedOut, locals, completedBy, firstIdentity)
	}
}

// waitForWorkflowTaskStarted waits until a worker has started the
// workflow's task, and returns that worker's identity.
func waitForWorkflowTaskStarted(t *testing.T, ctx context.Context, c client.Client, id string) string {
	t.Helper()
	for {
		it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				break
			}
			if a := ev.GetWorkflowTaskStartedEventAttributes(); a != nil {
				return a.GetIdentity()
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no workflow task of %s ever started", id)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitForActivityStarted waits until the workflow's activity is running on
// a worker, so the kill lands mid-activity.
func waitForActivityStarted(t *testing.T, ctx context.Context, c client.Client, id string) {
	t.Helper()
	for {
		desc, err := c.DescribeWorkflowExecution(ctx, id, "")
		if err == nil {
			for _, a := range desc.GetPendingActivities() {
				if a.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("activity of %s never started: %v", id, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
