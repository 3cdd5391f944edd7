package twin

import (
	"context"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

func approveEngineeringEntityTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.approve_engineering_entity", Name: "Approve a waiver, release approval or flow version", Capability: "twin_write",
		Description: "Record a person's approval of a waiver or a release_approval (twin.record_engineering_entity) or a flow_version (flow.propose), named by its node_id: " +
			"an approval record (approved_by, approver_verified, comment) with an APPROVES edge to it. This records a human decision, so " +
			"the call is always held until an identified person approves it through the approvals queue, and the approver is who the " +
			"approval names; a call that reaches the tool with no approver is refused. An approved waiver excuses the gate criteria kinds " +
			"and requirement names its waives property lists. Approving again adds another approval.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, approveEngineeringEntity,
		adapters.At("node_id", adapters.MinLength(1)), adapters.At("comment", adapters.MaxLength(2000)))
}

type approveEngineeringEntityArgs struct {
	project.Scope
	NodeID  string `json:"node_id" jsonschema:"the waiver, release_approval or flow_version to approve"`
	Comment string `json:"comment,omitempty" jsonschema:"why it is approved, or on what condition"`
}

func approveEngineeringEntity(ctx context.Context, b *Backend, a approveEngineeringEntityArgs) (any, error) {
	ci := adapters.CallInfoFrom(ctx)
	approver := strings.TrimSpace(ci.ApprovedBy)
	if approver == "" {
		return nil, protocol.Refusal("no one approved this call: an approval of a waiver, release approval or flow version records who decided, so an " +
			"identified person must approve it through the approvals queue (the call is held for them); it cannot run unapproved")
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	ap, err := twin.Approve(ctx, b.Store, twin.ApprovalWrite{Project: p, NodeID: a.NodeID, Approver: approver,
		ApproverVerified: ci.ApproverVerified, Comment: a.Comment, IdempotencyKey: callID(ctx)})
	if err != nil {
		return nil, err
	}
	n := ap.Approved
	return map[string]any{"approval_node_id": ap.Record.ID, "node_id": n.ID, "entity_type": n.Type, "name": n.Name, "project_id": p.ID,
		"approved_by": approver, "approver_verified": ci.ApproverVerified, "approvals": ap.Count}, nil
}
