package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Decision is the outcome of one approval hold: who decided, how the
// question reached them, and what they said.
type Decision struct {
	ID         int64     `json:"id"`
	At         time.Time `json:"at"`
	ApprovalID string    `json:"approval_id"`
	CallID     string    `json:"call_id"`
	ToolID     string    `json:"tool_id"`
	SessionID  string    `json:"session_id"`
	ProjectID  string    `json:"project_id"`
	// Outcome: approved, rejected, timed_out, cancelled, ...
	Outcome string `json:"outcome"`
	// By is who decided; ByVerified is true only when a verified identity
	// (a token) established it, not a name the request gave.
	By         string `json:"by"`
	ByVerified bool   `json:"by_verified"`
	// Route is how the question was put: elicitation, dashboard, cli,
	// rest, or timeout when nobody answered.
	Route   string `json:"route"`
	Comment string `json:"comment,omitempty"`
}

// DecisionFilter selects decisions; empty fields select everything.
type DecisionFilter struct {
	ApprovalID string
	CallID     string
	ProjectID  string
	Limit      int // 0: DefaultLimit
}

// RecordDecision records d, stamped At now when it has no time. A record
// of an outcome the approval already has (a retry) changes nothing.
func (l *Ledger) RecordDecision(ctx context.Context, d Decision) error {
	if err := d.check(); err != nil {
		return fmt.Errorf("ledger: record decision %q on approval %q: %w", d.Outcome, d.ApprovalID, err)
	}
	if d.At.IsZero() {
		d.At = time.Now()
	}
	_, err := l.pool.Exec(ctx, `INSERT INTO decisions
		(at, approval_id, call_id, tool_id, session_id, project_id, outcome, decided_by, by_verified, route, comment)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (approval_id, outcome) DO NOTHING`,
		d.At, d.ApprovalID, d.CallID, d.ToolID, d.SessionID, d.ProjectID, d.Outcome, d.By, d.ByVerified, d.Route, d.Comment)
	if err != nil {
		return fmt.Errorf("ledger: record decision %q on approval %s: %w", d.Outcome, d.ApprovalID, err)
	}
	return nil
}

func (d Decision) check() error {
	switch {
	case d.ApprovalID == "":
		return errors.New("no approval_id")
	case d.Outcome == "":
		return errors.New("no outcome")
	}
	return nil
}

// Decisions returns the decisions f selects, newest first.
func (l *Ledger) Decisions(ctx context.Context, f DecisionFilter) ([]Decision, error) {
	n, err := limit(f.Limit)
	if err != nil {
		return nil, err
	}
	var w where
	w.eq("approval_id", f.ApprovalID)
	w.eq("call_id", f.CallID)
	w.eq("project_id", f.ProjectID)
	rows, _ := l.pool.Query(ctx, `SELECT id, at, approval_id, call_id, tool_id, session_id, project_id,
		outcome, decided_by, by_verified, route, comment
		FROM decisions`+w.clause()+fmt.Sprintf(" ORDER BY at DESC, id DESC LIMIT %d", n), w.args...)
	decisions, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Decision, error) {
		var d Decision
		err := row.Scan(&d.ID, &d.At, &d.ApprovalID, &d.CallID, &d.ToolID, &d.SessionID, &d.ProjectID,
			&d.Outcome, &d.By, &d.ByVerified, &d.Route, &d.Comment)
		d.At = d.At.UTC()
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("ledger: read decisions from %s: %w", l.address, err)
	}
	return decisions, nil
}
