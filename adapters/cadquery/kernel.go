package cadquery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// kernel is the warm Python process that does the geometry (python/). It
// starts on first use, after a quick check that the Python has CadQuery;
// adapters.StdioAdapter restarts it if it dies. It is replaced outright
// when it cannot serve: when CadQuery would not import (so a fixed install
// is picked up), and when a call outran its deadline (OpenCASCADE cannot
// be interrupted, and later calls would queue behind the runaway).
type kernel struct {
	python string
	root   string // the workspace root, under which the code is installed
	bundle bundle

	mu     sync.Mutex
	proc   *adapters.StdioAdapter
	closed bool
}

func newKernel(python, root string, tools []adapters.Manifest) *kernel {
	return &kernel{python: python, root: root, bundle: newBundle(tools)}
}

// ensure starts the process if it is not running. A Python without
// CadQuery is TOOL_UNAVAILABLE, and no process is started.
func (k *kernel) ensure(ctx context.Context) error {
	_, err := k.running(ctx)
	return err
}

func (k *kernel) running(ctx context.Context) (*adapters.StdioAdapter, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return nil, protocol.Unavailable("adapter cadquery is closed")
	}
	if k.proc != nil {
		return k.proc, nil
	}
	dir, err := k.bundle.install(k.root)
	if err != nil {
		return nil, err
	}
	if _, err := probe(ctx, k.python, dir); err != nil {
		return nil, err
	}
	proc, err := adapters.StartStdio(ctx, AdapterID, []string{k.python, filepath.Join(dir, "run_kernel.py")}, nil)
	if err != nil {
		var pe *protocol.Error
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("starting the CadQuery process: %w", ctx.Err())
		case errors.As(err, &pe) && pe.Code == protocol.ToolUnavailable:
			// CadQuery failed to import before the start's health check.
			return nil, cadqueryUnavailable(k.python, pe.Details)
		}
		return nil, protocol.Unavailable("the CadQuery process (%s) did not start: %v", k.python, err)
	}
	k.proc = proc
	return proc, nil
}

// call runs one tool in the kernel with the kernel's arguments req.
func (k *kernel) call(ctx context.Context, toolID string, req any) (*adapters.Result, error) {
	proc, err := k.running(ctx)
	if err != nil {
		return nil, err
	}
	args, err := json.Marshal(req)
	if err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the kernel's arguments cannot be encoded: " + err.Error()}
	}
	res, err := proc.Call(ctx, toolID, args)
	if err == nil {
		return res, nil
	}
	var pe *protocol.Error
	switch {
	case errors.As(err, &pe) && pe.Code == protocol.ToolUnavailable:
		k.discard(proc)
		return nil, cadqueryUnavailable(k.python, pe.Details)
	case errors.Is(err, context.DeadlineExceeded) && toolID == ToolExecuteScript:
		// The kernel kills the script's process when told the call ended.
		return nil, &protocol.Error{Code: protocol.ToolTimeout,
			Details: "the script did not finish before the call's deadline and was killed; give the call more time or the script less to do"}
	case errors.Is(err, context.DeadlineExceeded):
		// The tool is still running in the kernel, and later calls would
		// queue behind it.
		k.discard(proc)
		return nil, &protocol.Error{Code: protocol.ToolTimeout, Details: fmt.Sprintf(
			"%s did not finish before the call's deadline; OpenCASCADE cannot be interrupted, so the CadQuery process was "+
				"restarted to keep later calls from queueing behind it; simplify the geometry or allow the call more time", toolID)}
	}
	return nil, err
}

// health returns CadQuery's version. A running process answers for
// itself (it has imported CadQuery, or says why not); without one, probe
// finds CadQuery without loading it, which takes seconds.
func (k *kernel) health(ctx context.Context) (string, error) {
	k.mu.Lock()
	proc := k.proc
	k.mu.Unlock()
	if proc == nil {
		dir, err := k.bundle.install(k.root)
		if err != nil {
			return "", err
		}
		return probe(ctx, k.python, dir)
	}
	st, err := proc.Health(ctx)
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Code == protocol.ToolUnavailable {
		return "", cadqueryUnavailable(k.python, pe.Details)
	}
	return st.Version, err
}

// discard drops proc, so the next call starts a fresh one. Calls still in
// flight in it fail as retryable.
func (k *kernel) discard(proc *adapters.StdioAdapter) {
	k.mu.Lock()
	if k.proc == proc {
		k.proc = nil
	}
	k.mu.Unlock()
	go proc.Close() // waits a few seconds for the process to exit
}

func (k *kernel) close() error {
	k.mu.Lock()
	k.closed = true
	proc := k.proc
	k.proc = nil
	k.mu.Unlock()
	if proc != nil {
		return proc.Close()
	}
	return nil
}
