package ledger

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The schema's history: migrations/NNN_name.sql, applied in version order,
// each once. A change to the schema is a new file, never an edit of an
// applied one.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrateLock is the advisory lock key ("mfledger") that serialises
// migrations, so processes starting together do not apply one twice.
const migrateLock int64 = 0x6d666c6564676572

type migration struct {
	version int
	name    string
	sql     string
}

// migrations reads the embedded migrations, in version order.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".sql")
		num, name, named := strings.Cut(base, "_")
		version, err := strconv.Atoi(num)
		if !ok || !named || err != nil || version <= 0 {
			return nil, fmt.Errorf("migration file %s: name it NNN_name.sql", e.Name())
		}
		body, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: version, name: name, sql: string(body)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share version %d", out[i-1].name, out[i].name, out[i].version)
		}
	}
	return out, nil
}

// migrate applies the migrations the database has not had yet and returns
// how many it applied.
func migrate(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	all, err := migrations()
	if err != nil {
		return 0, err
	}
	applied := 0
	for _, m := range all {
		done, err := apply(ctx, pool, m)
		if err != nil {
			return applied, fmt.Errorf("schema migration %d (%s): %w", m.version, m.name, err)
		}
		if done {
			applied++
		}
	}
	return applied, nil
}

// apply runs m in a transaction of its own, under the migration lock,
// unless schema_migrations says it ran already. It reports whether it ran.
func apply(ctx context.Context, pool *pgxpool.Pool, m migration) (ran bool, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// Taken first: each later statement sees what a process that held
		// the lock before us committed.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    int PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, m.version).Scan(&exists); err != nil || exists {
			return err
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
			return err
		}
		ran = true
		return nil
	})
	return ran && err == nil, err
}
