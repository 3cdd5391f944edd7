package twin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// EdgeSupportedBy points from a claim (or a decision) to the evidence it
// cites. A write can only link its new node to existing ones, so the claim
// carries the edge; SUPPORTS is kept for claim -> requirement.
const EdgeSupportedBy = "SUPPORTED_BY"

// Claim statuses. A claim's status is never stored: it is computed from
// its evidence and its requirement whenever it is read.
const (
	ClaimSupported    = "supported"
	ClaimStale        = "stale"
	ClaimContradicted = "contradicted"
	ClaimNoData       = "no_data"
)

// ClaimWrite is a claim that a requirement holds, citing evidence.
type ClaimWrite struct {
	ProjectID string
	// Claim is what is claimed; Name a short name (default: the start of
	// the claim).
	Claim, Name string
	// RequirementRef is the constraint set (KEY@n, KEY or a node id);
	// RequirementName the one requirement in it, or "" for the whole set.
	RequirementRef, RequirementName string
	// EvidenceRefs are the node ids of the evidence it cites.
	EvidenceRefs   []string
	IdempotencyKey string
}

// Check refuses a claim that claims nothing, before anything is read.
func (w ClaimWrite) Check() error {
	if strings.TrimSpace(w.Claim) == "" {
		return Refusef("Missing: claim. Say what holds")
	}
	return nil
}

// Claim is a recorded claim and its status now.
type Claim struct {
	Node Node
	// RequirementRef is the constraint set's KEY@n; RequirementName the
	// requirement's name as the set writes it, or "".
	RequirementRef, RequirementName string
	// EvidenceRefs are the cited evidence's node ids, once each.
	EvidenceRefs []string
	Status       ClaimStatus
}

// RecordClaim records a claim SUPPORTS the constraint set revision it names
// and SUPPORTED_BY the evidence it cites, and computes its status.
func RecordClaim(ctx context.Context, s Store, w ClaimWrite) (Claim, error) {
	if err := w.Check(); err != nil {
		return Claim{}, err
	}
	w.Claim = strings.TrimSpace(w.Claim)
	req, err := ResolveRef(ctx, s, w.ProjectID, w.RequirementRef)
	if err != nil {
		return Claim{}, fmt.Errorf("requirement_ref %s: %w", w.RequirementRef, err)
	}
	if req.Type != "constraint_set" {
		return Claim{}, Refusef("requirement_ref %s is a %s, not a constraint set; claim against the requirements (twin.record_constraint_set)", w.RequirementRef, req.Type)
	}
	reqName := strings.TrimSpace(w.RequirementName)
	if reqName != "" {
		cs, err := ReadConstraints(req)
		if err != nil {
			return Claim{}, err
		}
		c, ok := FindConstraint(cs, reqName)
		if !ok {
			return Claim{}, Refusef("requirement_name %q: %s has no requirement of that name; it has %s", reqName, req.Ref(), constraintNames(cs))
		}
		reqName = c.Name
	}
	linkProps := map[string]any{"ref": req.Ref()}
	if reqName != "" {
		linkProps["requirement"] = reqName
	}
	links := []Link{{Type: EdgeSupports, To: req.ID, Properties: linkProps}}
	evidence := []string{}
	seen := map[string]bool{}
	for _, id := range w.EvidenceRefs {
		n, err := ResolveRef(ctx, s, w.ProjectID, id)
		if err != nil {
			return Claim{}, fmt.Errorf("evidence_refs %s: %w", id, err)
		}
		if n.Type != "evidence" {
			return Claim{}, Refusef("evidence_refs %s is a %s, not evidence; record results with twin.record_evidence and cite their node ids", id, n.Type)
		}
		if !seen[n.ID] {
			seen[n.ID] = true
			evidence = append(evidence, n.ID)
			links = append(links, Link{Type: EdgeSupportedBy, To: n.ID})
		}
	}
	name := strings.TrimSpace(w.Name)
	if name == "" {
		name = w.Claim
		if r := []rune(name); len(r) > 120 {
			name = strings.TrimSpace(string(r[:120])) + "…"
		}
	}
	props := map[string]any{"claim": w.Claim, "requirement_ref": req.Ref(), "evidence_refs": evidence}
	if reqName != "" {
		props["requirement_name"] = reqName
	}
	n, err := s.RecordNode(ctx, RecordWrite{ProjectID: w.ProjectID, Type: "claim", Name: name, Properties: props, Links: links,
		IdempotencyKey: w.IdempotencyKey})
	if err != nil {
		return Claim{}, err
	}
	st, err := StatusOfClaim(ctx, s, n.ID)
	if err != nil {
		return Claim{}, err
	}
	return Claim{Node: n, RequirementRef: req.Ref(), RequirementName: reqName, EvidenceRefs: evidence, Status: st}, nil
}

// ClaimStatus is what a claim's evidence says now.
type ClaimStatus struct {
	// Status is supported, stale, contradicted or no_data; Reasons say
	// why, in order.
	Status  string
	Reasons []string
	// Evidence is each cited piece of evidence, with its checks against
	// the requirement.
	Evidence []ClaimEvidence
	// Requirement is what the claim is about; nil when it names none.
	Requirement *ClaimRequirement
}

// ClaimEvidence is one piece of evidence a claim cites.
type ClaimEvidence struct {
	Node      Node
	Freshness Freshness
	// Checks are its value against the requirement: empty when the
	// claim names no requirement or the evidence no comparable value.
	Checks []EvidenceCheck
}

// ClaimRequirement is the requirement a claim is about, as pinned.
type ClaimRequirement struct {
	// Ref and NodeID are the constraint set revision's; HeadRef its
	// item's head now ("" for a record).
	Ref, NodeID, HeadRef string
	// Name is the one requirement the claim names ("" for the whole set),
	// with its Metric, Operator, Limit and Unit.
	Name, Metric, Operator, Unit string
	Limit                        *float64
}

// StatusOfClaim computes a claim's status now, from its evidence and the
// requirement it names; nothing of it is stored. contradicted (current
// evidence breaks the limit) outranks stale (evidence on an older design,
// or the requirement changed since), which outranks supported. A claim
// with no evidence is no_data: no data is not a pass.
func StatusOfClaim(ctx context.Context, s Store, claimNodeID string) (ClaimStatus, error) {
	claim, err := s.GetNode(ctx, claimNodeID)
	if err != nil {
		return ClaimStatus{}, err
	}
	if claim.Type != "claim" {
		return ClaimStatus{}, Refusef("node %s is a %s, not a claim", claimNodeID, claim.Type)
	}
	st := ClaimStatus{Status: ClaimSupported, Reasons: []string{}, Evidence: []ClaimEvidence{}}
	raise := func(to string) {
		rank := map[string]int{ClaimSupported: 0, ClaimStale: 1, ClaimContradicted: 2}
		if rank[to] > rank[st.Status] {
			st.Status = to
		}
	}

	// The requirement the claim was made about, and whether it still reads so.
	var scope []Constraint
	reqs, err := s.Neighbors(ctx, claim.ID, Outgoing, EdgeSupports)
	if err != nil {
		return ClaimStatus{}, err
	}
	if len(reqs) > 0 {
		r := reqs[0]
		req := &ClaimRequirement{Ref: r.Node.Ref(), NodeID: r.Node.ID}
		st.Requirement = req
		req.Name, _ = r.Edge.Properties["requirement"].(string)
		pinned, err := ReadConstraints(r.Node)
		if err != nil {
			return ClaimStatus{}, err
		}
		scope = pinned
		if req.Name != "" {
			c, _ := FindConstraint(pinned, req.Name)
			scope = []Constraint{c}
			req.Metric, req.Operator, req.Unit, req.Limit = c.Metric, c.Operator, c.Unit, c.Limit
		}
		if r.Node.ItemKey != "" {
			it, err := s.ItemOfNode(ctx, r.Node.ID)
			if err != nil {
				return ClaimStatus{}, err
			}
			req.HeadRef = it.HeadRef()
			if it.HeadNodeID != r.Node.ID {
				head, err := s.GetNode(ctx, it.HeadNodeID)
				if err != nil {
					return ClaimStatus{}, err
				}
				now, err := ReadConstraints(head)
				if err != nil {
					return ClaimStatus{}, err
				}
				if changed := requirementChanged(pinned, now, req.Name); changed != "" {
					raise(ClaimStale)
					st.Reasons = append(st.Reasons, fmt.Sprintf("the claim is about %s, but the requirements are now %s: %s; re-check the claim against %s",
						r.Node.Ref(), it.HeadRef(), changed, it.HeadRef()))
				}
			}
		}
	}

	evs, err := s.Neighbors(ctx, claim.ID, Outgoing, EdgeSupportedBy)
	if err != nil {
		return ClaimStatus{}, err
	}
	for _, nb := range evs {
		ev := nb.Node
		f, err := Staleness(ctx, s, ev.ID)
		if err != nil {
			return ClaimStatus{}, err
		}
		entry := ClaimEvidence{Node: ev, Freshness: f, Checks: []EvidenceCheck{}}
		if f.Stale {
			raise(ClaimStale)
			var pins []string
			for _, p := range f.Against {
				pins = append(pins, fmt.Sprintf("%v (now %v)", p.Pinned, p.Head))
			}
			st.Reasons = append(st.Reasons, fmt.Sprintf("evidence %q was computed against %s: re-run it on the current revision and record it",
				ev.Name, strings.Join(pins, ", ")))
		}
		if st.Requirement != nil {
			for _, ck := range CheckEvidence(ev, scope) {
				entry.Checks = append(entry.Checks, ck)
				switch ck.Verdict {
				case VerdictNotCompared:
					st.Reasons = append(st.Reasons, fmt.Sprintf("evidence %q is in %q, requirement %q in %q: those units cannot be compared",
						ev.Name, ck.Unit, ck.Constraint.Name, ck.Constraint.Unit))
				case VerdictViolates:
					if f.Stale {
						st.Reasons = append(st.Reasons, fmt.Sprintf("stale evidence %q (%s) broke requirement %q (%s), but it describes an older design",
							ev.Name, ck.Measured(), ck.Constraint.Name, ck.Limit()))
					} else {
						raise(ClaimContradicted)
						st.Reasons = append(st.Reasons, fmt.Sprintf("evidence %q gives %s, which breaks requirement %q (%s)",
							ev.Name, ck.Measured(), ck.Constraint.Name, ck.Limit()))
					}
				}
			}
		}
		st.Evidence = append(st.Evidence, entry)
	}
	if len(st.Evidence) == 0 {
		st.Status = ClaimNoData
		st.Reasons = append([]string{"no evidence is linked: no data is not a pass. Record the result with twin.record_evidence and " +
			"cite it in a new claim's evidence_refs"}, st.Reasons...)
	} else if st.Status == ClaimSupported {
		st.Reasons = append(st.Reasons, fmt.Sprintf("%d evidence, all current; none breaks the requirement", len(st.Evidence)))
	}
	return st, nil
}

// requirementChanged says how the requirement a claim names (or the whole
// set, when it names none) differs between two revisions; "" when it does
// not.
func requirementChanged(pinned, head []Constraint, name string) string {
	if name == "" {
		a, _ := json.Marshal(pinned)
		c, _ := json.Marshal(head)
		if string(a) != string(c) {
			return "the set's requirements changed"
		}
		return ""
	}
	was, _ := FindConstraint(pinned, name)
	now, ok := FindConstraint(head, name)
	if !ok {
		return fmt.Sprintf("requirement %q is no longer stated", name)
	}
	a, _ := json.Marshal(was)
	c, _ := json.Marshal(now)
	if string(a) != string(c) {
		return fmt.Sprintf("requirement %q changed", name)
	}
	return ""
}
