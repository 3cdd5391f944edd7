package workflows_test

import (
	"os"
	"path/filepath"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
)

// processCalls are the recorded calls of the tools whose work is a durable
// process, with the workflow each runs and whether it outlives the call.
var processCalls = []struct {
	tool, kind string
	detached   bool
}{
	{"twin.evaluate_metric", "EvaluateMetric", false},
	{"twin.evaluate_thermal_metric", "EvaluateThermal", false},
	{"twin.start_design_loop", "DesignLoop", true},
	{"flow.propose", "ToolCall", true},
	{"flow.start_run", "DesignFlow", true},
}

// A long tool's call runs its process as its child: the tool's activity
// has ended before the child starts, no activity is open while the child
// is started, a process that outlives the call is abandoned by it (not
// cancelled), and one that does not is waited on by the workflow itself.
// The inline shape recorded before it had no child: its activity started
// the process out of the Temporal UI's sight and waited on it.
func TestLongToolsRunAsChildWorkflows(t *testing.T) {
	for _, c := range processCalls {
		t.Run(c.tool, func(t *testing.T) {
			events := loadHistory(t, filepath.Join("testdata", "toolcall_process", c.tool+".json"))
			open := map[int64]string{} // scheduled activity event id -> activity type
			toolDone, started, completed := false, false, false
			for _, e := range events {
				switch e.GetEventType() {
				case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
					open[e.GetEventId()] = e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
				case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
					id := e.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()
					if open[id] == "InvokeTool" {
						toolDone = true
					}
					delete(open, id)
				case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
					a := e.GetStartChildWorkflowExecutionInitiatedEventAttributes()
					if got := a.GetWorkflowType().GetName(); got != c.kind {
						t.Fatalf("child workflow %s, want %s", got, c.kind)
					}
					if !toolDone || len(open) > 0 {
						t.Fatalf("the child started with the tool's activity done %v and activities open %v", toolDone, open)
					}
					abandoned := a.GetParentClosePolicy() == enumspb.PARENT_CLOSE_POLICY_ABANDON
					if abandoned != c.detached {
						t.Fatalf("parent close policy %v for a process detached=%v", a.GetParentClosePolicy(), c.detached)
					}
					started = true
				case enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
					completed = true
				}
			}
			if !started {
				t.Fatal("the call started no child workflow")
			}
			if !c.detached && !completed {
				t.Fatal("the call ended before the process it answers with")
			}

			inline := loadHistory(t, filepath.Join("testdata", "toolcall_inline", c.tool+".json"))
			for _, e := range inline {
				if e.GetEventType() == enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED {
					t.Fatal("the inline shape's recording has a child workflow: it is not the shape it names")
				}
			}
		})
	}
}

func loadHistory(t *testing.T, path string) []*historypb.HistoryEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("recorded history %s: %v; record it with: go test ./runs -record-calls", path, err)
	}
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return h.GetEvents()
}
