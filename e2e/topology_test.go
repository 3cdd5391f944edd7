//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/metaforge/metaforge/workflows"
)

// The deployment of deploy/compose.yaml, as processes on loopback: `metaforge
// serve --no-worker` (its embedded Temporal stands in for the cluster) and
// `metaforge worker` processes serving different task queues against it.
// A tool call for each queue is served by the worker serving that queue,
// as the Temporal history records (an activity's ActivityTaskStarted names
// its worker, pid@host). Then the spice worker is killed (SIGKILL) in the
// middle of a simulation; a new worker for the same queue picks the call up
// once Temporal misses the dead one's heartbeat, and the call, which the
// MCP client has been waiting on all along, succeeds, run on the new one.
func TestTopologyWorkersPerQueue(t *testing.T) {
	if _, err := exec.LookPath("ngspice"); err != nil {
		t.Fatal("ngspice is not on PATH: the spice worker of this test runs it; install it (apt-get install ngspice, or bash deploy/test-deps.sh)")
	}
	began := time.Now()
	mark := func(what string) { t.Logf("%6s  %s", time.Since(began).Round(100*time.Millisecond), what) }

	dir := t.TempDir()
	ports := freePorts(t, 2)
	temporalPort, httpPort := ports[0], ports[1]
	serve := start(t, "metaforge serve --no-worker", command(t, 2*time.Minute, binary, "serve", "--no-worker",
		"--data-dir", filepath.Join(dir, "serve"),
		"--temporal-port", strconv.Itoa(temporalPort), "--ui-port", "0",
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", httpPort)))
	waitHealthy(t, serve, fmt.Sprintf("http://127.0.0.1:%d/healthz", httpPort), time.Minute)
	if strings.Contains(serve.stderr.String(), "Workers:") {
		t.Fatalf("serve --no-worker started workers:\n%s", serve.stderr.String())
	}
	mark("serve --no-worker is healthy")

	temporal := fmt.Sprintf("127.0.0.1:%d", temporalPort)
	a := startWorker(t, "worker A", temporal, filepath.Join(dir, "a"),
		workflows.TaskQueue, "adapter-power", "adapter-health", "adapter-call")
	b := startWorker(t, "worker B", temporal, filepath.Join(dir, "b"), "adapter-spice")
	mark(fmt.Sprintf("worker A (pid %d) and worker B (pid %d) are polling", pid(a), pid(b)))

	tc := dialTemporal(t, temporalPort)
	session := connectHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/mcp", httpPort))

	// One call per queue, each served where its queue is.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	budget := callTool(ctx, session, "power.check_budget", referenceBudget())
	if budget.err != nil {
		t.Fatal(budget.err)
	}
	if budget.data["status"] != "pass" {
		t.Errorf("power.check_budget: %v", budget.data)
	}
	checkRanLocally(t, tc, budget.callID, a)
	mark("power.check_budget ran on worker A, as a local activity of its workflow")

	sim := callTool(ctx, session, "spice.run_simulation", map[string]any{
		"netlist": "divider\nV1 in 0 DC 10\nR1 in out 1k\nR2 out 0 1k\n", "analysis_type": "op", "vectors": []string{"v(out)"}})
	if sim.err != nil {
		t.Fatal(sim.err)
	}
	if got := vectorFinal(sim.data, "v(out)"); sim.data["converged"] != true || got < 4.999 || got > 5.001 {
		t.Errorf("spice.run_simulation: converged %v, v(out) %v; want true, 5 V", sim.data["converged"], got)
	}
	checkServedBy(t, tc, sim.callID, a, b, "adapter-spice", 1)
	mark("spice.run_simulation ran on worker B, its workflow on worker A")

	// serve runs no worker, so its health measures each adapter by the
	// workers polling its queue: spice and power are served, calculix by
	// nobody, and it says how to start one. The workers started after
	// serve's last measurement, so it is asked to probe now.
	checkHealthByQueue(t, fmt.Sprintf("http://127.0.0.1:%d/healthz?refresh=true", httpPort))
	mark("serve's health reports spice and power served elsewhere, calculix by nobody")

	// Worker B dies in the middle of a simulation.
	pending := make(chan toolOutcome, 1)
	go func() { pending <- callTool(ctx, session, "spice.run_simulation", longSimulation()) }()
	id, first := waitForRunningSpice(t, tc)
	if pidOf(first) != pid(b) {
		t.Fatalf("the long simulation started on %q, not on worker B (pid %d)", first, pid(b))
	}
	mark(fmt.Sprintf("the long simulation %s is running on worker B", id))
	_ = syscall.Kill(-pid(b), syscall.SIGKILL) // B and its ngspice
	b.wait(t, 10*time.Second)
	if d, err := tc.DescribeWorkflowExecution(ctx, id, ""); err != nil {
		t.Fatal(err)
	} else if st := d.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		t.Fatalf("after worker B died the call is %v, want still running", st)
	}
	mark("worker B killed (SIGKILL); the call is still running")

	b2 := startWorker(t, "worker B2", temporal, filepath.Join(dir, "b2"), "adapter-spice")
	mark(fmt.Sprintf("worker B2 (pid %d) is polling adapter-spice", pid(b2)))
	var long toolOutcome
	select {
	case long = <-pending:
	case <-time.After(90 * time.Second):
		t.Fatalf("the call %s did not end within 90 s of worker B2 starting", id)
	}
	if long.err != nil {
		t.Fatalf("the call worker B died in: %v", long.err)
	}
	if "call-"+long.callID != id {
		t.Errorf("the MCP client's callId %s is not the running call %s", long.callID, id)
	}
	if long.data["converged"] != true {
		t.Errorf("the long simulation did not converge: %v", long.data)
	}
	checkServedBy(t, tc, long.callID, a, b2, "adapter-spice", 2)
	var res workflows.ToolCallResult
	if err := tc.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != workflows.StatusSuccess || res.Attempts != 2 {
		t.Errorf("the call worker B died in: status %s after %d attempts (%+v); want success on attempt 2", res.Status, res.Attempts, res.Error)
	}
	mark("the call finished on worker B2 (attempt 2)")
	if took := time.Since(began); took > time.Minute {
		t.Logf("the topology test took %s, over its one-minute budget", took.Round(time.Second))
	}
}

// startWorker starts `metaforge worker` for queues against Temporal at
// addr and waits until it says it serves them.
func startWorker(t *testing.T, label, addr, dataDir string, queues ...string) *process {
	t.Helper()
	cmd := command(t, 3*time.Minute, binary, "worker", "--queues", strings.Join(queues, ","), "--data-dir", dataDir)
	cmd.Env = append(cmd.Env, "TEMPORAL_ADDRESS="+addr)
	p := start(t, label, cmd)
	want := fmt.Sprintf("metaforge worker: serving [%s]", strings.Join(queues, " "))
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(p.stderr.String(), want) {
		if p.exited() || time.Now().After(deadline) {
			t.Fatalf("%s did not say %q:\n%s", label, want, tail(p.stderr.String(), 20))
		}
		time.Sleep(20 * time.Millisecond)
	}
	return p
}

func pid(p *process) int { return p.cmd.Process.Pid }

// pidOf reads the pid from a Temporal SDK identity, "pid@host@...".
func pidOf(identity string) int {
	n, _ := strconv.Atoi(strings.SplitN(identity, "@", 2)[0])
	return n
}

// connectHTTP opens an MCP session over Streamable HTTP with the Go SDK.
func connectHTTP(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "metaforge-e2e-topology", Version: "1"}, nil)
	s, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// toolOutcome is a tools/call's structured result and its callId, or why
// there is none.
type toolOutcome struct {
	callID string
	data   map[string]any
	err    error
}

// callTool calls tool and keeps its _meta.callId, which every answer,
// a refusal too, must carry.
func callTool(ctx context.Context, s *mcp.ClientSession, tool string, args map[string]any) toolOutcome {
	data, res, err := callToolJSON(ctx, s, tool, args)
	out := toolOutcome{data: data}
	if res != nil {
		out.callID, _ = res.Meta["callId"].(string)
	}
	switch {
	case err != nil && res != nil:
		out.err = fmt.Errorf("%w (call %s)", err, out.callID)
	case err != nil:
		out.err = err
	case !callIDRe.MatchString(out.callID):
		out.err = fmt.Errorf("%s: _meta.callId %q", tool, out.callID)
	}
	return out
}

// checkServedBy reads call-<callID>'s history: every workflow task ran on
// workflowWorker, and InvokeTool was scheduled on queue and (in its last
// attempt, which the history records) ran on activityWorker.
func checkServedBy(t *testing.T, c client.Client, callID string, workflowWorker, activityWorker *process, queue string, attempt int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	id := workflows.CallWorkflowID(callID)
	var workflowTasks, invokes int
	for _, ev := range historyOf(ctx, t, c, id) {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			workflowTasks++
			if who := ev.GetWorkflowTaskStartedEventAttributes().GetIdentity(); pidOf(who) != pid(workflowWorker) {
				t.Errorf("%s: a workflow task ran on %q, not on %s (pid %d)", id, who, workflowWorker.name, pid(workflowWorker))
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			a := ev.GetActivityTaskScheduledEventAttributes()
			if a.GetActivityType().GetName() == workflows.InvokeToolActivity {
				invokes++
				if got := a.GetTaskQueue().GetName(); got != queue {
					t.Errorf("%s: InvokeTool was scheduled on %q, want %q", id, got, queue)
				}
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			a := ev.GetActivityTaskStartedEventAttributes()
			if pidOf(a.GetIdentity()) != pid(activityWorker) {
				t.Errorf("%s: an activity ran on %q, not on %s (pid %d)", id, a.GetIdentity(), activityWorker.name, pid(activityWorker))
			}
			if a.GetAttempt() != attempt {
				t.Errorf("%s: the activity's recorded attempt is %d, want %d", id, a.GetAttempt(), attempt)
			}
		}
	}
	if workflowTasks == 0 || invokes != 1 {
		t.Errorf("%s: %d workflow tasks and %d InvokeTool activities in its history, want some and 1", id, workflowTasks, invokes)
	}
}

// historyOf is workflow id's history, every event of it.
func historyOf(ctx context.Context, t *testing.T, c client.Client, id string) []*historypb.HistoryEvent {
	t.Helper()
	var events []*historypb.HistoryEvent
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", id, err)
		}
		events = append(events, ev)
	}
	return events
}

// checkRanLocally reads call-<callID>'s history: a short tool ran as one
// local activity (InvokeToolLocal, recorded as a marker) in a workflow
// task of workflowWorker, and nothing was scheduled on an adapter's queue.
func checkRanLocally(t *testing.T, c client.Client, callID string, workflowWorker *process) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	id := workflows.CallWorkflowID(callID)
	var workflowTasks, locals, scheduled int
	for _, ev := range historyOf(ctx, t, c, id) {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			workflowTasks++
			if who := ev.GetWorkflowTaskStartedEventAttributes().GetIdentity(); pidOf(who) != pid(workflowWorker) {
				t.Errorf("%s: a workflow task ran on %q, not on %s (pid %d)", id, who, workflowWorker.name, pid(workflowWorker))
			}
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			if ev.GetMarkerRecordedEventAttributes().GetMarkerName() == "LocalActivity" {
				locals++
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			scheduled++
		}
	}
	if workflowTasks != 1 || locals != 1 || scheduled != 0 {
		t.Errorf("%s: %d workflow tasks, %d local activities and %d scheduled activities in its history, want 1, 1 and 0",
			id, workflowTasks, locals, scheduled)
	}
}

// waitForRunningSpice finds the running spice call once its activity has
// started on a worker, and returns its workflow id and that worker.
func waitForRunningSpice(t *testing.T, c client.Client) (id, identity string) {
	t.Helper()
	query := "WorkflowType = 'ToolCall' AND ExecutionStatus = 'Running' AND MfTool = 'spice.run_simulation'"
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", Query: query})
		if err == nil {
			for _, e := range resp.GetExecutions() {
				d, err := c.DescribeWorkflowExecution(context.Background(), e.GetExecution().GetWorkflowId(), "")
				if err != nil {
					continue
				}
				for _, a := range d.GetPendingActivities() {
					if a.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED && a.GetLastWorkerIdentity() != "" {
						return e.GetExecution().GetWorkflowId(), a.GetLastWorkerIdentity()
					}
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the long spice simulation never started on a worker")
	return "", ""
}

// referenceBudget is the e2e clients' reference power budget (scenario.mjs).
func referenceBudget() map[string]any {
	return map[string]any{
		"rails": []map[string]any{
			{"name": "5V", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 1000},
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "5V", "quiescent_ma": 10, "rated_output_ma": 500},
		},
		"loads": []map[string]any{{"name": "mcu", "rail": "3V3", "current_ma": 200}},
	}
}

// longSimulation is a transient of a 400-stage RC ladder at a 1 ns step:
// a few seconds of ngspice, long enough to kill its worker in the middle,
// with one vector saved so the result stays small.
func longSimulation() map[string]any {
	const stages = 400
	var b strings.Builder
	b.WriteString("rc ladder\nV1 n0 0 PULSE(0 1 0 1n 1n 1 2)\n")
	for i := range stages {
		fmt.Fprintf(&b, "R%d n%d n%d 10\nC%d n%d 0 1n\n", i, i, i+1, i, i+1)
	}
	fmt.Fprintf(&b, ".save v(n%d)\n", stages)
	return map[string]any{"netlist": b.String(), "analysis_type": "transient",
		"params": map[string]any{"tstep": 1e-9, "tstop": 6e-5}, "max_points": 50}
}

// vectorFinal is a simulation result's final value of the named vector.
func vectorFinal(data map[string]any, name string) float64 {
	vs, _ := data["vectors"].([]any)
	for _, v := range vs {
		m, _ := v.(map[string]any)
		if m["name"] == name {
			f, _ := m["final"].(float64)
			return f
		}
	}
	return -1
}

// checkHealthByQueue checks a no-worker serve's health: the adapters whose
// queues workers poll are reachable, one nobody serves is not, with the
// command that starts its worker.
func checkHealthByQueue(t *testing.T, url string) {
	t.Helper()
	var h struct {
		Adapters []struct {
			AdapterID string `json:"adapter_id"`
			Reachable bool   `json:"reachable"`
			Error     string `json:"error"`
		} `json:"adapters"`
	}
	if err := json.Unmarshal([]byte(get(t, url)), &h); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range h.Adapters {
		seen[a.AdapterID] = true
		switch a.AdapterID {
		case "spice", "power":
			if !a.Reachable {
				t.Errorf("health: %s unreachable (%s), though a worker polls its queue", a.AdapterID, a.Error)
			}
		case "calculix":
			if a.Reachable || !strings.Contains(a.Error, "metaforge worker --queues adapter-calculix") {
				t.Errorf("health: calculix reachable %v (%q), want unreachable with how to start its worker", a.Reachable, a.Error)
			}
		}
	}
	if !seen["spice"] || !seen["power"] || !seen["calculix"] {
		t.Errorf("health lists %v, want spice, power and calculix among them", seen)
	}
}
