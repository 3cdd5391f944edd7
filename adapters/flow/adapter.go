// Package flow serves the design-flow tools: flow.*, phase.* and run.*. It
// knows nothing of Temporal: a run is reached through an Engine, which
// runs.Service implements over the DesignFlow workflow; flow versions and
// their approvals live in the twin.
package flow

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// Engine runs design flows. Its errors that a person must act on wrap
// ErrRefused, so they reach the client as a refusal with the reason.
type Engine interface {
	// RunProcess describes a run as the durable process that runs it; the
	// starting call's workflow starts it as its child.
	RunProcess(in flows.DesignFlowInput) (adapters.Process, error)
	RunState(ctx context.Context, runID string) (flows.RunState, error)
	ListRuns(ctx context.Context, projectID string) ([]flows.RunState, error)
	Claim(ctx context.Context, runID string, c flows.ClaimRequest) (flows.PhaseBrief, error)
	Submit(ctx context.Context, runID string, s flows.Submission) (flows.RunState, error)
	EvaluateGate(ctx context.Context, runID string) (flows.GateState, error)
	Patch(ctx context.Context, runID string, p flows.PatchRequest) (flows.RunState, error)
	ProposeDecision(ctx context.Context, runID string, d flows.ProposedDecision) (flows.GateState, error)
	// ApprovalProcess describes a human-authority tool call (id callID)
	// held in the approvals queue for an identified person; the asking
	// call's workflow starts it as its child. Its approval id is callID,
	// and holding the same call again finds the first. requester (the
	// asking call's verified identity, or "") cannot approve it.
	ApprovalProcess(toolID string, args json.RawMessage, projectID, summary, callID, requester string) (adapters.Process, error)
}

// ErrRefused marks an engine error that is the request's fault (a gate
// not waiting, a phase claimed by someone else): the client gets the
// reason as a refusal, not a server failure.
var ErrRefused = errors.New("refused")

// ErrNoRun is a run id nobody started.
var ErrNoRun = errors.New("no such run")

// FactsReader reads what a gate is judged against.
type FactsReader interface {
	FlowFacts(ctx context.Context, projectID string) (flows.Facts, error)
}

// Catalog lists the tools the server serves and their health, for
// flow.capabilities.
type Catalog interface {
	Manifests() []adapters.Manifest
}

// Service is what every flow tool needs.
type Service struct {
	Engine  Engine
	Store   twin.Store
	Facts   FactsReader
	Catalog Catalog
}

// tool is one flow tool, declared with its argument type.
type tool = adapters.Declared[*Service]

// family is one adapter id's tools: flow, phase, run.
type family struct {
	id    string
	s     *Service
	tools []tool
}

// New returns the flow, phase and run adapters over a service.
func New(s *Service) []adapters.Adapter {
	return []adapters.Adapter{
		&family{id: "flow", s: s, tools: flowTools()},
		&family{id: "phase", s: s, tools: phaseTools()},
		&family{id: "run", s: s, tools: runTools()},
	}
}

func (f *family) ID() string      { return f.id }
func (f *family) Version() string { return "0.1.0" }

func (f *family) Manifests() []adapters.Manifest {
	out := make([]adapters.Manifest, 0, len(f.tools))
	for _, t := range f.tools {
		m := t.Manifest
		m.AdapterID = f.id
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ToolID < out[j].ToolID })
	return out
}

func (f *family) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	for _, t := range f.tools {
		if t.Manifest.ToolID == toolID {
			data, err := t.Run(ctx, f.s, args)
			if err != nil {
				return nil, classify(err)
			}
			if res, ok := data.(*adapters.Result); ok {
				return res, nil // a durable process for the call to run
			}
			raw, err := json.Marshal(data)
			if err != nil {
				return nil, err
			}
			return &adapters.Result{Data: raw}, nil
		}
	}
	return nil, protocol.Refusal("%s is not a tool of adapter %s", toolID, f.id)
}

// FollowProcess reads the run a tool follows, for its answer.
func (f *family) FollowProcess(ctx context.Context, toolID string, p adapters.Process, st adapters.ProcessStart) (json.RawMessage, bool, error) {
	follow, ok := followers[toolID]
	if !ok {
		return nil, false, protocol.Invalid("%s follows no process", toolID)
	}
	out, settled, err := follow(ctx, f.s, p, st)
	if err != nil {
		return nil, false, classify(err)
	}
	return out, settled, nil
}

// followers are the tools that answer from a run as it stands.
var followers = map[string]func(context.Context, *Service, adapters.Process, adapters.ProcessStart) (json.RawMessage, bool, error){
	"flow.await_gate": followGate,
}

func (f *family) Health(ctx context.Context) (adapters.HealthStatus, error) {
	if f.s.Engine == nil {
		return adapters.HealthStatus{}, protocol.Unavailable("no flow engine: design flows need Temporal, which this server is not connected to")
	}
	return adapters.HealthStatus{AdapterID: f.id, Status: "healthy", Version: f.Version(), ToolsAvailable: len(f.tools)}, nil
}

// classify turns an engine's refusal into the client's refusal.
func classify(err error) error {
	var perr *protocol.Error
	switch {
	case errors.As(err, &perr):
		return err
	case errors.Is(err, ErrRefused), errors.Is(err, ErrNoRun), errors.Is(err, twin.ErrNotFound):
		return protocol.Refusal("%s", strings.TrimSuffix(err.Error(), ": "+ErrRefused.Error()))
	}
	return err
}
