package knowledge_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/knowledge/datasheettest"
	"github.com/metaforge/metaforge/protocol"
)

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readAll opens a document and reads every page.
func readAll(t *testing.T, path, format string) (knowledge.Document, []knowledge.Page) {
	t.Helper()
	ctx := context.Background()
	d, err := knowledge.OpenDocument(ctx, path, format)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	pages, err := d.ReadPages(ctx, 1, d.Pages)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return d, pages
}

func TestFormatOf(t *testing.T) {
	for _, c := range []struct{ path, given, want string }{
		{"a/b.PDF", "", "pdf"}, {"x.md", "", "markdown"}, {"x.markdown", "", "markdown"}, {"x.txt", "", "text"},
		{"x.htm", "", "html"}, {"x.html", "", "html"}, {"x.csv", "", "csv"},
		{"notes", "md", "markdown"}, {"x.pdf", "text", "text"}, {"x.bin", " HTML ", "html"},
	} {
		got, err := knowledge.FormatOf(c.path, c.given)
		if err != nil || got != c.want {
			t.Errorf("FormatOf(%q, %q) = %q, %v; want %q", c.path, c.given, got, err, c.want)
		}
	}
	for _, c := range []struct{ path, given string }{{"x.docx", ""}, {"x", ""}, {"x.pdf", "word"}} {
		_, err := knowledge.FormatOf(c.path, c.given)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams || !strings.Contains(err.Error(), "pdf, markdown, text, html, csv") {
			t.Errorf("FormatOf(%q, %q) = %v; want INVALID_PARAMS naming the accepted formats", c.path, c.given, err)
		}
	}
}

func TestReadMarkdownKeepsItsText(t *testing.T) {
	body := "Intro line\n\n# LM2596 notes\n\n| param | value |\n|---|---|\n| Vin max | 40 V |\n"
	d, pages := readAll(t, write(t, t.TempDir(), "notes.md", body), "")
	if d.Format != "markdown" || d.Title != "LM2596 notes" || d.Pages != 1 {
		t.Errorf("document %+v; want markdown titled %q, one page", d, "LM2596 notes")
	}
	if len(pages) != 1 || pages[0].Number != 1 || pages[0].Text != body {
		t.Errorf("pages %+v; want one page with the file's text unchanged", pages)
	}
}

// A document with no title of its own is titled by the name of the file a
// person gave, not by the copy read (an ingest reads a copy named for its
// hash).
func TestReadTextTitledByItsName(t *testing.T) {
	d, pages := readAll(t, write(t, t.TempDir(), "ingest-0123456789abcdef.txt", "run 1: 4.98 V\nrun 2: 5.01 V\n"), "")
	if d.Format != "text" || d.Title != "" || d.TitleOr("/home/me/bench-log.txt") != "bench-log" || len(pages) != 1 || pages[0].Text != "run 1: 4.98 V\nrun 2: 5.01 V\n" {
		t.Errorf("document %+v pages %+v", d, pages)
	}
}

func TestReadHTMLAsReadableText(t *testing.T) {
	body := `<!doctype html><html><head><title>TPS5430 overview</title><style>p{color:red}</style>
<script>var secret = "not text";</script></head>
<body><h1>TPS5430</h1><p>A   3-A step-down
converter, <b>5.5 V</b> to 36 V input.</p>
<!-- a comment -->
<table><tr><th>Parameter</th><th>Max</th></tr><tr><td>Vin</td><td>36 V</td></tr></table>
<ul><li>Item one</li><li>Item two</li></ul><noscript>enable js</noscript>
<pre>keep   these
  spaces</pre></body></html>`
	d, pages := readAll(t, write(t, t.TempDir(), "page.html", body), "")
	// The one HTML reader (HTMLText, which web.fetch uses too): headings
	// as Markdown headings, list items as "- " lines, cells joined by " | ".
	want := strings.Join([]string{
		"# TPS5430",
		"",
		"A 3-A step-down converter, 5.5 V to 36 V input.",
		"",
		"Parameter | Max",
		"Vin | 36 V",
		"",
		"- Item one",
		"- Item two",
		"",
		"keep   these",
		"  spaces",
	}, "\n")
	if d.Title != "TPS5430 overview" || d.Format != "html" {
		t.Errorf("document %+v; want html titled from <title>", d)
	}
	if len(pages) != 1 || pages[0].Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", pages[0].Text, want)
	}
}

func TestReadCSVRowsAsNamedValues(t *testing.T) {
	body := "\xef\xbb\xbfmpn,manufacturer,v_out,notes\nTPS54331,TI,5 V,\n\"LM2596, adj\",onsemi,1.23 V,\"fixed, or adj\",extra\n,,,\n"
	d, pages := readAll(t, write(t, t.TempDir(), "catalogue.csv", body), "")
	want := "mpn: TPS54331; manufacturer: TI; v_out: 5 V\n" +
		"mpn: LM2596, adj; manufacturer: onsemi; v_out: 1.23 V; notes: fixed, or adj; column 5: extra"
	if d.Format != "csv" || d.TitleOr(d.Path) != "catalogue" || len(pages) != 1 || pages[0].Text != want {
		t.Errorf("document %+v text:\n%s\nwant:\n%s", d, pages[0].Text, want)
	}
}

func TestReadPagesOutOfRange(t *testing.T) {
	ctx := context.Background()
	d, err := knowledge.OpenDocument(ctx, write(t, t.TempDir(), "a.txt", "x"), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadPages(ctx, 1, 2); err == nil || !strings.Contains(err.Error(), "pages 1 to 1") {
		t.Errorf("reading page 2 of a one-page document: %v; want an error naming its pages", err)
	}
}

// Each datasheet opens with its page count and title from pdfinfo, and
// its table is read from page 2 with the columns pdftotext -layout keeps.
func TestReadPDFDatasheets(t *testing.T) {
	for _, ds := range datasheettest.Write(t, t.TempDir()) {
		d, pages := readAll(t, ds.Path, "")
		if d.Format != "pdf" || d.Title != ds.Title || d.Pages != ds.Pages || len(pages) != ds.Pages {
			t.Errorf("%s: document %+v with %d pages; want pdf titled %q with %d pages", ds.MPN, d, len(pages), ds.Title, ds.Pages)
			continue
		}
		for i, p := range pages {
			if p.Number != i+1 || strings.Contains(p.Text, "\f") {
				t.Errorf("%s: page %d numbered %d (or holds a form feed)", ds.MPN, i+1, p.Number)
			}
		}
		for _, f := range ds.Figures {
			if !strings.Contains(pages[f.Page-1].Text, f.Name) {
				t.Errorf("%s: figure %q not on page %d", ds.MPN, f.Name, f.Page)
			}
		}
		if !strings.Contains(pages[0].Text, ds.MPN) {
			t.Errorf("%s: page 1 does not name the part:\n%s", ds.MPN, pages[0].Text)
		}
	}
}

// A batch of pages from the middle of a long PDF is numbered as in the
// document, each page with its own marker.
func TestReadPDFBatch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "long.pdf")
	datasheettest.Long(t, path, 40)
	d, err := knowledge.OpenDocument(ctx, path, "pdf")
	if err != nil || d.Pages != 40 {
		t.Fatalf("open: %+v %v; want 40 pages", d, err)
	}
	pages, err := d.ReadPages(ctx, 21, 30)
	if err != nil || len(pages) != 10 {
		t.Fatalf("pages 21-30: %d pages, %v", len(pages), err)
	}
	for i, p := range pages {
		n := 21 + i
		if p.Number != n || !strings.Contains(p.Text, datasheettest.Marker(n)) || strings.Contains(p.Text, datasheettest.Marker(n+1)) {
			t.Errorf("page %d (numbered %d) does not carry its own marker only:\n%s", n, p.Number, p.Text)
		}
	}
}

// A PDF that needs a password to open, and a file that is no PDF, are
// refused with what to do; neither is read as empty.
func TestReadPDFRefusals(t *testing.T) {
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked.pdf")
	script := `import sys
from reportlab.pdfgen import canvas
from reportlab.lib import pdfencrypt
c = canvas.Canvas(sys.argv[1], encrypt=pdfencrypt.StandardEncryption("secret", ownerPassword="owner"))
c.drawString(72, 720, "locked text"); c.showPage(); c.save()
`
	if out, err := exec.Command("python3", "-c", script, locked).CombinedOutput(); err != nil {
		t.Fatalf("make an encrypted PDF with reportlab (deploy/test-deps.sh installs it): %v\n%s", err, out)
	}
	notPDF := write(t, dir, "fake.pdf", "this is not a PDF at all")
	for _, c := range []struct{ path, want string }{
		{locked, "encrypted PDF that needs a password"},
		{notPDF, "cannot be read as a PDF"},
	} {
		_, err := knowledge.OpenDocument(context.Background(), c.path, "")
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.ToolExecutionError || !strings.Contains(err.Error(), c.want) {
			t.Errorf("open %s: %v; want a refusal saying %q", filepath.Base(c.path), err, c.want)
		}
	}
}
