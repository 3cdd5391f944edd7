package digitaltwin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// edgeApproves links an approval record to the entity it approves.
const edgeApproves = "APPROVES"

// approvalNodeType is the record a person's approval leaves.
const approvalNodeType = "approval"

// approvableEntities are the engineering entities a person approves.
// A flow_version (flow.propose) is approved the same way before it may run.
var approvableEntities = map[string]bool{"waiver": true, "release_package": true, "flow_version": true}

func approveEngineeringEntityTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.approve_engineering_entity", Name: "Approve a waiver, release package or flow version", Capability: "twin_write",
		Description: "Record a person's approval of a waiver or a release_package (twin.record_engineering_entity) or a flow_version (flow.propose), named by its node_id: " +
			"an approval record (approved_by, approver_verified, comment) with an APPROVES edge to it. This records a human decision, so " +
			"the call is always held until an identified person approves it through the approvals queue, and the approver is who the " +
			"approval names; a call that reaches the tool with no approver is refused. An approved waiver excuses the gate criteria kinds " +
			"and requirement names its waives property lists. Approving again adds another approval.",
		InputSchema: schema([]string{"node_id"}, projectIDProp+`,
"node_id":{"type":"string","minLength":1,"description":"the waiver, release_package or flow_version to approve"},
"comment":{"type":"string","maxLength":2000,"description":"why it is approved, or on what condition"}`),
		Idempotent: true, TimeoutSeconds: 30}, approveEngineeringEntity}
}

func approveEngineeringEntity(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID string `json:"project_id"`
		NodeID    string `json:"node_id"`
		Comment   string `json:"comment"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	ci := adapters.CallInfoFrom(ctx)
	approver := strings.TrimSpace(ci.ApprovedBy)
	if approver == "" {
		return nil, protocol.Refusal("no one approved this call: an approval of a waiver, release package or flow version records who decided, so an " +
			"identified person must approve it through the approvals queue (the call is held for them); it cannot run unapproved")
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSpace(a.NodeID)
	n, err := b.Store.GetNode(ctx, id)
	if errors.Is(err, twin.ErrNotFound) {
		return nil, protocol.Refusal("node %s does not exist: name a waiver or release_package by the node_id twin.record_engineering_entity returned, or a flow_version by the flow_version_id flow.propose returned", id)
	}
	if err != nil {
		return nil, err
	}
	if n.ProjectID != p.ID {
		return nil, protocol.Refusal("node %s is in another project, not in %s (%s): approve it in its own project", id, p.Name, p.ID)
	}
	if !approvableEntities[n.Type] {
		return nil, protocol.Refusal("node %s is a %s, not a waiver, release_package or flow_version: only those are approved with this tool", id, n.Type)
	}
	props := map[string]any{"approved_by": approver, "approver_verified": ci.ApproverVerified}
	if c := strings.TrimSpace(a.Comment); c != "" {
		props["comment"] = c
	}
	ap, err := b.Store.RecordNode(ctx, twin.RecordWrite{ProjectID: p.ID, Type: approvalNodeType, Name: fmt.Sprintf("Approval of %s", n.Name),
		Properties: props, Links: []twin.Link{{Type: edgeApproves, To: n.ID, Properties: map[string]any{"entity_type": n.Type}}},
		IdempotencyKey: callID(ctx)})
	if err != nil {
		return nil, err
	}
	approvals, err := approvalsOf(ctx, b, n.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"approval_node_id": ap.ID, "node_id": n.ID, "entity_type": n.Type, "name": n.Name, "project_id": p.ID,
		"approved_by": approver, "approver_verified": ci.ApproverVerified, "approvals": len(approvals)}, nil
}

// approvalsOf lists the approval records that approve a node, oldest first.
func approvalsOf(ctx context.Context, b *Backend, nodeID string) ([]twin.Node, error) {
	ns, err := b.Store.Neighbors(ctx, nodeID, twin.Incoming, edgeApproves)
	if err != nil {
		return nil, err
	}
	var out []twin.Node
	for _, nb := range ns {
		if nb.Node.Type == approvalNodeType {
			out = append(out, nb.Node)
		}
	}
	return out, nil
}
