package twin

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// EdgeApproves links an approval record to the entity it approves.
const EdgeApproves = "APPROVES"

// ApprovalNodeType is the record a person's approval leaves.
const ApprovalNodeType = "approval"

// approvableEntities are the engineering entities a person approves. A
// flow_version (flow.propose) is approved the same way before it may run.
var approvableEntities = map[string]bool{"waiver": true, "release_approval": true, "flow_version": true}

// ApprovalWrite is a person's approval of an entity in a project.
type ApprovalWrite struct {
	Project Project
	NodeID  string
	// Approver is who approved; ApproverVerified whether their identity
	// was checked.
	Approver         string
	ApproverVerified bool
	Comment          string
	IdempotencyKey   string
}

// Approval is a recorded approval: its record, what it approves, and how
// many approvals that now has.
type Approval struct {
	Record, Approved Node
	Count            int
}

// Approve records an approval of a waiver, release approval or flow version
// in the project: an approval record with an APPROVES edge to it.
// Approving again adds another approval.
func Approve(ctx context.Context, s Store, w ApprovalWrite) (Approval, error) {
	id := strings.TrimSpace(w.NodeID)
	n, err := s.GetNode(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Approval{}, Refusef("node %s does not exist: name a waiver or release_approval by the node_id twin.record_engineering_entity returned, or a flow_version by the flow_version_id flow.propose returned", id)
	}
	if err != nil {
		return Approval{}, err
	}
	if n.ProjectID != w.Project.ID {
		return Approval{}, Refusef("node %s is in another project, not in %s (%s): approve it in its own project", id, w.Project.Name, w.Project.ID)
	}
	if !approvableEntities[n.Type] {
		return Approval{}, Refusef("node %s is a %s, not a waiver, release_approval or flow_version: only those are approved with this tool", id, n.Type)
	}
	props := map[string]any{"approved_by": w.Approver, "approver_verified": w.ApproverVerified}
	if c := strings.TrimSpace(w.Comment); c != "" {
		props["comment"] = c
	}
	ap, err := s.RecordNode(ctx, RecordWrite{ProjectID: w.Project.ID, Type: ApprovalNodeType, Name: fmt.Sprintf("Approval of %s", n.Name),
		Properties: props, Links: []Link{{Type: EdgeApproves, To: n.ID, Properties: map[string]any{"entity_type": n.Type}}},
		IdempotencyKey: w.IdempotencyKey})
	if err != nil {
		return Approval{}, err
	}
	approvals, err := ApprovalsOf(ctx, s, n.ID)
	if err != nil {
		return Approval{}, err
	}
	return Approval{Record: ap, Approved: n, Count: len(approvals)}, nil
}

// ApprovalsOf lists the approval records that approve a node, oldest
// first.
func ApprovalsOf(ctx context.Context, s Store, nodeID string) ([]Node, error) {
	ns, err := s.Neighbors(ctx, nodeID, Incoming, EdgeApproves)
	if err != nil {
		return nil, err
	}
	var out []Node
	for _, nb := range ns {
		if nb.Node.Type == ApprovalNodeType {
			out = append(out, nb.Node)
		}
	}
	return out, nil
}
