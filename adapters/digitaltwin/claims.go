package digitaltwin

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// edgeSupportedBy points from a claim to the evidence it cites. A write
// can only link its new node to existing ones, so the claim carries the
// edge; SUPPORTS is kept for claim -> requirement.
const edgeSupportedBy = "SUPPORTED_BY"

func recordClaimTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.record_claim", Name: "Record a requirement claim", Capability: "twin_write",
		Description: "Claim that a requirement holds, citing the evidence that shows it. requirement_ref is the constraint set (CS-...@n, or " +
			"CS-... for the current revision) and requirement_name the one requirement in it; evidence_refs are evidence node ids " +
			"(twin.record_evidence). The claim's status is never stored: it is computed now and on every read from the evidence: " +
			"supported, stale (evidence computed on an older design, or the requirement changed), contradicted (current evidence breaks " +
			"the limit) or no_data (no evidence: no data is not a pass). The result gives status and the reasons.",
		InputSchema: schema([]string{"claim", "requirement_ref"}, projectIDProp+`,
"claim":{"type":"string","minLength":1,"maxLength":4000,"description":"what is claimed, e.g. 'tip deflection stays under 0.5 mm at 20 N'"},
"name":{"type":"string","maxLength":200,"description":"a short name; defaults to the start of the claim"},
"requirement_ref":{"type":"string","minLength":1,"description":"the constraint set: KEY@n, KEY (current revision) or its node id"},
"requirement_name":{"type":"string","description":"the requirement in that set the claim is about (its name); without it the claim covers the whole set"},
"evidence_refs":{"type":"array","maxItems":50,"items":{"type":"string","minLength":1},"description":"node ids of the evidence supporting the claim; none gives status no_data"}`),
		Idempotent: true, TimeoutSeconds: 30}, recordClaim}
}

func recordClaim(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID       string   `json:"project_id"`
		Claim           string   `json:"claim"`
		Name            string   `json:"name"`
		RequirementRef  string   `json:"requirement_ref"`
		RequirementName string   `json:"requirement_name"`
		EvidenceRefs    []string `json:"evidence_refs"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	a.Claim = strings.TrimSpace(a.Claim)
	if a.Claim == "" {
		return nil, protocol.Refusal("Missing: claim. Say what holds")
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	req, err := resolveRef(ctx, b, p.ID, a.RequirementRef)
	if err != nil {
		return nil, fmt.Errorf("requirement_ref %s: %w", a.RequirementRef, err)
	}
	if req.Type != "constraint_set" {
		return nil, protocol.Refusal("requirement_ref %s is a %s, not a constraint set; claim against the requirements (twin.record_constraint_set)", a.RequirementRef, req.Type)
	}
	reqName := strings.TrimSpace(a.RequirementName)
	if reqName != "" {
		cs, err := readConstraints(req)
		if err != nil {
			return nil, err
		}
		c, ok := findConstraint(cs, reqName)
		if !ok {
			return nil, protocol.Refusal("requirement_name %q: %s has no requirement of that name; it has %s", reqName, req.Ref(), constraintNames(cs))
		}
		reqName = c.Name
	}
	linkProps := map[string]any{"ref": req.Ref()}
	if reqName != "" {
		linkProps["requirement"] = reqName
	}
	links := []twin.Link{{Type: twin.EdgeSupports, To: req.ID, Properties: linkProps}}
	evidence := []string{}
	seen := map[string]bool{}
	for _, id := range a.EvidenceRefs {
		n, err := resolveRef(ctx, b, p.ID, id)
		if err != nil {
			return nil, fmt.Errorf("evidence_refs %s: %w", id, err)
		}
		if n.Type != "evidence" {
			return nil, protocol.Refusal("evidence_refs %s is a %s, not evidence; record results with twin.record_evidence and cite their node ids", id, n.Type)
		}
		if !seen[n.ID] {
			seen[n.ID] = true
			evidence = append(evidence, n.ID)
			links = append(links, twin.Link{Type: edgeSupportedBy, To: n.ID})
		}
	}
	name := strings.TrimSpace(a.Name)
	if name == "" {
		name = a.Claim
		if r := []rune(name); len(r) > 120 {
			name = strings.TrimSpace(string(r[:120])) + "…"
		}
	}
	props := map[string]any{"claim": a.Claim, "requirement_ref": req.Ref(), "evidence_refs": evidence}
	if reqName != "" {
		props["requirement_name"] = reqName
	}
	n, err := b.Store.RecordNode(ctx, twin.RecordWrite{ProjectID: p.ID, Type: "claim", Name: name, Properties: props, Links: links,
		IdempotencyKey: callID(ctx)})
	if err != nil {
		return nil, err
	}
	st, err := claimStatus(ctx, b, n.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"node_id": n.ID, "project_id": p.ID, "name": n.Name, "requirement_ref": req.Ref(), "evidence_refs": evidence}
	if reqName != "" {
		out["requirement_name"] = reqName
	}
	for k, v := range st {
		out[k] = v
	}
	return out, nil
}

func findConstraint(cs []constraint, name string) (constraint, bool) {
	for _, c := range cs {
		if strings.EqualFold(strings.TrimSpace(c.Name), strings.TrimSpace(name)) {
			return c, true
		}
	}
	return constraint{}, false
}

func constraintNames(cs []constraint) string {
	var names []string
	for _, c := range cs {
		names = append(names, strconv.Quote(c.Name))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Claim statuses.
const (
	claimSupported    = "supported"
	claimStale        = "stale"
	claimContradicted = "contradicted"
	claimNoData       = "no_data"
)

// claimStatus computes a claim's status now, from its evidence and the
// requirement it names; nothing of it is stored. contradicted (current
// evidence breaks the limit) outranks stale (evidence on an older design,
// or the requirement changed since), which outranks supported. A claim with
// no evidence is no_data: no data is not a pass.
func claimStatus(ctx context.Context, b *Backend, claimNodeID string) (map[string]any, error) {
	claim, err := b.Store.GetNode(ctx, claimNodeID)
	if err != nil {
		return nil, err
	}
	if claim.Type != "claim" {
		return nil, protocol.Refusal("node %s is a %s, not a claim", claimNodeID, claim.Type)
	}
	reasons := []string{}
	status := claimSupported
	raise := func(s string) {
		rank := map[string]int{claimSupported: 0, claimStale: 1, claimContradicted: 2}
		if rank[s] > rank[status] {
			status = s
		}
	}

	// The requirement the claim was made about, and whether it still reads so.
	var reqNode *twin.Node
	var reqName string
	var scope []constraint
	reqs, err := b.Store.Neighbors(ctx, claim.ID, twin.Outgoing, twin.EdgeSupports)
	if err != nil {
		return nil, err
	}
	requirement := map[string]any{}
	if len(reqs) > 0 {
		r := reqs[0]
		reqNode = &r.Node
		reqName, _ = r.Edge.Properties["requirement"].(string)
		requirement["ref"], requirement["node_id"] = r.Node.Ref(), r.Node.ID
		pinned, err := readConstraints(r.Node)
		if err != nil {
			return nil, err
		}
		scope = pinned
		if reqName != "" {
			requirement["name"] = reqName
			c, _ := findConstraint(pinned, reqName)
			scope = []constraint{c}
			requirement["metric"], requirement["operator"], requirement["unit"] = c.Metric, c.Operator, c.Unit
			if c.Limit != nil {
				requirement["limit"] = *c.Limit
			}
		}
		if r.Node.ItemKey != "" {
			it, err := b.Store.ItemOfNode(ctx, r.Node.ID)
			if err != nil {
				return nil, err
			}
			requirement["head_ref"] = it.HeadRef()
			if it.HeadNodeID != r.Node.ID {
				head, err := b.Store.GetNode(ctx, it.HeadNodeID)
				if err != nil {
					return nil, err
				}
				now, err := readConstraints(head)
				if err != nil {
					return nil, err
				}
				if changed := requirementChanged(pinned, now, reqName); changed != "" {
					raise(claimStale)
					reasons = append(reasons, fmt.Sprintf("the claim is about %s, but the requirements are now %s: %s; re-check the claim against %s",
						r.Node.Ref(), it.HeadRef(), changed, it.HeadRef()))
				}
			}
		}
	}

	evs, err := b.Store.Neighbors(ctx, claim.ID, twin.Outgoing, edgeSupportedBy)
	if err != nil {
		return nil, err
	}
	evidence := []map[string]any{}
	for _, nb := range evs {
		ev := nb.Node
		f, err := staleness(ctx, b, ev.ID)
		if err != nil {
			return nil, err
		}
		entry := evidenceEntry(ev, f)
		if f.Stale {
			raise(claimStale)
			var pins []string
			for _, s := range f.Against {
				pins = append(pins, fmt.Sprintf("%v (now %v)", s["pinned"], s["head"]))
			}
			reasons = append(reasons, fmt.Sprintf("evidence %q was computed against %s: re-run it on the current revision and record it",
				ev.Name, strings.Join(pins, ", ")))
		}
		verdicts := []map[string]any{}
		if reqNode != nil {
			for _, ck := range checkEvidence(ev, scope) {
				verdicts = append(verdicts, ck.entry())
				switch ck.verdict {
				case verdictNotCompared:
					reasons = append(reasons, fmt.Sprintf("evidence %q is in %q, requirement %q in %q: those units cannot be compared",
						ev.Name, ck.unit, ck.c.Name, ck.c.Unit))
				case verdictViolates:
					if f.Stale {
						reasons = append(reasons, fmt.Sprintf("stale evidence %q (%s) broke requirement %q (%s), but it describes an older design",
							ev.Name, ck.measured(), ck.c.Name, ck.limit()))
					} else {
						raise(claimContradicted)
						reasons = append(reasons, fmt.Sprintf("evidence %q gives %s, which breaks requirement %q (%s)",
							ev.Name, ck.measured(), ck.c.Name, ck.limit()))
					}
				}
			}
		}
		entry["checks"] = verdicts
		evidence = append(evidence, entry)
	}
	if len(evidence) == 0 {
		status = claimNoData
		reasons = append([]string{"no evidence is linked: no data is not a pass. Record the result with twin.record_evidence and " +
			"cite it in a new claim's evidence_refs"}, reasons...)
	} else if status == claimSupported {
		reasons = append(reasons, fmt.Sprintf("%d evidence, all current; none breaks the requirement", len(evidence)))
	}
	return map[string]any{"status": status, "reasons": reasons, "evidence": evidence, "requirement": requirement}, nil
}

// requirementChanged says how the requirement a claim names (or the whole
// set, when it names none) differs between two revisions; "" when it does
// not.
func requirementChanged(pinned, head []constraint, name string) string {
	if name == "" {
		a, _ := json.Marshal(pinned)
		c, _ := json.Marshal(head)
		if string(a) != string(c) {
			return "the set's requirements changed"
		}
		return ""
	}
	was, _ := findConstraint(pinned, name)
	now, ok := findConstraint(head, name)
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
