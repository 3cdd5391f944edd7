package main

import (
	"context"

	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/ledger"
)

// projectSessions reads a project's sessions from the ledger for its brief
// (project.open and project.get): the project adapter declares what it
// needs (project.Activity), the ledger knows nothing of adapters, and this
// wiring joins them.
type projectSessions struct{ ledger *ledger.Ledger }

var _ project.Activity = projectSessions{}

// ProjectSessions are the project's most recently seen sessions, at most
// limit of them.
func (a projectSessions) ProjectSessions(ctx context.Context, projectID string, limit int) ([]project.SessionSummary, error) {
	sessions, err := a.ledger.Sessions(ctx, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]project.SessionSummary, 0, min(limit, len(sessions)))
	for _, s := range sessions[:min(limit, len(sessions))] {
		out = append(out, project.SessionSummary{SessionID: s.SessionID, AgentCode: s.AgentCode, Actor: s.Actor,
			FirstSeen: s.FirstSeen, LastSeen: s.LastSeen, Actions: s.Actions})
	}
	return out, nil
}
