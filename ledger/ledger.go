// Package ledger keeps MetaForge's record, in PostgreSQL, of who did what:
// every tool call with its attribution stamp, the sessions the calls came
// from and their narratives, and every approval decision.
//
// The ledger is an audit trail, not a control path. A caller logs a ledger
// error and goes on, so nothing here can fail a tool call; errors say what
// was being recorded and why it could not be. The one exception is a
// session's narrative (session_narrative.go): when the ledger is where it
// is kept, session.log_event and session.complete answer with its errors.
package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// connectTimeout bounds a connection attempt when DATABASE_URL sets none,
// so an unreachable database costs a caller seconds, not a hung call.
const connectTimeout = 5 * time.Second

// Ledger is the ledger on one PostgreSQL database. It is safe for
// concurrent use.
type Ledger struct {
	pool     *pgxpool.Pool
	address  string // the database's address without the password
	migrated int
}

// Open connects to the database at databaseURL (a DATABASE_URL: URL or
// key=value form) and brings its schema up to date.
func Open(ctx context.Context, databaseURL string) (*Ledger, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("ledger: DATABASE_URL: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	if _, set := cfg.ConnConfig.RuntimeParams["application_name"]; !set {
		cfg.ConnConfig.RuntimeParams["application_name"] = "metaforge-ledger"
	}
	l := &Ledger{address: address(&cfg.ConnConfig.Config)}
	if l.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("ledger: %s: %w", l.address, err)
	}
	if l.migrated, err = migrate(ctx, l.pool); err != nil {
		l.pool.Close()
		return nil, fmt.Errorf("ledger: %s: %w", l.address, err)
	}
	return l, nil
}

// Migrated is how many schema migrations Open applied: 0 when the schema
// was already current.
func (l *Ledger) Migrated() int { return l.migrated }

// Close closes the ledger's connections.
func (l *Ledger) Close() { l.pool.Close() }
