package worker_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/freecad"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

// A session nobody edits for its idle time closes by itself: its
// document is saved as a FreeCAD document and a STEP in the session's
// folder (the STEP measured: the padded block, 40*30*20 mm^3), the
// workflow ends with the reason, and a later edit is told to open a new
// session.
func TestIdleCadSessionClosesAndKeepsItsDocument(t *testing.T) {
	tmp := workertest.StartTemporal(t)
	root := t.TempDir()
	docs := freecad.NewDocuments(root)
	t.Cleanup(func() { _ = docs.CloseAll() })
	w, err := worker.StartWorkersWith(tmp.Client, adapters.NewRegistry(),
		[]string{workflows.TaskQueue, workflows.AdapterTaskQueue(workflows.CadSessionAdapter)},
		workertest.QuietLogger(), worker.Deps{CadDocuments: docs, WorkspaceRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const id = "00000000000000e1"
	_, err = tmp.Client.ExecuteWorkflow(ctx, clientOptions(id), workflows.CadSessionWorkflow,
		workflows.CadSessionInput{SessionID: id, IdleSeconds: 3})
	if err != nil {
		t.Fatal(err)
	}
	eng := &runs.CadSessions{Client: tmp.Client}
	for _, o := range cadPartOps[:2] {
		operate(t, ctx, eng, id, o.op, o.args)
	}
	// Wait for the workflow to end by itself, then read its result.
	for {
		d, err := tmp.Client.DescribeWorkflowExecution(ctx, workflows.CadSessionWorkflowID(id), "")
		if err != nil {
			t.Fatal(err)
		}
		if d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	st, err := eng.State(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != workflows.CadSessionClosed || !strings.HasPrefix(st.ClosedReason, "idle for 3s") || st.Saved == nil || st.Error != "" {
		t.Fatalf("the idle session ended %+v, want closed for being idle with its document saved", st)
	}
	for _, f := range []string{st.Saved.Document, st.Saved.STEP} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("the saved %s is missing or empty: %v", f, err)
		}
	}
	var export struct {
		Volume float64 `json:"volume_mm3"`
	}
	if err := json.Unmarshal(st.Saved.Export, &export); err != nil || math.Abs(export.Volume-24000) > 24000*1e-3 {
		t.Errorf("the saved STEP measures %v mm^3 (%v), want 40*30*20 = 24000 within 0.1%%", export.Volume, err)
	}
	if docs.Live(id) {
		t.Error("the closed session's document is still live")
	}
	_, err = eng.Operate(ctx, id, "describe_model", json.RawMessage(`{"session_id":"`+id+`"}`), false)
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("an op after the idle close answered %v, want the session closed", err)
	}
}
