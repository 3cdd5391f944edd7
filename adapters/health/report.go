// Package health measures MetaForge's health: it asks every adapter, and
// every backing service (3 s each), and reports what came back: measured,
// never assumed, so an adapter that did not answer is unreachable. Its
// Adapter serves the report as the health.check tool.
package health

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ProbeTimeout is how long each adapter gets to answer. Probes run
// concurrently, so a whole check costs one timeout, not one per adapter.
const ProbeTimeout = 3 * time.Second

// Component is a backing service's state, as measured: what is in force
// (embedded or external Temporal, the twin's and ledger's backends).
type Component struct {
	Mode      string `json:"mode"`
	Reachable bool   `json:"reachable"`
	Address   string `json:"address,omitempty"`
	Durable   bool   `json:"durable"`
	Detail    string `json:"detail,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Probe measures one component.
type Probe func(ctx context.Context) Component

// AdapterReport is one adapter's line in the roll-up.
type AdapterReport struct {
	AdapterID       string `json:"adapter_id"`
	Version         string `json:"version"`
	ToolsRegistered int    `json:"tools_registered"`
	Reachable       bool   `json:"reachable"`
	Error           string `json:"error,omitempty"`
}

// Report is the roll-up over every adapter and service. UnreachableAdapters and
// Detail are present only when something is wrong.
type Report struct {
	Service             string               `json:"service"`
	Status              string               `json:"status"`
	Version             string               `json:"version"`
	UptimeSeconds       float64              `json:"uptime_seconds"`
	AdapterCount        int                  `json:"adapter_count"`
	ToolCount           int                  `json:"tool_count"`
	UnreachableAdapters []string             `json:"unreachable_adapters,omitempty"`
	Detail              string               `json:"detail,omitempty"`
	Adapters            []AdapterReport      `json:"adapters"`
	Components          map[string]Component `json:"components"`
}

// Checker builds reports. Components are probed alongside the adapters;
// a component that is not reachable degrades the report like an adapter.
type Checker struct {
	Service    string
	Version    string
	Started    time.Time
	Registry   *adapters.Registry
	Components map[string]Probe
	// Skip names adapters not to probe (the health adapter itself, which
	// is answering).
	Skip map[string]bool
	// OnProbe hears each adapter probe's result (the probe metric); nil
	// for none.
	OnProbe func(adapterID string, reachable bool)
	// Elsewhere measures an adapter this process does not serve (its task
	// queue is polled by workers on other machines): ok is false for one
	// served here, which is then asked directly. Nil: every adapter is
	// asked here.
	Elsewhere func(ctx context.Context, adapterID string) (reachable bool, detail string, ok bool)
}

// Check probes everything concurrently and rolls the answers up.
func (c *Checker) Check(ctx context.Context) Report {
	list := c.Registry.Adapters()
	toolsPer := map[string]int{}
	for _, m := range c.Registry.Manifests() {
		toolsPer[m.AdapterID]++
	}
	reports := make([]AdapterReport, len(list))
	var wg sync.WaitGroup
	for i, a := range list {
		reports[i] = AdapterReport{AdapterID: a.ID(), Version: a.Version(), ToolsRegistered: toolsPer[a.ID()]}
		if c.Skip[a.ID()] {
			reports[i].Reachable = true
			continue
		}
		wg.Go(func() { reports[i].Reachable, reports[i].Error = c.probe(ctx, a) })
	}
	names := make([]string, 0, len(c.Components))
	for name := range c.Components {
		names = append(names, name)
	}
	sort.Strings(names)
	components := make([]Component, len(names))
	for i, name := range names {
		probe := c.Components[name]
		wg.Go(func() {
			pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
			defer cancel()
			components[i] = probe(pctx)
		})
	}
	wg.Wait()
	if c.OnProbe != nil {
		for _, a := range reports {
			if !c.Skip[a.AdapterID] {
				c.OnProbe(a.AdapterID, a.Reachable)
			}
		}
	}

	r := Report{
		Service:       c.Service,
		Status:        "healthy",
		Version:       c.Version,
		UptimeSeconds: time.Since(c.Started).Seconds(),
		AdapterCount:  len(list),
		ToolCount:     c.Registry.ToolCount(),
		Adapters:      reports,
		Components:    map[string]Component{},
	}
	var problems []string
	for _, a := range reports {
		if !a.Reachable {
			r.UnreachableAdapters = append(r.UnreachableAdapters, a.AdapterID)
		}
	}
	if n := len(r.UnreachableAdapters); n > 0 {
		problems = append(problems, fmt.Sprintf("%d of %d adapters did not answer: %s. Their tools are registered but calls to them will fail.",
			n, len(list), strings.Join(r.UnreachableAdapters, ", ")))
	}
	for i, name := range names {
		comp := components[i]
		r.Components[name] = comp
		if !comp.Reachable && comp.Mode != "none" {
			problems = append(problems, fmt.Sprintf("%s (%s) is not reachable: %s.", name, comp.Mode, comp.Error))
		}
	}
	if len(problems) > 0 {
		r.Status = "degraded"
		r.Detail = strings.Join(problems, " ")
	}
	return r
}

// probe measures one adapter where it runs: in this process, or through
// the workers that serve its queue elsewhere.
func (c *Checker) probe(ctx context.Context, a adapters.Adapter) (bool, string) {
	if c.Elsewhere != nil {
		pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
		defer cancel()
		if reachable, detail, ok := c.Elsewhere(pctx, a.ID()); ok {
			if reachable {
				return true, ""
			}
			return false, detail
		}
	}
	return probeAdapter(ctx, a)
}

// probeAdapter keeps the two failure shapes apart: an adapter that answered
// with an error (it is down; start it) and one that did not answer at all
// (wedged, or the way to it is).
func probeAdapter(ctx context.Context, a adapters.Adapter) (bool, string) {
	pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	type answer struct {
		status adapters.HealthStatus
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		s, err := a.Health(pctx)
		done <- answer{s, err}
	}()
	select {
	case ans := <-done:
		if ans.err != nil {
			if errors.Is(ans.err, context.DeadlineExceeded) {
				return false, fmt.Sprintf("no answer within %s", ProbeTimeout)
			}
			var perr *protocol.Error
			if errors.As(ans.err, &perr) {
				return false, fmt.Sprintf("adapter is down: %s (%d)", perr.Details, perr.Code)
			}
			return false, "adapter is down: " + ans.err.Error()
		}
		if ans.status.Status != "" && ans.status.Status != "healthy" {
			return false, fmt.Sprintf("adapter reports itself %s", ans.status.Status)
		}
		return true, ""
	case <-pctx.Done():
		return false, fmt.Sprintf("no answer within %s", ProbeTimeout)
	}
}
