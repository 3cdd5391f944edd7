package dispatchfuzz

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// fuzzOnlyEngine is an in-memory Engine for the dispatcher's fuzz target,
// and for nothing else: it runs a call's adapter in the caller's goroutine
// instead of through a ToolCall workflow. The fuzz target fuzzes what the
// server does with a frame (screening, routing, answering, staying up);
// the workflow's durability is tested against the real Temporal
// elsewhere, and waiting on it made the fuzzer run a few inputs a second.
type fuzzOnlyEngine struct {
	reg   *adapters.Registry
	mu    sync.Mutex
	calls map[string]workflows.ToolCallInput
}

func (e *fuzzOnlyEngine) StartCall(_ context.Context, in workflows.ToolCallInput, _ *approvals.Ask) (string, error) {
	if in.Hold != nil {
		return "", fmt.Errorf("the fuzz target's in-memory engine holds nothing: %s was held", in.ToolID)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.calls == nil {
		e.calls = map[string]workflows.ToolCallInput{}
	}
	e.calls[in.CallID] = in
	return "memory-" + in.CallID, nil
}

// AwaitCall runs the call once, as the workflow's activity would, and
// forgets it.
func (e *fuzzOnlyEngine) AwaitCall(ctx context.Context, callID, _ string) (workflows.ToolCallResult, error) {
	e.mu.Lock()
	in, ok := e.calls[callID]
	delete(e.calls, callID)
	e.mu.Unlock()
	if !ok {
		return workflows.ToolCallResult{}, fmt.Errorf("no call %s in memory", callID)
	}
	_, a, ok := e.reg.Tool(in.ToolID)
	if !ok {
		return workflows.ToolCallResult{}, fmt.Errorf("no tool %s", in.ToolID)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(in.TimeoutSeconds)*time.Second)
	defer cancel()
	started := time.Now()
	res, err := a.Call(ctx, in.ToolID, in.Arguments)
	out := workflows.ToolCallResult{CallID: callID, ToolID: in.ToolID, Attempts: 1, DurationMs: float64(time.Since(started).Microseconds()) / 1000}
	if err != nil {
		pe := &protocol.Error{Code: protocol.ToolExecutionError, Details: err.Error()}
		errors.As(err, &pe)
		out.Status, out.Error = workflows.StatusError, &workflows.CallError{Code: int(pe.Code), Type: pe.Code.Name(), Details: pe.Details}
		return out, nil
	}
	out.Status, out.Data, out.OutputFiles = workflows.StatusSuccess, res.Data, res.OutputFiles
	return out, nil
}

func (e *fuzzOnlyEngine) CallEnded(_ context.Context, callID, _ string) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, running := e.calls[callID]
	return !running, nil
}

// errNoTasks: the fuzz target's engine keeps no workflow to be a task, so
// a task-augmented call or a tasks/* request gets the server's own error.
var errNoTasks = errors.New("the fuzz target's in-memory engine keeps no tasks")

func (e *fuzzOnlyEngine) StartTask(context.Context, workflows.ToolCallInput, *approvals.Ask, mcpserver.TaskStart) (string, error) {
	return "", errNoTasks
}

func (e *fuzzOnlyEngine) DescribeCall(context.Context, string) (mcpserver.CallState, error) {
	return mcpserver.CallState{}, mcpserver.ErrCallNotFound
}

func (e *fuzzOnlyEngine) ListTasks(context.Context, string, *mcpserver.TaskCursor, int) ([]mcpserver.CallState, *mcpserver.TaskCursor, error) {
	return nil, nil, nil
}

func (e *fuzzOnlyEngine) CancelCall(context.Context, string) error { return mcpserver.ErrCallNotFound }
