package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// A flow version is a tailored flow held for a person: a flow_version node
// in the project. It may be run once an identified person approved it: an
// approval node links to it with an APPROVES edge (written by
// twin.approve_engineering_entity, a human-authority tool).
const (
	versionNodeType = "flow_version"
	edgeApproves    = "APPROVES"
	// ApproveTool is the tool a version's approval runs once a person
	// approved it in the queue.
	ApproveTool = "twin.approve_engineering_entity"
)

// version is a flow version read back from the twin.
type version struct {
	ID        string
	ProjectID string
	Goal      string
	Flow      flows.Flow
	Intent    flows.Intent
	Changes   []flows.Change
	// ApprovedBy is who approved it; "" while it waits.
	ApprovedBy string
}

// recordVersion writes a proposed flow version, keyed by the proposing call.
func recordVersion(ctx context.Context, s *Service, projectID, goal string, f flows.Flow, in flows.Intent, changes []flows.Change) (twin.Node, error) {
	flowJSON, _ := json.Marshal(f)
	intentJSON, _ := json.Marshal(in)
	changesJSON, _ := json.Marshal(changes)
	ci := adapters.CallInfoFrom(ctx)
	return s.Store.RecordNode(ctx, twin.RecordWrite{
		ProjectID: projectID, Type: versionNodeType, Name: fmt.Sprintf("%s for %s", f.ID, clip(goal, 120)),
		Properties: map[string]any{"template": f.ID, "goal": goal, "flow": string(flowJSON), "intent": string(intentJSON),
			"changes": string(changesJSON), "proposed_by": ci.Caller},
		IdempotencyKey: ci.CallID,
	})
}

// loadVersion reads a flow version and who approved it, if anyone.
func loadVersion(ctx context.Context, s *Service, id string) (version, error) {
	n, err := s.Store.GetNode(ctx, id)
	if errors.Is(err, twin.ErrNotFound) || (err == nil && n.Type != versionNodeType) {
		return version{}, protocol.Refusal("flow version %q does not exist: flow.propose returns a flow_version_id", id)
	}
	if err != nil {
		return version{}, err
	}
	v := version{ID: n.ID, ProjectID: n.ProjectID}
	v.Goal, _ = n.Properties["goal"].(string)
	for key, into := range map[string]any{"flow": &v.Flow, "intent": &v.Intent, "changes": &v.Changes} {
		text, _ := n.Properties[key].(string)
		if err := json.Unmarshal([]byte(text), into); err != nil {
			return version{}, fmt.Errorf("flow version %s: its %s cannot be read: %w", id, key, err)
		}
	}
	approvals, err := s.Store.Neighbors(ctx, n.ID, twin.Incoming, edgeApproves)
	if err != nil {
		return version{}, err
	}
	for _, a := range approvals {
		if by, _ := a.Node.Properties["approved_by"].(string); by != "" {
			v.ApprovedBy = by
			break
		}
	}
	return v, nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
