package twin

import (
	"context"
	"errors"
)

// SessionBindings remember which project an MCP session works in, so a call
// that names no project gets its session's. Keyed by the session's id,
// never process-global: one client's project must not leak to another's.
type SessionBindings interface {
	BindSession(ctx context.Context, sessionID, projectID string) error
	// SessionProject is the bound project's id, or ErrNotFound.
	SessionProject(ctx context.Context, sessionID string) (string, error)
}

// ProjectFor resolves the project a call works in: the one it names, else
// its session's. Naming none with no session project is a refusal that
// says how to fix it.
func ProjectFor(ctx context.Context, store Store, sessions SessionBindings, sessionID, named string) (Project, error) {
	if named == "" && sessionID != "" {
		id, err := sessions.SessionProject(ctx, sessionID)
		if err == nil {
			named = id
		} else if !errors.Is(err, ErrNotFound) {
			return Project{}, err
		}
	}
	if named == "" {
		return Project{}, Refusef("no project: pass project_id, or pick one for this session with project.open or session.start")
	}
	return store.GetProject(ctx, named)
}

// BindToSession makes project the session's scope, and says whether it
// could: a call with no session identity can never be matched again.
func BindToSession(ctx context.Context, sessions SessionBindings, sessionID, projectID string) (bool, error) {
	if sessionID == "" {
		return false, nil
	}
	if err := sessions.BindSession(ctx, sessionID, projectID); err != nil {
		return false, err
	}
	return true, nil
}
