package solver

import (
	"context"
	"fmt"
	"strings"
)

// Runtime is where a solver command runs: in this process's environment
// (Process), in a bubblewrap sandbox (Sandbox), or in a container per call
// (Docker). Adapters never choose: the worker puts the adapter's configured
// runtime in the call's context, and Run uses it.
type Runtime interface {
	// Name is the runtime's configuration name: "process", "sandbox", "docker".
	Name() string
	// Exec runs c under p. It has the contract of Run: a non-zero exit is
	// not an error, a broken limit is (TOOL_EXECUTION_ERROR or TOOL_TIMEOUT
	// naming the limit), and so are a missing binary and a passed deadline.
	Exec(ctx context.Context, c Command, p Policy) (Output, error)
}

// Limits bound one solver run (the manifest's resource_limits, plus the
// process and file-size caps every solver run gets). Zero means no limit.
type Limits struct {
	MemoryMB   int
	CPUSeconds int
	Processes  int
	FileSizeMB int
}

// Policy is how one call's solver runs may touch the machine.
type Policy struct {
	Limits Limits
	// WorkspaceRoot is the tree of call folders; a run may read all of it.
	WorkspaceRoot string
	// WritesWorkspace is true for a tool that writes outside its own call
	// folder (a tool that is not read-only); others get it read-only.
	WritesWorkspace bool
	// ReadRoots are the other folders a tool may read its inputs from
	// (METAFORGE_ALLOWED_ROOTS); a sandbox shows them read-only.
	ReadRoots []string
}

// DefaultProcesses is how many processes a solver run may have (its pids
// limit): enough for a solver's threads and helpers, not for a fork bomb.
const DefaultProcesses = 100

type runtimeKey struct{}

type chosen struct {
	rt Runtime
	p  Policy
}

// WithRuntime makes rt, under p, the runtime of every Run in ctx.
func WithRuntime(ctx context.Context, rt Runtime, p Policy) context.Context {
	return context.WithValue(ctx, runtimeKey{}, chosen{rt: rt, p: p})
}

// RuntimeFrom is the runtime and policy in ctx: Process with no limits when
// none was chosen (an adapter's own health probe, a direct call in a test).
func RuntimeFrom(ctx context.Context) (Runtime, Policy) {
	if c, ok := ctx.Value(runtimeKey{}).(chosen); ok && c.rt != nil {
		return c.rt, c.p
	}
	return Process{}, Policy{}
}

// WithMemoryLimit lowers the memory limit of every Run in ctx to mb, for
// a call that asks for less than its tool's deployment maximum. It never
// raises a limit: a call cannot take more than the deployment allows.
func WithMemoryLimit(ctx context.Context, mb int) context.Context {
	rt, p := RuntimeFrom(ctx)
	if mb <= 0 || (p.Limits.MemoryMB > 0 && p.Limits.MemoryMB <= mb) {
		return ctx
	}
	p.Limits.MemoryMB = mb
	return WithRuntime(ctx, rt, p)
}

// Process runs commands directly, as this process's children: no isolation
// beyond the process group and the deadline.
type Process struct{}

// Name is "process".
func (Process) Name() string { return "process" }

// Exec runs c on the host.
func (Process) Exec(ctx context.Context, c Command, _ Policy) (Output, error) {
	path, err := Locate(c.Binary, c.Install)
	if err != nil {
		return Output{}, err
	}
	return runLocal(ctx, path, c.Args, c)
}

// RuntimeNames are the runtimes a configuration may name.
var RuntimeNames = []string{"process", "sandbox", "docker"}

// CheckRuntimeName refuses a name that is not a runtime, listing the ones
// that are.
func CheckRuntimeName(name string) error {
	for _, n := range RuntimeNames {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("unknown runtime %q: use one of %s", name, strings.Join(RuntimeNames, ", "))
}

// Runtimes is the runtime configured for each adapter, and the one for the
// rest. The zero value runs everything as Process.
type Runtimes struct {
	Default   Runtime
	ByAdapter map[string]Runtime
}

// For is the runtime adapterID's solver runs use.
func (r Runtimes) For(adapterID string) Runtime {
	if rt, ok := r.ByAdapter[adapterID]; ok && rt != nil {
		return rt
	}
	if r.Default != nil {
		return r.Default
	}
	return Process{}
}
