package ledger_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/ledger/pgtest"
)

// schemaVersions reads schema_migrations.
func schemaVersions(t *testing.T, databaseURL string) []int {
	t.Helper()
	ctx := testContext(t)
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	return versions
}

// Opening a database whose schema is current applies nothing.
func TestMigrationsApplyOnce(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	first := open(t, url)
	if first.Migrated() == 0 {
		t.Fatal("the first Open on an empty database applied no migration")
	}
	applied := schemaVersions(t, url)
	if len(applied) != first.Migrated() {
		t.Fatalf("schema_migrations has versions %v, the first Open reported %d applied", applied, first.Migrated())
	}
	second := open(t, url)
	if second.Migrated() != 0 {
		t.Errorf("the second Open applied %d migrations, want 0", second.Migrated())
	}
	if again := schemaVersions(t, url); len(again) != len(applied) {
		t.Errorf("schema_migrations after the second Open: %v, want %v", again, applied)
	}
}

// Processes starting together on a new database all open it, and each
// migration is applied by exactly one of them.
func TestConcurrentOpen(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	const n = 4
	var wg sync.WaitGroup
	ledgers := make([]*ledger.Ledger, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { ledgers[i], errs[i] = ledger.Open(testContext(t), url) })
	}
	wg.Wait()
	total := 0
	for i := range n {
		if errs[i] != nil {
			t.Errorf("Open %d: %v", i, errs[i])
			continue
		}
		total += ledgers[i].Migrated()
		ledgers[i].Close()
	}
	if versions := schemaVersions(t, url); total != len(versions) {
		t.Errorf("the Opens applied %d migrations between them; schema_migrations has %v", total, versions)
	}
}

// An unreachable database fails Open with an error naming where it looked,
// and never the password.
func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	_, err := ledger.Open(testContext(t), "postgres://metaforge:hunter2@127.0.0.1:1/nothing?connect_timeout=2")
	if err == nil {
		t.Fatal("Open on a closed port succeeded")
	}
	if msg := err.Error(); !strings.Contains(msg, "127.0.0.1:1") || strings.Contains(msg, "hunter2") {
		t.Errorf("error %q: want the address, and no password", msg)
	}
}
