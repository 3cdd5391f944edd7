package health

import (
	"context"
	"encoding/json"
	"time"

	"github.com/metaforge/metaforge/adapters"
)

// Adapter serves health.check as a tool, so an agent can ask through the
// same durable path as every other call.
type Adapter struct {
	Checker *Checker
}

// ID is "health".
func (a *Adapter) ID() string { return "health" }

// Version is the service's version.
func (a *Adapter) Version() string { return a.Checker.Version }

// Manifests declares health.check.
func (a *Adapter) Manifests() []adapters.Manifest {
	return []adapters.Manifest{{
		ToolID:    "health.check",
		AdapterID: "health",
		Name:      "Health check",
		Description: "Ask every adapter and backing service whether it answers, concurrently, 3 s each. " +
			"status is healthy only if all answered; otherwise degraded, with unreachable_adapters and a detail saying what is wrong. " +
			"tools_registered counts the catalogue and does not shrink when an adapter is down; reachable says whether its tools can be called. " +
			"components says what is in force: embedded or external Temporal, and the twin and ledger backends.",
		Capability:     "health",
		InputSchema:    adapters.SchemaFor[struct{}](),
		OutputSchema:   json.RawMessage(`{"type":"object","required":["service","status","adapters"]}`),
		Idempotent:     true,
		Short:          true,
		TimeoutSeconds: 30,
	}}
}

// Call runs the check.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := adapters.DecodeArguments(args, &struct{}{}); err != nil {
		return nil, err
	}
	data, err := json.Marshal(a.Checker.Check(ctx))
	if err != nil {
		return nil, err
	}
	return &adapters.Result{Data: data}, nil
}

// Health: the health adapter is in-process and answers while the process does.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	return adapters.HealthStatus{
		AdapterID:      "health",
		Status:         "healthy",
		Version:        a.Checker.Version,
		ToolsAvailable: 1,
		UptimeSeconds:  time.Since(a.Checker.Started).Seconds(),
	}, nil
}
