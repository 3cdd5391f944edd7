// Package solver runs an external solver program (ngspice, gmsh, ccx) in
// the runtime chosen for its adapter (a plain process, a bubblewrap
// sandbox, or a Docker container per call) under the call's limits, the
// way every adapter needs: found on PATH or answered TOOL_UNAVAILABLE with
// how to install it, in its own process group so cancelling the call kills
// everything it started, past its deadline TOOL_TIMEOUT, its output kept
// to a bound.
package solver

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/metaforge/metaforge/protocol"
)

// Command is one solver run.
type Command struct {
	// Binary is the program, looked up on PATH.
	Binary string
	Args   []string
	Dir    string
	// Env replaces the environment when not nil.
	Env []string
	// Install says how to get Binary ("apt-get install calculix-ccx").
	Install string
	// TimeoutHint says what to change when the run times out.
	TimeoutHint string
	// MemoryHint says what to change when the run goes past its memory
	// limit; the default is to make the problem smaller or raise the limit.
	MemoryHint string
}

// Output is what a finished run printed, and how it exited.
type Output struct {
	Stdout   string
	Stderr   string
	ExitCode int
	// Signal names the signal that ended the program ("SIGKILL"), if one did.
	Signal   string
	Duration time.Duration
	// Isolation names the layers that held the run ("bwrap", "no-network",
	// "cgroup-memory", "rlimit-cpu", ...): none under Process.
	Isolation []string
}

// maxOutput bounds each of stdout and stderr kept.
const maxOutput = 1 << 20

// Locate finds the binary, or says how to install it as TOOL_UNAVAILABLE.
func Locate(binary, install string) (string, error) {
	path, err := exec.LookPath(binary)
	if err != nil {
		return "", protocol.Unavailable("%s not found on PATH; %s", binary, install)
	}
	return path, nil
}

// Run runs c to completion in the runtime chosen for the call (Process when
// none was). A non-zero exit is not an error: the caller reads the output to
// say what went wrong. Errors are TOOL_UNAVAILABLE (no binary), TOOL_TIMEOUT
// (the context's deadline passed; the process group was killed), a broken
// resource limit named as such, the context's own error when the call was
// cancelled, or a transient error when the program could not be started.
func Run(ctx context.Context, c Command) (Output, error) {
	rt, p := RuntimeFrom(ctx)
	return rt.Exec(ctx, c, p)
}

// runLocal runs the program at path with args on this machine, in its own
// process group, with c's directory, environment and timeout hint. The
// sandbox uses it too, with bwrap as the program.
//
// The program dies with this process: Pdeathsig sends it SIGKILL when its
// parent goes, so a worker killed mid-run leaves no solver behind. The
// kernel takes "parent" to be the thread that forked it, and Go may end a
// thread whose goroutine exits while locked to it; so the run holds its
// thread until the program has exited, and the signal comes only when the
// process does.
func runLocal(ctx context.Context, path string, args []string, c Command) (Output, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{b: &stdout}, &limited{b: &stderr}
	start := time.Now()
	runErr := cmd.Run()
	out := Output{Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start)}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return out, TimeoutError(c)
		}
		return out, ctxErr
	}
	var exitErr *exec.ExitError
	if errors.As(runErr, &exitErr) {
		out.ExitCode = exitErr.ExitCode()
		out.Signal = signalOf(exitErr)
		return out, nil
	}
	if runErr != nil {
		return out, protocol.Transient("%s could not be run: %v", c.Binary, runErr)
	}
	return out, nil
}

// TimeoutError is the TOOL_TIMEOUT of a run that passed its call's deadline.
func TimeoutError(c Command) error {
	hint := c.TimeoutHint
	if hint == "" {
		hint = "make the problem smaller or give the call a longer timeout"
	}
	return &protocol.Error{Code: protocol.ToolTimeout, Details: c.Binary + " did not finish before the deadline and was killed; " + hint}
}

// signalOf is the signal that ended a process ("" when it exited).
func signalOf(e *exec.ExitError) string {
	if ws, ok := e.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return unix.SignalName(ws.Signal())
	}
	return ""
}

// limited keeps the first maxOutput bytes of a stream and drops the rest.
type limited struct{ b *bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := maxOutput - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
