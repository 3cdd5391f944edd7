package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/freecad"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// CadSessions reaches CadSession workflows: it backs the freecad
// adapter's session tools (freecad.SessionEngine).
type CadSessions struct {
	Client client.Client
}

var _ freecad.SessionEngine = (*CadSessions)(nil)

// SessionProcess is workflow cad-session-<sessionId>, detached from the
// call that opens it: a session outlives its opening call, waiting for
// edits until it is closed or idle.
func (c *CadSessions) SessionProcess(s freecad.SessionStart) (adapters.Process, error) {
	in := workflows.CadSessionInput{SessionID: s.SessionID, ProjectID: s.ProjectID, Base: s.Base, Name: s.Name,
		CreatedBy: s.CreatedBy, IdleSeconds: s.IdleSeconds}
	p, err := process(workflows.CadSessionWorkflow, workflows.CadSessionWorkflowID(s.SessionID), in, s.ProjectID,
		"CAD session "+s.SessionID)
	if err != nil {
		return p, err
	}
	idle := s.IdleSeconds
	if idle == 0 {
		idle = int(workflows.DefaultCadIdle.Seconds())
	}
	answer := map[string]any{"session_id": s.SessionID, "workflow_id": p.ID, "status": workflows.CadSessionOpen,
		"idle_seconds": idle, "next_step": "draw a profile with freecad.create_sketch (session_id " + s.SessionID +
			"), then pad_sketch / pocket_sketch it; freecad.describe_model lists what the document holds"}
	if s.Base != "" {
		answer["base_file"] = s.Base
	}
	if s.ProjectID != "" {
		answer["project_id"] = s.ProjectID
	}
	p.Answer, err = json.Marshal(answer)
	p.Detached = true
	return p, err
}

// Operate sends one op to the session as an Update and waits for its
// answer. An op the document refused comes back as the protocol error
// the document gave, so the client reads what to fix.
func (c *CadSessions) Operate(ctx context.Context, sessionID, op string, args json.RawMessage, journal bool) (freecad.SessionAnswer, error) {
	h, err := c.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: workflows.CadSessionWorkflowID(sessionID),
		UpdateName: workflows.CadEditUpdate, WaitForStage: client.WorkflowUpdateStageCompleted,
		Args: []any{workflows.CadEdit{Op: op, Args: args, Journal: journal}}})
	var res workflows.CadEditResult
	if err == nil {
		err = h.Get(ctx, &res)
	}
	if err != nil {
		return freecad.SessionAnswer{}, c.updateError(ctx, sessionID, err)
	}
	return freecad.SessionAnswer{Data: res.Data, Edits: res.Edits, Rebuilt: res.Rebuilt}, nil
}

// CloseSession asks the session to close and waits for its document to
// be saved. A session already closed answers with its final state.
func (c *CadSessions) CloseSession(ctx context.Context, sessionID, reason, by string) (json.RawMessage, error) {
	h, err := c.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: workflows.CadSessionWorkflowID(sessionID),
		UpdateName: workflows.CloseCadSessionUpdate, WaitForStage: client.WorkflowUpdateStageCompleted,
		Args: []any{workflows.CloseCadSessionRequest{Reason: reason, By: by}}})
	var st workflows.CadSessionState
	if err == nil {
		err = h.Get(ctx, &st)
	}
	if err != nil {
		final, ok := c.finalState(ctx, sessionID)
		if !ok {
			return nil, c.updateError(ctx, sessionID, err)
		}
		st = final
	}
	return json.Marshal(st)
}

// State is the session as it stands: its query while it runs, its result
// once closed.
func (c *CadSessions) State(ctx context.Context, sessionID string) (workflows.CadSessionState, error) {
	if st, ok := c.finalState(ctx, sessionID); ok {
		return st, nil
	}
	v, err := c.Client.QueryWorkflow(ctx, workflows.CadSessionWorkflowID(sessionID), "", workflows.CadSessionStateQuery)
	var st workflows.CadSessionState
	if err == nil {
		err = v.Get(&st)
	}
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return st, fmt.Errorf("CAD session %s: %w", sessionID, freecad.ErrNoSession)
	}
	return st, err
}

// finalState is a closed session's state, read by querying its closed
// workflow (Temporal answers from its history; nothing waits on it); ok
// is false while it runs, or when it does not exist.
func (c *CadSessions) finalState(ctx context.Context, sessionID string) (workflows.CadSessionState, bool) {
	var st workflows.CadSessionState
	id := workflows.CadSessionWorkflowID(sessionID)
	d, err := c.Client.DescribeWorkflowExecution(ctx, id, "")
	if err != nil || d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		return st, false
	}
	v, err := c.Client.QueryWorkflow(ctx, id, "", workflows.CadSessionStateQuery)
	if err != nil || v.Get(&st) != nil {
		return st, false
	}
	return st, true
}

// updateError says why an Update did not get an answer: the session does
// not exist, has ended, refused the op (its validator, a closed session),
// or the op failed in the document (its protocol code and message).
func (c *CadSessions) updateError(ctx context.Context, sessionID string, err error) error {
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		d, derr := c.Client.DescribeWorkflowExecution(ctx, workflows.CadSessionWorkflowID(sessionID), "")
		if errors.As(derr, &notFound) {
			return fmt.Errorf("CAD session %s: %w", sessionID, freecad.ErrNoSession)
		}
		if derr == nil {
			if st, ok := c.finalState(ctx, sessionID); ok {
				return fmt.Errorf("CAD session %s closed (%s): %w", sessionID, st.ClosedReason, freecad.ErrSessionClosed)
			}
			return fmt.Errorf("CAD session %s has ended (%s): %w", sessionID,
				d.GetWorkflowExecutionInfo().GetStatus(), freecad.ErrSessionClosed)
		}
		return derr
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		if code, ok := protocol.CodeByName(appErr.Type()); ok {
			return &protocol.Error{Code: code, Details: appErr.Message()}
		}
		return protocol.Refusal("%s", appErr.Message())
	}
	return err
}
