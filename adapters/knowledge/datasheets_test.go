package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kb "github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/knowledge/datasheettest"
	"github.com/metaforge/metaforge/ledger/pgtest"
)

// A knowledge base of real datasheets in a real SQLite store: the three
// datasheettest PDFs read by pdftotext, chunked and stored as an ingest
// stores them, tagged as a person would tag them, and an application
// note in Markdown that names the buck converter but has no table.
type library struct {
	store  kb.Store
	sheets map[string]datasheettest.Datasheet
	ids    map[string]string // MPN or "appnote" -> source ID
}

// appNote is tagged with the buck converter's MPN but for another
// purchase unit, and is ingested last (the newest source).
const appNote = `# MFB2307 on the rover power board

The rover lab steps its 24 V battery bus down to 5 V with the MFB2307 buck
converter, at up to 2 A for the cameras and the radio. The layout follows the
datasheet's guidance on the input loop.
`

func newLibrary(t *testing.T) *library {
	t.Helper()
	store, err := kb.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "knowledge.db"))
	if err != nil {
		t.Fatal(err)
	}
	return fill(t, store)
}

// newPostgresLibrary is the same library in the PostgreSQL store, in a
// database of its own.
func newPostgresLibrary(t *testing.T) *library {
	t.Helper()
	store, err := kb.OpenPostgres(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	return fill(t, store)
}

func fill(t *testing.T, store kb.Store) *library {
	t.Helper()
	t.Cleanup(func() { store.Close() })
	lib := &library{store: store, sheets: map[string]datasheettest.Datasheet{}, ids: map[string]string{}}
	dir := t.TempDir()
	for _, d := range datasheettest.Write(t, dir) {
		lib.sheets[d.MPN] = d
		tags := map[string]string{"manufacturer": d.Manufacturer, "category": d.Category}
		switch d.MPN {
		case "MFB2307":
			tags["mpn"], tags["purchase_unit"] = "MFB2307", "drone-lab"
		case "MFL1117":
			// Tagged in lower case: the MPN matches letter case aside.
			tags["mpn"], tags["purchase_unit"] = "mfl1117", "drone-lab"
		}
		// MFA358 has no mpn tag and no purchase unit: it is found by
		// its text.
		lib.ids[d.MPN] = ingest(t, store, d.Path, tags)
	}
	note := filepath.Join(dir, "rover-note.md")
	if err := os.WriteFile(note, []byte(appNote), 0o644); err != nil {
		t.Fatal(err)
	}
	lib.ids["appnote"] = ingest(t, store, note, map[string]string{"mpn": "MFB2307", "purchase_unit": "rover-lab"})
	return lib
}

// ingest stores a file as knowledge.ingest does: its pages read, each
// page chunked, the source finished with its counts.
func ingest(t *testing.T, store kb.Store, path string, tags map[string]string) string {
	t.Helper()
	ctx := context.Background()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	doc, err := kb.OpenDocument(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	src, existed, err := store.BeginSource(ctx, kb.Source{
		SHA256: hex.EncodeToString(sum[:]), Origin: path, Title: doc.Title, Format: doc.Format,
		Tags: tags, Bytes: int64(len(data)),
	})
	if err != nil || existed {
		t.Fatalf("BeginSource %s: existed %v, %v", path, existed, err)
	}
	pages, err := doc.ReadPages(ctx, 1, doc.Pages)
	if err != nil {
		t.Fatal(err)
	}
	var chunks []kb.Chunk
	for _, p := range pages {
		chunks = append(chunks, kb.ChunkPage(src.ID, p)...)
	}
	if err := store.PutChunks(ctx, chunks); err != nil {
		t.Fatal(err)
	}
	if err := store.FinishSource(ctx, src.ID, doc.Pages, len(chunks)); err != nil {
		t.Fatal(err)
	}
	return src.ID
}

func showNumber(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

// figureLines are figures one per line, to compare and to show.
func figureLines(figures []kb.Figure) string {
	var b strings.Builder
	for _, f := range figures {
		fmt.Fprintf(&b, "p%d %q %q %q min=%s typ=%s max=%s %q\n", f.Page, f.Name, f.Symbol, f.Conditions, showNumber(f.Min), showNumber(f.Typ), showNumber(f.Max), f.Unit)
	}
	return b.String()
}

func wantLines(figures []datasheettest.Figure) string {
	var out []kb.Figure
	for _, f := range figures {
		out = append(out, kb.Figure{Name: f.Name, Symbol: f.Symbol, Conditions: f.Conditions, Min: f.Min, Typ: f.Typ, Max: f.Max, Unit: f.Unit, Page: f.Page})
	}
	return figureLines(out)
}
