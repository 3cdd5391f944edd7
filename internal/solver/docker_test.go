package solver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/mount"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// dockerTestImage is the image the tests run on a real engine: any with sh,
// head, tail and sleep.
func dockerTestImage() string {
	return cmp.Or(os.Getenv("METAFORGE_DOCKER_TEST_IMAGE"), "debian:bookworm-slim")
}

// The create request is the isolation of docker.go, field by field, with
// the command's paths and environment as the container must see them.
func TestDockerCreateIsolatesTheRun(t *testing.T) {
	t.Setenv("METAFORGE_HOST_SECRET", "must-not-leak")
	ws := t.TempDir()
	dir := filepath.Join(ws, "calls", "call-42")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := Command{
		Binary: "ccx",
		Args: []string{"-i", filepath.Join(dir, "job"), "-mesh", filepath.Join(ws, "proj", "part.inp"),
			"--out=" + filepath.Join(dir, "job.frd"), "relative.inp", "/etc/hosts", ws + "-elsewhere/x"},
		Dir: dir,
		Env: append(os.Environ(), "OMP_NUM_THREADS=1", "HOME="+dir),
	}
	wantCmd := []string{"-i", "/output/job", "-mesh", "/workspace/proj/part.inp",
		"--out=/output/job.frd", "relative.inp", "/etc/hosts", ws + "-elsewhere/x"}

	for _, tc := range []struct {
		name        string
		policy      Policy
		memory      int64
		ulimits     []container.Ulimit
		workspaceRO bool
	}{
		{
			name:        "read-only tool, spec defaults",
			policy:      Policy{WorkspaceRoot: ws},
			memory:      2 << 30,
			ulimits:     []container.Ulimit{{Name: "core"}},
			workspaceRO: true,
		},
		{
			name: "write tool, manifest limits",
			policy: Policy{Limits: Limits{MemoryMB: 512, CPUSeconds: 60, Processes: DefaultProcesses, FileSizeMB: 100},
				WorkspaceRoot: ws, WritesWorkspace: true},
			memory:      512 << 20,
			ulimits:     []container.Ulimit{{Name: "core"}, {Name: "cpu", Soft: 60, Hard: 61}, {Name: "fsize", Soft: 100 << 20, Hard: 100 << 20}},
			workspaceRO: false,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeEngine(t)
			d := newDockerOn(t, f.host(), "metaforge/calculix:test")
			ctx := adapters.WithCallInfo(context.Background(), adapters.CallInfo{CallID: "call-42"})
			if _, err := d.Exec(ctx, cmd, tc.policy); err != nil {
				t.Fatal(err)
			}
			req := f.lastCreate()
			cfg, host := req.Config, req.HostConfig
			if host == nil {
				t.Fatal("the create request has no HostConfig")
			}

			// The container: the adapter's image, the solver as its
			// program, host paths translated, only the command's own
			// environment, the worker's user, labels naming the call.
			wantSame(t, "Image", cfg.Image, "metaforge/calculix:test")
			wantSameSlice(t, "Entrypoint", cfg.Entrypoint, []string{"ccx"})
			wantSameSlice(t, "Cmd", cfg.Cmd, wantCmd)
			wantSame(t, "WorkingDir", cfg.WorkingDir, "/output")
			wantSameSlice(t, "Env", cfg.Env, []string{"OMP_NUM_THREADS=1", "HOME=/output"})
			for _, kv := range cfg.Env {
				if strings.Contains(kv, "must-not-leak") || strings.HasPrefix(kv, "PATH=") {
					t.Errorf("the host's environment leaked into the container: %q", kv)
				}
			}
			wantSame(t, "User", cfg.User, fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()))
			wantSame(t, "Labels[org.metaforge.call]", cfg.Labels["org.metaforge.call"], "call-42")
			wantSame(t, "Labels[org.metaforge.solver]", cfg.Labels["org.metaforge.solver"], "ccx")

			// The table.
			wantSame(t, "NetworkMode", string(host.NetworkMode), "none")
			wantSame(t, "ReadonlyRootfs", host.ReadonlyRootfs, true)
			if len(host.Tmpfs) != 1 || host.Tmpfs["/tmp"] != "size=256m" {
				t.Errorf("Tmpfs = %v, want /tmp size=256m only", host.Tmpfs)
			}
			wantSame(t, "Memory", host.Memory, tc.memory)
			wantSame(t, "MemorySwap", host.MemorySwap, tc.memory)
			wantSame(t, "CPUPeriod", host.CPUPeriod, int64(100000))
			wantSame(t, "CPUQuota", host.CPUQuota, int64(200000))
			if host.PidsLimit == nil {
				t.Error("PidsLimit is not set")
			} else {
				wantSame(t, "PidsLimit", *host.PidsLimit, int64(100))
			}
			wantSameSlice(t, "SecurityOpt", host.SecurityOpt, []string{"no-new-privileges:true"})
			if host.Init == nil || !*host.Init {
				t.Error("Init is not set: the solver would run as PID 1")
			}
			var ulimits []container.Ulimit
			for _, u := range host.Ulimits {
				ulimits = append(ulimits, *u)
			}
			wantSameSlice(t, "Ulimits", ulimits, tc.ulimits)

			// The mounts: the workspace read-only unless the tool writes,
			// the call folder read-write at /output.
			wantSameSlice(t, "Mounts", host.Mounts, []mount.Mount{
				{Type: mount.TypeBind, Source: ws, Target: "/workspace", ReadOnly: tc.workspaceRO},
				{Type: mount.TypeBind, Source: dir, Target: "/output"},
			})
		})
	}
}

// A command with no call folder (a health probe) mounts none and keeps the
// image's working directory.
func TestDockerWithoutCallFolder(t *testing.T) {
	f := newFakeEngine(t)
	d := newDockerOn(t, f.host(), "metaforge/calculix:test")
	if _, err := d.Exec(context.Background(), Command{Binary: "ccx", Args: []string{"-v"}}, Policy{}); err != nil {
		t.Fatal(err)
	}
	req := f.lastCreate()
	wantSame(t, "WorkingDir", req.WorkingDir, "")
	wantSameSlice(t, "Mounts", req.HostConfig.Mounts, nil)
	wantSameSlice(t, "Env", req.Env, nil)
}

func TestDockerRunReportsExitAndOutput(t *testing.T) {
	forEachDockerEngine(t, func(t *testing.T, b dockerBench) {
		ctx, call := b.call()
		b.script(fakeRun{exitCode: 3, stdout: "out\n", stderr: "err\n"})
		out, err := b.d.Exec(ctx, Command{Binary: "sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"}, Dir: t.TempDir()}, Policy{})
		if err != nil {
			t.Fatal(err)
		}
		wantSame(t, "Stdout", out.Stdout, "out\n")
		wantSame(t, "Stderr", out.Stderr, "err\n")
		wantSame(t, "ExitCode", out.ExitCode, 3)
		wantSame(t, "Signal", out.Signal, "")
		b.removed(t, call, "start", "wait", "logs", "inspect", "remove")
	})
}

func TestDockerTimeoutKillsAndRemoves(t *testing.T) {
	forEachDockerEngine(t, func(t *testing.T, b dockerBench) {
		ctx, call := b.call()
		ctx, cancel := context.WithTimeout(ctx, b.patience())
		defer cancel()
		b.script(fakeRun{untilKilled: true})
		start := time.Now()
		_, err := b.d.Exec(ctx, Command{Binary: "sh", Args: []string{"-c", "sleep 60"}, Dir: t.TempDir(),
			TimeoutHint: "use a coarser mesh"}, Policy{})
		perr := wantDockerError(t, err, protocol.ToolTimeout, "sh", "use a coarser mesh")
		if perr.Retryable {
			t.Error("a timeout is retryable; it would time out again")
		}
		if waited := time.Since(start); waited > b.patience()+30*time.Second {
			t.Errorf("Exec returned %v after the deadline", waited-b.patience())
		}
		b.removed(t, call, "start", "wait", "kill KILL", "logs", "remove")
		b.runsAgain(t)
	})
}

func TestDockerCancelKillsAndRemoves(t *testing.T) {
	forEachDockerEngine(t, func(t *testing.T, b dockerBench) {
		ctx, call := b.call()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		time.AfterFunc(b.patience(), cancel)
		b.script(fakeRun{untilKilled: true})
		_, err := b.d.Exec(ctx, Command{Binary: "sh", Args: []string{"-c", "sleep 60"}, Dir: t.TempDir()}, Policy{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Exec = %v, want context.Canceled", err)
		}
		b.removed(t, call, "start", "wait", "kill KILL", "logs", "remove")
		b.runsAgain(t)
	})
}

func TestDockerOutOfMemoryNamesTheLimit(t *testing.T) {
	forEachDockerEngine(t, func(t *testing.T, b dockerBench) {
		ctx, call := b.call()
		b.script(fakeRun{oomKilled: true, exitCode: 137})
		// tail keeps a line whole, and /dev/zero has no line ends.
		_, err := b.d.Exec(ctx, Command{Binary: "sh", Args: []string{"-c", "head -c 1073741824 /dev/zero | tail"}, Dir: t.TempDir()},
			Policy{Limits: Limits{MemoryMB: 32, Processes: DefaultProcesses}})
		perr := wantDockerError(t, err, protocol.ToolExecutionError, "memory", "32 MB", "max_memory_mb")
		if perr.Retryable {
			t.Error("running out of memory is retryable; it would run out again")
		}
		b.removed(t, call, "start", "wait", "logs", "inspect", "remove")
		b.runsAgain(t)
	})
}

func TestDockerMissingImageIsUnavailable(t *testing.T) {
	forEachDockerEngine(t, func(t *testing.T, b dockerBench) {
		ctx, call := b.call()
		missing := *b.d
		missing.Image = "metaforge/no-such-image:never"
		b.script(fakeRun{noImage: true})
		_, err := missing.Exec(ctx, Command{Binary: "sh", Args: []string{"-c", "true"}, Dir: t.TempDir()}, Policy{})
		wantDockerError(t, err, protocol.ToolUnavailable, "metaforge/no-such-image:never", "docker build", "deploy/docker/no-such-image.Dockerfile")
		if left := b.leftovers(t, call); len(left) > 0 {
			t.Errorf("containers left behind: %v", left)
		}
		if b.fake != nil && b.fake.made() != 0 {
			t.Errorf("the fake made %d containers for a missing image", b.fake.made())
		}
		b.runsAgain(t)
	})
}

func TestDockerMissingBinaryIsUnavailable(t *testing.T) {
	forEachDockerEngine(t, func(t *testing.T, b dockerBench) {
		ctx, call := b.call()
		// docker-init's words when exec fails.
		b.script(fakeRun{exitCode: 127, stderr: "[FATAL tini (7)] exec metaforge-no-such-solver failed: No such file or directory\n"})
		_, err := b.d.Exec(ctx, Command{Binary: "metaforge-no-such-solver", Dir: t.TempDir(), Install: "apt-get install it"}, Policy{})
		wantDockerError(t, err, protocol.ToolUnavailable, "metaforge-no-such-solver", b.d.Image, "apt-get install it")
		b.removed(t, call, "start", "wait", "logs", "inspect", "remove")
		b.runsAgain(t)
	})
}

// An engine failing a request mid-run is a transient error, and the
// container is removed all the same.
func TestDockerEngineFailureRemovesTheContainer(t *testing.T) {
	for _, call := range []string{"start", "wait", "logs", "inspect"} {
		t.Run(call, func(t *testing.T) {
			f := newFakeEngine(t)
			b := dockerBench{fake: f, d: newDockerOn(t, f.host(), dockerTestImage())}
			ctx, id := b.call()
			b.script(fakeRun{fails: call})
			_, err := b.d.Exec(ctx, Command{Binary: "sh", Dir: t.TempDir()}, Policy{})
			if perr := wantDockerError(t, err, protocol.ToolExecutionError, "sh"); !perr.Retryable {
				t.Error("an engine's failure is not retryable")
			}
			calls := []string{"start", "wait", "logs", "inspect"}
			b.removed(t, id, append(calls[:slices.Index(calls, call)+1], "remove")...)
			b.runsAgain(t)
		})
	}
}

func TestDockerUnreachableEngineIsUnavailable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := "tcp://" + l.Addr().String()
	l.Close() // nothing listens there now
	d := newDockerOn(t, host, dockerTestImage())
	_, err = d.Exec(context.Background(), Command{Binary: "sh", Dir: t.TempDir()}, Policy{})
	wantDockerError(t, err, protocol.ToolUnavailable, host, "DOCKER_HOST")
}

func TestNewDocker(t *testing.T) {
	f := newFakeEngine(t)
	t.Setenv("DOCKER_HOST", f.host())
	d, err := NewDocker("", dockerTestImage())
	if err != nil {
		t.Fatal(err)
	}
	wantSame(t, "host from DOCKER_HOST", d.Client.DaemonHost(), f.host())
	wantSame(t, "Name", d.Name(), "docker")
	if _, err := d.Exec(context.Background(), Command{Binary: "true"}, Policy{}); err != nil {
		t.Errorf("a run on the engine DOCKER_HOST names: %v", err)
	}
	if _, err := NewDocker("", ""); err == nil {
		t.Error("NewDocker without an image succeeded")
	}
}

// On a real engine only: what the fake can only be told, the kernel does.
func TestDockerIsolationOnEngine(t *testing.T) {
	if os.Getenv("DOCKER_HOST") == "" {
		t.Skip("needs a Docker engine: set DOCKER_HOST to run against one")
	}
	t.Setenv("METAFORGE_HOST_SECRET", "must-not-leak")
	b := realDockerBench(t)
	ws := t.TempDir()
	dir := filepath.Join(ws, "call")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	readOnly, writes := Policy{WorkspaceRoot: ws}, Policy{WorkspaceRoot: ws, WritesWorkspace: true}
	for _, tc := range []struct {
		name   string
		script string
		args   []string // after the script, as $1...
		policy Policy
		env    []string
		exit   int
		stdout string
	}{
		{name: "writes land in the call folder", script: "echo hi > result.txt", policy: readOnly},
		{name: "the root is read-only", policy: writes, stdout: "ro\n",
			script: `while read -r _ mnt _ opts _; do if [ "$mnt" = / ]; then echo "${opts%%,*}"; fi; done < /proc/mounts`},
		{name: "/tmp is writable", script: "touch /tmp/x", policy: readOnly},
		{name: "a read-only tool cannot write the workspace", script: "touch /workspace/ro 2>/dev/null", policy: readOnly, exit: 1},
		{name: "a write tool can", script: "touch /workspace/rw", policy: writes},
		{name: "no network but loopback", script: "ls /sys/class/net", policy: readOnly, stdout: "lo\n"},
		{name: "only the command's environment", script: `echo "$MF_ADDED${METAFORGE_HOST_SECRET:-}"`, policy: readOnly,
			env: append(os.Environ(), "MF_ADDED=1"), stdout: "1\n"},
		{name: "host paths are translated", script: `cat "$1"`, args: []string{filepath.Join(dir, "result.txt")}, policy: readOnly, stdout: "hi\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := b.d.Exec(context.Background(), Command{Binary: "sh", Args: append([]string{"-c", tc.script, "sh"}, tc.args...), Dir: dir, Env: tc.env}, tc.policy)
			if err != nil {
				t.Fatal(err)
			}
			if out.ExitCode != tc.exit || (tc.stdout != "" && out.Stdout != tc.stdout) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q", out.ExitCode, out.Stdout, out.Stderr, tc.exit, tc.stdout)
			}
		})
	}
	got, err := os.ReadFile(filepath.Join(dir, "result.txt"))
	if err != nil || string(got) != "hi\n" {
		t.Errorf("result.txt in the call folder = %q, %v", got, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "result.txt")); err == nil {
		if uid := fi.Sys().(*syscall.Stat_t).Uid; int(uid) != os.Getuid() {
			t.Errorf("result.txt belongs to uid %d, not the worker's %d", uid, os.Getuid())
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "ro")); err == nil {
		t.Error("a read-only tool wrote the workspace")
	}
	if _, err := os.Stat(filepath.Join(ws, "rw")); err != nil {
		t.Errorf("a write tool could not write the workspace: %v", err)
	}
}

// dockerBench is an engine the behavioural tests run on: the fake, or a
// real one.
type dockerBench struct {
	fake *fakeEngine // nil on a real engine
	d    *Docker
}

// forEachDockerEngine runs test on the fake engine, and on the real one at
// DOCKER_HOST when that is set.
func forEachDockerEngine(t *testing.T, test func(t *testing.T, b dockerBench)) {
	t.Run("fake", func(t *testing.T) {
		f := newFakeEngine(t)
		test(t, dockerBench{fake: f, d: newDockerOn(t, f.host(), dockerTestImage())})
	})
	t.Run("engine", func(t *testing.T) {
		if os.Getenv("DOCKER_HOST") == "" {
			t.Skip("needs a Docker engine: set DOCKER_HOST (and METAFORGE_DOCKER_TEST_IMAGE, default debian:bookworm-slim) to run against one")
		}
		test(t, realDockerBench(t))
	})
}

// realDockerBench is the engine at DOCKER_HOST, with the test image on it.
func realDockerBench(t *testing.T) dockerBench {
	t.Helper()
	d := newDockerOn(t, "", dockerTestImage())
	if _, err := d.Client.ImageInspect(context.Background(), d.Image); err != nil {
		t.Fatalf("the test image %s is not on the engine at %s (docker pull %s): %v", d.Image, d.Client.DaemonHost(), d.Image, err)
	}
	return dockerBench{d: d}
}

// newDockerOn is a Docker runtime for image on the engine at host.
func newDockerOn(t *testing.T, host, image string) *Docker {
	t.Helper()
	d, err := NewDocker(host, image)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Client.Close() })
	return d
}

// script sets how the fake's next container behaves; a real engine runs
// the command instead.
func (b dockerBench) script(r fakeRun) {
	if b.fake != nil {
		b.fake.script(r)
	}
}

// patience is how long a run gets before a test cancels it: a real engine
// needs a while to start a container.
func (b dockerBench) patience() time.Duration {
	if b.fake != nil {
		return 200 * time.Millisecond
	}
	return 3 * time.Second
}

// call is a context for a call of its own, whose containers carry its id.
func (b dockerBench) call() (context.Context, string) {
	id := fmt.Sprintf("test-%d", time.Now().UnixNano())
	return adapters.WithCallInfo(context.Background(), adapters.CallInfo{CallID: id}), id
}

// leftovers are the containers of call the engine still has.
func (b dockerBench) leftovers(t *testing.T, call string) []string {
	t.Helper()
	if b.fake != nil {
		return b.fake.leftovers()
	}
	list, err := b.d.Client.ContainerList(context.Background(), container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", "org.metaforge.call="+call))})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	return ids
}

// removed checks the call's container is gone and, on the fake, that it
// was asked for calls in order, ending with a forced remove.
func (b dockerBench) removed(t *testing.T, call string, calls ...string) {
	t.Helper()
	if left := b.leftovers(t, call); len(left) > 0 {
		t.Errorf("containers left behind: %v", left)
	}
	if b.fake != nil {
		wantSameSlice(t, "calls on the container", b.fake.lastCalls(), calls)
	}
}

// runsAgain checks the runtime still runs a command after a failure.
func (b dockerBench) runsAgain(t *testing.T) {
	t.Helper()
	ctx, call := b.call()
	b.script(fakeRun{stdout: "again\n"})
	out, err := b.d.Exec(ctx, Command{Binary: "sh", Args: []string{"-c", "echo again"}, Dir: t.TempDir()}, Policy{})
	if err != nil || out.Stdout != "again\n" || out.ExitCode != 0 {
		t.Errorf("the next run: %+v, %v", out, err)
	}
	b.removed(t, call, "start", "wait", "logs", "inspect", "remove")
}

// wantDockerError checks err is a *protocol.Error with code whose details
// mention each of mentions.
func wantDockerError(t *testing.T, err error, code protocol.Code, mentions ...string) *protocol.Error {
	t.Helper()
	var perr *protocol.Error
	if !errors.As(err, &perr) {
		t.Fatalf("error = %v, want a %s", err, code.Name())
	}
	if perr.Code != code {
		t.Fatalf("error = %v, want a %s", err, code.Name())
	}
	t.Logf("%s: %s", code.Name(), perr.Details)
	for _, m := range mentions {
		if !strings.Contains(perr.Details, m) {
			t.Errorf("error %q does not mention %q", perr.Details, m)
		}
	}
	return perr
}

// wantSame checks one field.
func wantSame[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// wantSameSlice checks one field holding a list.
func wantSameSlice[S ~[]E, E comparable](t *testing.T, what string, got, want S) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}
