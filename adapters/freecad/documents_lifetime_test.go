package freecad

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// envWorker makes this test binary play a worker holding a session (see
// TestWorkerHoldingASession).
const envWorker = "METAFORGE_TEST_FREECAD_WORKER_ROOT"

// TestWorkerHoldingASession is the worker of TestFreeCADDiesWithItsWorker:
// it opens a session, prints its FreeCAD process's pid, and keeps that
// process busy until it is killed. Run by itself it does nothing.
func TestWorkerHoldingASession(t *testing.T) {
	root := os.Getenv(envWorker)
	if root == "" {
		return
	}
	d := NewDocuments(root)
	opened := open(t, d, "held", "")
	fmt.Printf("FREECAD_PID=%d\n", int(opened["process_id"].(float64)))
	// Busy in an op when the worker dies: a process idle on its stdin
	// would see it close and exit by itself, a busy one would not.
	_, _ = applyErr(t, d, "held", "execute_code", map[string]any{"code": "print('BUSY', flush=True)\nimport time\ntime.sleep(60)"})
}

// A worker killed with -9 runs no cleanup: its FreeCAD processes must die
// with it all the same (the kernel's parent-death signal).
func TestFreeCADDiesWithItsWorker(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWorkerHoldingASession$", "-test.v")
	cmd.Env = append(os.Environ(), envWorker+"="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := 0
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "FREECAD_PID="); ok {
			pid, _ = strconv.Atoi(v)
			break
		}
	}
	if pid == 0 {
		t.Fatal("the worker printed no FreeCAD pid")
	}
	if !alive(pid) {
		t.Fatalf("FreeCAD process %d is not running while its worker holds the session", pid)
	}
	time.Sleep(500 * time.Millisecond) // into the op
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) && !zombie(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("FreeCAD process %d outlived its worker by 10 s", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// zombie: pid has exited and waits for a reaper (init, once its parent
// is gone); it holds no document.
func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// pid (comm) state ...: the state follows the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// An op that outruns its deadline cannot be interrupted inside FreeCAD:
// the process is discarded, the call says so, and the session must be
// rebuilt.
func TestRunawayOpDiscardsTheProcess(t *testing.T) {
	d := newDocs(t)
	opened := open(t, d, "s", "")
	pid := int(opened["process_id"].(float64))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := d.Apply(ctx, "s", "execute_code", []byte(`{"session_id":"s","code":"import time\ntime.sleep(60)"}`))
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.ToolTimeout || !strings.Contains(pe.Details, "rebuilt") {
		t.Fatalf("a runaway op answered %v, want TOOL_TIMEOUT saying the session must be rebuilt", err)
	}
	if _, err := applyErr(t, d, "s", "describe_model", nil); !errors.Is(err, ErrNotLive) {
		t.Errorf("the next op answered %v, want ErrNotLive", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) && !zombie(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the runaway's FreeCAD process %d still runs 10 s after it was discarded", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Open on a live session resets it to the base asked for.
func TestOpenResetsALiveSession(t *testing.T) {
	d := newDocs(t)
	first := open(t, d, "s", "")
	run(t, d, "s", blockOps()[:2])
	again := open(t, d, "s", "")
	if len(again["objects"].([]any)) != 0 {
		t.Errorf("reopening empty left objects: %s", mustJSON(again))
	}
	if again["process_id"] != first["process_id"] {
		t.Errorf("reopening a live session started another process (%v, then %v)", first["process_id"], again["process_id"])
	}
	// Names start over: the reset document is a fresh one.
	if ids := run(t, d, "s", blockOps()[:2]); ids[0] != "Sketch" || ids[1] != "Pad" {
		t.Errorf("after the reset the ops made %v, want Sketch, Pad", ids)
	}
}
