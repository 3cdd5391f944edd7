package project

import (
	"context"
	"time"
)

// Activity is who has worked in a project and from which client: the
// ledger's sessions, when a ledger is configured (DATABASE_URL). Without one
// the brief has no sessions, rather than an empty list that would read as
// "nobody has worked here".
type Activity interface {
	ProjectSessions(ctx context.Context, projectID string, limit int) ([]SessionSummary, error)
}

// SessionSummary is one session's line in a project brief.
type SessionSummary struct {
	SessionID string    `json:"session_id"`
	AgentCode string    `json:"agent_code,omitempty"`
	Actor     string    `json:"actor,omitempty"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	Actions   int64     `json:"actions"`
}

// briefSessions is how many sessions a brief lists, newest first.
const briefSessions = 10

// withSessions adds the project's recent sessions to a brief. A ledger that
// cannot be read never fails the brief: it says so instead.
func withSessions(ctx context.Context, s *Service, projectID string, out map[string]any) {
	if s.Activity == nil {
		return
	}
	sessions, err := s.Activity.ProjectSessions(ctx, projectID, briefSessions)
	if err != nil {
		out["sessions_unavailable"] = "the ledger could not be read: " + err.Error()
		return
	}
	if sessions == nil {
		sessions = []SessionSummary{}
	}
	out["sessions"] = sessions
}
