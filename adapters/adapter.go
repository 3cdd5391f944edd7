package adapters

import (
	"context"
	"encoding/json"
	"time"
)

// Adapter is one engineering tool (or a family of tools) MetaForge can call.
//
// Call runs one tool. It returns a *protocol.Error to say how the call failed:
// a refusal or invalid input is final, a Retryable error is transient. Any
// other error is treated as transient too (a broken pipe, a crashed process),
// since the adapter could not say otherwise.
type Adapter interface {
	ID() string
	Version() string
	Manifests() []Manifest
	Call(ctx context.Context, toolID string, args json.RawMessage) (*Result, error)
	Health(ctx context.Context) (HealthStatus, error)
}

// Result is what a tool returned: its data and the files it wrote, or
// the durable process its work is, for the call's workflow to run.
type Result struct {
	Data        json.RawMessage `json:"data"`
	OutputFiles []string        `json:"output_files,omitempty"`
	Process     *Process        `json:"process,omitempty"`
}

// HealthStatus is one adapter's answer to health/check: who it is, whether
// it is healthy, how many tools it has and how long it has been up.
type HealthStatus struct {
	AdapterID      string     `json:"adapter_id"`
	Status         string     `json:"status"`
	Version        string     `json:"version"`
	ToolsAvailable int        `json:"tools_available"`
	UptimeSeconds  float64    `json:"uptime_seconds"`
	LastInvocation *time.Time `json:"last_invocation,omitempty"`
}
