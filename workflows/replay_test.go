package workflows_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	mfworker "github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/workflows"
)

var record = flag.Bool("record", false,
	"run TestRecordHistories: record testdata/*.json from real ToolCall runs on an embedded Temporal server")

// recording is one recorded ToolCall run and what it must have produced.
type recording struct {
	file   string // under testdata/
	callID string
	toolID string
	args   string
	// The result.
	status   string
	code     int   // error code; 0 for success
	attempts int32 // result's attempts; -1 where the result does not count them
	// How many times the activity ran: the attempt of its last start.
	runs int32
	// A held call: the hold, the decision sent to it (nil: none, so the
	// window runs out), and the outcome it must end with.
	hold     *workflows.Hold
	decision *workflows.Decision
	outcome  string
	// local marks the call Local (workflow.GetVersion "local-activity" 1):
	// it runs as a local activity, or, for a tool this worker may not run
	// so (fallback), answers not_local and runs on the adapter's queue.
	local, fallback bool
}

// recordings are the histories testdata holds. Replaying them checks the
// ToolCall workflow still issues the commands it issued when they were
// recorded; a change that does not (a new activity, timer, or side effect)
// needs workflow.GetVersion, not a re-recording.
var recordings = []recording{
	{file: "toolcall_success.json", callID: "5ec0000000000001", toolID: "fixture.echo", args: `{"x":1.5}`,
		status: workflows.StatusSuccess, attempts: 1, runs: 1},
	{file: "toolcall_retried.json", callID: "5ec0000000000002", toolID: "fixture.flaky", args: `{}`,
		status: workflows.StatusSuccess, attempts: 3, runs: 3},
	{file: "toolcall_refused.json", callID: "5ec0000000000003", toolID: "fixture.refuse", args: `{}`,
		status: workflows.StatusError, code: int(protocol.ToolExecutionError), attempts: 1, runs: 1},
	{file: "toolcall_not_retried.json", callID: "5ec0000000000004", toolID: "fixture.write", args: `{}`,
		status: workflows.StatusError, code: int(protocol.ToolExecutionError), attempts: 1, runs: 1},
	{file: "toolcall_timeout.json", callID: "5ec0000000000005", toolID: "fixture.hang", args: `{}`,
		status: workflows.StatusError, code: int(protocol.ToolTimeout), attempts: -1, runs: 2},
	// Approval holds (workflow.GetVersion "approval-hold" 1).
	{file: "toolcall_held_approved.json", callID: "5ec0000000000006", toolID: "fixture.echo", args: `{"x":2}`,
		hold:     &workflows.Hold{ApprovalID: "5ec0000000000006", Route: workflows.RouteDashboard, WindowSeconds: 60, Reason: "writes; held for approval (untrusted caller)"},
		decision: &workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: "Fidel", Route: workflows.RouteDashboard},
		outcome:  workflows.OutcomeApproved, status: workflows.StatusSuccess, attempts: 1, runs: 1},
	{file: "toolcall_held_rejected.json", callID: "5ec0000000000007", toolID: "fixture.echo", args: `{"x":3}`,
		hold:     &workflows.Hold{ApprovalID: "5ec0000000000007", Route: workflows.RouteElicitation, WindowSeconds: 60, Reason: "writes; held for approval (untrusted caller)"},
		decision: &workflows.Decision{Outcome: workflows.OutcomeRejected, Route: workflows.RouteElicitation, Comment: "asked in the client and answered no"},
		outcome:  workflows.OutcomeRejected, status: workflows.StatusError, code: int(protocol.ToolExecutionError), attempts: 0, runs: 0},
	{file: "toolcall_held_timed_out.json", callID: "5ec0000000000008", toolID: "fixture.echo", args: `{"x":4}`,
		hold:    &workflows.Hold{ApprovalID: "5ec0000000000008", Route: workflows.RouteDashboard, WindowSeconds: 1, Reason: "writes; held for approval (untrusted caller)"},
		outcome: workflows.OutcomeTimedOut, status: workflows.StatusError, code: int(protocol.ToolExecutionError), attempts: 0, runs: 0},
	// Short tools as local activities (workflow.GetVersion "local-activity" 1).
	{file: "toolcall_local_success.json", callID: "5ec0000000000009", toolID: "fixture.echo", args: `{"x":5}`, local: true,
		status: workflows.StatusSuccess, attempts: 1, runs: 1},
	{file: "toolcall_local_retried.json", callID: "5ec000000000000a", toolID: "fixture.flaky", args: `{}`, local: true,
		status: workflows.StatusSuccess, attempts: 3, runs: 3},
	{file: "toolcall_local_refused.json", callID: "5ec000000000000b", toolID: "fixture.refuse", args: `{}`, local: true,
		status: workflows.StatusError, code: int(protocol.ToolExecutionError), attempts: 1, runs: 1},
	{file: "toolcall_local_timeout.json", callID: "5ec000000000000c", toolID: "fixture.hang", args: `{}`, local: true,
		status: workflows.StatusError, code: int(protocol.ToolTimeout), attempts: -1, runs: 2},
	{file: "toolcall_local_fallback.json", callID: "5ec000000000000d", toolID: "fixture.write", args: `{}`, local: true, fallback: true,
		status: workflows.StatusError, code: int(protocol.ToolExecutionError), attempts: 1, runs: 1},
	{file: "toolcall_local_held_approved.json", callID: "5ec000000000000e", toolID: "fixture.echo", args: `{"x":6}`, local: true,
		hold:     &workflows.Hold{ApprovalID: "5ec000000000000e", Route: workflows.RouteDashboard, WindowSeconds: 60, Reason: "writes; held for approval (untrusted caller)"},
		decision: &workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: "Fidel", Route: workflows.RouteDashboard},
		outcome:  workflows.OutcomeApproved, status: workflows.StatusSuccess, attempts: 1, runs: 1},
}

// fixtureAdapter is the test-fixture adapter the histories were recorded
// with: adapter "fixture", one tool per behaviour.
type fixtureAdapter struct {
	mu    sync.Mutex
	calls map[string]int
}

func (a *fixtureAdapter) ID() string      { return "fixture" }
func (a *fixtureAdapter) Version() string { return "0.0.0-test" }

func (a *fixtureAdapter) Manifests() []adapters.Manifest {
	tool := func(name string, idempotent bool, retries, timeout int) adapters.Manifest {
		return adapters.Manifest{
			ToolID: "fixture." + name, AdapterID: "fixture", Name: name, Description: "test fixture",
			Capability: "test", InputSchema: json.RawMessage(`{"type":"object"}`),
			Idempotent: idempotent, Retries: retries, TimeoutSeconds: timeout, Short: true,
		}
	}
	return []adapters.Manifest{
		tool("echo", true, 3, 30),   // succeeds
		tool("flaky", true, 3, 30),  // fails transiently twice, then succeeds
		tool("refuse", true, 3, 30), // refuses: final even though idempotent
		tool("write", false, 0, 30), // fails transiently; not idempotent, so not retried
		tool("hang", true, 1, 1),    // never answers; times out twice
	}
}

func (a *fixtureAdapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	a.mu.Lock()
	key := adapters.CallInfoFrom(ctx).CallID // a recording's own count
	a.calls[key]++
	n := a.calls[key]
	a.mu.Unlock()
	switch toolID {
	case "fixture.echo":
		return &adapters.Result{Data: json.RawMessage(`{"echo":` + string(args) + `}`)}, nil
	case "fixture.flaky":
		if n < 3 {
			return nil, protocol.Transient("solver process exited with status 137 (run %d)", n)
		}
		return &adapters.Result{Data: json.RawMessage(`{"converged":true}`)}, nil
	case "fixture.refuse":
		return nil, protocol.Refusal("rail 3V3 is over budget by 120 mA")
	case "fixture.write":
		return nil, protocol.Transient("connection to the PLM reset")
	case "fixture.hang":
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, errors.New("fixture has no tool " + toolID)
}

func (a *fixtureAdapter) Health(context.Context) (adapters.HealthStatus, error) {
	return adapters.HealthStatus{AdapterID: "fixture", Status: "ok", Version: a.Version()}, nil
}

// TestRecordHistories records the testdata/*.json that are missing by
// running each recording's call through the real stack: the embedded
// Temporal dev server, the workers of package worker, the InvokeTool
// activity and the fixture adapter. A history already recorded is kept,
// since it is the proof that old runs still replay; delete one to record it
// again. Run it with
//
//	go test ./workflows -run TestRecordHistories -record
func TestRecordHistories(t *testing.T) {
	if !*record {
		t.Skip("pass -record to re-record testdata/*.json")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	dev, err := mfworker.StartDevServer(mfworker.DevServerOptions{Logger: logger}) // in memory, no UI
	if err != nil {
		t.Fatalf("start dev server: %v", err)
	}
	defer dev.Stop()
	c, err := dialWhenUp(ctx, client.Options{
		HostPort:  dev.Address(),
		Namespace: dev.Namespace(),
		Identity:  "metaforge-recorder",
		Logger:    sdklog.NewStructuredLogger(logger),
	})
	if err != nil {
		t.Fatalf("connect to dev server: %v", err)
	}
	defer c.Close()
	if err := mfworker.RegisterSearchAttributes(ctx, c, dev.Namespace()); err != nil {
		t.Fatalf("register search attributes: %v", err)
	}

	reg := adapters.NewRegistry()
	if err := reg.Register(&fixtureAdapter{calls: map[string]int{}}); err != nil {
		t.Fatalf("register fixture adapter: %v", err)
	}
	workers, err := mfworker.StartWorkers(c, reg, mfworker.AllQueues(reg), logger)
	if err != nil {
		t.Fatalf("start workers: %v", err)
	}
	defer workers.Stop()

	for _, rc := range recordings {
		t.Run(rc.file, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join("testdata", rc.file)); err == nil {
				t.Skipf("testdata/%s is recorded already; delete it to record it again", rc.file)
			}
			in := callInput(t, reg, rc)
			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
				ID:        workflows.CallWorkflowID(in.CallID),
				TaskQueue: workflows.TaskQueue,
				// As mcpserver.TemporalEngine starts a call.
				TypedSearchAttributes: temporalSearchAttributes(in),
			}, "ToolCall", in)
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			if rc.decision != nil {
				h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: run.GetID(), UpdateName: workflows.DecideUpdate,
					Args: []any{*rc.decision}, WaitForStage: client.WorkflowUpdateStageCompleted})
				if err != nil {
					t.Fatalf("decide: %v", err)
				}
				if err := h.Get(ctx, nil); err != nil {
					t.Fatalf("decide: %v", err)
				}
			}
			var res workflows.ToolCallResult
			if err := run.Get(ctx, &res); err != nil {
				t.Fatalf("ToolCall: %v", err)
			}
			checkResult(t, rc, res)

			var events []*historypb.HistoryEvent
			it := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					t.Fatalf("read history: %v", err)
				}
				events = append(events, ev)
			}
			hist := &historypb.History{Events: events}
			checkHistory(t, rc, hist)
			// The JSON the Temporal CLI and UI export, which
			// ReplayWorkflowHistoryFromJSONFile reads.
			b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
			if err != nil {
				t.Fatalf("marshal history: %v", err)
			}
			path := filepath.Join("testdata", rc.file)
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s: %d events, result %+v", path, len(events), res)
		})
	}
}

func temporalSearchAttributes(in workflows.ToolCallInput) temporal.SearchAttributes {
	hold := workflows.HoldNone
	if in.Hold != nil {
		hold = workflows.HoldPending
	}
	return temporal.NewSearchAttributes(
		workflows.AttrTool.ValueSet(in.ToolID),
		workflows.AttrAdapter.ValueSet(in.AdapterID),
		workflows.AttrCaller.ValueSet(in.Caller),
		workflows.AttrHold.ValueSet(hold),
	)
}

func dialWhenUp(ctx context.Context, opts client.Options) (client.Client, error) {
	for {
		c, err := client.DialContext(ctx, opts)
		if err == nil {
			return c, nil
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// callInput resolves a call from the fixture's manifest, as the MCP server
// does.
func callInput(t *testing.T, reg *adapters.Registry, rc recording) workflows.ToolCallInput {
	t.Helper()
	m, _, ok := reg.Tool(rc.toolID)
	if !ok {
		t.Fatalf("fixture has no tool %s", rc.toolID)
	}
	return workflows.ToolCallInput{
		CallID: rc.callID, ToolID: rc.toolID, AdapterID: m.AdapterID, Arguments: json.RawMessage(rc.args),
		TimeoutSeconds: m.TimeoutSeconds, Idempotent: m.Idempotent, Retries: m.Retries, Caller: "recorder", Hold: rc.hold,
		Local: rc.local,
	}
}

// TestReplayRecordedHistories replays every history in testdata against
// the current ToolCall workflow. It fails when the workflow no longer
// issues the commands the history recorded, or when, given the same
// events, it reaches a different outcome.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	byFile := map[string]recording{}
	for _, rc := range recordings {
		byFile[rc.file] = rc
		if _, err := os.Stat(filepath.Join("testdata", rc.file)); err != nil {
			t.Errorf("recorded history %s is missing (%v); record it with: go test ./workflows -run TestRecordHistories -record", rc.file, err)
		}
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			rc, known := byFile[filepath.Base(path)]
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
			f.Close()
			if err != nil {
				t.Fatalf("parse %s: %v", path, err)
			}
			if known {
				checkHistory(t, rc, hist)
			}

			replayer := sdkworker.NewWorkflowReplayer()
			replayer.RegisterWorkflowWithOptions(workflows.ToolCall, workflow.RegisterOptions{Name: "ToolCall"})
			if err := replayer.ReplayWorkflowHistoryFromJSONFile(quietLogger(), path); err != nil {
				t.Fatalf("replay %s: %v", path, err)
			}

			// The replayed run's result against the recorded one.
			results, ok := replayer.(interface {
				GetWorkflowResult(workflowID string, valuePtr any) error
			})
			if !ok {
				t.Fatalf("the SDK's replayer no longer offers GetWorkflowResult")
			}
			var replayed workflows.ToolCallResult
			if err := results.GetWorkflowResult("", &replayed); err != nil {
				t.Fatalf("replayed result: %v", err)
			}
			recorded := recordedResult(t, hist)
			if replayed.Status != recorded.Status || replayed.Attempts != recorded.Attempts ||
				string(replayed.Data) != string(recorded.Data) || errorCode(replayed) != errorCode(recorded) {
				t.Errorf("replay gave %+v (error %+v)\nrecorded   %+v (error %+v)", replayed, replayed.Error, recorded, recorded.Error)
			}
			if known {
				checkResult(t, rc, replayed)
			}
		})
	}
}

func errorCode(r workflows.ToolCallResult) int {
	if r.Error == nil {
		return 0
	}
	return r.Error.Code
}

func checkResult(t *testing.T, rc recording, res workflows.ToolCallResult) {
	t.Helper()
	if res.CallID != rc.callID || res.ToolID != rc.toolID {
		t.Errorf("result is for %s/%s, want %s/%s", res.CallID, res.ToolID, rc.callID, rc.toolID)
	}
	if res.Status != rc.status || errorCode(res) != rc.code {
		t.Errorf("result %s (code %d), want %s (code %d); error %+v", res.Status, errorCode(res), rc.status, rc.code, res.Error)
	}
	if rc.attempts >= 0 && res.Attempts != rc.attempts {
		t.Errorf("result attempts = %d, want %d", res.Attempts, rc.attempts)
	}
	if rc.status == workflows.StatusSuccess && len(res.Data) == 0 {
		t.Errorf("success without data")
	}
	switch {
	case rc.hold == nil && res.Approval != nil:
		t.Errorf("a call never held reports an approval: %+v", res.Approval)
	case rc.hold != nil && (res.Approval == nil || res.Approval.Outcome != rc.outcome):
		t.Errorf("approval = %+v, want outcome %s", res.Approval, rc.outcome)
	case rc.hold != nil && rc.outcome != workflows.OutcomeApproved && (res.Error == nil || res.Error.Type != workflows.ApprovalRequired):
		t.Errorf("an unapproved call's error = %+v, want type %s", res.Error, workflows.ApprovalRequired)
	}
}

// checkHistory checks what the server recorded of the workflow's one
// activity: scheduled on the adapter's queue with the tool's timeout and
// retry policy, and run rc.runs times.
func checkHistory(t *testing.T, rc recording, hist *historypb.History) {
	t.Helper()
	events := hist.GetEvents()
	if len(events) == 0 {
		t.Fatalf("empty history")
	}
	started := events[0].GetWorkflowExecutionStartedEventAttributes()
	if started == nil || started.GetWorkflowType().GetName() != "ToolCall" || started.GetTaskQueue().GetName() != workflows.TaskQueue {
		t.Fatalf("history does not start a ToolCall on %s: %v", workflows.TaskQueue, events[0])
	}
	var in workflows.ToolCallInput
	if err := converter.GetDefaultDataConverter().FromPayloads(started.GetInput(), &in); err != nil {
		t.Fatalf("decode input: %v", err)
	}
	if in.ToolID != rc.toolID || in.CallID != rc.callID {
		t.Fatalf("history is of %s/%s, want %s/%s", in.CallID, in.ToolID, rc.callID, rc.toolID)
	}
	var scheduled, lastStart int
	var locals, localVersions int
	var localAttempt int32
	for _, ev := range events {
		if m := ev.GetMarkerRecordedEventAttributes(); m != nil {
			switch m.GetMarkerName() {
			case "LocalActivity":
				locals++
				var data struct {
					ActivityType string
					Attempt      int32
				}
				if err := converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["data"], &data); err != nil {
					t.Fatalf("decode local activity marker: %v", err)
				}
				if data.ActivityType != workflows.InvokeToolLocalActivity {
					t.Errorf("local activity %s, want %s", data.ActivityType, workflows.InvokeToolLocalActivity)
				}
				localAttempt = data.Attempt
			case "Version":
				var change string
				if err := converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["change-id"], &change); err != nil {
					t.Fatalf("decode version marker: %v", err)
				}
				if change == "local-activity" {
					localVersions++
				}
			}
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			scheduled++
			if a.GetActivityType().GetName() != workflows.InvokeToolActivity {
				t.Errorf("activity %s, want %s", a.GetActivityType().GetName(), workflows.InvokeToolActivity)
			}
			if q := a.GetTaskQueue().GetName(); q != workflows.AdapterTaskQueue(in.AdapterID) {
				t.Errorf("activity queue %s, want %s", q, workflows.AdapterTaskQueue(in.AdapterID))
			}
			if d := a.GetStartToCloseTimeout().AsDuration(); d != time.Duration(in.TimeoutSeconds)*time.Second {
				t.Errorf("StartToClose %s, want %ds", d, in.TimeoutSeconds)
			}
			want := int32(1)
			if in.Idempotent {
				want = int32(1 + in.Retries)
			}
			if got := a.GetRetryPolicy().GetMaximumAttempts(); got != want {
				t.Errorf("retry policy allows %d attempts, want %d", got, want)
			}
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil {
			lastStart = int(a.GetAttempt())
		}
	}
	wantScheduled, wantLocals := 1, 0
	if rc.local {
		wantScheduled, wantLocals = 0, 1
		if rc.fallback {
			wantScheduled = 1 // after the worker answered not_local
		}
	}
	if rc.runs == 0 {
		wantScheduled, wantLocals = 0, 0 // a held call nobody approved never runs
	}
	if scheduled != wantScheduled || locals != wantLocals || localVersions != wantLocals {
		t.Errorf("%d activities scheduled, %d local activities under %d local-activity version markers; want %d, %d and %d",
			scheduled, locals, localVersions, wantScheduled, wantLocals, wantLocals)
	}
	ran := lastStart
	if rc.local && !rc.fallback {
		ran = int(localAttempt)
	}
	if ran != int(rc.runs) {
		t.Errorf("the tool ran %d times, want %d", ran, rc.runs)
	}
	if last := events[len(events)-1]; last.GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED {
		t.Errorf("history ends with %s, want WorkflowExecutionCompleted", last.GetEventType())
	}
}

func recordedResult(t *testing.T, hist *historypb.History) workflows.ToolCallResult {
	t.Helper()
	events := hist.GetEvents()
	done := events[len(events)-1].GetWorkflowExecutionCompletedEventAttributes()
	if done == nil {
		t.Fatalf("history does not end with the workflow completing")
	}
	var res workflows.ToolCallResult
	if err := converter.GetDefaultDataConverter().FromPayloads(done.GetResult(), &res); err != nil {
		t.Fatalf("decode recorded result: %v", err)
	}
	return res
}

// A call started with Local set, whose workflow task an older worker ran
// (one that knew nothing of local activities, so it scheduled InvokeTool on
// the adapter's queue), must replay on today's worker the way it ran: the
// local-activity version gate is what keeps it there. The history is the
// recorded success with Local set in its input, as that older worker would
// have left it.
func TestReplayLocalCallBegunByOlderWorker(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "toolcall_success.json"))
	if err != nil {
		t.Fatal(err)
	}
	hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	started := hist.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
	var in workflows.ToolCallInput
	dc := converter.GetDefaultDataConverter()
	if err := dc.FromPayloads(started.GetInput(), &in); err != nil {
		t.Fatal(err)
	}
	in.Local = true
	payloads, err := dc.ToPayloads(in)
	if err != nil {
		t.Fatal(err)
	}
	started.Input = payloads

	replayer := sdkworker.NewWorkflowReplayer()
	replayer.RegisterWorkflowWithOptions(workflows.ToolCall, workflow.RegisterOptions{Name: "ToolCall"})
	if err := replayer.ReplayWorkflowHistory(quietLogger(), hist); err != nil {
		t.Fatalf("a Local call an older worker ran on the adapter's queue no longer replays: %v", err)
	}
}
