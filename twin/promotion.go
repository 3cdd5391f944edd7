package twin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Promotion to a maturity level: each required claim is held against the
// live requirement matrix. pass satisfies it; stale blocks; a claim whose
// own evidence is stale or contradicted while the matrix passes is
// uncertain and blocks; fail or no_data blocks unless an approved waiver
// names the requirement. Even then a person decides, and a reviewer's
// reject refuses a promotion every claim supports. Every attempt, promoted
// or not, is kept as an immutable maturity_gate record, so "why was this
// not promoted" always has an answer.

// MaturityGateNodeType is the record a promotion attempt leaves;
// EdgeReliesOn links it to the claims and evidence it relied on.
const (
	MaturityGateNodeType = "maturity_gate"
	EdgeReliesOn         = "RELIES_ON"
)

// Outcomes of one required claim.
const (
	ClaimSatisfied = "satisfied"
	ClaimWaived    = "waived"
	ClaimBlocked   = "blocked"
	// StatusUncertain: the matrix passes but the claim's own evidence is
	// stale or contradicts it.
	StatusUncertain = "uncertain"
)

// PromotionWrite is one attempt to promote a project to a maturity level.
type PromotionWrite struct {
	ProjectID     string
	ClaimIDs      []string
	MaturityLevel string
	Comment       string
	// Reject is the reviewer's veto.
	Reject bool
	// DecidedBy is the verified person who decided (the approver of the
	// held call), never a name the caller typed.
	DecidedBy       string
	DeciderVerified bool
	IdempotencyKey  string
}

// Check refuses an attempt with nothing to check, no level, or no
// verified decider, before anything is read.
func (w PromotionWrite) Check() error {
	var missing []string
	if len(w.ClaimIDs) == 0 {
		missing = append(missing, "required_claim_ids (the claims the level rests on)")
	}
	if strings.TrimSpace(w.MaturityLevel) == "" {
		missing = append(missing, "maturity_level")
	}
	if len(missing) > 0 {
		return Refusef("Missing: %s", strings.Join(missing, ", "))
	}
	if strings.TrimSpace(w.DecidedBy) == "" || !w.DeciderVerified {
		return Refusef("a promotion is decided by a verified person: the approval did not identify who granted it; decide it on the " +
			"dashboard or with an operator token, where the approver is authenticated")
	}
	return nil
}

// ClaimCheck is one required claim held against the matrix.
type ClaimCheck struct {
	ClaimID string `json:"claim_id"`
	Claim   string `json:"claim"`
	// RequirementRef is the constraint set the claim is about; the rows
	// are its requirement(s) in the current set.
	RequirementRef string `json:"requirement_ref"`
	Requirement    string `json:"requirement,omitempty"`
	// Status is the matrix's (pass, fail, stale, no_data) or uncertain.
	Status   string   `json:"status"`
	Outcome  string   `json:"outcome"`
	WaivedBy []string `json:"waived_by,omitempty"`
	Reasons  []string `json:"reasons"`
	Evidence []string `json:"evidence"`
}

// Promotion is a recorded attempt.
type Promotion struct {
	Node            Node         `json:"node"`
	Promoted        bool         `json:"promoted"`
	MaturityLevel   string       `json:"maturity_level"`
	DecidedBy       string       `json:"decided_by"`
	DeciderVerified bool         `json:"decider_verified"`
	Comment         string       `json:"comment,omitempty"`
	Reject          bool         `json:"reject"`
	Claims          []ClaimCheck `json:"claims"`
	BlockedReasons  []string     `json:"blocked_reasons"`
	// Evidence is every evidence node id the satisfied claims rest on.
	Evidence []string `json:"evidence"`
}

// AttemptPromotion checks each required claim and records the attempt as a
// maturity_gate record, promoted or not. A claim id that is not a claim of
// the project is refused (nothing is recorded).
func AttemptPromotion(ctx context.Context, s Store, w PromotionWrite) (Promotion, error) {
	if err := w.Check(); err != nil {
		return Promotion{}, err
	}
	rep, err := Requirements(ctx, s, w.ProjectID)
	if err != nil {
		return Promotion{}, err
	}
	waivers, err := ApprovedWaivers(ctx, s, w.ProjectID)
	if err != nil {
		return Promotion{}, err
	}
	p := Promotion{MaturityLevel: strings.TrimSpace(w.MaturityLevel), DecidedBy: w.DecidedBy, DeciderVerified: w.DeciderVerified,
		Comment: strings.TrimSpace(w.Comment), Reject: w.Reject, Claims: []ClaimCheck{}, BlockedReasons: []string{}, Evidence: []string{}}
	var links []Link
	seen := map[string]bool{}
	for _, id := range w.ClaimIDs {
		id = strings.TrimSpace(id)
		if seen[id] {
			continue
		}
		seen[id] = true
		cc, err := checkClaim(ctx, s, w.ProjectID, id, rep, waivers)
		if err != nil {
			return Promotion{}, err
		}
		p.Claims = append(p.Claims, cc)
		links = append(links, Link{Type: EdgeReliesOn, To: id, Properties: map[string]any{"outcome": cc.Outcome}})
		if cc.Outcome == ClaimBlocked {
			for _, r := range cc.Reasons {
				p.BlockedReasons = append(p.BlockedReasons, fmt.Sprintf("claim %s: %s", id, r))
			}
			continue
		}
		for _, ev := range cc.Evidence {
			if !slices.Contains(p.Evidence, ev) {
				p.Evidence = append(p.Evidence, ev)
				links = append(links, Link{Type: EdgeReliesOn, To: ev})
			}
		}
	}
	if w.Reject {
		reason := "the reviewer rejected the promotion"
		if p.Comment != "" {
			reason += ": " + p.Comment
		}
		p.BlockedReasons = append(p.BlockedReasons, reason)
	}
	p.Promoted = len(p.BlockedReasons) == 0
	var claims []any
	for _, c := range p.Claims {
		claims = append(claims, map[string]any{"claim_id": c.ClaimID, "claim": c.Claim, "requirement_ref": c.RequirementRef,
			"requirement": c.Requirement, "status": c.Status, "outcome": c.Outcome, "waived_by": orEmpty(c.WaivedBy),
			"reasons": c.Reasons, "evidence": c.Evidence})
	}
	props := map[string]any{"maturity_level": p.MaturityLevel, "decided_by": p.DecidedBy, "decider_verified": p.DeciderVerified,
		"reject": p.Reject, "promoted": p.Promoted, "required_claim_ids": orEmpty(w.ClaimIDs), "claims": claims,
		"blocked_reasons": p.BlockedReasons, "evidence": p.Evidence}
	if p.Comment != "" {
		props["comment"] = p.Comment
	}
	verdict := "promoted"
	if !p.Promoted {
		verdict = "not promoted"
	}
	n, err := s.RecordNode(ctx, RecordWrite{ProjectID: w.ProjectID, Type: MaturityGateNodeType, Name: fmt.Sprintf("%s: %s", p.MaturityLevel, verdict),
		Properties: props, Links: links, IdempotencyKey: w.IdempotencyKey})
	if err != nil {
		return Promotion{}, err
	}
	// Read back from the record: a repeated call returns the attempt the
	// first one recorded, whatever the twin says now.
	return promotionOf(n), nil
}

// checkClaim holds one claim against the matrix rows of its requirement.
func checkClaim(ctx context.Context, s Store, projectID, id string, rep RequirementsReport, waivers []ApprovedWaiver) (ClaimCheck, error) {
	n, err := s.GetNode(ctx, id)
	if errors.Is(err, ErrNotFound) || err == nil && (n.Type != "claim" || n.ProjectID != projectID) {
		return ClaimCheck{}, Refusef("required_claim_ids %s is not a claim of this project: name claims by the node_id twin.record_claim returned", id)
	}
	if err != nil {
		return ClaimCheck{}, err
	}
	st, err := StatusOfClaim(ctx, s, id)
	if err != nil {
		return ClaimCheck{}, err
	}
	cc := ClaimCheck{ClaimID: id, Claim: n.Name, Reasons: []string{}, Evidence: []string{}}
	if st.Requirement == nil {
		cc.Status, cc.Outcome = StatusNoData, ClaimBlocked
		cc.Reasons = append(cc.Reasons, "the claim names no requirement, so the matrix has nothing to hold it against")
		return cc, nil
	}
	cc.RequirementRef, cc.Requirement = st.Requirement.Ref, st.Requirement.Name
	setKey, _, _ := ParseItemRef(st.Requirement.Ref)
	var rows []RequirementStatus
	for _, row := range rep.Requirements {
		if row.SetKey == setKey && (cc.Requirement == "" || strings.EqualFold(row.Name, cc.Requirement)) {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		cc.Status, cc.Outcome = StatusNoData, ClaimBlocked
		cc.Reasons = append(cc.Reasons, fmt.Sprintf("requirement %q is not in the current revision of %s: claim against the current requirements",
			cc.Requirement, setKey))
		return cc, nil
	}
	cc.Status, cc.Outcome = StatusPass, ClaimSatisfied
	for _, row := range rows {
		switch row.Status {
		case StatusPass:
			cc.Evidence = append(cc.Evidence, row.Evidence...)
		case StatusStale:
			cc.Status, cc.Outcome = StatusStale, ClaimBlocked
			cc.Reasons = append(cc.Reasons, fmt.Sprintf("requirement %q rests only on stale evidence: %s", row.Name, row.Detail))
		default:
			if w := waiverFor(waivers, row.Name); w != nil {
				cc.WaivedBy = append(cc.WaivedBy, w.ID)
				if cc.Outcome == ClaimSatisfied {
					cc.Outcome = ClaimWaived
				}
				if cc.Status == StatusPass {
					cc.Status = row.Status
				}
				continue
			}
			cc.Status, cc.Outcome = row.Status, ClaimBlocked
			what := "fails: " + shownValue(row)
			if row.Status == StatusNoData {
				what = "has no data: " + strings.Join(row.Missing, "; ")
			}
			cc.Reasons = append(cc.Reasons, fmt.Sprintf("requirement %q %s (no approved waiver names it)", row.Name, what))
		}
	}
	if cc.Outcome != ClaimBlocked && (st.Status == ClaimStale || st.Status == ClaimContradicted) {
		cc.Status, cc.Outcome = StatusUncertain, ClaimBlocked
		cc.Reasons = append(cc.Reasons, fmt.Sprintf("the matrix passes but the claim itself is %s: %s", st.Status, strings.Join(st.Reasons, "; ")))
	}
	return cc, nil
}

// Promotions lists a project's promotion attempts, oldest first.
func Promotions(ctx context.Context, s Store, projectID string) ([]Promotion, error) {
	ns, err := s.NodesByType(ctx, projectID, MaturityGateNodeType)
	if err != nil {
		return nil, err
	}
	out := make([]Promotion, 0, len(ns))
	for _, n := range ns {
		out = append(out, promotionOf(n))
	}
	return out, nil
}

// promotionOf reads an attempt back from its record.
func promotionOf(n Node) Promotion {
	p := Promotion{Node: n, Claims: []ClaimCheck{}, BlockedReasons: orEmpty(stringList(n.Properties["blocked_reasons"])),
		Evidence: orEmpty(stringList(n.Properties["evidence"]))}
	p.Promoted, _ = n.Properties["promoted"].(bool)
	p.MaturityLevel, _ = n.Properties["maturity_level"].(string)
	p.DecidedBy, _ = n.Properties["decided_by"].(string)
	p.DeciderVerified, _ = n.Properties["decider_verified"].(bool)
	p.Comment, _ = n.Properties["comment"].(string)
	p.Reject, _ = n.Properties["reject"].(bool)
	raw, _ := n.Properties["claims"].([]any)
	for _, r := range raw {
		m, _ := r.(map[string]any)
		c := ClaimCheck{WaivedBy: stringList(m["waived_by"]), Reasons: orEmpty(stringList(m["reasons"])), Evidence: orEmpty(stringList(m["evidence"]))}
		c.ClaimID, _ = m["claim_id"].(string)
		c.Claim, _ = m["claim"].(string)
		c.RequirementRef, _ = m["requirement_ref"].(string)
		c.Requirement, _ = m["requirement"].(string)
		c.Status, _ = m["status"].(string)
		c.Outcome, _ = m["outcome"].(string)
		p.Claims = append(p.Claims, c)
	}
	return p
}
