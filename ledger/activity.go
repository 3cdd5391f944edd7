package ledger

import (
	"context"

	"github.com/metaforge/metaforge/adapters/digitaltwin"
)

// Activity reads a project's sessions for its brief (project.open and
// project.get). It implements digitaltwin.ProjectActivity.
type Activity struct{ Ledger *Ledger }

// ProjectSessions are the project's most recently seen sessions, at most
// limit of them.
func (a Activity) ProjectSessions(ctx context.Context, projectID string, limit int) ([]digitaltwin.SessionSummary, error) {
	sessions, err := a.Ledger.Sessions(ctx, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]digitaltwin.SessionSummary, 0, min(limit, len(sessions)))
	for _, s := range sessions[:min(limit, len(sessions))] {
		out = append(out, digitaltwin.SessionSummary{SessionID: s.SessionID, AgentCode: s.AgentCode, Actor: s.Actor,
			FirstSeen: s.FirstSeen, LastSeen: s.LastSeen, Actions: s.Actions})
	}
	return out, nil
}
