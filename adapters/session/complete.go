package session

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

// session.complete ends the narrative of the session the call comes
// from (its MCP session id), never another one.

func completeTool() adapters.Declared[*Service] {
	return adapters.Declare(adapters.Manifest{ToolID: "session.complete", Name: "Complete this session", Capability: "project",
		Description: "End this session's narrative with its terminal status (completed, failed or abandoned) and a summary of what it did " +
			"and where it left things. A session ends once: after it, session.log_event and session.complete are refused. The result gives " +
			"how many events it logged and where the narrative is kept (kept_in: ledger or twin).",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, complete,
		adapters.At("project_id", adapters.MinLength(1)),
		adapters.At("status", adapters.Enum(twin.SessionEndings...)),
		adapters.At("summary", adapters.MinLength(1), adapters.MaxLength(twin.MaxSessionText)))
}

type completeArgs struct {
	ProjectID string `json:"project_id,omitempty" jsonschema:"the project; defaults to the session's (session.start or project.open)"`
	Status    string `json:"status" jsonschema:"completed, failed or abandoned"`
	Summary   string `json:"summary" jsonschema:"what the session did and where it left things"`
}

func complete(ctx context.Context, s *Service, a completeArgs) (any, error) {
	ci := adapters.CallInfoFrom(ctx)
	e := twin.SessionEnd{SessionID: ci.SessionID, Status: a.Status, Summary: a.Summary, Actor: actor(ci), CallID: ci.CallID}
	if err := e.Check(); err != nil {
		return nil, err
	}
	pid, err := s.projectOf(ctx, a.ProjectID)
	if err != nil {
		return nil, err
	}
	e.ProjectID = pid
	n := s.narrative()
	end, err := n.Complete(ctx, e)
	if err != nil {
		return nil, err
	}
	return map[string]any{"session_id": end.SessionID, "project_id": end.ProjectID, "status": end.Status, "summary": end.Summary,
		"events": end.Events, "ended_at": end.At, "kept_in": n.KeptIn()}, nil
}
