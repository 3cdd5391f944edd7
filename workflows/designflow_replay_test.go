package workflows_test

import (
	"os"
	"path/filepath"
	"testing"

	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/workflows"
)

// designFlowHistories are the recorded DesignFlow runs: one or more per
// template. They are recorded by the runs package's tests on an embedded
// Temporal server (go test ./runs -record). Replaying them checks the
// workflow still issues the commands it issued then; a change to its steps
// goes behind workflow.GetVersion, not a re-recording.
var designFlowHistories = []string{
	"mech_v1_verified.json",
	"mech_v1_analysis_steps.json",
	"mech_v1_rework_waiver_rejected.json",
	"hardware_v1_patched_rejected.json",
	"design_v1_rejected.json",
}

func TestReplayDesignFlowHistories(t *testing.T) {
	for _, name := range designFlowHistories {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "designflow", name)
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("recorded history %s is missing (%v); record it with: go test ./runs -record", path, err)
			}
			replayer := sdkworker.NewWorkflowReplayer()
			replayer.RegisterWorkflowWithOptions(workflows.DesignFlow, workflow.RegisterOptions{Name: "DesignFlow"})
			replayer.RegisterWorkflowWithOptions(workflows.ToolCall, workflow.RegisterOptions{Name: "ToolCall"})
			if err := replayer.ReplayWorkflowHistoryFromJSONFile(quietLogger(), path); err != nil {
				t.Fatalf("replay %s: %v", path, err)
			}
		})
	}
}
