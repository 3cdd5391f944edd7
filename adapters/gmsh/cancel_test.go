package gmsh

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// processesIn lists the processes whose working folder is under dir: the
// gmsh runs of this test, whose scratch folders are made there.
func processesIn(dir string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cwd, err := os.Readlink(filepath.Join(p, "cwd"))
		if err == nil && strings.HasPrefix(cwd, dir+string(filepath.Separator)) {
			found = append(found, filepath.Base(p)+" in "+cwd)
		}
	}
	return found
}

// Cancelling a call while gmsh meshes finely kills gmsh and returns at once.
func TestCancelKillsGmsh(t *testing.T) {
	needGmsh(t)
	a := newAdapter(t)
	scratch := t.TempDir()
	t.Setenv("TMPDIR", scratch)
	// About four million tetrahedra: minutes of meshing.
	args, _ := json.Marshal(map[string]any{"input_file": fixture("box.step"), "mesh_size_mm": 0.3})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := a.Call(ctx, ToolGenerateMesh, args)
		done <- err
	}()

	deadline := time.Now().Add(10 * time.Second)
	for len(processesIn(scratch)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("gmsh never started")
		}
		select {
		case err := <-done:
			t.Fatalf("the call ended before it was cancelled: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	time.Sleep(500 * time.Millisecond) // into the meshing
	cancelled := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call returned %v, want context.Canceled", err)
		}
		if took := time.Since(cancelled); took > 3*time.Second {
			t.Errorf("the call took %v to return after cancel", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not return within 5 s of cancel")
	}
	if left := processesIn(scratch); len(left) > 0 {
		t.Errorf("gmsh still running after cancel: %v", left)
	}
	if entries, _ := os.ReadDir(scratch); len(entries) > 0 {
		t.Errorf("scratch folders left behind: %v", entries)
	}
	nothingWritten(t, a)
}
