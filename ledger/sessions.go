package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Session is an MCP session as the ledger has seen it.
type Session struct {
	SessionID string `json:"session_id"`
	ProjectID string `json:"project_id"`
	// AgentCode is the client's name from the initialize handshake (spec
	// 003), "" while no call of the session carried one.
	AgentCode     string    `json:"agent_code"`
	ClientVersion string    `json:"client_version"`
	Actor         string    `json:"actor"`
	FirstSeen     time.Time `json:"first_seen"`
	LastSeen      time.Time `json:"last_seen"`
	Actions       int64     `json:"actions"`
}

// countInSession counts a, just recorded, in its session. What a leaves
// empty (no client, no project) keeps what the session had.
func countInSession(ctx context.Context, tx pgx.Tx, a Action) error {
	var client Client
	if a.Client != nil {
		client = *a.Client
	}
	_, err := tx.Exec(ctx, `INSERT INTO sessions AS s
		(session_id, project_id, agent_code, client_version, actor, first_seen, last_seen, actions)
		VALUES ($1, $2, $3, $4, $5, $6, $6, 1)
		ON CONFLICT (session_id) DO UPDATE SET
			project_id = COALESCE(NULLIF(EXCLUDED.project_id, ''), s.project_id),
			agent_code = COALESCE(NULLIF(EXCLUDED.agent_code, ''), s.agent_code),
			client_version = CASE WHEN EXCLUDED.agent_code <> '' THEN EXCLUDED.client_version ELSE s.client_version END,
			actor = COALESCE(NULLIF(EXCLUDED.actor, ''), s.actor),
			first_seen = LEAST(s.first_seen, EXCLUDED.first_seen),
			last_seen = GREATEST(s.last_seen, EXCLUDED.last_seen),
			actions = s.actions + 1`,
		a.SessionID, a.ProjectID, client.Name, client.Version, a.Actor, a.At)
	if err != nil {
		return fmt.Errorf("count it in session %s: %w", a.SessionID, err)
	}
	return nil
}

// BindSession records that session sessionID is scoped to projectID
// (session.start); "" unbinds it.
func (l *Ledger) BindSession(ctx context.Context, sessionID, projectID string) error {
	if sessionID == "" {
		return fmt.Errorf("ledger: bind session to project %q: no session id", projectID)
	}
	_, err := l.pool.Exec(ctx, `INSERT INTO sessions AS s (session_id, project_id, first_seen, last_seen)
		VALUES ($1, $2, $3, $3)
		ON CONFLICT (session_id) DO UPDATE SET
			project_id = EXCLUDED.project_id,
			last_seen = GREATEST(s.last_seen, EXCLUDED.last_seen)`,
		sessionID, projectID, time.Now())
	if err != nil {
		return fmt.Errorf("ledger: bind session %s to project %q: %w", sessionID, projectID, err)
	}
	return nil
}

// Sessions returns the sessions of projectID, or every session when it is
// "", most recently seen first (the latest MaxLimit).
func (l *Ledger) Sessions(ctx context.Context, projectID string) ([]Session, error) {
	var w where
	w.eq("project_id", projectID)
	rows, _ := l.pool.Query(ctx, `SELECT session_id, project_id, agent_code, client_version, actor,
		first_seen, last_seen, actions
		FROM sessions`+w.clause()+` ORDER BY last_seen DESC, session_id`+fmt.Sprintf(" LIMIT %d", MaxLimit), w.args...)
	sessions, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Session, error) {
		var s Session
		err := row.Scan(&s.SessionID, &s.ProjectID, &s.AgentCode, &s.ClientVersion, &s.Actor,
			&s.FirstSeen, &s.LastSeen, &s.Actions)
		s.FirstSeen, s.LastSeen = s.FirstSeen.UTC(), s.LastSeen.UTC()
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("ledger: read sessions from %s: %w", l.address, err)
	}
	return sessions, nil
}

// Session reads one session; one the ledger has never seen is
// ErrNoSession.
func (l *Ledger) Session(ctx context.Context, sessionID string) (Session, error) {
	var s Session
	err := l.pool.QueryRow(ctx, `SELECT session_id, project_id, agent_code, client_version, actor, first_seen, last_seen, actions
		FROM sessions WHERE session_id = $1`, sessionID).Scan(&s.SessionID, &s.ProjectID, &s.AgentCode, &s.ClientVersion, &s.Actor,
		&s.FirstSeen, &s.LastSeen, &s.Actions)
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, fmt.Errorf("%w: %s", ErrNoSession, sessionID)
	}
	if err != nil {
		return Session{}, fmt.Errorf("ledger: read session %s from %s: %w", sessionID, l.address, err)
	}
	s.FirstSeen, s.LastSeen = s.FirstSeen.UTC(), s.LastSeen.UTC()
	return s, nil
}
