package cad

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// Registry is what the router reads: the registered tools and adapters.
// *adapters.Registry satisfies it, read at call time, so the cad adapter
// can be registered before or after the kernels.
type Registry interface {
	Tool(toolID string) (adapters.Manifest, adapters.Adapter, bool)
	Adapter(id string) (adapters.Adapter, bool)
}

var _ Registry = (*adapters.Registry)(nil)

// HealthTTL is how long an adapter's health answer is kept: long enough
// that a burst of cad.* calls asks FreeCAD (a process per question) once,
// short enough that a kernel installed or lost is seen within a minute.
const HealthTTL = 30 * time.Second

// member is the tool a call is forwarded to.
type member struct {
	kernel  string
	toolID  string
	adapter adapters.Adapter
}

// healthCache keeps each adapter's last health answer for HealthTTL.
type healthCache struct {
	mu      sync.Mutex
	answers map[string]healthAnswer
	now     func() time.Time
}

type healthAnswer struct {
	err error
	at  time.Time
}

func newHealthCache() *healthCache {
	return &healthCache{answers: map[string]healthAnswer{}, now: time.Now}
}

// check is nil when a's Health is ok, else why not. An answer cut short
// by the call's own context is not kept: it says nothing of the adapter.
func (h *healthCache) check(ctx context.Context, a adapters.Adapter) error {
	id := a.ID()
	h.mu.Lock()
	ans, ok := h.answers[id]
	h.mu.Unlock()
	if ok && h.now().Sub(ans.at) < HealthTTL {
		return ans.err
	}
	st, err := a.Health(ctx)
	if err == nil && st.Status != "" && st.Status != "healthy" {
		err = fmt.Errorf("adapter %s reports %s", id, st.Status)
	}
	if ctx.Err() != nil {
		return err
	}
	h.mu.Lock()
	h.answers[id] = healthAnswer{err: err, at: h.now()}
	h.mu.Unlock()
	return err
}

// serve finds kernel's member for c and checks it can run: registered,
// declaring c's tag, and its kernel's adapter and the member's adapter
// (gmsh for CadQuery's mesh) healthy. The error says why not.
func (a *Adapter) serve(ctx context.Context, c Capability, kernel string) (member, error) {
	toolID := c.Members[kernel]
	k, ok := a.reg.Adapter(kernel)
	if !ok {
		return member{}, fmt.Errorf("not registered")
	}
	m, ad, ok := a.reg.Tool(toolID)
	if !ok {
		return member{}, fmt.Errorf("its tool %s is not registered", toolID)
	}
	if m.Capability != c.Tag {
		return member{}, fmt.Errorf("its tool %s declares capability %q, not %q", toolID, m.Capability, c.Tag)
	}
	if err := a.health.check(ctx, k); err != nil {
		return member{}, fmt.Errorf("unhealthy: %s", reason(err))
	}
	if ad.ID() != k.ID() {
		if err := a.health.check(ctx, ad); err != nil {
			return member{}, fmt.Errorf("%s, which it runs %s on, is unhealthy: %s", ad.ID(), toolID, reason(err))
		}
	}
	return member{kernel: kernel, toolID: toolID, adapter: ad}, nil
}

// resolve picks the member a call runs on: the kernel asked for, or
// without one the first in Kernels that can serve c.
func (a *Adapter) resolve(ctx context.Context, c Capability, kernel string) (member, error) {
	if kernel != "" {
		if _, ok := c.Members[kernel]; !ok {
			return member{}, protocol.Invalid("kernel %q is not one of %s; healthy now: %s", kernel,
				strings.Join(Kernels, ", "), a.healthyList(ctx, c))
		}
		m, err := a.serve(ctx, c, kernel)
		if err != nil {
			if ctx.Err() != nil {
				return member{}, ctx.Err()
			}
			return member{}, protocol.Unavailable("kernel %s cannot serve %s (%s): %v; healthy now: %s; "+
				"call without kernel to use a healthy one", kernel, c.Tool, c.Tag, err, a.healthyList(ctx, c))
		}
		return m, nil
	}
	var why []string
	for _, k := range Kernels {
		m, err := a.serve(ctx, c, k)
		if err == nil {
			return m, nil
		}
		if ctx.Err() != nil {
			return member{}, ctx.Err()
		}
		why = append(why, k+": "+err.Error())
	}
	return member{}, protocol.Unavailable("no CAD kernel can serve %s (%s): %s", c.Tool, c.Tag, strings.Join(why, "; "))
}

// healthyList names the kernels that can serve c now, or says none can.
func (a *Adapter) healthyList(ctx context.Context, c Capability) string {
	var ok []string
	for _, k := range Kernels {
		if _, err := a.serve(ctx, c, k); err == nil {
			ok = append(ok, k)
		}
	}
	if len(ok) == 0 {
		return "none"
	}
	return strings.Join(ok, ", ")
}

// reason is an error's message without the taxonomy's prefix.
func reason(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Details != "" {
		return pe.Details
	}
	return err.Error()
}
