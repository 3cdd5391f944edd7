package worker_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"sort"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/metaforge/metaforge/activities"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

// The worker process serves the design loop's activities over a Neo4j twin
// when these are set: the twin must outlive the process that is killed.
const (
	loopTwinURIEnv      = "METAFORGE_TEST_WORKER_TWIN"
	loopTwinUserEnv     = "METAFORGE_TEST_WORKER_TWIN_USER"
	loopTwinPasswordEnv = "METAFORGE_TEST_WORKER_TWIN_PASSWORD"
)

// recordPause is how long the worker process's loop twin waits before and
// after persisting an iteration, so a kill can be made to land inside a
// RecordLoopIteration activity: before its write, or after it and before
// the activity reports.
const recordPause = 300 * time.Millisecond

// slowLoopTwin is the design loop's twin in the worker process: the
// twin adapter's backend, with each iteration's persistence slowed by
// recordPause on both sides of the write.
type slowLoopTwin struct{ *twinadapter.Backend }

var _ activities.Twin = slowLoopTwin{}

func (s slowLoopTwin) RecordLoopIteration(ctx context.Context, r twin.IterationRecord) (string, error) {
	if err := pause(ctx); err != nil {
		return "", err
	}
	id, err := s.Backend.RecordLoopIteration(ctx, r)
	if err != nil {
		return "", err
	}
	return id, pause(ctx)
}

func pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(recordPause):
		return nil
	}
}

// loopTwin is the slow loop twin over the Neo4j server the environment
// names, or nil when it names none.
func loopTwin(ctx context.Context) (activities.Twin, error) {
	uri := os.Getenv(loopTwinURIEnv)
	if uri == "" {
		return nil, nil
	}
	store, err := twin.OpenNeo4j(ctx, uri, os.Getenv(loopTwinUserEnv), os.Getenv(loopTwinPasswordEnv))
	if err != nil {
		return nil, err
	}
	// The loop's activities read the recorded geometry and write records:
	// the store is all they touch, so there is no blob store here.
	return slowLoopTwin{&twinadapter.Backend{Store: store, Sessions: store}}, nil
}

// A loop whose worker is killed mid-iteration resumes and finishes with the
// same iterations persisted once each. The only worker of the workflow and
// its activities is a process, killed (SIGKILL) twice: once after iteration
// 4 is written but before its activity reports, once while iteration 9's
// activity runs and has written nothing. The twin is a Neo4j server, which
// outlives both.
func TestDesignLoopResumesAfterWorkerKill(t *testing.T) {
	began := time.Now()
	mark := func(what string) { t.Logf("%s at %s", what, time.Since(began).Round(time.Millisecond)) }
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	// The twin, as cmd/metaforge opens it, and a project of this test's
	// own: the server is shared, so nothing is wiped.
	tw := newCrashTwin(t, ctx)
	call, store, uri, user, password := tw.call, tw.store, tw.uri, tw.user, tw.password
	project := call("project.create", map[string]any{"name": "design-loop-kill-" + randomHex(t)})["project_id"].(string)
	step := base64.StdEncoding.EncodeToString([]byte("ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n"))
	wp := call("twin.commit_geometry", map[string]any{"project_id": project, "name": "tube", "step_base64": step,
		"material": "aluminium_6061", "properties": map[string]any{"bounding_box": map[string]any{"size": []float64{300, 40, 20}},
			"wall_thickness_mm": 2}})["node_id"].(string)

	// Temporal in this process; the workflow and its activities only in
	// the worker process.
	tmp := workertest.StartTemporal(t)
	env := []string{loopTwinURIEnv + "=" + uri, loopTwinUserEnv + "=" + user, loopTwinPasswordEnv + "=" + password}
	first := startWorkerProcess(t, tmp.Address, env...)
	mark("twin, Temporal and the first worker up")

	loops := &runs.Loops{Client: tmp.Client}
	loopID := randomHex(t)
	start := twinadapter.LoopStart{LoopID: loopID, ProjectID: project, WorkProductID: wp, Parameter: beam.ParamWall,
		LoadN: 100, DeflectionLimitMM: 2, SFLimit: 2, MinMM: 0.5, MaxMM: 9.5, ToleranceMM: 0.001,
		MaxIterations: beam.IterationsFor(9, 0.001)}
	proc, err := loops.LoopProcess(start)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&runs.Service{Client: tmp.Client}).Start(ctx, proc); err != nil {
		t.Fatalf("start the loop: %v", err)
	}
	workflowID := workflows.DesignLoopWorkflowID(loopID)

	// persisted is the loop's iteration nodes in the twin.
	persisted := func() []twin.Node {
		t.Helper()
		nodes, err := store.NodesByType(ctx, project, "design_loop_iteration")
		if err != nil {
			t.Fatal(err)
		}
		var mine []twin.Node
		for _, n := range nodes {
			if n.Properties["loop_id"] == loopID {
				mine = append(mine, n)
			}
		}
		return mine
	}
	// state is the loop's state as its workflow answers (ok false while
	// no worker answers).
	state := func() (workflows.LoopState, bool) {
		qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		raw, _, err := loops.LoopState(qctx, loopID)
		var st workflows.LoopState
		if err != nil || json.Unmarshal(raw, &st) != nil {
			return st, false
		}
		return st, true
	}
	// recording is whether a RecordLoopIteration activity runs on a worker.
	recording := func() bool {
		desc, err := tmp.Client.DescribeWorkflowExecution(ctx, workflowID, "")
		if err != nil {
			return false
		}
		for _, a := range desc.GetPendingActivities() {
			if a.GetActivityType().GetName() == workflows.RecordLoopIterationActivity && a.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED {
				return true
			}
		}
		return false
	}
	kill := func(cmd *exec.Cmd) {
		t.Helper()
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
	}

	// Kill 1: iteration 4 is in the twin, and its activity still runs
	// (the workflow has not heard of it): the retry must find it, not
	// write it again.
	waitUntil(t, ctx, "iteration 4 written while its activity runs", func() bool {
		switch n := len(persisted()); {
		case n > 4:
			t.Fatalf("missed the window: the twin already holds %d iterations", n)
		case n != 4 || !recording():
			return false
		}
		st, ok := state()
		return ok && len(st.Iterations) == 3
	})
	kill(first)
	mark("worker killed after iteration 4's write, before its activity reported")
	second := startWorkerProcess(t, tmp.Address, env...)

	// Kill 2: the workflow has iteration 8, iteration 9's activity runs,
	// and the twin does not have it yet.
	waitUntil(t, ctx, "iteration 9's activity running, nothing written", func() bool {
		st, ok := state()
		if ok && len(st.Iterations) > 8 {
			t.Fatalf("missed the window: the loop already has %d iterations", len(st.Iterations))
		}
		if !ok || len(st.Iterations) != 8 || !recording() {
			return false
		}
		_, written := indexed(t, persisted())[9]
		return !written
	})
	kill(second)
	mark("worker killed inside iteration 9's activity, before its write")
	// Iteration 4, retried after the first kill, was not written again;
	// iteration 9 was not written at all (it waits recordPause first).
	if err := onceEach(t, persisted(), 8); err != nil {
		t.Fatalf("after the second kill: %v", err)
	}
	startWorkerProcess(t, tmp.Address, env...)

	var st workflows.LoopState
	waitUntil(t, ctx, "the loop to end its search", func() bool {
		var ok bool
		st, ok = state()
		return ok && st.Status != workflows.LoopRunning
	})
	mark("loop converged")

	// The search: converged, iterations 1..n once each, the winner the
	// closed-form search's own on the same problem.
	if st.Status != workflows.LoopConverged || st.Winner == nil {
		t.Fatalf("the loop ended %s (%s), winner %v; want converged", st.Status, st.Reason, st.Winner)
	}
	n := len(st.Iterations)
	for i, it := range st.Iterations {
		if it.Index != i+1 || it.NodeID == "" {
			t.Fatalf("iteration %d of the state is index %d, node %q: want indexes 1..%d, each persisted", i+1, it.Index, it.NodeID, n)
		}
	}
	tube, err := tw.backend.TubeGeometry(ctx, wp)
	if err != nil {
		t.Fatal(err)
	}
	want, err := beam.MinimumTube(beam.TubeSearch{Parameter: start.Parameter, WidthMM: tube.WidthMM, HeightMM: tube.HeightMM,
		WallMM: tube.WallMM, LengthMM: tube.LengthMM, LoadN: start.LoadN, YoungsModulusMPa: tube.Mat.YoungsModulusGPa * 1000,
		YieldMPa: tube.Mat.YieldStrengthMPa, DeflectionLimitMM: start.DeflectionLimitMM, SafetyFactor: start.SFLimit,
		DensityKgM3: tube.Mat.DensityKgM3, MinMM: start.MinMM, MaxMM: start.MaxMM, ToleranceMM: start.ToleranceMM,
		MaxIterations: start.MaxIterations})
	if err != nil {
		t.Fatal(err)
	}
	if want.Status != beam.Converged || want.Value == nil || math.Abs(st.Winner.Value-*want.Value) > 1e-9 {
		t.Fatalf("the loop's winner is %.12f mm; beam.MinimumTube on the same problem: %s %v", st.Winner.Value, want.Status, want.Value)
	}
	if len(want.Candidates) != n {
		t.Fatalf("the loop tried %d candidates, beam.MinimumTube %d", n, len(want.Candidates))
	}
	for i, c := range want.Candidates {
		if math.Abs(st.Iterations[i].Value-c.Value) > 1e-9 || st.Iterations[i].Feasible != c.Feasible {
			t.Fatalf("iteration %d: the loop tried %.12f mm (feasible %v), beam.MinimumTube %.12f mm (feasible %v)",
				i+1, st.Iterations[i].Value, st.Iterations[i].Feasible, c.Value, c.Feasible)
		}
	}

	// The twin: exactly n iteration nodes for the loop, indexes 1..n once
	// each, and they are the nodes the workflow holds.
	nodes := persisted()
	if err := onceEach(t, nodes, n); err != nil {
		t.Fatalf("after the loop converged: %v", err)
	}
	byIndex := indexed(t, nodes)
	for _, it := range st.Iterations {
		node := byIndex[it.Index][0]
		if node.ID != it.NodeID {
			t.Fatalf("iteration %d is node %q in the workflow, %q in the twin", it.Index, it.NodeID, node.ID)
		}
		if v, _ := node.Properties["value"].(float64); v != it.Value {
			t.Fatalf("iteration %d: value %v in the twin, %v in the workflow", it.Index, node.Properties["value"], it.Value)
		}
	}
	if nodes, ok := byIndex[st.Winner.Index]; !ok || nodes[0].ID != st.Winner.NodeID {
		t.Fatalf("the winner (iteration %d, node %s) is not the twin's iteration %d", st.Winner.Index, st.Winner.NodeID, st.Winner.Index)
	}

	// Both kills landed inside an iteration's persistence: the history has
	// exactly iterations 4 and 9 recorded on a second attempt, and nothing
	// else retried.
	retried := retriedActivities(t, ctx, tmp.Client, workflowID)
	if fmt.Sprint(retried) != fmt.Sprint([]string{"RecordLoopIteration 4 (attempt 2)", "RecordLoopIteration 9 (attempt 2)"}) {
		t.Fatalf("activities that took more than one attempt: %v; want iterations 4 and 9 persisted on attempt 2", retried)
	}
	mark(fmt.Sprintf("%d iterations, each persisted once; winner %.6f mm", n, st.Winner.Value))
}

// retriedActivities names the workflow's activities that ran more than
// once: their type, the iteration they persisted, and the attempt that
// completed.
func retriedActivities(t *testing.T, ctx context.Context, c client.Client, workflowID string) []string {
	t.Helper()
	scheduled := map[int64]string{}
	var out []string
	iter := c.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			name := a.GetActivityType().GetName()
			if name == workflows.RecordLoopIterationActivity {
				var req workflows.RecordLoopIterationRequest
				if err := converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &req); err != nil {
					t.Fatal(err)
				}
				name = fmt.Sprintf("%s %d", name, req.Iteration.Index)
			}
			scheduled[ev.GetEventId()] = name
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && a.GetAttempt() > 1 {
			out = append(out, fmt.Sprintf("%s (attempt %d)", scheduled[a.GetScheduledEventId()], a.GetAttempt()))
		}
	}
	sort.Strings(out)
	return out
}

// indexed groups a loop's iteration nodes by their index.
func indexed(t *testing.T, nodes []twin.Node) map[int][]twin.Node {
	t.Helper()
	by := map[int][]twin.Node{}
	for _, node := range nodes {
		i, ok := asInt(node.Properties["index"])
		if !ok {
			t.Fatalf("iteration node %s has index %v", node.ID, node.Properties["index"])
		}
		by[i] = append(by[i], node)
	}
	return by
}

// onceEach says how a loop's iteration nodes differ from indexes 1..n,
// each persisted once.
func onceEach(t *testing.T, nodes []twin.Node, n int) error {
	t.Helper()
	by := indexed(t, nodes)
	for i := 1; i <= n; i++ {
		switch len(by[i]) {
		case 0:
			return fmt.Errorf("iteration %d is not in the twin", i)
		case 1:
		default:
			var ids []string
			for _, node := range by[i] {
				ids = append(ids, node.ID)
			}
			return fmt.Errorf("iteration %d is persisted %d times: %v", i, len(ids), ids)
		}
	}
	if len(nodes) != n {
		return fmt.Errorf("the twin holds %d iteration nodes for the loop, want %d (indexes 1..%d)", len(nodes), n, n)
	}
	return nil
}

// waitUntil polls cond until it holds, failing the test when ctx ends.
func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func randomHex(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// asInt reads a number the store returned (Neo4j gives int64).
func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		return int(n), n == math.Trunc(n)
	}
	return 0, false
}
