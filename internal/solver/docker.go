package solver

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	"golang.org/x/sys/unix"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// The container a docker run gets (no network, read-only root, a 256 MB
// /tmp, two CPUs, 100 processes), and where its mounts appear inside the
// container.
const (
	containerMemoryMB  = 2048   // mem_limit "2g", when the manifest sets none
	containerCPUPeriod = 100000 // µs
	containerCPUQuota  = 200000 // two cores
	containerTmpfs     = "size=256m"
	containerWorkspace = "/workspace"
	containerOutput    = "/output"
)

// cleanupTimeout bounds the engine calls the caller's context must not cut
// short: creating the container, and killing, reading and removing it after
// the context has ended.
const cleanupTimeout = 30 * time.Second

// Docker runs each solver command in a container of its own, made from
// Image, isolated: no network, a read-only root with a 256 MB /tmp, capped
// memory, CPU and processes, no new privileges.
// The workspace is mounted at /workspace (writable only for tools that
// write), the call folder at /output so what the solver writes lands where
// the adapter reads it, and the container is removed when the run ends,
// however it ends.
//
// There is no warm pool: a container's command, environment and call
// folder are fixed when it is created, and they differ on every call, so a
// container made ahead of time could serve no call.
type Docker struct {
	Client *client.Client
	// Image holds the solver: its adapter's image.
	Image string
	// User runs the solver ("uid:gid"). NewDocker makes it this process's
	// own, so what a run writes into the call folder is the worker's to
	// read and delete; "" keeps the image's user.
	User string
}

// NewDocker is a Docker runtime running image on the engine at host (""
// for DOCKER_HOST, or the local socket when that is unset). It does not
// reach the engine yet: the first run does, and says so if it cannot.
func NewDocker(host, image string) (*Docker, error) {
	if image == "" {
		return nil, errors.New("the docker runtime needs an image to run solvers in")
	}
	opts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation()}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	cli, err := client.NewClientWithOpts(opts...)
	if err != nil {
		return nil, fmt.Errorf("docker runtime: %w", err)
	}
	return &Docker{Client: cli, Image: image, User: fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())}, nil
}

// Name is "docker".
func (*Docker) Name() string { return "docker" }

// Exec runs c in a new container under p and removes the container.
func (d *Docker) Exec(ctx context.Context, c Command, p Policy) (Output, error) {
	if ctx.Err() != nil {
		return Output{}, ended(ctx, c)
	}
	config, hostConfig := d.config(ctx, c, p)
	// Creation is not interrupted: a container the engine made after the
	// caller gave up would be left with no one to remove it.
	cctx, cancel := detached(ctx)
	created, err := d.Client.ContainerCreate(cctx, config, hostConfig, nil, nil, "")
	cancel()
	if err != nil {
		return Output{}, d.engineError(ctx, c, "create", err)
	}
	defer d.remove(ctx, created.ID)
	if ctx.Err() != nil {
		return Output{}, ended(ctx, c)
	}
	return d.run(ctx, created.ID, config.Entrypoint[0], c, p)
}

// run starts the container, whose program is binary, waits for it and
// reads how it ended.
func (d *Docker) run(ctx context.Context, id, binary string, c Command, p Policy) (Output, error) {
	start := time.Now()
	if err := d.Client.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
		return Output{}, d.engineError(ctx, c, "start", err)
	}
	// Both channels answer when ctx ends (the wait request is cancelled),
	// so there is no separate case for it: leaving early would strand the
	// client's goroutine on its unbuffered result channel.
	waitC, errC := d.Client.ContainerWait(ctx, id, container.WaitConditionNotRunning)
	var waitErr error
	select {
	case <-waitC:
	case waitErr = <-errC:
	}
	after, cancel := detached(ctx)
	defer cancel()
	if waitErr != nil {
		if ctx.Err() == nil {
			return Output{}, d.engineError(ctx, c, "wait for", waitErr)
		}
		_ = d.Client.ContainerKill(after, id, "KILL") // it may have exited already
		out, _ := d.logs(after, id)
		out.Duration = time.Since(start)
		return out, ended(ctx, c)
	}
	out, err := d.logs(after, id)
	out.Duration = time.Since(start)
	if err != nil {
		return out, protocol.Transient("cannot read %s's output from its container: %v", c.Binary, err)
	}
	info, err := d.Client.ContainerInspect(after, id)
	if err == nil && (info.ContainerJSONBase == nil || info.State == nil) {
		err = errors.New("the engine did not say")
	}
	if err != nil {
		return out, protocol.Transient("cannot read how %s's container ended: %v", c.Binary, err)
	}
	out.ExitCode = info.State.ExitCode
	out.Signal = statusSignal(out.ExitCode)
	return out, d.broken(binary, c, p, info.State.OOMKilled, out)
}

// config is the container for c under p: the isolation above, the
// policy's limits, and c's command, environment and paths as the container
// sees them.
func (d *Docker) config(ctx context.Context, c Command, p Policy) (*container.Config, *container.HostConfig) {
	paths := containerPaths{output: absolute(c.Dir), workspace: absolute(p.WorkspaceRoot)}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = paths.translate(a)
	}
	labels := map[string]string{"org.metaforge.solver": c.Binary}
	if call := adapters.CallInfoFrom(ctx).CallID; call != "" {
		labels["org.metaforge.call"] = call
	}
	config := &container.Config{
		Image: d.Image,
		// The solver is the entrypoint, so an image's own (an adapter's
		// server, say) never wraps it.
		Entrypoint: []string{paths.translate(c.Binary)},
		Cmd:        args,
		Env:        paths.env(c.Env),
		User:       d.User,
		Labels:     labels,
	}
	if paths.output != "" {
		config.WorkingDir = containerOutput
	}

	memory := int64(memoryMB(p.Limits)) << 20
	pids := int64(cmp.Or(p.Limits.Processes, DefaultProcesses))
	withInit := true
	hostConfig := &container.HostConfig{
		NetworkMode:    network.NetworkNone,
		ReadonlyRootfs: true,
		Tmpfs:          map[string]string{"/tmp": containerTmpfs},
		SecurityOpt:    []string{"no-new-privileges:true"},
		// docker-init runs the solver as its child rather than as PID 1,
		// which the kernel shields from SIGXCPU and SIGXFSZ: the signals
		// that say which limit a run broke.
		Init:   &withInit,
		Mounts: paths.mounts(p.WritesWorkspace),
		Resources: container.Resources{
			Memory: memory,
			// No swap on top: the limit is the memory the solver gets.
			MemorySwap: memory,
			CPUPeriod:  containerCPUPeriod,
			CPUQuota:   containerCPUQuota,
			PidsLimit:  &pids,
			Ulimits:    containerUlimits(p.Limits),
		},
	}
	return config, hostConfig
}

// containerUlimits are the CPU-time and file-size limits set in lim, and no
// core files: SIGXCPU and SIGXFSZ would otherwise dump one into the call
// folder. The CPU's hard limit is a second past its soft one, so the solver
// is first told with SIGXCPU, which names the limit, and only then killed.
func containerUlimits(lim Limits) []*container.Ulimit {
	u := []*container.Ulimit{{Name: "core", Soft: 0, Hard: 0}}
	if lim.CPUSeconds > 0 {
		u = append(u, &container.Ulimit{Name: "cpu", Soft: int64(lim.CPUSeconds), Hard: int64(lim.CPUSeconds) + 1})
	}
	if lim.FileSizeMB > 0 {
		size := int64(lim.FileSizeMB) << 20
		u = append(u, &container.Ulimit{Name: "fsize", Soft: size, Hard: size})
	}
	return u
}

// memoryMB is the memory a run gets: the policy's, or 2 GB.
func memoryMB(lim Limits) int {
	return cmp.Or(lim.MemoryMB, containerMemoryMB)
}

// broken is the error of a run that ended by breaking one of its limits,
// named as the sandbox names it, or by not finding its program (binary, as
// the container names it); nil for a run that simply exited.
func (d *Docker) broken(binary string, c Command, p Policy, oomKilled bool, out Output) error {
	lim := p.Limits
	switch {
	case oomKilled:
		return protocol.Refusal("%s ran out of memory: it went past its container's memory limit (%d MB, the tool's max_memory_mb); %s",
			c.Binary, memoryMB(lim), c.memoryHint("make the problem smaller (a coarser mesh) or raise the limit"))
	case out.Signal == "SIGXCPU" && lim.CPUSeconds > 0:
		hint := c.TimeoutHint
		if hint == "" {
			hint = "make the problem smaller or raise the tool's max_cpu_seconds"
		}
		return &protocol.Error{Code: protocol.ToolTimeout, Details: fmt.Sprintf(
			"%s was stopped by its container's CPU-time limit (%d s, the tool's max_cpu_seconds) after using all of it; %s", c.Binary, lim.CPUSeconds, hint)}
	case out.Signal == "SIGXFSZ" && lim.FileSizeMB > 0:
		return protocol.Refusal("%s was stopped writing a file larger than its container's file-size limit (%d MB, the tool's max_disk_mb); "+
			"make the problem smaller or ask for fewer results", c.Binary, lim.FileSizeMB)
	case out.ExitCode == 127 && strings.Contains(out.Stderr, "exec "+binary+" failed"):
		// docker-init's words, and status, when the program is not in
		// the image.
		return d.missing(c)
	}
	return nil
}

// missing is the TOOL_UNAVAILABLE of a program the image does not have.
func (d *Docker) missing(c Command) error {
	return protocol.Unavailable("%s is not in the image %s; add it to the image's Dockerfile (%s) and rebuild the image", c.Binary, d.Image, c.Install)
}

// imageName is an image reference's last path element without its tag or
// digest ("solver-calculix" for "metaforge/solver-calculix:0.1.0"): the name
// of its Dockerfile in deploy/docker.
func imageName(ref string) string {
	ref = ref[strings.LastIndex(ref, "/")+1:]
	if i := strings.IndexAny(ref, ":@"); i >= 0 {
		ref = ref[:i]
	}
	return ref
}

// engineError says why the engine refused a request: the caller's deadline
// or cancellation, an engine that cannot be reached, a missing image, or
// (retryably) anything else.
func (d *Docker) engineError(ctx context.Context, c Command, verb string, err error) error {
	host := d.Client.DaemonHost()
	switch {
	case ctx.Err() != nil:
		return ended(ctx, c)
	case client.IsErrConnectionFailed(err):
		return protocol.Unavailable("the Docker engine at %s cannot be reached (%v); start it, or point DOCKER_HOST at one that runs", host, err)
	case verb == "create" && cerrdefs.IsNotFound(err):
		return protocol.Unavailable("the image %s is not on the Docker engine at %s; build it from the repository's root: docker build -t %s -f deploy/docker/%s.Dockerfile .", d.Image, host, d.Image, imageName(d.Image))
	}
	return protocol.Transient("the Docker engine at %s could not %s %s's container: %v", host, verb, c.Binary, err)
}

// logs is what the container printed, each stream kept to maxOutput as a
// local run's is.
func (d *Docker) logs(ctx context.Context, id string) (Output, error) {
	rc, err := d.Client.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return Output{}, err
	}
	defer rc.Close()
	var stdout, stderr bytes.Buffer
	_, err = stdcopy.StdCopy(&limited{b: &stdout}, &limited{b: &stderr}, rc)
	return Output{Stdout: stdout.String(), Stderr: stderr.String()}, err
}

// remove deletes the container whatever state it is in. A failure leaves
// it behind, labelled org.metaforge.solver for whoever cleans up.
func (d *Docker) remove(ctx context.Context, id string) {
	rctx, cancel := detached(ctx)
	defer cancel()
	_ = d.Client.ContainerRemove(rctx, id, container.RemoveOptions{Force: true})
}

// detached is a context for engine calls that must happen after ctx ends.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// ended is the error of a run whose context ended first: TOOL_TIMEOUT at
// its deadline, the context's own error when it was cancelled.
func ended(ctx context.Context, c Command) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return TimeoutError(c)
	}
	return ctx.Err()
}

// statusSignal is the signal a container's exit status says ended it, by
// the shell's convention of 128+n that docker-init follows too; "" for an
// exit.
func statusSignal(status int) string {
	if status > 128 && status <= 128+64 {
		return unix.SignalName(syscall.Signal(status - 128))
	}
	return ""
}

// containerPaths is where host paths appear in the container: the call
// folder at /output, the workspace at /workspace.
type containerPaths struct{ output, workspace string }

// translate rewrites s when it is a host path under the call folder or the
// workspace, or a name=path pair whose path is (a flag, an environment
// entry); anything else is returned as it is.
func (cp containerPaths) translate(s string) string {
	if t, ok := cp.path(s); ok {
		return t
	}
	if name, value, ok := strings.Cut(s, "="); ok {
		if t, ok := cp.path(value); ok {
			return name + "=" + t
		}
	}
	return s
}

// path is host path s inside the container. The call folder usually lies
// in the workspace, so it is tried first.
func (cp containerPaths) path(s string) (string, bool) {
	for _, m := range [...]struct{ host, inside string }{
		{cp.output, containerOutput},
		{cp.workspace, containerWorkspace},
	} {
		if m.host == "" {
			continue
		}
		if s == m.host {
			return m.inside, true
		}
		if rest, ok := strings.CutPrefix(s, m.host+"/"); ok {
			return m.inside + "/" + rest, true
		}
	}
	return "", false
}

// env is the environment the container gets: only what env adds to or
// changes in this process's own, so nothing of the worker's environment
// (its credentials above all) reaches the solver, with paths translated.
func (cp containerPaths) env(env []string) []string {
	host := make(map[string]bool)
	for _, kv := range os.Environ() {
		host[kv] = true
	}
	var added []string
	for _, kv := range env {
		if !host[kv] {
			added = append(added, cp.translate(kv))
		}
	}
	return added
}

// mounts binds the workspace (read-only unless the tool writes it) and the
// call folder.
func (cp containerPaths) mounts(writesWorkspace bool) []mount.Mount {
	var ms []mount.Mount
	if cp.workspace != "" {
		ms = append(ms, mount.Mount{Type: mount.TypeBind, Source: cp.workspace, Target: containerWorkspace, ReadOnly: !writesWorkspace})
	}
	if cp.output != "" {
		ms = append(ms, mount.Mount{Type: mount.TypeBind, Source: cp.output, Target: containerOutput})
	}
	return ms
}

// absolute is dir made absolute, as a bind mount's source must be; "" stays
// "".
func absolute(dir string) string {
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return filepath.Clean(dir)
}
