package workflows_test

import (
	"os"
	"path/filepath"
	"testing"

	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/workflows"
)

// recordedRuns are the recorded DesignFlow, DesignLoop and EvaluateMetric
// runs under testdata/, recorded by the runs package's tests on an
// embedded Temporal server (go test ./runs -record). Replaying them checks
// the workflows still issue the commands they issued then; a change to
// their steps goes behind workflow.GetVersion, not a re-recording.
var recordedRuns = []string{
	"designflow/mech_v1_verified.json",
	"designflow/mech_v1_analysis_steps.json",
	"designflow/mech_v1_rework_waiver_rejected.json",
	"designflow/hardware_v1_patched_rejected.json",
	"designflow/design_v1_rejected.json",
	"designloop/wall_approved.json",
	"designloop/wall_infeasible.json",
	"evaluatemetric/tier0_decides.json",
	"evaluatemetric/escalation_not_attempted.json",
	"evaluatemetric/escalated_to_calculix.json",
	"evaluatethermal/cross_checked.json",
}

func TestReplayRecordedRuns(t *testing.T) {
	for _, name := range recordedRuns {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("recorded history %s is missing (%v); record it with: go test ./runs -record", path, err)
			}
			replayer := sdkworker.NewWorkflowReplayer()
			replayer.RegisterWorkflowWithOptions(workflows.DesignFlow, workflow.RegisterOptions{Name: "DesignFlow"})
			replayer.RegisterWorkflowWithOptions(workflows.DesignLoop, workflow.RegisterOptions{Name: "DesignLoop"})
			replayer.RegisterWorkflowWithOptions(workflows.EvaluateMetric, workflow.RegisterOptions{Name: "EvaluateMetric"})
			replayer.RegisterWorkflowWithOptions(workflows.EvaluateThermal, workflow.RegisterOptions{Name: "EvaluateThermal"})
			replayer.RegisterWorkflowWithOptions(workflows.ToolCall, workflow.RegisterOptions{Name: "ToolCall"})
			if err := replayer.ReplayWorkflowHistoryFromJSONFile(quietLogger(), path); err != nil {
				t.Fatalf("replay %s: %v", path, err)
			}
		})
	}
}
