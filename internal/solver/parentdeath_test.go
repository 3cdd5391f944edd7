package solver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// workerEnv makes this test binary, re-executed, a worker that runs one
// long solver in the runtime the variable names and waits for it.
const (
	workerEnv     = "METAFORGE_TEST_SOLVER_WORKER"
	workerMarkEnv = "METAFORGE_TEST_SOLVER_MARK"
)

// dieWithin bounds how long a solver may outlive its worker's kill -9.
const dieWithin = time.Second

// A solver dies with the worker that started it: kill -9 the worker (this
// test binary, re-executed) while it runs `sleep`, in each runtime that can
// run here, and every process of the run (sleep, and bwrap's own) is gone
// within dieWithin. Without that, a crashed worker leaves solvers running
// with nobody to collect their results or stop them.
func TestSolverDiesWithItsWorker(t *testing.T) {
	if rt := os.Getenv(workerEnv); rt != "" {
		runWorker(t, rt, os.Getenv(workerMarkEnv))
		return
	}
	for _, rt := range []string{"process", "sandbox"} {
		t.Run(rt, func(t *testing.T) {
			if rt == "sandbox" {
				newSandbox(t) // fails saying what to install
			}
			// A unique duration marks every process of this run, bwrap's
			// included: its command line carries sleep's.
			mark := fmt.Sprintf("%d.%d", 3000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
			worker := exec.Command(os.Args[0], "-test.run=^TestSolverDiesWithItsWorker$", "-test.count=1")
			worker.Env = append(os.Environ(), workerEnv+"="+rt, workerMarkEnv+"="+mark)
			out := &strings.Builder{}
			worker.Stdout, worker.Stderr = out, out
			if err := worker.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = worker.Process.Kill(); _ = worker.Wait() }()
			deadline := time.Now().Add(20 * time.Second)
			var alive []int
			for len(alive) == 0 || !hasCommand(alive, "sleep") {
				if time.Now().After(deadline) {
					t.Fatalf("the worker did not start the solver within 20 s; it said:\n%s", out)
				}
				time.Sleep(20 * time.Millisecond)
				alive = marked(mark)
			}
			if err := worker.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = worker.Wait()
			killed := time.Now()
			for alive = marked(mark); len(alive) > 0 && time.Since(killed) < dieWithin; alive = marked(mark) {
				time.Sleep(10 * time.Millisecond)
			}
			if len(alive) > 0 {
				t.Errorf("%s: %d s after kill -9 of the worker these processes of its solver still run: %s",
					rt, int(dieWithin/time.Second), describe(alive))
				for _, pid := range alive {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			} else {
				t.Logf("%s: the solver was gone %s after the worker's kill -9", rt, time.Since(killed).Round(time.Millisecond))
			}
			removeCgroupsOf(worker.Process.Pid)
		})
	}
}

// runWorker is the re-executed worker: it runs sleep until it is killed.
func runWorker(t *testing.T, name, mark string) {
	var rt Runtime = Process{}
	if name == "sandbox" {
		s, err := NewSandbox()
		if err != nil {
			t.Fatal(err)
		}
		rt = s
	}
	ctx := WithRuntime(context.Background(), rt, Policy{Limits: Limits{MemoryMB: 64, Processes: 8}})
	_, err := Run(ctx, Command{Binary: "sleep", Args: []string{mark}, Dir: t.TempDir(), Install: "install coreutils"})
	t.Fatalf("the solver returned before the worker was killed: %v", err)
}

// marked are the live processes whose command line holds mark (a zombie,
// dead and waiting for its new parent to reap it, is not live).
func marked(mark string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmd), mark) || strings.Contains(string(cmd), "-test.run") {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			// pid (comm) state ...: the state follows the last ')'.
			if s := string(stat); strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "Z") {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// hasCommand is whether one of pids runs the program named name.
func hasCommand(pids []int, name string) bool {
	for _, pid := range pids {
		if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil && strings.TrimSpace(string(comm)) == name {
			return true
		}
	}
	return false
}

// describe names each process: "123 (bwrap)".
func describe(pids []int) string {
	var out []string
	for _, pid := range pids {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		out = append(out, fmt.Sprintf("%d (%s)", pid, strings.TrimSpace(string(comm))))
	}
	return strings.Join(out, ", ")
}

// removeCgroupsOf removes the run cgroups a killed worker left behind; its
// processes are gone, so they are empty.
func removeCgroupsOf(pid int) {
	cg := findCgroups()
	for _, parent := range []string{cg.v2, cg.memory, cg.pids} {
		if parent == "" {
			continue
		}
		left, _ := filepath.Glob(filepath.Join(parent, fmt.Sprintf("%s%d-*", cgroupPrefix, pid)))
		for _, d := range left {
			_ = os.Remove(d)
		}
	}
}
