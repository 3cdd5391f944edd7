// Package health measures MetaForge's health: it asks every adapter, and
// every backing service (3 s each), and reports what came back: measured,
// never assumed, so an adapter that did not answer is unreachable. Its
// Adapter serves the report as the health.check tool.
//
// Probes run in the background (see prober.go) and callers answer from the
// last measurement, with its age: a Python start per adapter per caller
// made health the slowest tool under load.
package health

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/metaforge/metaforge/adapters"
)

// ProbeTimeout is how long each adapter gets to answer. Probes run
// concurrently, so a whole check costs one timeout, not one per adapter.
const ProbeTimeout = 3 * time.Second

// DefaultInterval is how old a measurement may get when Checker.Interval
// is not set.
const DefaultInterval = 15 * time.Second

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

// AdapterReport is one adapter's line in the roll-up. CheckedAt and AgeMS
// are when its own probe began: an adapter found down is probed again
// sooner than the others, so its time can be newer than the report's.
type AdapterReport struct {
	AdapterID       string    `json:"adapter_id"`
	Version         string    `json:"version"`
	ToolsRegistered int       `json:"tools_registered"`
	Reachable       bool      `json:"reachable"`
	Error           string    `json:"error,omitempty"`
	CheckedAt       time.Time `json:"checked_at"`
	AgeMS           int64     `json:"age_ms"`
}

// Report is the roll-up over every adapter and service. UnreachableAdapters and
// Detail are present only when something is wrong. CheckedAt is when the
// oldest measurement in it began (adapters and components alike) and AgeMS
// its age when the report was made: the whole report is no older than that.
type Report struct {
	Service             string               `json:"service"`
	Status              string               `json:"status"`
	Version             string               `json:"version"`
	UptimeSeconds       float64              `json:"uptime_seconds"`
	CheckedAt           time.Time            `json:"checked_at"`
	AgeMS               int64                `json:"age_ms"`
	AdapterCount        int                  `json:"adapter_count"`
	ToolCount           int                  `json:"tool_count"`
	UnreachableAdapters []string             `json:"unreachable_adapters,omitempty"`
	Detail              string               `json:"detail,omitempty"`
	Adapters            []AdapterReport      `json:"adapters"`
	Components          map[string]Component `json:"components"`
	// UnservedTools are the spec's tools this build does not serve, each
	// with why: missing on purpose, not down, so they do not degrade the
	// status.
	UnservedTools []adapters.UnservedTool `json:"unserved_tools,omitempty"`
}

// Checker builds reports from measurements it keeps. Components are probed
// alongside the adapters; a component that is not reachable degrades the
// report like an adapter. One probe of each adapter runs at a time, and
// every caller shares its result.
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
	// Interval bounds a measurement's age: the background prober measures
	// again at three quarters of it, and a caller finding one older probes
	// before answering. Zero: DefaultInterval. At 4 x ProbeTimeout or more
	// no caller waits for a probe once the first has answered.
	Interval time.Duration
	// RetryAfter is the first wait before an adapter or component found
	// down is probed again; it doubles while it stays down, up to
	// Interval. Zero: one second.
	RetryAfter time.Duration

	mu         sync.Mutex
	adapters   map[string]adapterMeasure
	components map[string]componentMeasure
	inflight   *flight
	landed     int            // flights that stored their measurements
	running    sync.WaitGroup // the prober and flights, for Close
	prober     *prober
	asked      time.Time // the last Start: a caller, or serve starting
	life       context.Context
	endLife    context.CancelFunc
	closed     bool
}

// adapterMeasure is what one probe of an adapter found, and when it began.
type adapterMeasure struct {
	reachable bool
	err       string
	at        time.Time
}

// componentMeasure is what one probe of a component found, and when it
// began.
type componentMeasure struct {
	Component
	at time.Time
}

func (c *Checker) interval() time.Duration {
	if c.Interval > 0 {
		return c.Interval
	}
	return DefaultInterval
}

// Check answers from the last measurement, probing first (or waiting for
// the probe under way) only when part of it is older than Interval or
// missing, as before the first probe. The first call starts the
// background prober.
func (c *Checker) Check(ctx context.Context) Report {
	c.Start()
	limit := c.interval()
	return c.await(ctx, func(oldest time.Time) bool { return time.Since(oldest) < limit })
}

// Refresh probes every adapter and component now and answers the result:
// callers that ask while a probe begun before them is under way wait for
// it to end and share the next one, so a burst of refreshes costs two
// probes, not one each.
func (c *Checker) Refresh(ctx context.Context) Report {
	c.Start()
	asked := time.Now()
	return c.await(ctx, func(oldest time.Time) bool { return !oldest.Before(asked) })
}

// await answers once the measurements are fresh enough, joining the probe
// under way or starting one of everything. A caller that gives up (ctx)
// gets what is known, with its honest age.
func (c *Checker) await(ctx context.Context, fresh func(oldest time.Time) bool) Report {
	cat := c.catalogue()
	list := cat.adapters
	for {
		c.mu.Lock()
		oldest, measured := c.oldestLocked(list)
		if (measured && fresh(oldest)) || c.closed {
			r := c.reportLocked(cat, time.Now())
			c.mu.Unlock()
			return r
		}
		f := c.inflight
		if f == nil {
			f = c.beginLocked(list, true)
		}
		c.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.reportLocked(cat, time.Now())
		}
	}
}

// catalogue is what a report says of the registry, read before taking
// c.mu so callers do not queue behind each other's copies of it.
type catalogue struct {
	adapters  []adapters.Adapter
	toolsPer  map[string]int
	toolCount int
	unserved  []adapters.UnservedTool
}

func (c *Checker) catalogue() catalogue {
	cat := catalogue{adapters: c.Registry.Adapters(), toolsPer: map[string]int{}, toolCount: c.Registry.ToolCount(),
		unserved: c.Registry.Unserved()}
	for _, m := range c.Registry.Manifests() {
		cat.toolsPer[m.AdapterID]++
	}
	return cat
}

// oldestLocked is when the oldest measurement the report needs began;
// measured is false while one is missing.
func (c *Checker) oldestLocked(list []adapters.Adapter) (oldest time.Time, measured bool) {
	first := true
	see := func(at time.Time) {
		if first || at.Before(oldest) {
			oldest, first = at, false
		}
	}
	for _, a := range list {
		if c.Skip[a.ID()] {
			continue
		}
		m, ok := c.adapters[a.ID()]
		if !ok {
			return time.Time{}, false
		}
		see(m.at)
	}
	for name := range c.Components {
		m, ok := c.components[name]
		if !ok {
			return time.Time{}, false
		}
		see(m.at)
	}
	if first {
		return time.Now(), true // nothing to probe
	}
	return oldest, true
}

// downLocked says whether the last measurement found something down: an
// adapter unreachable, or a component in force that is not reachable.
func (c *Checker) downLocked(list []adapters.Adapter) bool {
	for _, a := range list {
		if m, ok := c.adapters[a.ID()]; ok && !c.Skip[a.ID()] && !m.reachable {
			return true
		}
	}
	for name := range c.Components {
		if m, ok := c.components[name]; ok && componentDown(m.Component) {
			return true
		}
	}
	return false
}

func componentDown(comp Component) bool { return !comp.Reachable && comp.Mode != "none" }

// reportLocked rolls the measurements up. An adapter or component not
// measured yet (the caller gave up before the first probe answered) is
// reported unreachable, saying so.
func (c *Checker) reportLocked(cat catalogue, now time.Time) Report {
	list := cat.adapters
	oldest, measured := c.oldestLocked(list)
	if !measured {
		oldest = now
	}
	r := Report{
		Service:       c.Service,
		Status:        "healthy",
		Version:       c.Version,
		UptimeSeconds: time.Since(c.Started).Seconds(),
		AdapterCount:  len(list),
		ToolCount:     cat.toolCount,
		Adapters:      make([]AdapterReport, len(list)),
		Components:    map[string]Component{},
		UnservedTools: cat.unserved,
	}
	if len(r.UnservedTools) == 0 {
		r.UnservedTools = nil // omitted, not []
	}
	for i, a := range list {
		ar := AdapterReport{AdapterID: a.ID(), Version: a.Version(), ToolsRegistered: cat.toolsPer[a.ID()], Reachable: true, CheckedAt: now}
		if !c.Skip[a.ID()] {
			m, ok := c.adapters[a.ID()]
			if !ok {
				m = adapterMeasure{err: "not measured yet: the first probe has not answered", at: now}
			}
			ar.Reachable, ar.Error, ar.CheckedAt = m.reachable, m.err, m.at
		}
		ar.AgeMS = now.Sub(ar.CheckedAt).Milliseconds()
		ar.CheckedAt = ar.CheckedAt.UTC().Round(0)
		r.Adapters[i] = ar
	}
	r.CheckedAt, r.AgeMS = oldest.UTC().Round(0), now.Sub(oldest).Milliseconds()

	var problems []string
	for _, a := range r.Adapters {
		if !a.Reachable {
			r.UnreachableAdapters = append(r.UnreachableAdapters, a.AdapterID)
		}
	}
	if n := len(r.UnreachableAdapters); n > 0 {
		problems = append(problems, fmt.Sprintf("%d of %d adapters did not answer: %s. Their tools are registered but calls to them will fail.",
			n, len(list), strings.Join(r.UnreachableAdapters, ", ")))
	}
	names := make([]string, 0, len(c.Components))
	for name := range c.Components {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		m, ok := c.components[name]
		if !ok {
			m.Component = Component{Mode: "unknown", Error: "not measured yet: the first probe has not answered"}
		}
		r.Components[name] = m.Component
		if componentDown(m.Component) {
			problems = append(problems, fmt.Sprintf("%s (%s) is not reachable: %s.", name, m.Mode, m.Error))
		}
	}
	if len(problems) > 0 {
		r.Status = "degraded"
		r.Detail = strings.Join(problems, " ")
	}
	return r
}
