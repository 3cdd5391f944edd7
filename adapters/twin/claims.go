package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

func recordClaimTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.record_claim", Name: "Record a requirement claim", Capability: "twin_write",
		Description: "Claim that a requirement holds, citing the evidence that shows it. requirement_ref is the constraint set (CS-...@n, or " +
			"CS-... for the current revision) and requirement_name the one requirement in it; evidence_refs are evidence node ids " +
			"(twin.record_evidence). The claim's status is never stored: it is computed now and on every read from the evidence: " +
			"supported, stale (evidence computed on an older design, or the requirement changed), contradicted (current evidence breaks " +
			"the limit) or no_data (no evidence: no data is not a pass). The result gives status and the reasons.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, recordClaim,
		adapters.At("claim", adapters.MinLength(1), adapters.MaxLength(4000)),
		adapters.At("name", adapters.MaxLength(200)),
		adapters.At("requirement_ref", adapters.MinLength(1)),
		adapters.At("evidence_refs", adapters.MaxItems(50)), adapters.At("evidence_refs[]", adapters.MinLength(1)))
}

type recordClaimArgs struct {
	project.Scope
	Claim           string   `json:"claim" jsonschema:"what is claimed, e.g. 'tip deflection stays under 0.5 mm at 20 N'"`
	Name            string   `json:"name,omitempty" jsonschema:"a short name; defaults to the start of the claim"`
	RequirementRef  string   `json:"requirement_ref" jsonschema:"the constraint set: KEY@n, KEY (current revision) or its node id"`
	RequirementName string   `json:"requirement_name,omitempty" jsonschema:"the requirement in that set the claim is about (its name); without it the claim covers the whole set"`
	EvidenceRefs    []string `json:"evidence_refs,omitempty" jsonschema:"node ids of the evidence supporting the claim; none gives status no_data"`
}

func recordClaim(ctx context.Context, b *Backend, a recordClaimArgs) (any, error) {
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
