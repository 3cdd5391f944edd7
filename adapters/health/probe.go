package health

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// flight is one probe under way, of everything or of what was found down.
// Only one flies at a time, so no adapter is probed twice at once (no pile
// of Python starts); callers wait on done and read the measurements.
type flight struct {
	started time.Time
	done    chan struct{}
}

// beginLocked starts a flight probing every adapter and component (all),
// or only those the last measurement found down. The caller holds c.mu
// and no flight is under way.
func (c *Checker) beginLocked(list []adapters.Adapter, all bool) *flight {
	f := &flight{started: time.Now(), done: make(chan struct{})}
	var as []adapters.Adapter
	for _, a := range list {
		if c.Skip[a.ID()] {
			continue
		}
		if m, ok := c.adapters[a.ID()]; all || !ok || !m.reachable {
			as = append(as, a)
		}
	}
	var names []string
	for name := range c.Components {
		if m, ok := c.components[name]; all || !ok || componentDown(m.Component) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	c.inflight = f
	ctx := c.lifeLocked()
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		c.fly(ctx, f, as, names)
	}()
	return f
}

// fly probes concurrently, ProbeTimeout each, and stores what came back,
// stamped with when the flight began.
func (c *Checker) fly(ctx context.Context, f *flight, as []adapters.Adapter, names []string) {
	found := make([]adapterMeasure, len(as))
	comps := make([]Component, len(names))
	var wg sync.WaitGroup
	for i, a := range as {
		wg.Go(func() {
			found[i].reachable, found[i].err = c.probe(ctx, a)
			found[i].at = f.started
		})
	}
	for i, name := range names {
		probe := c.Components[name]
		wg.Go(func() {
			pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
			defer cancel()
			comps[i] = probe(pctx)
		})
	}
	wg.Wait()
	cut := ctx.Err() != nil // Close: what the cut probes said is not a measurement
	if c.OnProbe != nil && !cut {
		for i, a := range as {
			c.OnProbe(a.ID(), found[i].reachable)
		}
	}
	c.mu.Lock()
	if cut {
		c.inflight = nil
		c.mu.Unlock()
		close(f.done)
		return
	}
	if c.adapters == nil {
		c.adapters, c.components = map[string]adapterMeasure{}, map[string]componentMeasure{}
	}
	for i, a := range as {
		c.adapters[a.ID()] = found[i]
	}
	for i, name := range names {
		c.components[name] = componentMeasure{Component: comps[i], at: f.started}
	}
	c.inflight = nil
	c.landed++
	p := c.prober
	c.mu.Unlock()
	close(f.done)
	if p != nil {
		p.poke()
	}
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
