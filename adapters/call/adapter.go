// Package call serves call.get_result: the outcome of an earlier tools/call by
// its callId, so a client that lost its connection still gets its answer.
// The adapter knows nothing of Temporal; it asks a Lookup, which the worker
// backs with the ToolCall workflow.
package call

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// Outcome is where a call stands.
type Outcome struct {
	CallID     string          `json:"call_id"`
	WorkflowID string          `json:"workflow_id"`
	ToolID     string          `json:"tool_id,omitempty"`
	State      string          `json:"state"` // running, completed, failed, cancelled, terminated, timed_out
	StartedAt  *time.Time      `json:"started_at,omitempty"`
	ClosedAt   *time.Time      `json:"closed_at,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Detail     string          `json:"detail,omitempty"`
}

// ErrNotFound is returned by a Lookup that knows no such call.
var ErrNotFound = fmt.Errorf("no such call")

// Lookup finds a call's outcome, waiting up to wait for a running call to end.
type Lookup interface {
	CallOutcome(ctx context.Context, callID string, wait time.Duration) (Outcome, error)
}

// Adapter serves call.get_result.
type Adapter struct {
	Lookup  Lookup
	started time.Time
}

// New returns the adapter over a lookup.
func New(l Lookup) *Adapter { return &Adapter{Lookup: l, started: time.Now()} }

var callIDPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// MaxWaitSeconds bounds wait_seconds, well inside the tool's own timeout.
const MaxWaitSeconds = 60

// ID is "call".
func (a *Adapter) ID() string { return "call" }

// Version of the adapter.
func (a *Adapter) Version() string { return "0.1.0" }

// Manifests declares call.get_result.
func (a *Adapter) Manifests() []adapters.Manifest {
	return []adapters.Manifest{{
		ToolID:    "call.get_result",
		AdapterID: "call",
		Name:      "Get a call's result",
		Description: "The outcome of an earlier tools/call, by the callId its result carried in _meta.callId. " +
			"Use it when a call's connection was lost: the call ran on as a durable workflow. " +
			"state is running until it ends; pass wait_seconds (up to 60) to wait for a running call. " +
			"A client that speaks MCP Tasks (2025-11-25) can instead call a tool as a task and follow it with tasks/get and tasks/result; " +
			"this tool is the way for clients that do not.",
		Capability: "grounding",
		InputSchema: adapters.SchemaFor[args](
			adapters.At("call_id", adapters.Pattern(callIDPattern.String())),
			adapters.At("wait_seconds", adapters.Minimum(0), adapters.Maximum(MaxWaitSeconds), adapters.Default(0))),
		OutputSchema:   json.RawMessage(`{"type":"object","required":["call_id","state"]}`),
		Idempotent:     true,
		Short:          true,
		TimeoutSeconds: 90,
	}}
}

type args struct {
	CallID      string `json:"call_id" jsonschema:"the 16-hex-digit callId from _meta.callId"`
	WaitSeconds int    `json:"wait_seconds,omitempty" jsonschema:"how long to wait for a running call to end"`
}

// Call looks the call up.
func (a *Adapter) Call(ctx context.Context, toolID string, raw json.RawMessage) (*adapters.Result, error) {
	var in args
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	if !callIDPattern.MatchString(in.CallID) {
		return nil, protocol.Invalid("argument call_id: %q is not a callId; pass the 16 hex digits from a result's _meta.callId", in.CallID)
	}
	if in.WaitSeconds < 0 || in.WaitSeconds > MaxWaitSeconds {
		return nil, protocol.Invalid("argument wait_seconds: %d is outside 0..%d", in.WaitSeconds, MaxWaitSeconds)
	}
	out, err := a.Lookup.CallOutcome(ctx, in.CallID, time.Duration(in.WaitSeconds)*time.Second)
	if err == ErrNotFound {
		return nil, &protocol.Error{Code: protocol.ResourceNotFound, Details: fmt.Sprintf("no call %s is known; check the id against the result's _meta.callId", in.CallID)}
	}
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &adapters.Result{Data: data}, nil
}

// Health: the adapter answers while its process does; the lookup's backend
// (Temporal) is reported by health.check as a component.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	return adapters.HealthStatus{AdapterID: "call", Status: "healthy", Version: a.Version(), ToolsAvailable: 1,
		UptimeSeconds: time.Since(a.started).Seconds()}, nil
}
