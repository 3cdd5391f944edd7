package solver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// Every test here runs real programs in a real bwrap sandbox; none is
// skipped on a machine without bubblewrap, they fail saying what to install.

func newSandbox(t testing.TB) *Sandbox {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatalf("bwrap is not on PATH: install bubblewrap (apt-get install bubblewrap): %v", err)
	}
	s, err := NewSandbox()
	if err != nil {
		t.Fatalf("NewSandbox: %v", err)
	}
	t.Cleanup(func() { assertNoCgroupLeft(t, s) })
	return s
}

// withoutCgroups is s as it runs on a machine where no cgroup can be made.
func withoutCgroups(s *Sandbox) *Sandbox {
	return &Sandbox{bwrap: s.bwrap, prlimit: s.prlimit, shell: s.shell, root: s.root,
		cgroups: &cgroups{why: "no cgroups in this test"}}
}

// assertNoCgroupLeft checks that none of this process's run cgroups remain.
func assertNoCgroupLeft(t testing.TB, s *Sandbox) {
	t.Helper()
	mine := fmt.Sprintf("%s%d-", cgroupPrefix, os.Getpid())
	for _, parent := range []string{s.cgroups.v2, s.cgroups.memory, s.cgroups.pids} {
		if parent == "" {
			continue
		}
		entries, _ := os.ReadDir(parent)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), mine) {
				t.Errorf("the run's cgroup %s was left behind", filepath.Join(parent, e.Name()))
			}
		}
	}
}

func shScript(dir, script string) Command {
	return Command{Binary: "sh", Args: []string{"-c", script}, Dir: dir, Install: "install dash"}
}

// wantLimitError checks err is a non-retryable code naming the limit.
func wantLimitError(t *testing.T, err error, code protocol.Code, mentions ...string) {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != code || pe.Retryable {
		t.Fatalf("want a non-retryable %s, got %v", code.Name(), err)
	}
	for _, m := range mentions {
		if !strings.Contains(pe.Details, m) {
			t.Errorf("%s does not mention %q", pe.Details, m)
		}
	}
}

// wantNextRunWorks checks a broken limit leaves the sandbox usable.
func wantNextRunWorks(t *testing.T, s *Sandbox, p Policy) {
	t.Helper()
	out, err := s.Exec(context.Background(), shScript(t.TempDir(), "echo fine"), p)
	if err != nil || out.ExitCode != 0 || strings.TrimSpace(out.Stdout) != "fine" {
		t.Fatalf("the next run: %v, %+v", err, out)
	}
}

func TestSandboxHasNoNetwork(t *testing.T) {
	s := newSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := Command{Binary: "bash", Args: []string{"-c", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port)}, Dir: t.TempDir()}

	// The control: on the host the same program reaches the listener.
	out, err := Process{}.Exec(context.Background(), connect, Policy{})
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("on the host the program must connect to 127.0.0.1:%d (else this test proves nothing): %v %+v", port, err, out)
	}
	out, err = s.Exec(context.Background(), connect, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode == 0 {
		t.Fatalf("in the sandbox the program connected to the host's 127.0.0.1:%d", port)
	}
	if !slices.Contains(out.Isolation, LayerNoNetwork) {
		t.Errorf("isolation %v does not say no-network", out.Isolation)
	}
}

func TestSandboxWritesOnlyItsFolders(t *testing.T) {
	s := newSandbox(t)
	ws := t.TempDir() // under /tmp, which the sandbox replaces: it is bound again
	dir := filepath.Join(ws, "calls", "c1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	outside, err := os.MkdirTemp("/var/tmp", "metaforge-sandbox-outside-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	hostTmp, err := os.CreateTemp("", "metaforge-sandbox-host-")
	if err != nil {
		t.Fatal(err)
	}
	hostTmp.Close()
	defer os.Remove(hostTmp.Name())
	sandboxTmp := fmt.Sprintf("/tmp/metaforge-sandbox-own-%d", time.Now().UnixNano())
	readRoot := t.TempDir() // an allowed input folder, also under /tmp
	if err := os.WriteFile(filepath.Join(readRoot, "input.net"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}

	readOnly := Policy{WorkspaceRoot: ws, ReadRoots: []string{readRoot}}
	writes := Policy{WorkspaceRoot: ws, WritesWorkspace: true, ReadRoots: []string{readRoot}}
	for _, c := range []struct {
		name   string
		script string
		p      Policy
		ok     bool
	}{
		{"the call's folder", "echo hello > " + dir + "/out.txt", readOnly, true},
		{"a folder outside the workspace", "echo no > " + outside + "/f", writes, false},
		{"the workspace of a read-only tool", "echo no > " + ws + "/f-ro", readOnly, false},
		{"the workspace of a tool that writes", "echo yes > " + ws + "/f-rw", writes, true},
		{"/etc", "echo no > /etc/metaforge-sandbox-test", writes, false},
		{"a writable remount of /", "mount -o remount,rw / && echo no > /metaforge-sandbox-test", writes, false},
		{"the sandbox's /tmp", "echo own > " + sandboxTmp + " && test -f " + sandboxTmp, readOnly, true},
		{"the host's /tmp is not seen", "! test -e " + hostTmp.Name(), readOnly, true},
		{"a read root is read", "test -f " + readRoot + "/input.net", readOnly, true},
		{"a read root is not written", "echo no > " + readRoot + "/f", writes, false},
		{"HOME and TMPDIR are the sandbox's /tmp", `test "$HOME" = /tmp && test "$TMPDIR" = /tmp && echo x > "$HOME/.rc"`, readOnly, true},
	} {
		out, err := s.Exec(context.Background(), shScript(dir, c.script), c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (out.ExitCode == 0) != c.ok {
			t.Errorf("%s: want success %v, got exit %d (%s)", c.name, c.ok, out.ExitCode, strings.TrimSpace(out.Stderr))
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("the call's output is not on the host: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "f-rw")); err != nil {
		t.Errorf("the writing tool's file is not on the host: %v", err)
	}
	for _, f := range []string{filepath.Join(outside, "f"), filepath.Join(ws, "f-ro"), "/etc/metaforge-sandbox-test", "/metaforge-sandbox-test", sandboxTmp} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written on the host", f)
			os.Remove(f)
		}
	}
	out, _ := s.Exec(context.Background(), shScript(dir, "true"), readOnly)
	if !slices.Contains(out.Isolation, LayerWorkspaceRO) || !slices.Contains(out.Isolation, LayerBwrap) {
		t.Errorf("isolation %v", out.Isolation)
	}
}

func TestSandboxMemoryLimit(t *testing.T) {
	s := newSandbox(t)
	p := Policy{Limits: Limits{MemoryMB: 128}}
	hog := Command{Binary: "python3", Args: []string{"-c", "b = b'x' * (600 << 20); print(len(b))"}, Dir: t.TempDir()}
	out, err := s.Exec(context.Background(), hog, p)
	wantLimitError(t, err, protocol.ToolExecutionError, "memory limit (128 MB")
	t.Logf("isolation %v; %v", out.Isolation, err)
	if s.cgroups.v2 != "" || s.cgroups.memory != "" {
		if !slices.Contains(out.Isolation, LayerCgroupMemory) {
			t.Errorf("a machine with a memory cgroup held the run by rlimit: %v", out.Isolation)
		}
	}
	wantNextRunWorks(t, s, p)
}

// Without a cgroup, memory is RLIMIT_DATA and the program says it ran out.
func TestSandboxMemoryLimitWithoutCgroups(t *testing.T) {
	s := withoutCgroups(newSandbox(t))
	p := Policy{Limits: Limits{MemoryMB: 128}}
	hog := Command{Binary: "python3", Args: []string{"-c", "b = b'x' * (600 << 20); print(len(b))"}, Dir: t.TempDir()}
	out, err := s.Exec(context.Background(), hog, p)
	wantLimitError(t, err, protocol.ToolExecutionError, "memory limit (128 MB")
	if !slices.Contains(out.Isolation, LayerRlimitData) {
		t.Errorf("isolation %v does not say rlimit-data", out.Isolation)
	}
	wantNextRunWorks(t, s, p)
	if e := s.Enforcement(); !slices.Contains(e.Layers, LayerRlimitData) || len(e.Gaps) == 0 {
		t.Errorf("enforcement without cgroups must name its gaps: %s", e)
	}
}

func TestSandboxCPULimit(t *testing.T) {
	s := newSandbox(t)
	p := Policy{Limits: Limits{CPUSeconds: 1}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	out, err := s.Exec(ctx, shScript(t.TempDir(), "while :; do :; done"), p)
	wantLimitError(t, err, protocol.ToolTimeout, "CPU-time limit (1 s")
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("a 1 s CPU limit took %v to stop the loop", d)
	}
	if !slices.Contains(out.Isolation, LayerRlimitCPU) {
		t.Errorf("isolation %v", out.Isolation)
	}
	wantNextRunWorks(t, s, p)
}

func TestSandboxFileSizeLimit(t *testing.T) {
	s := newSandbox(t)
	p := Policy{Limits: Limits{FileSizeMB: 1}}
	dir := t.TempDir()
	_, err := s.Exec(context.Background(), shScript(dir, "head -c 5000000 /dev/zero > big.bin"), p)
	wantLimitError(t, err, protocol.ToolExecutionError, "file-size limit (1 MB")
	if st, err := os.Stat(filepath.Join(dir, "big.bin")); err != nil || st.Size() > 1<<20 {
		t.Errorf("the file past the limit: %v %v", st, err)
	}
	wantNextRunWorks(t, s, p)
}

func TestSandboxProcessLimit(t *testing.T) {
	s := newSandbox(t)
	if s.cgroups.v2 == "" && s.cgroups.pids == "" && s.root {
		t.Fatalf("this machine cannot limit a root worker's processes (%s); run the tests where a pids cgroup can be made", s.Enforcement())
	}
	p := Policy{Limits: Limits{Processes: 10}}
	out, err := s.Exec(context.Background(), shScript(t.TempDir(), "for i in $(seq 30); do sleep 2 & done; wait"), p)
	wantLimitError(t, err, protocol.ToolExecutionError, "process limit (10 processes")
	t.Logf("isolation %v; stderr %q", out.Isolation, strings.TrimSpace(out.Stderr))
	wantNextRunWorks(t, s, p)
}

func TestSandboxDeadlineKillsEverything(t *testing.T) {
	s := newSandbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	marker := fmt.Sprintf("%d.%d", 40+os.Getpid()%10, time.Now().Nanosecond())
	start := time.Now()
	_, err := s.Exec(ctx, Command{Binary: "sh", Args: []string{"-c", "sleep " + marker + " & sleep " + marker}, Dir: t.TempDir(), TimeoutHint: "wait less"},
		Policy{Limits: Limits{MemoryMB: 64, Processes: 10}})
	wantLimitError(t, err, protocol.ToolTimeout, "before the deadline", "wait less")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run returned %v after its deadline", d)
	}
	time.Sleep(100 * time.Millisecond)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(cmd), marker) {
			t.Errorf("process %s (%q) outlived the deadline", e.Name(), cmd)
		}
	}
}

func TestSandboxExitsAndEnvironment(t *testing.T) {
	s := newSandbox(t)
	dir := t.TempDir()
	out, err := s.Exec(context.Background(), shScript(dir, "exit 3"), Policy{})
	if err != nil || out.ExitCode != 3 || out.Signal != "" {
		t.Errorf("a non-zero exit is the program's, not an error: %v %+v", err, out)
	}
	out, err = s.Exec(context.Background(), shScript(dir, "kill -TERM $$"), Policy{})
	if err != nil || out.Signal != "SIGTERM" {
		t.Errorf("a signal is named: %v %+v", err, out)
	}
	t.Setenv("METAFORGE_SANDBOX_TEST", "from-host")
	out, err = s.Exec(context.Background(), shScript(dir, `echo "$METAFORGE_SANDBOX_TEST"`), Policy{})
	if err != nil || strings.TrimSpace(out.Stdout) != "from-host" {
		t.Errorf("a nil Env is the host's: %v %+v", err, out)
	}
	c := shScript(dir, `echo "$METAFORGE_SANDBOX_TEST"`)
	c.Env = []string{"METAFORGE_SANDBOX_TEST=given", "PATH=" + os.Getenv("PATH")}
	if out, err = s.Exec(context.Background(), c, Policy{}); err != nil || strings.TrimSpace(out.Stdout) != "given" {
		t.Errorf("Env is passed: %v %+v", err, out)
	}
	if out, err = s.Exec(context.Background(), shScript("", "pwd"), Policy{}); err != nil || strings.TrimSpace(out.Stdout) != "/tmp" {
		t.Errorf("a command without a folder runs in the sandbox's /tmp: %v %+v", err, out)
	}
	_, err = s.Exec(context.Background(), Command{Binary: "no-such-solver", Install: "apt-get install no-such-solver"}, Policy{})
	wantLimitError(t, err, protocol.ToolUnavailable, "apt-get install no-such-solver")

	// A program under the host's /tmp is found, but cannot be seen inside:
	// the run fails saying the sandbox could not start it.
	tool := filepath.Join(dir, "mytool")
	if err := os.Symlink("/bin/true", tool); err != nil {
		t.Fatal(err)
	}
	var pe *protocol.Error
	_, err = s.Exec(context.Background(), Command{Binary: tool}, Policy{})
	if !errors.As(err, &pe) || !strings.Contains(pe.Details, "the sandbox could not start") {
		t.Errorf("want the sandbox saying it could not start %s, got %v", tool, err)
	}
}

func TestSandboxEnforcement(t *testing.T) {
	s := newSandbox(t)
	e := s.Enforcement()
	t.Logf("this machine: %s", e)
	for _, l := range []string{LayerBwrap, LayerNoNetwork, LayerRlimitCPU, LayerRlimitFsize} {
		if !slices.Contains(e.Layers, l) {
			t.Errorf("enforcement %s lacks %s", e, l)
		}
	}
	root := withoutCgroups(s)
	root.root = true
	if e := root.Enforcement(); !strings.Contains(e.String(), "processes are not limited") {
		t.Errorf("a root worker without a pids cgroup must say processes are not limited: %s", e)
	}
	if DefaultRuntime().Name() != "sandbox" {
		t.Error("DefaultRuntime is not the sandbox on a machine where it works")
	}
}

// BenchmarkSandboxOverhead is what the sandbox adds to running `true`.
func BenchmarkSandboxOverhead(b *testing.B) {
	s := newSandbox(b)
	dir := b.TempDir()
	c := Command{Binary: "true", Dir: dir}
	limits := Policy{Limits: Limits{MemoryMB: 2048, CPUSeconds: 600, Processes: DefaultProcesses, FileSizeMB: 512}}
	for _, r := range []struct {
		name string
		rt   Runtime
		p    Policy
	}{
		{"process", Process{}, Policy{}},
		{"sandbox-no-limits", s, Policy{}},
		{"sandbox-limits", s, limits},
		{"sandbox-limits-no-cgroups", withoutCgroups(s), limits},
	} {
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				if out, err := r.rt.Exec(context.Background(), c, r.p); err != nil || out.ExitCode != 0 {
					b.Fatalf("%v %+v", err, out)
				}
			}
		})
	}
}
