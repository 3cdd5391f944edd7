// Package activities is the only code that touches the world on a
// workflow's behalf. On an adapter's task queue: InvokeTool, which runs one
// tool on its adapter (heartbeating, in the solver runtime chosen for it),
// and FollowProcess, which reads a detached process's answer as it stands.
// On the "metaforge" queue: the steps of design flows, design loops and
// evaluations that read and record the twin. It knows the adapter contract,
// never an adapter, and it starts no workflow and waits on none.
package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// heartbeatEvery keeps a long solver run visibly alive, well inside
// workflows.HeartbeatTimeout, and hears a cancelled call soon: the SDK
// sends the latest heartbeat once per throttle interval (a second on
// MetaForge's workers) and its answer carries the cancellation.
const heartbeatEvery = 500 * time.Millisecond

// Tools runs tools from a registry. One value serves every adapter queue.
type Tools struct {
	Registry *adapters.Registry
	// Runtimes say where each adapter's solver runs happen (process,
	// sandbox or docker); WorkspaceRoot is the tree of call folders they
	// may read.
	Runtimes      solver.Runtimes
	WorkspaceRoot string
	ReadRoots     []string
}

// InvokeTool runs one tool call. Its error says whether Temporal may try
// again: a refusal or invalid input is final, a transient failure is
// retryable (and retried only if the workflow's policy allows, which it does
// only for idempotent tools).
func (t *Tools) InvokeTool(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
	info := activity.GetInfo(ctx)
	start := time.Now()
	fail := func(code protocol.Code, details string, retryable bool) error {
		d := workflows.InvokeToolFailure{DurationMs: msSince(start), Attempt: info.Attempt}
		if retryable {
			return temporal.NewApplicationError(details, code.Name(), d)
		}
		return temporal.NewNonRetryableApplicationError(details, code.Name(), nil, d)
	}

	m, adapter, ok := t.Registry.Tool(req.ToolID)
	if !ok {
		return workflows.InvokeToolResponse{}, fail(protocol.ToolUnavailable,
			fmt.Sprintf("no adapter on this worker serves %s; start a worker that has it", req.ToolID), false)
	}
	if err := t.Registry.ValidateArguments(req.ToolID, req.Arguments); err != nil {
		return workflows.InvokeToolResponse{}, fail(protocol.InvalidParams, errorDetails(err), false)
	}

	stop := func() {}
	if !info.IsLocalActivity { // a local activity has no heartbeat
		stop = keepHeartbeating(ctx)
	}
	ci := adapters.CallInfo{CallID: req.CallID, SessionID: req.SessionID, Caller: req.Caller, Client: req.Client, Requester: req.Requester}
	if req.Approval != nil {
		ci.ApprovedBy, ci.ApproverVerified = req.Approval.ApprovedBy, req.Approval.ApproverVerified
	}
	callCtx := adapters.WithCallInfo(ctx, ci)
	callCtx = solver.WithRuntime(callCtx, t.Runtimes.For(m.AdapterID), t.policyFor(m))
	res, err := adapter.Call(callCtx, req.ToolID, req.Arguments)
	stop()
	if err != nil {
		if ctx.Err() != nil {
			// Temporal cancelled or timed out the attempt; it records why.
			return workflows.InvokeToolResponse{}, ctx.Err()
		}
		var perr *protocol.Error
		if errors.As(err, &perr) {
			return workflows.InvokeToolResponse{}, fail(perr.Code, perr.Details, perr.Retryable)
		}
		return workflows.InvokeToolResponse{}, fail(protocol.ToolExecutionError, err.Error(), true)
	}
	data := res.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	return workflows.InvokeToolResponse{
		Data:        data,
		OutputFiles: res.OutputFiles,
		DurationMs:  msSince(start),
		Attempt:     info.Attempt,
		Process:     childProcess(res.Process),
	}, nil
}

// InvokeToolLocal is InvokeTool run as a local activity of the call's
// workflow. It runs only a tool this process may run that way
// (adapters.Registry.RunsLocal); for any other it answers NotLocal, and
// the workflow sends the call to the adapter's queue, where the worker
// that has it runs it.
func (t *Tools) InvokeToolLocal(ctx context.Context, req workflows.InvokeToolRequest) (workflows.InvokeToolResponse, error) {
	if !t.Registry.RunsLocal(req.ToolID) {
		return workflows.InvokeToolResponse{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s does not run in this worker's process", req.ToolID), workflows.NotLocal, nil)
	}
	return t.InvokeTool(ctx, req)
}

// policyFor is how a tool's solver runs may touch the machine: its
// manifest's limits (plus a cap of 100 processes, and the disk limit as
// the largest file), and the workspace writable only for tools that write.
func (t *Tools) policyFor(m adapters.Manifest) solver.Policy {
	lim := m.ResourceLimits // the registry has filled in the defaults
	ann, _ := adapters.AnnotationsFor(m.ToolID)
	return solver.Policy{
		Limits: solver.Limits{MemoryMB: lim.MaxMemoryMB, CPUSeconds: lim.MaxCPUSeconds,
			Processes: solver.DefaultProcesses, FileSizeMB: lim.MaxDiskMB},
		WorkspaceRoot:   t.WorkspaceRoot,
		WritesWorkspace: !ann.ReadOnly,
		ReadRoots:       t.ReadRoots,
	}
}

// keepHeartbeating records a heartbeat now and then until stopped, so a
// worker that dies mid-call is noticed within the heartbeat timeout.
func keepHeartbeating(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}

func errorDetails(err error) string {
	var perr *protocol.Error
	if errors.As(err, &perr) {
		return perr.Details
	}
	return err.Error()
}

func msSince(t time.Time) float64 {
	return float64(time.Since(t).Microseconds()) / 1000
}
