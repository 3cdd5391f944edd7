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
	if addr := os.Getenv(workerProcessEnv); addr != "" {
		runWorkerProcess(addr)
		return
	}
	os.Exit(m.Run())
}

// runWorkerProcess serves every queue of a registry holding the test
// fixture adapter (and, when asked, the loop twin of loop_crash_test.go)
// until it is killed.
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
	w, err := worker.StartWorkersWith(c, reg, worker.AllQueues(reg), workertest.QuietLogger(), worker.Deps{Twin: tw})
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
