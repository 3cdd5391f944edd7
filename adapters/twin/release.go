package twin

import (
	"context"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// releaseTools are baselines, the maturity gates, release packages and
// promotion: thin over twin's rules (baselines.go, gates.go, release.go,
// promotion.go). Who decides is always the approver of the held call, never
// an argument.
func releaseTools() []tool {
	return []tool{createBaselineTool(), listMaturityGatesTool(), createReleasePackageTool(), attemptPromotionTool()}
}

func createBaselineTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.create_baseline", Name: "Create a configuration baseline", Capability: "twin_write",
		Description: "Fix the project's configuration: pin the current revision (KEY@n) of every item (constraint sets, engineering " +
			"definitions, parts, decisions...) and name every engineering entity record, in one baseline record, written only if no " +
			"head moved while it was read (a moved head aborts the whole baseline; read and call again). The G8 release gate needs a " +
			"baseline that nothing has moved since. The call is always held for an identified person, who is recorded as approved_by; " +
			"there is no approver argument. A project with nothing to pin is refused; a project may have many baselines.",
		Idempotent: true, Short: true, TimeoutSeconds: 60}, createBaseline,
		adapters.At("reason", adapters.MinLength(1), adapters.MaxLength(2000)))
}

type createBaselineArgs struct {
	project.Scope
	Reason string `json:"reason" jsonschema:"why the configuration is fixed now (a design review, a release candidate...)"`
}

// approver is the person who approved the held call, or a refusal saying
// the tool records who decided.
func approver(ctx context.Context, what string) (string, bool, error) {
	ci := adapters.CallInfoFrom(ctx)
	by := strings.TrimSpace(ci.ApprovedBy)
	if by == "" {
		return "", false, protocol.Refusal("no one approved this call: %s records who decided, so an identified person must approve it "+
			"through the approvals queue (the call is held for them); it cannot run unapproved", what)
	}
	return by, ci.ApproverVerified, nil
}

func createBaseline(ctx context.Context, b *Backend, a createBaselineArgs) (any, error) {
	by, verified, err := approver(ctx, "a baseline")
	if err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	bl, err := twin.CreateBaseline(ctx, b.Store, twin.BaselineWrite{ProjectID: p.ID, ApprovedBy: by, ApproverVerified: verified,
		Reason: a.Reason, IdempotencyKey: callID(ctx)})
	if err != nil {
		return nil, err
	}
	return baselineResult(bl), nil
}

func baselineResult(bl twin.Baseline) map[string]any {
	return map[string]any{"baseline_id": bl.Node.ID, "name": bl.Node.Name, "project_id": bl.Node.ProjectID, "items": bl.Items,
		"item_count": len(bl.Items), "entities": bl.Entities, "constraint_sets": bl.ConstraintSets, "approved_by": bl.ApprovedBy,
		"approver_verified": bl.ApproverVerified, "reason": bl.Reason, "created_at": bl.Node.CreatedAt}
}

func listMaturityGatesTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.list_maturity_gates", Name: "List the maturity gates", Capability: "twin_read",
		Description: "Evaluate the maturity gates G3 (preliminary feasibility) to G8 (release) against the twin now: each check pass, " +
			"fail or no_data, with what is failing and what to record to pass. No data is not a pass: a gate passes only when every " +
			"check does. Also lists the project's baselines, release packages and promotion attempts (maturity_gate records).",
		Idempotent: true, Short: true, TimeoutSeconds: 60}, listMaturityGates)
}

type listMaturityGatesArgs struct{ project.Scope }

func listMaturityGates(ctx context.Context, b *Backend, a listMaturityGatesArgs) (any, error) {
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	return GatesView(ctx, b.Store, p.ID)
}

// GatesView is the gates now and the project's change-control records: what
// twin.list_maturity_gates and GET /v1/promotion answer.
func GatesView(ctx context.Context, s twin.Store, projectID string) (map[string]any, error) {
	gates, err := twin.MaturityGates(ctx, s, projectID)
	if err != nil {
		return nil, err
	}
	bs, err := twin.Baselines(ctx, s, projectID)
	if err != nil {
		return nil, err
	}
	baselines := make([]map[string]any, 0, len(bs))
	for _, bl := range bs {
		baselines = append(baselines, baselineResult(bl))
	}
	rels, err := twin.ReleasePackages(ctx, s, projectID)
	if err != nil {
		return nil, err
	}
	attempts, err := twin.Promotions(ctx, s, projectID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"project_id": projectID, "gates": gates, "baselines": baselines, "release_packages": rels,
		"promotions": attempts}, nil
}

func createReleasePackageTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.create_release_package", Name: "Create a release package", Capability: "twin_write",
		Description: "Record the project's next release package (version 1, 2, ...): a snapshot of the node ids of its parts " +
			"(hierarchy), components (bom), current evidence and decisions, every item's KEY@n, their counts and the count delta " +
			"against the previous package. Refused unless the G8 release gate passes (a baseline nothing moved since, no stale " +
			"evidence, every requirement passing or waived, every waiver approved, an approved release_approval); the refusal names " +
			"every failing check and what to record. twin.list_maturity_gates shows G8 first.",
		Idempotent: true, Short: true, TimeoutSeconds: 60}, createReleasePackage,
		adapters.At("reason", adapters.MaxLength(2000)))
}

type createReleasePackageArgs struct {
	project.Scope
	Reason string `json:"reason,omitempty" jsonschema:"what this release is for"`
}

func createReleasePackage(ctx context.Context, b *Backend, a createReleasePackageArgs) (any, error) {
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	by := adapters.CallInfoFrom(ctx).ApprovedBy
	if by == "" {
		by = author(ctx)
	}
	rp, err := twin.CreateReleasePackage(ctx, b.Store, twin.ReleaseWrite{ProjectID: p.ID, Reason: a.Reason, CreatedBy: by,
		IdempotencyKey: callID(ctx)})
	if err != nil {
		return nil, err
	}
	return map[string]any{"release_package_id": rp.Node.ID, "project_id": p.ID, "version": rp.Version, "baseline_id": rp.Baseline,
		"hierarchy": rp.Hierarchy, "bom": rp.BOM, "evidence": rp.Evidence, "decisions": rp.Decisions, "items": rp.Items,
		"counts": rp.Counts, "delta": rp.Delta, "drawings": []string{}, "created_by": by}, nil
}

func attemptPromotionTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.attempt_promotion", Name: "Attempt a promotion", Capability: "twin_write",
		Description: "Attempt to promote the project to a maturity level: each required claim (twin.record_claim node ids) is held " +
			"against the live requirement matrix. pass satisfies it; stale blocks; a claim whose own evidence is stale or " +
			"contradicted is uncertain and blocks; fail or no_data blocks unless an approved waiver names the requirement in its " +
			"waives. reject is the reviewer's veto: it refuses even when every claim passes. The call is always held (local " +
			"callers too) and decided by an identified person, who is recorded as decided_by: there is no decider argument, and " +
			"one supplied is an error. Every attempt, promoted or not, is recorded as an immutable maturity_gate node with the " +
			"evidence it relied on and why it was blocked.",
		Idempotent: true, Short: true, TimeoutSeconds: 60}, attemptPromotion,
		adapters.At("required_claim_ids", adapters.MinItems(1), adapters.MaxItems(200)),
		adapters.At("required_claim_ids[]", adapters.MinLength(1)),
		adapters.At("maturity_level", adapters.MinLength(1), adapters.MaxLength(100)),
		adapters.At("comment", adapters.MaxLength(4000)))
}

type attemptPromotionArgs struct {
	project.Scope
	RequiredClaimIDs []string `json:"required_claim_ids" jsonschema:"node ids of the claims the level rests on"`
	MaturityLevel    string   `json:"maturity_level" jsonschema:"the level to promote to (concept, prototype, production...)"`
	Comment          string   `json:"comment,omitempty" jsonschema:"the reviewer's own rationale"`
	Reject           bool     `json:"reject,omitempty" jsonschema:"the reviewer's veto: refuse the promotion even if every claim passes"`
}

func attemptPromotion(ctx context.Context, b *Backend, a attemptPromotionArgs) (any, error) {
	by, verified, err := approver(ctx, "a promotion")
	if err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	pr, err := twin.AttemptPromotion(ctx, b.Store, twin.PromotionWrite{ProjectID: p.ID, ClaimIDs: a.RequiredClaimIDs, MaturityLevel: a.MaturityLevel,
		Comment: a.Comment, Reject: a.Reject, DecidedBy: by, DeciderVerified: verified, IdempotencyKey: callID(ctx)})
	if err != nil {
		return nil, err
	}
	return map[string]any{"maturity_gate_id": pr.Node.ID, "project_id": p.ID, "promoted": pr.Promoted, "maturity_level": pr.MaturityLevel,
		"decided_by": pr.DecidedBy, "decider_verified": pr.DeciderVerified, "comment": pr.Comment, "reject": pr.Reject,
		"claims": pr.Claims, "blocked_reasons": pr.BlockedReasons, "evidence": pr.Evidence}, nil
}
