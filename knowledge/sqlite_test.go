package knowledge

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func openSQLite(t *testing.T, path string) Store {
	t.Helper()
	st, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestSQLiteStore(t *testing.T) {
	testStore(t, func(t *testing.T) Store {
		return openSQLite(t, filepath.Join(t.TempDir(), "data", "knowledge.db"))
	})
}

// Two handles on one file, as the worker process (ingesting) and the
// server (searching) have: each sees what the other wrote, and writes
// from both at once wait for each other rather than fail.
func TestSQLiteTwoHandlesOnOneFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "knowledge.db")
	worker, server := openSQLite(t, path), openSQLite(t, path)
	if d := server.Describe(); d != "full text, BM25 (SQLite FTS5) in "+path {
		t.Errorf("Describe() = %q", d)
	}

	src := ingest(t, worker, "written by the worker", nil, "zeppelin gondola")
	if hits := search(t, server, Query{Text: "gondola"}); len(hits) != 1 || hits[0].SourceID != src.ID {
		t.Fatalf("the server did not find the worker's source: %+v", hits)
	}

	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for h, st := range []Store{worker, server} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				title := fmt.Sprintf("handle %d doc %d", h, i)
				s, _, err := st.BeginSource(ctx, Source{SHA256: hash(title), Title: title, Format: "text"})
				if err == nil {
					err = st.PutChunks(ctx, []Chunk{{SourceID: s.ID, Page: 1, Text: "concurrent airship " + title}})
				}
				if err == nil {
					err = st.FinishSource(ctx, s.ID, 1, 1)
				}
				if err != nil {
					errs <- fmt.Errorf("%s: %w", title, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for name, st := range map[string]Store{"worker": worker, "server": server} {
		if hits := search(t, st, Query{Text: "concurrent airship", Limit: 100}); len(hits) != 40 {
			t.Errorf("the %s finds %d of the 40 sources both wrote", name, len(hits))
		}
	}

	// A third handle opened later finds the tables made.
	if srcs, err := openSQLite(t, path).Sources(ctx, nil); err != nil || len(srcs) != 41 {
		t.Errorf("a later handle lists %d sources, %v; want 41", len(srcs), err)
	}
}

func TestOpenSQLiteRefusesABadPath(t *testing.T) {
	for _, p := range []string{"", filepath.Join(t.TempDir(), "k.db?mode=ro")} {
		if st, err := OpenSQLite(context.Background(), p); err == nil || !strings.Contains(err.Error(), "path") {
			t.Errorf("OpenSQLite(%q) = %v, %v", p, st, err)
		}
	}
}
