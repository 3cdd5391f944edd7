package adapters

import (
	"fmt"
	"slices"
	"strings"
)

// UnservedTool is a tool the spec defines that this build does not serve,
// and why: health lists them, and a call to one is told the reason, so an
// agent looking for one learns it is missing on purpose and what it would
// take, instead of finding nothing.
type UnservedTool struct {
	ToolID string `json:"tool_id"`
	Reason string `json:"reason"`
}

// Unserve records tools this build does not serve, with the reason. A
// tool that is registered cannot also be unserved, nor one without a
// reason.
func (r *Registry) Unserve(tools ...UnservedTool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, u := range tools {
		if _, served := r.tools[u.ToolID]; served {
			return fmt.Errorf("tool %s is registered, so it cannot be listed as unserved", u.ToolID)
		}
		if strings.TrimSpace(u.Reason) == "" {
			return fmt.Errorf("unserved tool %s has no reason; say why it is not served", u.ToolID)
		}
		if r.unserved == nil {
			r.unserved = map[string]string{}
		}
		r.unserved[u.ToolID] = u.Reason
	}
	return nil
}

// Unserved lists the tools recorded as not served, by tool id.
func (r *Registry) Unserved() []UnservedTool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]UnservedTool, 0, len(r.unserved))
	for id, why := range r.unserved {
		out = append(out, UnservedTool{ToolID: id, Reason: why})
	}
	slices.SortFunc(out, func(a, b UnservedTool) int { return strings.Compare(a.ToolID, b.ToolID) })
	return out
}

// UnservedReason is why toolID is not served, when it is one the spec
// defines and this build does not serve.
func (r *Registry) UnservedReason(toolID string) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	why, ok := r.unserved[toolID]
	return why, ok
}
