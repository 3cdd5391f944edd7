package webfetch_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/internal/webfetch"
	"github.com/metaforge/metaforge/protocol"
)

const datasheetPage = `<!doctype html>
<html><head><title>LM2596 | Buck converter  datasheet</title>
<style>body { color: red }</style><script>var secret = "script text";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/products">Products</a></nav>
<h1>LM2596 step-down regulator</h1>
<p>The LM2596 is a   3 A
 <b>step-down</b> switching regulator.</p>
<div hidden>hidden text</div>
<h2>Features</h2>
<ul><li>Output 3.3 V, 5 V, 12 V</li><li>Efficiency <em>up to</em> 90%</li></ul>
<table><tr><th>Parameter</th><th>Min</th><th>Max</th><th>Unit</th></tr>
<tr><td>V<sub>IN</sub></td><td>4.5</td><td>40</td><td>V</td></tr></table>
<p><a href="docs/lm2596.pdf">Download the datasheet</a></p>
<pre>  Vout = Vref (1 + R2/R1)
    Vref = 1.23 V</pre>
</body></html>`

func TestFetchReadsHTMLAsText(t *testing.T) {
	h := newHarness(t)
	h.mux.HandleFunc("/lm2596", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(datasheetPage))
	})
	h.mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/lm2596", http.StatusMovedPermanently)
	})
	f := h.fetcher(webfetch.Options{})
	doc, err := f.Fetch(context.Background(), "http://datasheets.example/old#features", 0)
	if err != nil {
		t.Fatal(err)
	}
	if doc.URL != "http://datasheets.example/old" || doc.FinalURL != "http://datasheets.example/lm2596" {
		t.Errorf("url %q final_url %q", doc.URL, doc.FinalURL)
	}
	if doc.ContentType != "text/html" || doc.Title != "LM2596 | Buck converter datasheet" || doc.Truncated {
		t.Errorf("content_type %q title %q truncated %v", doc.ContentType, doc.Title, doc.Truncated)
	}
	want := strings.Join([]string{
		"# LM2596 step-down regulator",
		"",
		"The LM2596 is a 3 A step-down switching regulator.",
		"",
		"## Features",
		"",
		"- Output 3.3 V, 5 V, 12 V",
		"- Efficiency up to 90%",
		"",
		"Parameter | Min | Max | Unit",
		"VIN | 4.5 | 40 | V",
		"",
		"Download the datasheet <http://datasheets.example/docs/lm2596.pdf>",
		"",
		"  Vout = Vref (1 + R2/R1)",
		"    Vref = 1.23 V",
	}, "\n")
	if doc.Text != want {
		t.Errorf("text:\n%s\n--- want:\n%s", doc.Text, want)
	}
	for _, gone := range []string{"script text", "color: red", "Home", "Products", "hidden text"} {
		if strings.Contains(doc.Text, gone) {
			t.Errorf("the text keeps %q", gone)
		}
	}
	if doc.Bytes != int64(len(datasheetPage)) {
		t.Errorf("bytes %d, want %d", doc.Bytes, len(datasheetPage))
	}
}

// HTML past the cap is read to the cap and said to be truncated, in the
// text and in the flag.
func TestFetchCapsHTMLAndSaysSo(t *testing.T) {
	h := newHarness(t)
	h.mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>" + strings.Repeat("word ", 1000) + "</p><p>END-MARKER</p>"))
	})
	f := h.fetcher(webfetch.Options{MaxTextBytes: 1000})
	doc, err := f.Fetch(context.Background(), "http://datasheets.example/long", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Truncated || doc.Bytes != 1000 {
		t.Errorf("truncated %v bytes %d; want true, 1000", doc.Truncated, doc.Bytes)
	}
	if strings.Contains(doc.Text, "END-MARKER") {
		t.Error("text past the cap was read")
	}
	if !strings.HasSuffix(doc.Text, "[The page is larger than 1000 bytes; only its first 1000 bytes were read, so the text ends early.]") {
		t.Errorf("the text does not end with the truncation note: ...%q", doc.Text[max(0, len(doc.Text)-150):])
	}
}

func TestFetchRefusesHTTPErrorsAndUnreadableTypes(t *testing.T) {
	h := newHarness(t)
	h.mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n...."))
	})
	h.mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusBadGateway) })
	f := h.fetcher(webfetch.Options{})
	_, err := f.Fetch(context.Background(), "http://datasheets.example/missing", 0)
	refusedWith(t, err, protocol.ToolExecutionError, "answered HTTP 404 Not Found")
	_, err = f.Fetch(context.Background(), "http://datasheets.example/image.png", 0)
	refusedWith(t, err, protocol.ToolExecutionError, "is image/png, which web.fetch does not read")
	_, err = f.Fetch(context.Background(), "http://datasheets.example/broken", 0)
	refusedWith(t, err, protocol.ToolExecutionError, "HTTP 502 Bad Gateway; try again later")
	if pe := err.(*protocol.Error); !pe.Retryable {
		t.Error("a 502 should be retryable")
	}
	_, err = f.Fetch(context.Background(), "http://nowhere.example/", 0)
	refusedWith(t, err, protocol.ToolExecutionError, "cannot resolve nowhere.example: no such host")
	_, err = f.Fetch(context.Background(), "http://datasheets.example/", webfetch.MaxPages+1)
	refusedWith(t, err, protocol.InvalidParams, "max_pages must be between 1 and 2000")
}

func TestFetchReadsPDFUpToMaxPages(t *testing.T) {
	pages := []string{
		"LM2596 SIMPLE SWITCHER\nPage one: overview",
		"Electrical characteristics\nVIN 4.5 V to 40 V",
		"Page three: typical application",
		"Page four: layout",
		"Page five: package drawings",
	}
	pdf := makePDF(t, pages, "", "")
	h := newHarness(t)
	h.mux.HandleFunc("/lm2596.pdf", func(w http.ResponseWriter, r *http.Request) {
		// Datasheet servers often say octet-stream: the signature decides.
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(pdf)
	})
	f := h.fetcher(webfetch.Options{TempDir: t.TempDir()})
	doc, err := f.Fetch(context.Background(), "http://datasheets.example/lm2596.pdf", 2)
	if err != nil {
		t.Fatal(err)
	}
	if doc.ContentType != "application/pdf" || doc.PagesRead != 2 || doc.PagesTotal != 5 || !doc.Truncated || doc.Title != "LM2596 datasheet" {
		t.Errorf("content_type %q pages %d/%d truncated %v title %q", doc.ContentType, doc.PagesRead, doc.PagesTotal, doc.Truncated, doc.Title)
	}
	for _, in := range []string{"--- page 1 of 5 ---", "Page one: overview", "--- page 2 of 5 ---", "VIN 4.5 V to 40 V",
		"[Pages 3-5 of 5 were not read (max_pages=2); call again with max_pages=5 to read them all.]"} {
		if !strings.Contains(doc.Text, in) {
			t.Errorf("the text lacks %q:\n%s", in, doc.Text)
		}
	}
	for _, out := range []string{"Page three", "page 3 of 5"} {
		if strings.Contains(doc.Text, out) {
			t.Errorf("the text has %q from a page past max_pages", out)
		}
	}
	if doc.Bytes != int64(len(pdf)) {
		t.Errorf("bytes %d, want the whole PDF's %d", doc.Bytes, len(pdf))
	}

	// The default reads up to 30 pages: all five, nothing said skipped.
	doc, err = f.Fetch(context.Background(), "http://datasheets.example/lm2596.pdf", 0)
	if err != nil {
		t.Fatal(err)
	}
	if doc.PagesRead != 5 || doc.PagesTotal != 5 || doc.Truncated || !strings.Contains(doc.Text, "Page five: package drawings") || strings.Contains(doc.Text, "not read") {
		t.Errorf("pages %d/%d truncated %v; text:\n%s", doc.PagesRead, doc.PagesTotal, doc.Truncated, doc.Text)
	}
}

// A PDF over the byte cap is refused whole (never cut); one that needs a
// password, or has no text (a scan), is refused with the reason; one
// encrypted with permissions only opens without a password and is read.
func TestFetchRefusesPDFsItCannotRead(t *testing.T) {
	plain := makePDF(t, []string{"Page one text", "Page two text"}, "", "")
	locked := makePDF(t, []string{"Secret page"}, "secret", "owner")
	restricted := makePDF(t, []string{"Restricted page text"}, "", "owner")
	scanned := makePDF(t, []string{"", ""}, "", "")
	h := newHarness(t)
	serve := func(path string, data []byte) {
		h.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(data)
		})
	}
	serve("/plain.pdf", plain)
	serve("/locked.pdf", locked)
	serve("/restricted.pdf", restricted)
	serve("/scanned.pdf", scanned)
	serve("/not-a.pdf", []byte("%PDF-1.4 this is no PDF at all"))

	small := h.fetcher(webfetch.Options{MaxPDFBytes: int64(len(plain) - 1), TempDir: t.TempDir()})
	_, err := small.Fetch(context.Background(), "http://datasheets.example/plain.pdf", 0)
	refusedWith(t, err, protocol.ToolExecutionError, "over web.fetch's", "never cut short")

	f := h.fetcher(webfetch.Options{TempDir: t.TempDir()})
	_, err = f.Fetch(context.Background(), "http://datasheets.example/locked.pdf", 0)
	refusedWith(t, err, protocol.ToolExecutionError, "locked.pdf is an encrypted PDF that needs a password to open")
	_, err = f.Fetch(context.Background(), "http://datasheets.example/scanned.pdf", 0)
	refusedWith(t, err, protocol.ToolExecutionError, "no text in pages 1-2 (a scanned document?)", "does not OCR")
	_, err = f.Fetch(context.Background(), "http://datasheets.example/not-a.pdf", 0)
	refusedWith(t, err, protocol.ToolExecutionError, "not-a.pdf cannot be read as a PDF")

	doc, err := f.Fetch(context.Background(), "http://datasheets.example/restricted.pdf", 0)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "--- page 1 of 1 ---\nRestricted page text" || doc.Truncated {
		t.Errorf("text %q truncated %v", doc.Text, doc.Truncated)
	}
}
