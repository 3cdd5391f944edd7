package workflows_test

import (
	"os"
	"path/filepath"
	"testing"

	sdkworker "go.temporal.io/sdk/worker"

	"github.com/metaforge/metaforge/workflows"
)

// recordedRuns are the recorded DesignFlow, DesignLoop, evaluation and
// ToolCall runs under testdata/, recorded by the runs package's tests on
// an embedded Temporal server (go test ./runs -record, -record-calls). Replaying them checks
// the workflows still issue the commands they issued then; a change to
// their steps goes behind workflow.GetVersion, not a re-recording.
var recordedRuns = []string{
	"designflow/mech_v1_verified.json",
	"designflow/mech_v1_analysis_steps.json",
	"designflow/mech_v1_rework_waiver_rejected.json",
	"designflow/hardware_v1_patched_rejected.json",
	"designflow/design_v1_rejected.json",
	// The same runs with gates judged in a local activity (gate-local-activity 1).
	"designflow/mech_v1_verified_local_gate.json",
	"designflow/mech_v1_analysis_steps_local_gate.json",
	"designflow/mech_v1_rework_waiver_rejected_local_gate.json",
	"designflow/hardware_v1_patched_rejected_local_gate.json",
	"designflow/design_v1_rejected_local_gate.json",
	// A mech_v1 run whose analysis solves the project's recorded load cases
	// on the part's current revision, before and after a rework
	// (recorded-load-cases 1).
	"designflow/mech_v1_recorded_load_cases_local_gate.json",
	// hardware_v1 runs whose schematic and layout phases chain steps
	// (chained-steps 1): generate_schematic then run_erc on the file it
	// wrote, the gate passed; the same held on ERC errors and rejected; and
	// the schematic then auto_route then run_drc on the routed board.
	"designflow/hardware_v1_schematic_steps.json",
	"designflow/hardware_v1_schematic_erc_held.json",
	"designflow/hardware_v1_board_steps.json",
	"designloop/wall_approved.json",
	"designloop/wall_infeasible.json",
	// An engineering change through its whole life (revalidated by a
	// child ToolCall, labelled rolled back), and one whose commit found
	// its revision moved and went back to review.
	"engineeringchange/lifecycle.json",
	"engineeringchange/commit_conflict.json",
	"evaluatemetric/tier0_decides.json",
	"evaluatemetric/escalation_not_attempted.json",
	"evaluatemetric/escalated_to_calculix.json",
	"evaluatethermal/cross_checked.json",
	// An import measured and recorded, one whose file the kernel refused,
	// and an overhang check recorded.
	"importworkproduct/recorded.json",
	"importworkproduct/measure_refused.json",
	"evaluateoverhang/recorded.json",
	// A datasheet ingested into the knowledge base, a batch of pages at a
	// time.
	"knowledgeingest/indexed.json",
	// The calls of the tools whose work is a durable process, in both
	// shapes: inline (recorded before processChange: the tool's activity
	// started the process and waited on it) and as the call's child.
	"toolcall_inline/twin.evaluate_metric.json",
	"toolcall_inline/twin.evaluate_thermal_metric.json",
	"toolcall_inline/twin.start_design_loop.json",
	"toolcall_inline/flow.propose.json",
	"toolcall_inline/flow.start_run.json",
	"toolcall_process/twin.evaluate_metric.json",
	"toolcall_process/twin.evaluate_thermal_metric.json",
	"toolcall_process/twin.start_design_loop.json",
	"toolcall_process/flow.propose.json",
	"toolcall_process/flow.start_run.json",
	"toolcall_process/twin.propose_change.json",
	"toolcall_process/twin.import_work_product.json",
	"toolcall_process/twin.evaluate_overhang_metric.json",
	"toolcall_process/knowledge.ingest.json",
}

func TestReplayRecordedRuns(t *testing.T) {
	for _, name := range recordedRuns {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("recorded history %s is missing (%v); record it with: go test ./runs -record", path, err)
			}
			replayer := sdkworker.NewWorkflowReplayer()
			workflows.RegisterWith(replayer)
			if err := replayer.ReplayWorkflowHistoryFromJSONFile(quietLogger(), path); err != nil {
				t.Fatalf("replay %s: %v", path, err)
			}
		})
	}
}
