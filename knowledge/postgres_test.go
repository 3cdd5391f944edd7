package knowledge

import (
	"context"
	"sync"
	"testing"

	"github.com/metaforge/metaforge/ledger/pgtest"
)

func openPostgres(t *testing.T, url string) Store {
	t.Helper()
	st, err := OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestPostgresStore(t *testing.T) {
	testStore(t, func(t *testing.T) Store { return openPostgres(t, pgtest.URL(t)) })
}

// Servers and workers starting together on one empty database each make
// the tables, or find them made, without failing.
func TestOpenPostgresConcurrently(t *testing.T) {
	url := pgtest.URL(t)
	stores := make([]Store, 6)
	errs := make([]error, len(stores))
	var wg sync.WaitGroup
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = OpenPostgres(context.Background(), url)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	src := ingest(t, stores[0], "doc", nil, "gondola")
	if hits := search(t, stores[5], Query{Text: "gondola"}); len(hits) != 1 || hits[0].SourceID != src.ID {
		t.Errorf("another handle found %+v", hits)
	}
	if d := stores[0].Describe(); d != "full text, BM25 over PostgreSQL tsvector (GIN index)" {
		t.Errorf("Describe() = %q", d)
	}
}
