package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/freecad"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

// cadWorkerEnv, when set to a Temporal address, makes the test binary a
// worker process holding CAD documents (the freecad queue, with worker
// sessions) in the workspace cadWorkspaceEnv names: the one
// TestCadSessionSurvivesItsWorker kills.
const (
	cadWorkerEnv    = "METAFORGE_TEST_CAD_WORKER_OF"
	cadWorkspaceEnv = "METAFORGE_TEST_CAD_WORKSPACE"
)

// runCadWorkerProcess serves the freecad queue's CAD sessions until it is
// killed.
func runCadWorkerProcess(addr string) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	c, err := client.Dial(client.Options{HostPort: addr, Logger: sdklog.NewStructuredLogger(workertest.QuietLogger())})
	if err != nil {
		panic(err)
	}
	root := os.Getenv(cadWorkspaceEnv)
	docs := freecad.NewDocuments(root)
	w, err := worker.StartWorkersWith(c, adapters.NewRegistry(), []string{workflows.AdapterTaskQueue(workflows.CadSessionAdapter)},
		workertest.QuietLogger(), worker.Deps{CadDocuments: docs, WorkspaceRoot: root})
	if err != nil {
		panic(err)
	}
	os.Stdout.WriteString("worker ready\n")
	<-ctx.Done()
	w.Stop()
	_ = docs.CloseAll()
}

// The part: a 40 x 30 rectangle padded 20, a 10 mm hole pocketed
// through it, its 4 vertical outer edges filleted at 3 mm.
//
// Closed form: the box is 40*30*20 = 24000 mm^3; the hole removes
// pi*5^2*20 = 1570.80; each filleted corner removes the square r^2 less
// the quarter disc pi*r^2/4 over the height: 4*(9 - 9*pi/4)*20 = 154.51.
// Volume 22274.69 mm^3.
var (
	cadPartVolume = 40*30*20 - math.Pi*25*20 - 4*(9-9*math.Pi/4)*20
	cadPartOps    = []struct {
		op   string
		args string
	}{
		{"create_sketch", `{"plane":"XY","geometry":[{"type":"rectangle","x":0,"y":0,"width":40,"height":30}]}`},
		{"pad_sketch", `{"sketch":"Sketch","length":20}`},
		{"create_sketch", `{"plane":"XY","offset":20,"geometry":[{"type":"circle","cx":20,"cy":15,"r":5}]}`},
		{"pocket_sketch", `{"sketch":"Sketch001","through_all":true}`},
		{"fillet", `{"selector":"|Z","radius":3}`},
	}
)

// operate runs one op of a session, with its session id added.
func operate(t *testing.T, ctx context.Context, eng *runs.CadSessions, sessionID, op, args string) freecad.SessionAnswer {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	m["session_id"] = sessionID
	checked, err := freecad.CheckSessionOp(op, mustJSON(t, m))
	if err != nil {
		t.Fatalf("%s %s: %v", op, args, err)
	}
	ans, err := eng.Operate(ctx, sessionID, op, checked, op != "describe_model" && op != "export_model")
	if err != nil {
		t.Fatalf("%s %s: %v", op, args, err)
	}
	return ans
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// exportedVolume exports the session's document and reads the volume
// measured from the STEP it wrote.
func exportedVolume(t *testing.T, ctx context.Context, eng *runs.CadSessions, sessionID, dir string) float64 {
	t.Helper()
	ans := operate(t, ctx, eng, sessionID, "export_model", `{"path":"`+filepath.Join(dir, sessionID+".step")+`"}`)
	var out struct {
		Volume float64 `json:"volume_mm3"`
	}
	if err := json.Unmarshal(ans.Data, &out); err != nil || out.Volume == 0 {
		t.Fatalf("export_model answered %s (%v), want its volume_mm3", ans.Data, err)
	}
	return out.Volume
}

// startCadSession starts a session's workflow as freecad.open_session's
// call would, with a short heartbeat so a dead worker is noticed soon.
func startCadSession(t *testing.T, ctx context.Context, c client.Client, sessionID string, checkpointEvery int) {
	t.Helper()
	_, err := c.ExecuteWorkflow(ctx, clientOptions(sessionID),
		workflows.CadSessionWorkflow, workflows.CadSessionInput{SessionID: sessionID, HeartbeatSeconds: 4, IdleSeconds: 600,
			CheckpointEvery: checkpointEvery})
	if err != nil {
		t.Fatal(err)
	}
}

// A CAD session's worker is killed (SIGKILL) between two edits, and its
// FreeCAD process dies with it. The next edit succeeds on a document
// rebuilt on another worker, under the same session id, from the document
// saved after the second edit with the third replayed from the journal;
// the part comes out with the same volume as the same edits made without
// the kill: the closed form, to 0.1%.
func TestCadSessionSurvivesItsWorker(t *testing.T) {
	tmp := workertest.StartTemporal(t)
	workertest.StartWorkers(t, tmp, adapters.NewRegistry()) // the workflows' queue
	root := t.TempDir()
	first := startWorkerProcess(t, tmp.Address, cadWorkerEnv+"="+tmp.Address, cadWorkspaceEnv+"="+root)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	eng := &runs.CadSessions{Client: tmp.Client}
	const killed, calm = "00000000000000c1", "00000000000000c2"
	startCadSession(t, ctx, tmp.Client, killed, 2)
	for _, o := range cadPartOps[:3] {
		operate(t, ctx, eng, killed, o.op, o.args)
	}
	before, err := eng.State(ctx, killed)
	if err != nil {
		t.Fatal(err)
	}
	if before.Checkpoint == "" || before.Journal != 1 {
		t.Fatalf("before the kill: %+v, want a saved document and one journalled edit", before)
	}
	freecads := childrenOf(t, first.Process.Pid)
	if len(freecads) == 0 {
		t.Fatal("the worker holding the session runs no FreeCAD process")
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	waitGone(t, freecads)
	startWorkerProcess(t, tmp.Address, cadWorkerEnv+"="+tmp.Address, cadWorkspaceEnv+"="+root)

	ans := operate(t, ctx, eng, killed, cadPartOps[3].op, cadPartOps[3].args)
	if !ans.Rebuilt || ans.Edits != 4 {
		t.Errorf("the first edit after the kill: rebuilt %v, edits %d; want a rebuilt document with 4 edits", ans.Rebuilt, ans.Edits)
	}
	for _, o := range cadPartOps[4:] {
		operate(t, ctx, eng, killed, o.op, o.args)
	}
	afterKill := exportedVolume(t, ctx, eng, killed, root)

	startCadSession(t, ctx, tmp.Client, calm, 0)
	for _, o := range cadPartOps {
		operate(t, ctx, eng, calm, o.op, o.args)
	}
	withoutKill := exportedVolume(t, ctx, eng, calm, root)

	if math.Abs(afterKill-withoutKill) > 1e-6*withoutKill {
		t.Errorf("volume after the kill %.6f mm^3, without it %.6f mm^3: want the same part", afterKill, withoutKill)
	}
	if math.Abs(afterKill-cadPartVolume) > 1e-3*cadPartVolume {
		t.Errorf("volume %.3f mm^3, want the closed form %.3f mm^3 within 0.1%%", afterKill, cadPartVolume)
	}
	st, err := eng.State(ctx, killed)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rebuilds != 1 || st.Edits != len(cadPartOps) || st.Status != workflows.CadSessionOpen || st.Journal != 1 {
		t.Errorf("session state %+v: want open, %d edits, rebuilt once, one edit past its last save", st, len(cadPartOps))
	}
}

// childrenOf lists the processes pid started.
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(field); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// waitGone waits for the processes to have ended: a FreeCAD process must
// not outlive the worker holding its document.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			// Gone, or a zombie nobody has reaped yet.
			if err != nil || strings.Contains(string(b), ") Z ") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("process %d outlived the worker that started it", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// clientOptions start a session's workflow as its opening call's would.
func clientOptions(sessionID string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{ID: workflows.CadSessionWorkflowID(sessionID), TaskQueue: workflows.TaskQueue}
}
