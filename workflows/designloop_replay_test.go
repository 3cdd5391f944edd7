package workflows_test

import (
	"os"
	"path/filepath"
	"testing"

	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/workflows"
)

// The recorded DesignLoop and EvaluateMetric runs (go test ./runs -record)
// replay under the current code: a change to their steps goes behind
// workflow.GetVersion, not a re-recording.
func TestReplayLoopAndMetricHistories(t *testing.T) {
	for _, h := range []struct{ dir, file string }{
		{"designloop", "wall_approved.json"},
		{"designloop", "wall_infeasible.json"},
		{"evaluatemetric", "tier0_decides.json"},
		{"evaluatemetric", "escalation_not_attempted.json"},
		{"evaluatemetric", "escalated_to_calculix.json"},
	} {
		t.Run(h.dir+"/"+h.file, func(t *testing.T) {
			path := filepath.Join("testdata", h.dir, h.file)
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("recorded history %s is missing (%v); record it with: go test ./runs -record", path, err)
			}
			replayer := sdkworker.NewWorkflowReplayer()
			replayer.RegisterWorkflowWithOptions(workflows.DesignLoop, workflow.RegisterOptions{Name: "DesignLoop"})
			replayer.RegisterWorkflowWithOptions(workflows.EvaluateMetric, workflow.RegisterOptions{Name: "EvaluateMetric"})
			replayer.RegisterWorkflowWithOptions(workflows.ToolCall, workflow.RegisterOptions{Name: "ToolCall"})
			if err := replayer.ReplayWorkflowHistoryFromJSONFile(quietLogger(), path); err != nil {
				t.Fatalf("replay %s: %v", path, err)
			}
		})
	}
}
