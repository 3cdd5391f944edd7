// Package adapters is how MetaForge reaches an engineering tool. An adapter
// declares manifests and handles calls; it knows nothing of Temporal or MCP.
// The activities package wraps adapters, the MCP server lists their manifests.
//
// This folder is the contract every adapter shares: the Adapter interface,
// manifests and their execution policy, the Registry, input schemas
// generated from Go argument types (SchemaFor, Declare), the one rule for
// empty and unknown arguments, the annotation table, Process (a tool's
// durable process, which the call's workflow runs), and the transports for
// an adapter outside this process: stdio (stdio_server.go, stdio_client.go)
// and HTTP (http_*.go). Each subfolder is one adapter.
package adapters

import "encoding/json"

// ResourceLimits bound one call of a tool.
type ResourceLimits struct {
	MaxMemoryMB   int `json:"max_memory_mb"`
	MaxCPUSeconds int `json:"max_cpu_seconds"`
	MaxDiskMB     int `json:"max_disk_mb"`
}

// DefaultResourceLimits are the limits of a tool that names none.
var DefaultResourceLimits = ResourceLimits{MaxMemoryMB: 1024, MaxCPUSeconds: 300, MaxDiskMB: 256}

// Defaults for the execution policy of a tool that does not name its own.
const (
	DefaultRetries        = 3
	DefaultTimeoutSeconds = 120
	MinTimeoutSeconds     = 1
	MaxTimeoutSeconds     = 3600
)

// Manifest describes one tool as tool/list shows it, plus the execution policy
// the ToolCall workflow follows: an idempotent tool is retried up to Retries
// times on transient failures, any other tool runs at most once.
type Manifest struct {
	ToolID         string          `json:"tool_id"`
	AdapterID      string          `json:"adapter_id"`
	Name           string          `json:"name"`
	Description    string          `json:"description"`
	Capability     string          `json:"capability"`
	InputSchema    json.RawMessage `json:"input_schema"`
	OutputSchema   json.RawMessage `json:"output_schema,omitempty"`
	Phase          int             `json:"phase"`
	ResourceLimits ResourceLimits  `json:"resource_limits"`
	Idempotent     bool            `json:"idempotent"`
	Retries        int             `json:"retries"`
	TimeoutSeconds int             `json:"timeout_seconds"`
	// Short says the tool answers in milliseconds from its adapter's own
	// process: no solver run, no file it writes. Such a tool, when it is
	// also idempotent and its adapter is compiled in, runs as a local
	// activity of its call's workflow (Registry.RunsLocal), saving the
	// dispatch of an activity to its adapter's queue.
	Short bool `json:"short,omitempty"`
	// TaskSupport is TaskRequired for a tool whose work routinely
	// outlives a request (a design loop, a flow run, a long FEA): an MCP
	// client that speaks Tasks (2025-11-25) must call it as a task. Empty
	// means TaskOptional: every call is a durable workflow, so any tool
	// may be called as a task.
	TaskSupport string `json:"task_support,omitempty"`
}

// A tool's execution.taskSupport, as MCP names it.
const (
	TaskOptional = "optional"
	TaskRequired = "required"
)

// withDefaults fills what a manifest left out with the defaults.
func (m Manifest) withDefaults() Manifest {
	if m.Phase == 0 {
		m.Phase = 1
	}
	if m.ResourceLimits == (ResourceLimits{}) {
		m.ResourceLimits = DefaultResourceLimits
	}
	if m.Retries == 0 && m.Idempotent {
		m.Retries = DefaultRetries
	}
	if m.TimeoutSeconds == 0 {
		m.TimeoutSeconds = DefaultTimeoutSeconds
	}
	if len(m.InputSchema) == 0 {
		m.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	return m
}
