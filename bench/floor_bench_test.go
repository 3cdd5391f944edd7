package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/adapters/power"
)

// The floor: what Temporal itself costs for one durable call on this
// machine. A bare workflow runs the reference power.check_budget as one
// local activity, started by the Temporal client with eager start on the
// same embedded server and in the same process as the durable path, with
// no MCP, no search attributes, no hold, no validation. MetaForge's durable
// p50 over this one (x-floor-p50) is what MetaForge adds.

const (
	floorQueue    = "bench-floor"
	floorWorkflow = "FloorCall"
	floorActivity = "FloorCheckBudget"
)

// floorCall is the bare workflow: one local activity, its result returned.
func floorCall(ctx workflow.Context, args json.RawMessage) (json.RawMessage, error) {
	ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 5 * time.Second})
	var out json.RawMessage
	err := workflow.ExecuteLocalActivity(ctx, floorActivity, args).Get(ctx, &out)
	return out, err
}

// floorCheckBudget is the same in-process call the durable path makes.
func floorCheckBudget(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	res, err := power.New().Call(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}

var (
	floorOnce   sync.Once
	floorWorker sdkworker.Worker
	floorErr    error
	floorSeq    atomic.Int64
	// floorP50 is the floor sub-benchmark's p50, which durable-c1 divides
	// its own by.
	floorP50 time.Duration
)

// floorClient starts, once, a worker for the floor workflow on the durable
// stack's client (eager start needs a worker on the starting client).
func floorClient(b *testing.B) client.Client {
	b.Helper()
	e := durableEnv(b)
	floorOnce.Do(func() {
		w := sdkworker.New(e.temporal.Client, floorQueue, sdkworker.Options{})
		w.RegisterWorkflowWithOptions(floorCall, workflow.RegisterOptions{Name: floorWorkflow})
		w.RegisterActivityWithOptions(floorCheckBudget, activity.RegisterOptions{Name: floorActivity})
		if floorErr = w.Start(); floorErr == nil {
			floorWorker = w
		}
		ctx := context.Background()
		for i := 0; i < warmupCalls && floorErr == nil; i++ {
			floorErr = callFloor(ctx, e.temporal.Client)
		}
	})
	if floorErr != nil {
		b.Fatalf("floor: %v", floorErr)
	}
	return e.temporal.Client
}

func stopFloor() {
	if floorWorker != nil {
		floorWorker.Stop()
	}
}

// callFloor runs one bare workflow to its end and checks its answer.
func callFloor(ctx context.Context, c client.Client) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:               fmt.Sprintf("floor-%d-%d", time.Now().UnixNano(), floorSeq.Add(1)),
		TaskQueue:        floorQueue,
		EnableEagerStart: true,
	}, floorWorkflow, json.RawMessage(referenceArgs))
	if err != nil {
		return err
	}
	var out json.RawMessage
	if err := run.GetWithOptions(ctx, &out, client.WorkflowRunGetOptions{}); err != nil {
		return err
	}
	if !strings.Contains(string(out), `"status":"pass"`) {
		return fmt.Errorf("the floor call did not pass the reference budget: %s", out)
	}
	return nil
}

func benchFloor(b *testing.B) {
	c := floorClient(b)
	floorP50 = runSequential(b, func(ctx context.Context) error { return callFloor(ctx, c) }).p50
}

// benchFloorConcurrent is the floor's throughput: as many workflows at once
// as durable-c32 has clients.
func benchFloorConcurrent(b *testing.B) {
	c := floorClient(b)
	runConcurrent(b, concurrency, func(ctx context.Context, _ int) error { return callFloor(ctx, c) })
}

// floorBaseline is the floor p50 of this run, sampled here if the floor
// sub-benchmark was filtered out.
func floorBaseline(b *testing.B) time.Duration {
	if floorP50 > 0 {
		return floorP50
	}
	c := floorClient(b)
	lat := make([]time.Duration, 0, 200)
	for range cap(lat) {
		start := time.Now()
		if err := callFloor(context.Background(), c); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	floorP50 = percentiles(lat).p50
	return floorP50
}
