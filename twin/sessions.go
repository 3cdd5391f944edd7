package twin

import "context"

// SessionBindings remember which project an MCP session works in, so a call
// that names no project gets its session's. Keyed by the session's id,
// never process-global: one client's project must not leak to another's.
type SessionBindings interface {
	BindSession(ctx context.Context, sessionID, projectID string) error
	// SessionProject is the bound project's id, or ErrNotFound.
	SessionProject(ctx context.Context, sessionID string) (string, error)
}
