package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// An agent session's narrative: the events it logged (session.log_event)
// and how it ended (session.complete). Unlike the audit trail this is
// where the narrative is kept, so its errors are the tool's: a session
// that ended refuses more events with *SessionEndedError. Every write
// takes the session's row FOR UPDATE first, so an event and the ending
// cannot interleave: an event lands before the ending or is refused.

// Session statuses: open, then one of the endings.
const SessionStatusOpen = "open"

// SessionEvent is one event of a session's narrative.
type SessionEvent struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	SessionID string    `json:"session_id"`
	ProjectID string    `json:"project_id"`
	CallID    string    `json:"call_id"`
	// Kind is thought, action, decision, observation or error.
	Kind  string   `json:"kind"`
	Text  string   `json:"text"`
	Refs  []string `json:"refs"`
	Actor string   `json:"actor"`
}

// SessionEnd is how a session ended.
type SessionEnd struct {
	SessionID string    `json:"session_id"`
	ProjectID string    `json:"project_id"`
	Status    string    `json:"status"`
	Summary   string    `json:"summary"`
	By        string    `json:"ended_by"`
	At        time.Time `json:"ended_at"`
	CallID    string    `json:"call_id"`
	// Events is how many events the session logged.
	Events int64 `json:"events"`
}

// SessionNarrative is a session's narrative read back: its status, its
// ending once it has one, and its events oldest first.
type SessionNarrative struct {
	SessionID string         `json:"session_id"`
	ProjectID string         `json:"project_id"`
	Status    string         `json:"status"`
	End       *SessionEnd    `json:"end,omitempty"`
	Events    []SessionEvent `json:"events"`
}

// SessionEndedError refuses an event or an ending of a session that has
// ended.
type SessionEndedError struct{ End SessionEnd }

func (e *SessionEndedError) Error() string {
	return fmt.Sprintf("session %s has ended (%s at %s: %s): it takes no more events and cannot end again; a new connection is a new session",
		e.End.SessionID, e.End.Status, e.End.At.UTC().Format(time.RFC3339), e.End.Summary)
}

// ErrNoSession is wrapped by a read of a session the ledger has never
// seen.
var ErrNoSession = errors.New("ledger: no such session")

// sessionRow is the session's row, locked for the rest of the
// transaction; made first when the ledger has not seen the session.
type sessionRow struct {
	projectID, status, summary, endedBy, endCallID string
	endedAt                                        *time.Time
}

func lockSession(ctx context.Context, tx pgx.Tx, sessionID, projectID string, at time.Time) (sessionRow, error) {
	if _, err := tx.Exec(ctx, `INSERT INTO sessions (session_id, project_id, first_seen, last_seen) VALUES ($1, $2, $3, $3)
		ON CONFLICT (session_id) DO NOTHING`, sessionID, projectID, at); err != nil {
		return sessionRow{}, err
	}
	var r sessionRow
	err := tx.QueryRow(ctx, `SELECT project_id, status, summary, ended_at, ended_by, end_call_id FROM sessions
		WHERE session_id = $1 FOR UPDATE`, sessionID).Scan(&r.projectID, &r.status, &r.summary, &r.endedAt, &r.endedBy, &r.endCallID)
	return r, err
}

// end is the row's ending, with its event count.
func (r sessionRow) end(ctx context.Context, q pgx.Tx, sessionID string) (SessionEnd, error) {
	e := SessionEnd{SessionID: sessionID, ProjectID: r.projectID, Status: r.status, Summary: r.summary, By: r.endedBy, CallID: r.endCallID}
	if r.endedAt != nil {
		e.At = r.endedAt.UTC()
	}
	err := q.QueryRow(ctx, `SELECT count(*) FROM session_events WHERE session_id = $1`, sessionID).Scan(&e.Events)
	return e, err
}

// LogSessionEvent appends e to its session's narrative, stamped At now
// when it has no time. An event of a session that ended is a
// *SessionEndedError; a repeated call (its CallID) returns the event it
// logged.
func (l *Ledger) LogSessionEvent(ctx context.Context, e SessionEvent) (SessionEvent, error) {
	if e.SessionID == "" || e.Kind == "" || e.Text == "" {
		return SessionEvent{}, fmt.Errorf("ledger: log session event: session_id, kind and text are required")
	}
	if e.At.IsZero() {
		e.At = time.Now()
	}
	e.At = e.At.Truncate(time.Microsecond) // as PostgreSQL keeps it
	if e.Refs == nil {
		e.Refs = []string{}
	}
	err := pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		row, err := lockSession(ctx, tx, e.SessionID, e.ProjectID, e.At)
		if err != nil {
			return err
		}
		if e.CallID != "" {
			found, err := eventByCall(ctx, tx, e.CallID)
			if err != nil || found != nil {
				if found != nil {
					e = *found
				}
				return err
			}
		}
		if row.status != SessionStatusOpen {
			end, err := row.end(ctx, tx, e.SessionID)
			if err != nil {
				return err
			}
			return &SessionEndedError{End: end}
		}
		return tx.QueryRow(ctx, `INSERT INTO session_events (at, session_id, project_id, call_id, kind, text, refs, actor)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
			e.At, e.SessionID, e.ProjectID, e.CallID, e.Kind, e.Text, e.Refs, e.Actor).Scan(&e.ID)
	})
	var ended *SessionEndedError
	if errors.As(err, &ended) {
		return SessionEvent{}, err
	}
	if err != nil {
		return SessionEvent{}, fmt.Errorf("ledger: log a %s event of session %s: %w", e.Kind, e.SessionID, err)
	}
	e.At = e.At.UTC()
	return e, nil
}

// eventByCall is the event a call logged, or nil.
func eventByCall(ctx context.Context, tx pgx.Tx, callID string) (*SessionEvent, error) {
	rows, _ := tx.Query(ctx, `SELECT id, at, session_id, project_id, call_id, kind, text, refs, actor
		FROM session_events WHERE call_id = $1`, callID)
	events, err := pgx.CollectRows(rows, scanEvent)
	if err != nil || len(events) == 0 {
		return nil, err
	}
	return &events[0], nil
}

func scanEvent(row pgx.CollectableRow) (SessionEvent, error) {
	var e SessionEvent
	err := row.Scan(&e.ID, &e.At, &e.SessionID, &e.ProjectID, &e.CallID, &e.Kind, &e.Text, &e.Refs, &e.Actor)
	e.At = e.At.UTC()
	return e, err
}

// CompleteSession ends e's session with its status and summary, stamped
// At now when it has no time. A session that ended is a
// *SessionEndedError, unless this is a repeat of the call that ended it
// (its CallID), which returns that ending.
func (l *Ledger) CompleteSession(ctx context.Context, e SessionEnd) (SessionEnd, error) {
	if e.SessionID == "" || e.Status == "" || e.Status == SessionStatusOpen {
		return SessionEnd{}, fmt.Errorf("ledger: complete session %q: a session id and a terminal status are required", e.SessionID)
	}
	if e.At.IsZero() {
		e.At = time.Now()
	}
	e.At = e.At.Truncate(time.Microsecond) // as PostgreSQL keeps it
	var out SessionEnd
	err := pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		row, err := lockSession(ctx, tx, e.SessionID, e.ProjectID, e.At)
		if err != nil {
			return err
		}
		if row.status != SessionStatusOpen {
			end, err := row.end(ctx, tx, e.SessionID)
			switch {
			case err != nil:
				return err
			case e.CallID != "" && row.endCallID == e.CallID:
				out = end
				return nil
			}
			return &SessionEndedError{End: end}
		}
		if _, err := tx.Exec(ctx, `UPDATE sessions SET status = $2, summary = $3, ended_at = $4, ended_by = $5, end_call_id = $6,
			last_seen = GREATEST(last_seen, $4) WHERE session_id = $1`, e.SessionID, e.Status, e.Summary, e.At, e.By, e.CallID); err != nil {
			return err
		}
		row.status, row.summary, row.endedBy, row.endCallID, row.endedAt = e.Status, e.Summary, e.By, e.CallID, &e.At
		out, err = row.end(ctx, tx, e.SessionID)
		return err
	})
	var ended *SessionEndedError
	if errors.As(err, &ended) {
		return SessionEnd{}, err
	}
	if err != nil {
		return SessionEnd{}, fmt.Errorf("ledger: complete session %s: %w", e.SessionID, err)
	}
	return out, nil
}

// SessionNarrative reads a session's narrative: its status and ending,
// and its events oldest first (the first MaxLimit of them).
func (l *Ledger) SessionNarrative(ctx context.Context, sessionID string) (SessionNarrative, error) {
	var out SessionNarrative
	err := pgx.BeginTxFunc(ctx, l.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		var r sessionRow
		err := tx.QueryRow(ctx, `SELECT project_id, status, summary, ended_at, ended_by, end_call_id FROM sessions WHERE session_id = $1`,
			sessionID).Scan(&r.projectID, &r.status, &r.summary, &r.endedAt, &r.endedBy, &r.endCallID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: %s", ErrNoSession, sessionID)
		}
		if err != nil {
			return err
		}
		out = SessionNarrative{SessionID: sessionID, ProjectID: r.projectID, Status: r.status}
		if r.status != SessionStatusOpen {
			end, err := r.end(ctx, tx, sessionID)
			if err != nil {
				return err
			}
			out.End = &end
		}
		rows, _ := tx.Query(ctx, fmt.Sprintf(`SELECT id, at, session_id, project_id, call_id, kind, text, refs, actor
			FROM session_events WHERE session_id = $1 ORDER BY id LIMIT %d`, MaxLimit), sessionID)
		out.Events, err = pgx.CollectRows(rows, scanEvent)
		return err
	})
	if errors.Is(err, ErrNoSession) {
		return SessionNarrative{}, err
	}
	if err != nil {
		return SessionNarrative{}, fmt.Errorf("ledger: read the narrative of session %s from %s: %w", sessionID, l.address, err)
	}
	if out.Events == nil {
		out.Events = []SessionEvent{}
	}
	return out, nil
}
