package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// testStore is the one behaviour both stores must have. open gives a
// fresh, empty store for each subtest.
func testStore(t *testing.T, open func(t *testing.T) Store) {
	ctx := context.Background()

	t.Run("BeginSource", func(t *testing.T) {
		st := open(t)
		before := time.Now().Add(-time.Second)
		doc := "TPS54331 datasheet"
		got, existed, err := st.BeginSource(ctx, Source{SHA256: strings.ToUpper(hash(doc)), Origin: "/data/tps54331.pdf",
			Title: "TPS54331", Format: "pdf", Tags: map[string]string{" MPN ": "TPS54331", "Category": "buck_converter"}, Bytes: 1234})
		if err != nil || existed {
			t.Fatalf("BeginSource new: existed %v, %v", existed, err)
		}
		want := Source{ID: "src-" + hash(doc)[:16], SHA256: hash(doc), Origin: "/data/tps54331.pdf", Title: "TPS54331", Format: "pdf",
			Tags: map[string]string{"mpn": "TPS54331", "category": "buck_converter"}, Bytes: 1234, State: StateIndexing, IngestedAt: got.IngestedAt}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("BeginSource = %+v\nwant %+v", got, want)
		}
		if got.IngestedAt.Before(before) || got.IngestedAt.After(time.Now()) {
			t.Errorf("IngestedAt %v is not now", got.IngestedAt)
		}
		if stored, err := st.Source(ctx, got.ID); err != nil || !reflect.DeepEqual(stored, want) {
			t.Errorf("Source = %+v, %v\nwant %+v", stored, err, want)
		}

		// Interrupted: the same bytes again resume the source as it was.
		again, existed, err := st.BeginSource(ctx, Source{SHA256: hash(doc), Title: "other title", Format: "pdf"})
		if err != nil || existed || !reflect.DeepEqual(again, want) {
			t.Fatalf("BeginSource of an indexing source = %+v, existed %v, %v; want it resumed unchanged", again, existed, err)
		}

		put(t, st, ChunkPage(got.ID, Page{Number: 1, Text: "TPS54331 step-down converter"}))
		if err := st.FinishSource(ctx, got.ID, 1, 1); err != nil {
			t.Fatal(err)
		}
		want.State, want.Pages, want.Chunks = StateIndexed, 1, 1
		// Indexed: the same bytes again are a no-op that says so.
		again, existed, err = st.BeginSource(ctx, Source{SHA256: hash(doc), Title: "other title", Format: "text"})
		if err != nil || !existed || !reflect.DeepEqual(again, want) {
			t.Fatalf("re-ingest = %+v, existed %v, %v\nwant %+v, existed", again, existed, err, want)
		}
		if bySHA, err := st.SourceBySHA256(ctx, hash(doc)); err != nil || !reflect.DeepEqual(bySHA, want) {
			t.Errorf("SourceBySHA256 = %+v, %v", bySHA, err)
		}
		if all, err := st.Sources(ctx, nil); err != nil || len(all) != 1 {
			t.Errorf("Sources after re-ingest: %d, %v; want 1", len(all), err)
		}

		for _, bad := range []Source{{SHA256: "abc"}, {SHA256: hash(doc)[:63] + "g"}, {SHA256: hash("x"), Tags: map[string]string{" ": "v"}}} {
			if _, _, err := st.BeginSource(ctx, bad); err == nil {
				t.Errorf("BeginSource(sha %q tags %v) accepted", bad.SHA256, bad.Tags)
			}
		}
		if all, _ := st.Sources(ctx, nil); len(all) != 1 {
			t.Errorf("refused sources were stored: %d sources", len(all))
		}
	})

	t.Run("resume", func(t *testing.T) {
		st := open(t)
		src := begin(t, st, "long manual", nil)
		var chunks []Chunk
		for p := 1; p <= 5; p++ {
			chunks = append(chunks, ChunkPage(src.ID, Page{Number: p, Text: fmt.Sprintf("page %d of the regulator manual\n\nsecond paragraph %d\n", p, p)})...)
		}
		put(t, st, chunks[:3]) // then the process dies
		resumed, existed, err := st.BeginSource(ctx, Source{SHA256: src.SHA256})
		if err != nil || existed || resumed.ID != src.ID || !resumed.IngestedAt.Equal(src.IngestedAt) {
			t.Fatalf("resume = %+v existed %v %v", resumed, existed, err)
		}
		put(t, st, chunks[2:]) // from the last batch not known to be stored
		if err := st.FinishSource(ctx, src.ID, 5, len(chunks)); err != nil {
			t.Fatal(err)
		}
		got, err := st.Chunks(ctx, src.ID)
		if err != nil || !reflect.DeepEqual(got, chunks) {
			t.Errorf("Chunks after resume = %d chunks, %v; want the %d once", len(got), err, len(chunks))
		}
	})

	t.Run("FinishSource checks its counts", func(t *testing.T) {
		st := open(t)
		src := begin(t, st, "doc", nil)
		put(t, st, []Chunk{{SourceID: src.ID, Page: 1, Text: "zeppelin"}, {SourceID: src.ID, Page: 3, Text: "zeppelin"}})
		for _, c := range [][2]int{{3, 3}, {2, 2}} {
			if err := st.FinishSource(ctx, src.ID, c[0], c[1]); err == nil {
				t.Errorf("FinishSource(pages %d, chunks %d) with 2 chunks up to page 3 accepted", c[0], c[1])
			}
		}
		if got, _ := st.Source(ctx, src.ID); got.State != StateIndexing {
			t.Errorf("state after refused finishes = %s", got.State)
		}
		if err := st.FinishSource(ctx, src.ID, 3, 2); err != nil {
			t.Fatal(err)
		}
		if err := st.FinishSource(ctx, src.ID, 3, 2); err != nil {
			t.Errorf("FinishSource again (a retried activity): %v", err)
		}
		if hits := search(t, st, Query{Text: "zeppelin"}); len(hits) != 2 {
			t.Errorf("after finishing twice %d hits, want 2", len(hits))
		}
	})

	t.Run("PutChunks is idempotent", func(t *testing.T) {
		st := open(t)
		src := begin(t, st, "doc", nil)
		chunks := []Chunk{
			{SourceID: src.ID, Page: 1, Seq: 0, Text: "buck converter with synchronous rectifier"},
			{SourceID: src.ID, Page: 1, Seq: 1, Text: "inductor selection for the buck stage"},
			{SourceID: src.ID, Page: 2, Seq: 0, Text: "thermal pad layout"},
		}
		put(t, st, chunks)
		put(t, st, chunks)
		finish(t, st, src.ID, 2, 3)
		first := search(t, st, Query{Text: "buck"})
		put(t, st, chunks)
		if got, _ := st.Chunks(ctx, src.ID); len(got) != 3 {
			t.Errorf("%d chunks after three puts, want 3", len(got))
		}
		if again := search(t, st, Query{Text: "buck"}); len(first) != 2 || !reflect.DeepEqual(first, again) {
			t.Errorf("search after a repeated put = %+v\nbefore %+v", again, first)
		}
		// A chunk stored again with other text replaces it in the index.
		put(t, st, []Chunk{{SourceID: src.ID, Page: 2, Seq: 0, Text: "thermal pad layout under the buck IC"}})
		if hits := search(t, st, Query{Text: "buck"}); len(hits) != 3 {
			t.Errorf("after replacing a chunk %d hits for buck, want 3", len(hits))
		}
		if hits := search(t, st, Query{Text: "synchronous"}); len(hits) != 1 {
			t.Errorf("%d hits for synchronous, want 1", len(hits))
		}
		if err := st.PutChunks(ctx, []Chunk{{SourceID: src.ID, Page: 0, Text: "x"}}); err == nil {
			t.Error("a chunk on page 0 was accepted")
		}
		if err := st.PutChunks(ctx, nil); err != nil {
			t.Errorf("PutChunks(nil) = %v", err)
		}
	})

	t.Run("indexing sources are not searched", func(t *testing.T) {
		st := open(t)
		src := begin(t, st, "doc", nil)
		put(t, st, []Chunk{{SourceID: src.ID, Page: 1, Text: "zeppelin airship"}})
		if hits := search(t, st, Query{Text: "zeppelin"}); len(hits) != 0 {
			t.Fatalf("an indexing source was found: %+v", hits)
		}
		finish(t, st, src.ID, 1, 1)
		if hits := search(t, st, Query{Text: "zeppelin"}); len(hits) != 1 || hits[0].SourceID != src.ID {
			t.Fatalf("the indexed source was not found: %+v", hits)
		}
	})

	t.Run("tags", func(t *testing.T) {
		st := open(t)
		ingest(t, st, "cots module", map[string]string{"Purchase_Unit": "COTS", "category": "buck_converter"}, "buck module 5V 3A")
		ingest(t, st, "discrete part", map[string]string{"purchase_unit": "component", "category": "buck_converter"}, "buck controller IC")
		ingest(t, st, "untagged", nil, "buck reference design")
		titles := func(hits []Hit) []string {
			var out []string
			for _, h := range hits {
				out = append(out, h.Title)
			}
			return out
		}
		if hits := search(t, st, Query{Text: "buck", Tags: map[string]string{"PURCHASE_UNIT": "COTS"}}); !reflect.DeepEqual(titles(hits), []string{"cots module"}) {
			t.Errorf("purchase_unit=COTS found %v", titles(hits))
		} else if !reflect.DeepEqual(hits[0].Tags, map[string]string{"purchase_unit": "COTS", "category": "buck_converter"}) {
			t.Errorf("hit tags = %v", hits[0].Tags)
		}
		if hits := search(t, st, Query{Text: "buck", Tags: map[string]string{"category": "buck_converter", "purchase_unit": "component"}}); !reflect.DeepEqual(titles(hits), []string{"discrete part"}) {
			t.Errorf("two tags found %v", titles(hits))
		}
		if hits := search(t, st, Query{Text: "buck", Tags: map[string]string{"purchase_unit": "cots"}}); len(hits) != 0 {
			t.Errorf("values are compared exactly, but cots found %v", titles(hits))
		}
		if hits := search(t, st, Query{Text: "buck", Tags: map[string]string{"category": "buck_converter"}}); len(hits) != 2 {
			t.Errorf("category found %v", titles(hits))
		}
		if srcs, err := st.Sources(ctx, map[string]string{"Purchase_unit": "component"}); err != nil || len(srcs) != 1 || srcs[0].Title != "discrete part" {
			t.Errorf("Sources(purchase_unit=component) = %+v, %v", srcs, err)
		}
		if srcs, err := st.Sources(ctx, map[string]string{"mpn": "nothing"}); err != nil || len(srcs) != 0 {
			t.Errorf("Sources(mpn=nothing) = %+v, %v", srcs, err)
		}
	})

	t.Run("Sources newest first", func(t *testing.T) {
		st := open(t)
		var want []string
		for i := range 3 {
			want = append([]string{begin(t, st, fmt.Sprintf("doc %d", i), nil).ID}, want...)
			time.Sleep(2 * time.Millisecond)
		}
		srcs, err := st.Sources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range srcs {
			got = append(got, s.ID)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Sources = %v, want newest first %v", got, want)
		}
	})

	t.Run("snippet marks the terms", func(t *testing.T) {
		st := open(t)
		ingest(t, st, "doc", nil, "The output inductor sets the ripple current. Choose an inductor rated above the peak switch current.")
		hits := search(t, st, Query{Text: "inductor ripple"})
		if len(hits) != 1 {
			t.Fatalf("%d hits", len(hits))
		}
		for _, w := range []string{"**inductor**", "**ripple**"} {
			if !strings.Contains(hits[0].Snippet, w) {
				t.Errorf("snippet %q does not mark %s", hits[0].Snippet, w)
			}
		}
		if strings.Contains(hits[0].Snippet, "**current**") {
			t.Errorf("snippet %q marks a word not asked for", hits[0].Snippet)
		}
	})

	t.Run("BM25 ranking", func(t *testing.T) {
		st := open(t)
		for _, d := range rankCorpus {
			ingest(t, st, d[0], nil, d[1])
		}
		for _, c := range []struct {
			query string
			want  []scored
		}{
			// Term frequency and length: the short chunk with buck twice,
			// then the middle one, then the long one, each with it once.
			{"buck", []scored{{"A", bm25Hand(2, 3, 3)}, {"D", bm25Hand(1, 6, 3)}, {"B", bm25Hand(1, 12, 3)}}},
			// No chunk has both words, so any word: the rare ferrite (in
			// one chunk) outweighs buck (in three), even twice in a
			// shorter chunk.
			{"Buck, ferrite?", []scored{{"Y", bm25Hand(1, 6, 1)}, {"A", bm25Hand(2, 3, 3)}, {"D", bm25Hand(1, 6, 3)}, {"B", bm25Hand(1, 12, 3)}}},
			// Both words: only the chunk with both, each term scored.
			{"zener buck", []scored{{"D", bm25Hand(1, 6, 3) + bm25Hand(1, 6, 2)}}},
		} {
			hits := search(t, st, Query{Text: c.query})
			var got []scored
			for _, h := range hits {
				got = append(got, scored{h.Title, h.Score})
			}
			if len(got) != len(c.want) {
				t.Errorf("%q ranked %v, want %v", c.query, got, c.want)
				continue
			}
			for i := range got {
				if got[i].title != c.want[i].title || math.Abs(got[i].score-c.want[i].score) > 1e-9 {
					t.Errorf("%q ranked %v, want %v", c.query, got, c.want)
					break
				}
			}
		}
	})

	t.Run("limit", func(t *testing.T) {
		st := open(t)
		src := begin(t, st, "catalogue", nil)
		var chunks []Chunk
		for i := range 120 {
			chunks = append(chunks, Chunk{SourceID: src.ID, Page: 1 + i/10, Seq: i % 10, Text: fmt.Sprintf("capacitor row %d", i)})
		}
		put(t, st, chunks)
		finish(t, st, src.ID, 12, 120)
		for _, c := range [][2]int{{0, 10}, {-1, 10}, {7, 7}, {100, 100}, {500, 100}} {
			if hits := search(t, st, Query{Text: "capacitor", Limit: c[0]}); len(hits) != c[1] {
				t.Errorf("Limit %d gave %d hits, want %d", c[0], len(hits), c[1])
			}
		}
	})

	t.Run("hostile query text", func(t *testing.T) {
		st := open(t)
		ingest(t, st, "doc", nil, "12V to 5V buck converter, 2A output")
		for _, q := range []string{`12V->5V "buck" (2A)`, `"`, `*`, `buck*`, `AND OR NOT`, `NEAR(buck converter)`, `text:buck`,
			`'; DROP TABLE knowledge_chunks; --`, `^buck`, `buck & !converter | (`, `\`, `:*`, `<->`, `{buck}`, `-buck`, `+`, ``, `the of and`, `ÿ̈ 電圧 ∑`} {
			if _, err := st.Search(ctx, Query{Text: q}); err != nil {
				t.Errorf("Search(%q): %v", q, err)
			}
		}
		if hits := search(t, st, Query{Text: `12V->5V "buck" (2A)`}); len(hits) != 1 {
			t.Errorf("the hostile but meaningful query found %d, want 1", len(hits))
		}
		if hits := search(t, st, Query{Text: `buck AND NOT converter`}); len(hits) != 1 {
			t.Errorf("operators are words: %d hits, want 1 (buck, converter; and/not are stop words)", len(hits))
		}
	})

	t.Run("not found", func(t *testing.T) {
		st := open(t)
		missing := "src-0123456789abcdef"
		checks := map[string]error{
			"Source":         func() error { _, err := st.Source(ctx, missing); return err }(),
			"SourceBySHA256": func() error { _, err := st.SourceBySHA256(ctx, hash("nothing")); return err }(),
			"Chunks":         func() error { _, err := st.Chunks(ctx, missing); return err }(),
			"FinishSource":   st.FinishSource(ctx, missing, 1, 1),
			"PutChunks":      st.PutChunks(ctx, []Chunk{{SourceID: missing, Page: 1, Text: "x"}}),
		}
		for name, err := range checks {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("%s of a missing source: %v, want ErrNotFound", name, err)
			}
		}
	})

	t.Run("Chunks in order", func(t *testing.T) {
		st := open(t)
		src := begin(t, st, "doc", nil)
		put(t, st, []Chunk{
			{SourceID: src.ID, Page: 10, Seq: 0, Text: "j"},
			{SourceID: src.ID, Page: 2, Seq: 1, Text: "c"},
			{SourceID: src.ID, Page: 1, Seq: 0, Text: "a"},
			{SourceID: src.ID, Page: 2, Seq: 0, Text: "b"},
		})
		got, err := st.Chunks(ctx, src.ID)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, c := range got {
			order = append(order, c.Text)
		}
		if strings.Join(order, "") != "abcj" {
			t.Errorf("Chunks in order %v, want a b c j", order)
		}
		if empty := begin(t, st, "empty", nil); true {
			if got, err := st.Chunks(ctx, empty.ID); err != nil || got == nil || len(got) != 0 {
				t.Errorf("Chunks of a source without any = %v, %v; want an empty list", got, err)
			}
		}
	})
}

// rankCorpus is ten one-chunk sources with no stop words, so each chunk's
// length in tokens is its word count in both stores: N = 10, the lengths
// sum to 51 (avgdl 5.1), buck is in A, B and D, zener in C and D, ferrite
// in Y only.
var rankCorpus = [][2]string{
	{"A", "buck inductor buck"},
	{"B", "buck alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo"},
	{"D", "buck zener alpha bravo charlie delta"},
	{"Y", "ferrite alpha bravo charlie delta echo"},
	{"C", "zener alpha bravo charlie"},
	{"F1", "mike november oscar papa"},
	{"F2", "quebec romeo sierra tango"},
	{"F3", "uniform victor whiskey xray"},
	{"F4", "yankee zulu mike november"},
	{"F5", "oscar papa quebec romeo"},
}

// bm25Hand is one term's BM25 in a rankCorpus chunk, worked from the
// corpus's figures: tf occurrences in a chunk of dl tokens, the term in df
// of the N = 10 chunks, average length 5.1, k1 = 1.2, b = 0.75.
func bm25Hand(tf, dl, df float64) float64 {
	const n, avgdl, k1, b = 10.0, 5.1, 1.2, 0.75
	idf := math.Log((n - df + 0.5) / (df + 0.5))
	return idf * tf * (k1 + 1) / (tf + k1*(1-b+b*dl/avgdl))
}

type scored struct {
	title string
	score float64
}

func (s scored) String() string { return fmt.Sprintf("%s %.6f", s.title, s.score) }

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func begin(t *testing.T, st Store, title string, tags map[string]string) Source {
	t.Helper()
	src, existed, err := st.BeginSource(context.Background(), Source{SHA256: hash(title), Origin: "inline", Title: title, Format: "text", Tags: tags})
	if err != nil || existed {
		t.Fatalf("BeginSource(%s): existed %v, %v", title, existed, err)
	}
	return src
}

func put(t *testing.T, st Store, chunks []Chunk) {
	t.Helper()
	if err := st.PutChunks(context.Background(), chunks); err != nil {
		t.Fatal(err)
	}
}

func finish(t *testing.T, st Store, id string, pages, chunks int) {
	t.Helper()
	if err := st.FinishSource(context.Background(), id, pages, chunks); err != nil {
		t.Fatal(err)
	}
}

// ingest stores a one-page source whose text is one chunk.
func ingest(t *testing.T, st Store, title string, tags map[string]string, text string) Source {
	t.Helper()
	src := begin(t, st, title, tags)
	chunks := ChunkPage(src.ID, Page{Number: 1, Text: text})
	put(t, st, chunks)
	finish(t, st, src.ID, 1, len(chunks))
	return src
}

func search(t *testing.T, st Store, q Query) []Hit {
	t.Helper()
	hits, err := st.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%q): %v", q.Text, err)
	}
	return hits
}
