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

// CheckArguments are health.check's arguments.
type CheckArguments struct {
	Refresh bool `json:"refresh,omitempty" jsonschema:"Probe every adapter and service now and answer that result (up to 3 s), instead of the last measurement."`
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
		Description: "Report whether every adapter and backing service answers, from the last measurement: probes run in the background " +
			"(concurrently, 3 s each) on an interval and again soon after a failure, and checked_at and age_ms say when the oldest measurement began " +
			"(each adapter has its own, as one found down is probed again sooner); the report is never older than the interval. " +
			"refresh: true probes every adapter and service now and answers that result, which takes up to 3 s. " +
			"status is healthy only if all answered; otherwise degraded, with unreachable_adapters and a detail saying what is wrong. " +
			"tools_registered counts the catalogue and does not shrink when an adapter is down; reachable says whether its tools can be called. " +
			"components says what is in force: embedded or external Temporal, and the twin and ledger backends. " +
			"unserved_tools lists tools the spec defines that this build does not serve, each with the reason (a simulator with no package here, hardware out of reach).",
		Capability:     "health",
		InputSchema:    adapters.SchemaFor[CheckArguments](),
		OutputSchema:   json.RawMessage(`{"type":"object","required":["service","status","checked_at","age_ms","adapters"]}`),
		Idempotent:     true,
		Short:          true,
		TimeoutSeconds: 30,
	}}
}

// Call runs the check.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	var in CheckArguments
	if err := adapters.DecodeArguments(args, &in); err != nil {
		return nil, err
	}
	report := a.Checker.Check
	if in.Refresh {
		report = a.Checker.Refresh
	}
	data, err := json.Marshal(report(ctx))
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
