package ledger_test

import (
	"testing"
	"time"

	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/ledger/pgtest"
)

// Closing the ledger and opening it again finds what was recorded.
func TestReopenKeepsTheLedger(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	l := open(t, url)
	record(t, l, scriptedSession()...)
	l.Close()

	again := open(t, url)
	if again.Migrated() != 0 {
		t.Errorf("reopening applied %d migrations", again.Migrated())
	}
	got, err := again.Actions(testContext(t), ledger.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if callIDs(got) != "c5 c4 c3 c2 c1" {
		t.Errorf("after reopening: %q", callIDs(got))
	}
}

// The ledger outlives a restart of the PostgreSQL server itself, and a
// ledger left open across it works again once the server is back.
func TestServerRestartKeepsTheLedger(t *testing.T) {
	t.Parallel()
	server := pgtest.Server(t, pgtest.PortRestart)
	t.Cleanup(func() { pgtest.Stop(t, pgtest.PortRestart) }) // after the database is dropped
	url := pgtest.Database(t, server)
	l := open(t, url)
	record(t, l, scriptedSession()...)

	t1 := time.Now()
	pgtest.Stop(t, pgtest.PortRestart)
	if reachable, _, err := l.Probe(testContext(t)); reachable || err == nil {
		t.Errorf("the server is stopped and Probe says reachable=%v, %v", reachable, err)
	}
	pgtest.Server(t, pgtest.PortRestart)
	t.Logf("server restart took %s", time.Since(t1).Round(time.Millisecond))

	// Connections from before the restart are dead; the pool drops each
	// on its first failure.
	var err error
	for range 5 {
		if _, _, err = l.Probe(testContext(t)); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the ledger open across the restart does not answer: %v", err)
	}
	record(t, l, ledger.Action{At: t0.Add(time.Minute), CallID: "c6", ToolID: "twin.query", SessionID: "s2",
		Status: ledger.StatusSuccess})

	got, err := open(t, url).Actions(testContext(t), ledger.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if callIDs(got) != "c6 c5 c4 c3 c2 c1" {
		t.Errorf("after the restart: %q", callIDs(got))
	}
}
