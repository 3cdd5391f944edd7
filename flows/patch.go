package flows

import (
	"errors"
	"fmt"
	"strings"
)

// Patch is one change to one phase of a flow version, as a client proposes
// it: everything it sets is optional, but it must change something, and
// the patched flow must still keep every invariant.
type Patch struct {
	Phase             string   `json:"phase"`
	Brief             *string  `json:"brief,omitempty"`
	AddDeliverables   []string `json:"add_deliverables,omitempty"`
	AddCriteria       []string `json:"add_criteria,omitempty"`
	RemoveCriteria    []string `json:"remove_criteria,omitempty"`
	GateWindowSeconds *int     `json:"gate_window_seconds,omitempty"`
	Reason            string   `json:"reason,omitempty"`
}

// Apply returns a copy of f with p applied (f itself is never changed) and
// the index of the phase it changed. It is an error when the phase does not
// exist, a deliverable or criterion to add is already there, a criterion to
// remove is not, nothing would change, or the result breaks an invariant.
func Apply(f Flow, p Patch) (Flow, int, error) {
	i := phaseIndex(f, p.Phase)
	if i < 0 {
		return Flow{}, -1, fmt.Errorf("flow %s has no phase %q; its phases are %s", f.ID, p.Phase, strings.Join(phaseNames(f), ", "))
	}
	out := Clone(f)
	ph := &out.Phases[i]
	var errs []error
	// changed is tracked as the patch applies, not by comparing the flows:
	// the DesignFlow workflow calls Apply, and a deep comparison by
	// reflection is not something its determinism check can vouch for.
	changed := false
	if p.Brief != nil && *p.Brief != ph.Brief {
		ph.Brief, changed = *p.Brief, true
	}
	for _, d := range p.AddDeliverables {
		if contains(ph.Deliverables, d) {
			errs = append(errs, fmt.Errorf("phase %s already has deliverable %s", ph.Name, d))
			continue
		}
		ph.Deliverables, changed = append(ph.Deliverables, d), true
	}
	for _, k := range p.RemoveCriteria {
		if contains(p.AddCriteria, k) {
			errs = append(errs, fmt.Errorf("criterion %s is both added and removed", k))
			continue
		}
		j := criterionIndex(ph.Gate, k)
		if j < 0 {
			errs = append(errs, fmt.Errorf("gate %s has no criterion %s; its criteria are %s", ph.Gate.Name, k, gateKinds(ph.Gate)))
			continue
		}
		ph.Gate.Criteria, changed = append(ph.Gate.Criteria[:j:j], ph.Gate.Criteria[j+1:]...), true
	}
	for _, k := range p.AddCriteria {
		if contains(p.RemoveCriteria, k) {
			continue // reported above
		}
		if criterionIndex(ph.Gate, k) >= 0 {
			errs = append(errs, fmt.Errorf("gate %s already checks %s", ph.Gate.Name, k))
			continue
		}
		ph.Gate.Criteria, changed = append(ph.Gate.Criteria, criterion(k)), true
	}
	if p.GateWindowSeconds != nil && *p.GateWindowSeconds != ph.Gate.WindowSeconds {
		ph.Gate.WindowSeconds, changed = *p.GateWindowSeconds, true
	}
	if len(errs) > 0 {
		return Flow{}, i, fmt.Errorf("patch to phase %s: %w", ph.Name, errors.Join(errs...))
	}
	if !changed {
		return Flow{}, i, fmt.Errorf("patch to phase %s changes nothing: set brief, add_deliverables, add_criteria, "+
			"remove_criteria or gate_window_seconds to something the phase does not already have", ph.Name)
	}
	if err := Check(out); err != nil {
		return Flow{}, i, fmt.Errorf("patch to phase %s would break the flow: %w", ph.Name, err)
	}
	return out, i, nil
}

// phaseIndex is the position of the phase called name, or -1.
func phaseIndex(f Flow, name string) int {
	for i, p := range f.Phases {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// criterionIndex is the position of kind in g's criteria, or -1.
func criterionIndex(g Gate, kind string) int {
	for i, c := range g.Criteria {
		if c.Kind == kind {
			return i
		}
	}
	return -1
}

// gateKinds lists a gate's criterion kinds for a message.
func gateKinds(g Gate) string {
	if len(g.Criteria) == 0 {
		return "(none)"
	}
	kinds := make([]string, len(g.Criteria))
	for i, c := range g.Criteria {
		kinds[i] = c.Kind
	}
	return strings.Join(kinds, ", ")
}
