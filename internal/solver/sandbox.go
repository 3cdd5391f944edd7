package solver

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/metaforge/metaforge/protocol"
)

// Sandbox runs each command under bubblewrap: the host's filesystem
// read-only, a private /tmp, no network, its own PID and IPC namespaces and
// no capabilities, with only the call's folder (and the workspace, for a
// tool that writes) writable, and the policy's limits held by a cgroup per
// run where the machine allows one and by rlimits otherwise (limits.go).
type Sandbox struct {
	bwrap, prlimit, shell string
	// root is whether the worker runs as root: bwrap then keeps every
	// capability unless told to drop them, and RLIMIT_NPROC binds nothing.
	root    bool
	cgroups *cgroups
}

// probeTimeout bounds the one run NewSandbox makes to see that bwrap works.
const probeTimeout = 10 * time.Second

// NewSandbox finds bwrap and prlimit and runs `true` in a sandbox once, so a
// machine where bwrap cannot make namespaces is reported when the worker
// starts rather than at its first call.
func NewSandbox() (*Sandbox, error) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, fmt.Errorf("bwrap is not on PATH; install bubblewrap (apt-get install bubblewrap): %w", err)
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		return nil, fmt.Errorf("prlimit is not on PATH; install util-linux: %w", err)
	}
	shell, err := exec.LookPath("sh")
	if err != nil {
		return nil, fmt.Errorf("sh is not on PATH: %w", err)
	}
	s := &Sandbox{bwrap: bwrap, prlimit: prlimit, shell: shell, root: os.Geteuid() == 0, cgroups: findCgroups()}

	dir, err := os.MkdirTemp("", "metaforge-sandbox-probe-")
	if err != nil {
		return nil, fmt.Errorf("cannot make a folder to try the sandbox in: %w", err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	probe := Policy{Limits: Limits{MemoryMB: 64, CPUSeconds: 5, Processes: 8, FileSizeMB: 1}}
	out, err := s.Exec(ctx, Command{Binary: "true", Dir: dir}, probe)
	if err == nil && out.ExitCode != 0 {
		err = fmt.Errorf("exit status %d: %s", out.ExitCode, strings.TrimSpace(out.Stderr))
	}
	if err != nil {
		return nil, fmt.Errorf("bwrap cannot make a sandbox on this machine (it needs mount, PID and network namespaces): %w", err)
	}
	return s, nil
}

// DefaultRuntime is the sandbox wherever it works, and Process elsewhere.
// NewSandbox says why it does not.
func DefaultRuntime() Runtime {
	if s, err := NewSandbox(); err == nil {
		return s
	}
	return Process{}
}

// Name is "sandbox".
func (*Sandbox) Name() string { return "sandbox" }

// Exec runs c in a new sandbox under p. The program must be on the host's
// PATH (a missing one is TOOL_UNAVAILABLE with its install hint) and visible
// inside: not under the host's /tmp, which the sandbox replaces. HOME and
// TMPDIR are the sandbox's own /tmp, so nothing a solver keeps there
// outlives the run. A program a signal killed exits 128+n under bwrap; its
// Output names the signal as Process does.
func (s *Sandbox) Exec(ctx context.Context, c Command, p Policy) (Output, error) {
	path, err := Locate(c.Binary, c.Install)
	if err != nil {
		return Output{}, err
	}
	dir := c.Dir
	if dir != "" {
		if dir, err = filepath.Abs(dir); err != nil {
			return Output{}, protocol.Transient("%s could not be run: %v", c.Binary, err)
		}
	}
	cg := s.cgroups.make(p.Limits)
	prog, args := s.command(path, c.Args, dir, p, cg)
	run := c
	run.Env = sandboxEnv(c.Env)
	out, err := runLocal(ctx, prog, args, run)
	out.Isolation = s.layers(p, cg)
	if err == nil {
		err = s.outcome(c, p.Limits, &out, cg)
	}
	if rerr := cg.remove(); rerr != nil {
		slog.Warn("sandbox: a run's cgroup was left behind", "err", rerr)
	}
	return out, err
}

// command is the program and arguments that run path in the sandbox: sh
// entering the run's cgroups (when it has any) before anything else starts,
// then prlimit setting the rlimits, then bwrap.
func (s *Sandbox) command(path string, args []string, dir string, p Policy, cg *runCgroup) (string, []string) {
	bw := []string{s.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--unshare-net", "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session"}
	if s.root {
		bw = append(bw, "--cap-drop", "ALL") // else root could remount / writable
	}
	// The read roots and the workspace are bound again after /tmp, where a
	// test's live.
	for _, root := range p.ReadRoots {
		bw = append(bw, "--ro-bind-try", root, root)
	}
	if ws := p.WorkspaceRoot; ws != "" {
		bind := "--ro-bind-try"
		if p.WritesWorkspace {
			bind = "--bind-try"
		}
		bw = append(bw, bind, ws, ws)
	}
	cwd := "/tmp"
	if dir != "" {
		bw = append(bw, "--bind", dir, dir)
		cwd = dir
	}
	bw = append(bw, "--chdir", cwd, "--", path)
	bw = append(bw, args...)

	l := p.Limits
	pl := []string{s.prlimit, "--core=0"} // SIGXCPU and SIGXFSZ would dump core into the call's folder
	if l.CPUSeconds > 0 {
		// SIGXCPU at the limit, SIGKILL a second later for a program that ignores it.
		pl = append(pl, fmt.Sprintf("--cpu=%d:%d", l.CPUSeconds, l.CPUSeconds+1))
	}
	if l.FileSizeMB > 0 {
		pl = append(pl, "--fsize="+bytesOf(l.FileSizeMB))
	}
	if l.MemoryMB > 0 && cg.memory == "" {
		pl = append(pl, "--data="+bytesOf(l.MemoryMB))
	}
	if l.Processes > 0 && cg.pids == "" && !s.root {
		pl = append(pl, "--nproc="+strconv.Itoa(l.Processes))
	}
	cmd := append(append(pl, "--"), bw...)

	procs := cg.procsFiles()
	if len(procs) == 0 {
		return cmd[0], cmd[1:]
	}
	const enter = `while [ "$1" != -- ]; do echo $$ 2>/dev/null >"$1" || { echo "sandbox: cannot enter the run's cgroup $1" >&2; exit 1; }; shift; done; shift; exec "$@"`
	wrapped := append([]string{"-c", enter, "sh"}, procs...)
	return s.shell, append(append(wrapped, "--"), cmd...)
}

// sandboxEnv is the program's environment: env (the host's when nil) with
// HOME and TMPDIR in the sandbox's writable /tmp.
func sandboxEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	return append(slices.Clip(env), "HOME=/tmp", "TMPDIR=/tmp")
}

// setupFailure is how bwrap, prlimit and the cgroup wrapper say they could
// not start the program.
var setupFailure = regexp.MustCompile(`^(bwrap|prlimit|sandbox): `)

// outcome reads a finished run: a sandbox that could not start the program
// is a transient error, a program killed by a signal has it named, and a
// broken limit is the error naming it.
func (s *Sandbox) outcome(c Command, l Limits, out *Output, cg *runCgroup) error {
	if out.ExitCode == 1 && setupFailure.MatchString(out.Stderr) {
		return protocol.Transient("the sandbox could not start %s: %s", c.Binary, strings.TrimSpace(out.Stderr))
	}
	if n := out.ExitCode - 128; out.Signal == "" && n > 0 && n < 65 {
		out.Signal = unix.SignalName(syscall.Signal(n))
	}
	return breach(c, l, *out, cg)
}

// layers are the isolation a run under p had.
func (s *Sandbox) layers(p Policy, cg *runCgroup) []string {
	held := []string{LayerBwrap, LayerNoNetwork}
	if p.WorkspaceRoot != "" && !p.WritesWorkspace {
		held = append(held, LayerWorkspaceRO)
	}
	l := p.Limits
	switch {
	case l.MemoryMB <= 0:
	case cg.memory != "":
		held = append(held, LayerCgroupMemory)
	default:
		held = append(held, LayerRlimitData)
	}
	switch {
	case l.Processes <= 0:
	case cg.pids != "":
		held = append(held, LayerCgroupPids)
	case !s.root:
		held = append(held, LayerRlimitNproc)
	}
	if l.CPUSeconds > 0 {
		held = append(held, LayerRlimitCPU)
	}
	if l.FileSizeMB > 0 {
		held = append(held, LayerRlimitFsize)
	}
	return held
}

// Enforcement is what a Sandbox holds on this machine, for health.
type Enforcement struct {
	// Layers are held on every run whose policy sets the limit.
	Layers []string
	// Gaps are what is weaker than a cgroup here, or not held at all, and why.
	Gaps []string
}

func (e Enforcement) String() string {
	s := strings.Join(e.Layers, ", ")
	if len(e.Gaps) > 0 {
		s += "; " + strings.Join(e.Gaps, "; ")
	}
	return s
}

// Enforcement says which layers this machine gives a run, and which limits
// it holds weakly or not at all.
func (s *Sandbox) Enforcement() Enforcement {
	e := Enforcement{Layers: []string{LayerBwrap, LayerNoNetwork}}
	cg := s.cgroups
	if cg.v2 != "" || cg.memory != "" {
		e.Layers = append(e.Layers, LayerCgroupMemory)
	} else {
		e.Layers = append(e.Layers, LayerRlimitData)
		e.Gaps = append(e.Gaps, "memory is RLIMIT_DATA per process, not the run's total, and a breach is recognised only by the program's own out-of-memory message ("+cg.why+")")
	}
	switch {
	case cg.v2 != "" || cg.pids != "":
		e.Layers = append(e.Layers, LayerCgroupPids)
	case s.root:
		e.Gaps = append(e.Gaps, "processes are not limited: the worker runs as root, which RLIMIT_NPROC does not bind ("+cg.why+")")
	default:
		e.Layers = append(e.Layers, LayerRlimitNproc)
		e.Gaps = append(e.Gaps, "processes are RLIMIT_NPROC, which counts all of the worker user's processes ("+cg.why+")")
	}
	e.Layers = append(e.Layers, LayerRlimitCPU, LayerRlimitFsize)
	return e
}
