package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/metaforge/metaforge/ledger"
)

// open opens the ledger at databaseURL for the rest of the test.
func open(t *testing.T, databaseURL string) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(testContext(t), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func record(t *testing.T, l *ledger.Ledger, actions ...ledger.Action) {
	t.Helper()
	for _, a := range actions {
		if err := l.RecordAction(testContext(t), a); err != nil {
			t.Fatal(err)
		}
	}
}
