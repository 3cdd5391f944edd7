package twin

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

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
	w := twin.ClaimWrite{Claim: a.Claim, Name: a.Name, RequirementRef: a.RequirementRef, RequirementName: a.RequirementName,
		EvidenceRefs: a.EvidenceRefs, IdempotencyKey: callID(ctx)}
	if err := w.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	w.ProjectID = p.ID
	c, err := twin.RecordClaim(ctx, b.Store, w)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"node_id": c.Node.ID, "project_id": p.ID, "name": c.Node.Name, "requirement_ref": c.RequirementRef,
		"evidence_refs": c.EvidenceRefs}
	if c.RequirementName != "" {
		out["requirement_name"] = c.RequirementName
	}
	for k, v := range claimStatusAnswer(c.Status) {
		out[k] = v
	}
	return out, nil
}
