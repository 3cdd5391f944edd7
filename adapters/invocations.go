package adapters

import (
	"errors"
	"sync"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// Invocations remembers when an in-process adapter started and was last
// called: the uptime and last_invocation its health answer reports.
type Invocations struct {
	mu      sync.Mutex
	started time.Time
	last    *time.Time
}

// NewInvocations starts the clock now.
func NewInvocations() *Invocations { return &Invocations{started: time.Now()} }

// Called records a call now.
func (i *Invocations) Called() {
	now := time.Now()
	i.mu.Lock()
	i.last = &now
	i.mu.Unlock()
}

// Healthy is a healthy answer carrying the uptime and last call.
func (i *Invocations) Healthy(adapterID, version string, tools int) HealthStatus {
	i.mu.Lock()
	defer i.mu.Unlock()
	var last *time.Time
	if i.last != nil {
		t := *i.last
		last = &t
	}
	return HealthStatus{AdapterID: adapterID, Status: "healthy", Version: version, ToolsAvailable: tools,
		UptimeSeconds: time.Since(i.started).Seconds(), LastInvocation: last}
}

// WithToolID names the tool in a taxonomy error, so the error says which
// tool to fix; other errors pass through.
func WithToolID(err error, toolID string) error {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		pe.ToolID = toolID
	}
	return err
}
