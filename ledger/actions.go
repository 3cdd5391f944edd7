package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Action statuses.
const (
	StatusSuccess = "success"
	StatusError   = "error"
)

// Action is one tool call as the ledger keeps it. The stamp is embedded,
// so its fields sit beside tool_id on the wire, where readers of the
// ledger's REST find them.
type Action struct {
	ID         int64     `json:"id"`
	At         time.Time `json:"at"`
	CallID     string    `json:"call_id"`
	ToolID     string    `json:"tool_id"`
	AdapterID  string    `json:"adapter_id"`
	SessionID  string    `json:"session_id"`
	ProjectID  string    `json:"project_id"`
	Caller     string    `json:"caller"`
	Status     string    `json:"status"`
	ErrorType  string    `json:"error_type,omitempty"` // e.g. TOOL_TIMEOUT
	ErrorClass string    `json:"error_class,omitempty"`
	DurationMs float64   `json:"duration_ms"`
	Stamp
}

// ActionFilter selects actions; empty fields select everything.
type ActionFilter struct {
	SessionID string
	ProjectID string
	ToolID    string
	Limit     int // 0: DefaultLimit
}

// RecordAction records a, stamped At now when it has no time, and counts
// it in its session: first and last seen, the client's name as agent_code,
// and the project when a names one. A record of a call already recorded
// (a retry) changes nothing.
func (l *Ledger) RecordAction(ctx context.Context, a Action) error {
	if err := a.check(); err != nil {
		return fmt.Errorf("ledger: record action %s of call %q: %w", a.ToolID, a.CallID, err)
	}
	if a.At.IsZero() {
		a.At = time.Now()
	}
	a.Stamp = a.Stamp.normalized()
	err := pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO actions
			(at, call_id, tool_id, adapter_id, session_id, project_id, caller, status, error_type, error_class, duration_ms, data)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
			ON CONFLICT (call_id) WHERE call_id <> '' DO NOTHING`,
			a.At, a.CallID, a.ToolID, a.AdapterID, a.SessionID, a.ProjectID, a.Caller, a.Status,
			a.ErrorType, a.ErrorClass, a.DurationMs, a.Stamp)
		if err != nil || tag.RowsAffected() == 0 || a.SessionID == "" {
			return err
		}
		return countInSession(ctx, tx, a)
	})
	if err != nil {
		return fmt.Errorf("ledger: record action %s of call %q: %w", a.ToolID, a.CallID, err)
	}
	return nil
}

func (a Action) check() error {
	if a.ToolID == "" {
		return errors.New("no tool_id")
	}
	if a.Status != StatusSuccess && a.Status != StatusError {
		return fmt.Errorf("status %q: want %q or %q", a.Status, StatusSuccess, StatusError)
	}
	return nil
}

// Actions returns the actions f selects, newest first.
func (l *Ledger) Actions(ctx context.Context, f ActionFilter) ([]Action, error) {
	n, err := limit(f.Limit)
	if err != nil {
		return nil, err
	}
	var w where
	w.eq("session_id", f.SessionID)
	w.eq("project_id", f.ProjectID)
	w.eq("tool_id", f.ToolID)
	rows, _ := l.pool.Query(ctx, `SELECT id, at, call_id, tool_id, adapter_id, session_id, project_id, caller,
		status, error_type, error_class, duration_ms, data
		FROM actions`+w.clause()+fmt.Sprintf(" ORDER BY at DESC, id DESC LIMIT %d", n), w.args...)
	actions, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Action, error) {
		var a Action
		err := row.Scan(&a.ID, &a.At, &a.CallID, &a.ToolID, &a.AdapterID, &a.SessionID, &a.ProjectID, &a.Caller,
			&a.Status, &a.ErrorType, &a.ErrorClass, &a.DurationMs, &a.Stamp)
		a.At = a.At.UTC()
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("ledger: read actions from %s: %w", l.address, err)
	}
	return actions, nil
}
