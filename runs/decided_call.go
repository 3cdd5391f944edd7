package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/workflows"
)

// DecidedCall runs a twin write asked for over REST the way an MCP call
// runs: a ToolCall workflow (call-<id>, in the Temporal UI), held, and
// decided at once by the identified person who sent the request, who is
// then the call's approver (decided_by, approved_by). It waits for the
// call's result.
func (s *Service) DecidedCall(ctx context.Context, toolID string, args json.RawMessage, projectID, summary, decider string) (workflows.ToolCallResult, error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	callID := "rest-" + hex.EncodeToString(b[:])
	p, err := s.heldProcess(toolID, args, projectID, summary, callID, "", "asked over REST by an identified person, who decides it with the request")
	if err != nil {
		return workflows.ToolCallResult{}, err
	}
	if err := s.Start(ctx, p); err != nil {
		return workflows.ToolCallResult{}, err
	}
	q := approvals.Queue{Client: s.Client, Namespace: s.namespace()}
	if _, err := q.Decide(ctx, callID, workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: decider, ApproverVerified: true,
		Route: workflows.RouteDashboard, Comment: "decided with the REST request"}); err != nil {
		return workflows.ToolCallResult{}, err
	}
	return q.Result(ctx, callID)
}
