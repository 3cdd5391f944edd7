// Package session serves session.start (bind this MCP session to a
// project, so later calls that name no project work in it) and the
// session's narrative, session.log_event and session.complete
// (log_event.go, complete.go), kept where the runtime says (Narrative:
// the ledger's, else the twin's). The adapter runs over the twin's
// backend (adapters/twin.New serves it).
package session

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

// Service is what the session tools work on.
type Service struct {
	Store    twin.Store
	Sessions twin.SessionBindings
	// Narrative keeps the sessions' narratives; nil keeps them in the
	// twin (Store).
	Narrative Narrative
}

// Tools are the session adapter's tools.
func Tools() []adapters.Declared[*Service] {
	return []adapters.Declared[*Service]{
		adapters.Declare(adapters.Manifest{ToolID: "session.start", Name: "Start a session in a project", Capability: "project",
			Description: "Bind this session to a project: later calls that name no project get it. project_scope_bound says whether the binding " +
				"can stick (false: this connection has no session identity, keep passing project_id).",
			Idempotent: true, Short: true, TimeoutSeconds: 30}, startSession, adapters.At("project_id", adapters.MinLength(1))),
		logEventTool(),
		completeTool(),
	}
}

type startArgs struct {
	ProjectID string `json:"project_id"`
}

// startSession binds the session to the project it names; it never falls
// back to the session's own.
func startSession(ctx context.Context, s *Service, a startArgs) (any, error) {
	p, err := s.Store.GetProject(ctx, a.ProjectID)
	if err != nil {
		return nil, err
	}
	bound, err := twin.BindToSession(ctx, s.Sessions, adapters.CallInfoFrom(ctx).SessionID, p.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"project_id": p.ID, "name": p.Name, "project_scope_bound": bound}
	if !bound {
		out["detail"] = "this connection presented no session identity, so the binding could never be matched again: keep passing project_id on every call"
	}
	return out, nil
}
