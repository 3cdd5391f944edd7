package mcpserver

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// withApproval marks the result of a call that was held and approved, in
// _meta.approval and in a second content block a model reads, so the
// model can tell the user who approved the write. The tool's own output
// stays first and untouched. A call never held carries neither.
func withApproval(out *mcp.CallToolResult, a *workflows.Approval) {
	if a == nil || a.Outcome != workflows.OutcomeApproved {
		return
	}
	out.Meta["approval"] = map[string]any{
		"held":             true,
		"outcome":          a.Outcome,
		"route":            a.Route,
		"heldSeconds":      a.HeldSeconds,
		"approvalId":       a.ApprovalID,
		"approvedBy":       a.ApprovedBy,
		"approverVerified": a.ApproverVerified,
		"windowSeconds":    a.WindowSeconds,
	}
	if a.Comment != "" {
		out.Meta["approval"].(map[string]any)["comment"] = a.Comment
	}
	identity := "identity unverified"
	if a.ApproverVerified {
		identity = "identity verified"
	}
	sentence := fmt.Sprintf("This write was held for human approval and was approved by %s (approval %s) after %.1fs via %s, %s.",
		a.ApprovedBy, a.ApprovalID, a.HeldSeconds, a.Route, identity)
	if a.Comment != "" {
		sentence += fmt.Sprintf(" Their comment: %q.", a.Comment)
	}
	out.Content = append(out.Content, &mcp.TextContent{Text: sentence})
}

// approvalError is a held call nobody approved: JSON-RPC -32001 with
// data.code "approval_required", and a message stating the same facts,
// because the message is what a client shows the model.
func (s *Server) approvalError(res workflows.ToolCallResult) *jsonrpc.Error {
	a := res.Approval
	where := s.where(a.Route, a.ApprovalID)
	var why string
	switch a.Outcome {
	case workflows.OutcomeRejected:
		why = "a reviewer rejected it"
		if a.Comment != "" {
			why += " (" + a.Comment + ")"
		}
		if a.Reason != "" {
			why = a.Reason
		}
	case workflows.OutcomeTimedOut:
		why = fmt.Sprintf("nobody decided within its %ds window", a.WindowSeconds)
	case workflows.OutcomeCancelled:
		why = "the hold was closed before anyone answered"
	case workflows.OutcomeNotConfigured:
		why = "this server holds the write but has no way for a person to decide it"
	}
	msg := fmt.Sprintf("%s was not run: it was held for approval and %s (outcome %s, approval %s, route %s", res.ToolID, why, a.Outcome, a.ApprovalID, a.Route)
	if a.Outcome != workflows.OutcomeNotConfigured {
		msg += fmt.Sprintf(", held %.1fs of a %ds window", a.HeldSeconds, a.WindowSeconds)
	}
	if a.Outcome == workflows.OutcomeNotConfigured {
		msg += "). Nothing was written; there is " + where + "."
	} else {
		msg += "). Nothing was written. Decide holds at " + where + "; calling it again asks again."
	}
	data := map[string]any{
		"code":        workflows.ApprovalRequired,
		"error_type":  workflows.ApprovalRequired,
		"outcome":     a.Outcome,
		"approval_id": a.ApprovalID,
		"route":       a.Route,
		"where":       where,
		"retryable":   false,
		"tool_id":     res.ToolID,
		"callId":      res.CallID,
		"details":     strings.TrimSuffix(msg, "."),
	}
	if a.Outcome != workflows.OutcomeNotConfigured {
		data["held_seconds"] = a.HeldSeconds
		data["window_seconds"] = a.WindowSeconds
	}
	if a.Comment != "" {
		data["comment"] = a.Comment
	}
	return rpcError(protocol.ToolExecutionError, msg, data)
}
