package twin

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// tool is one tool of a family: its manifest, and what runs it on the
// backend.
type tool = adapters.Declared[*Backend]

// follower reads the detached process a tool started, for a tool that
// answers from it as it stands (adapters.ProcessFollower).
type follower func(ctx context.Context, b *Backend, p adapters.Process, s adapters.ProcessStart) (json.RawMessage, bool, error)

// family is one adapter: a set of tools sharing an id prefix.
type family struct {
	id      string
	backend *Backend
	tools   map[string]tool
	order   []string
	started time.Time
}

func newFamily(id string, b *Backend, tools []tool) *family {
	f := &family{id: id, backend: b, tools: map[string]tool{}, started: time.Now()}
	for _, t := range tools {
		t.Manifest.AdapterID = id
		f.tools[t.Manifest.ToolID] = t
		f.order = append(f.order, t.Manifest.ToolID)
	}
	return f
}

func (f *family) ID() string      { return f.id }
func (f *family) Version() string { return version }

func (f *family) Manifests() []adapters.Manifest {
	out := make([]adapters.Manifest, 0, len(f.order))
	for _, id := range f.order {
		out = append(out, f.tools[id].Manifest)
	}
	return out
}

// Call runs a tool and maps the store's errors to the taxonomy: what the
// caller can fix is a refusal saying how.
func (f *family) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	t, ok := f.tools[toolID]
	if !ok {
		return nil, protocol.Invalid("%s has no tool %s", f.id, toolID)
	}
	out, err := t.Run(ctx, f.backend, args)
	if err != nil {
		return nil, classify(err)
	}
	if res, ok := out.(*adapters.Result); ok {
		return res, nil // a durable process for the call to run
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &adapters.Result{Data: data}, nil
}

// FollowProcess reads the process a tool started, for its answer.
func (f *family) FollowProcess(ctx context.Context, toolID string, p adapters.Process, s adapters.ProcessStart) (json.RawMessage, bool, error) {
	follow, ok := followers[toolID]
	if _, served := f.tools[toolID]; !ok || !served {
		return nil, false, protocol.Invalid("%s started no process it answers from", toolID)
	}
	out, settled, err := follow(ctx, f.backend, p, s)
	if err != nil {
		return nil, false, classify(err)
	}
	return out, settled, nil
}

// Health asks the store, which is where these tools can fail.
func (f *family) Health(ctx context.Context) (adapters.HealthStatus, error) {
	st := f.backend.Store.Describe(ctx)
	if !st.Reachable {
		return adapters.HealthStatus{}, protocol.Unavailable("the twin store (%s at %s) does not answer: %s", st.Backend, st.Address, st.Error)
	}
	return adapters.HealthStatus{AdapterID: f.id, Status: "healthy", Version: version, ToolsAvailable: len(f.tools),
		UptimeSeconds: time.Since(f.started).Seconds()}, nil
}

// classify maps the twin's errors to the taxonomy: a refusal of the
// twin's rules is a refusal in its own words, and so is a store error the
// caller can fix; anything else is transient.
func classify(err error) error {
	var perr *protocol.Error
	var refusal *twin.RefusalError
	switch {
	case errors.As(err, &perr):
		return perr
	case errors.As(err, &refusal):
		return protocol.Refusal("%s", refusal.Message)
	case errors.Is(err, twin.ErrNotFound), errors.Is(err, twin.ErrDuplicateName), errors.Is(err, twin.ErrStaleRevision), errors.Is(err, twin.ErrInvalid):
		return protocol.Refusal("%s", err.Error())
	}
	return err // transient: the store could not be reached
}
