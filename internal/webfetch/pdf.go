package webfetch

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// readPDF reads a whole downloaded PDF as the knowledge base reads one
// (knowledge.OpenDocument: poppler's pdfinfo for the page count and
// title, pdftotext -layout for the text), so a fetched datasheet reads
// as the same file ingested would. Pages 1 to maxPages are read; when
// pages are left, the text says so itself, as do Notes and Truncated. A
// PDF that needs a password, or has no text in the pages read (a scan:
// web.fetch does no OCR), is refused with why. The text is capped at
// textCap bytes, said so when cut.
func readPDF(ctx context.Context, tempDir string, final *url.URL, data []byte, maxPages int, textCap int64, doc *Document) error {
	dir, err := os.MkdirTemp(tempDir, "webfetch-pdf-")
	if err != nil {
		return protocol.Transient("web.fetch cannot make a folder for the PDF: %v", err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, pdfFileName(final))
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return protocol.Transient("web.fetch cannot write the PDF for reading: %v", err)
	}

	pdf, err := knowledge.OpenDocument(ctx, file, knowledge.FormatPDF)
	if err != nil {
		return err
	}
	read := min(maxPages, pdf.Pages)
	pages, err := pdf.ReadPages(ctx, 1, read)
	if err != nil {
		return err
	}
	var b strings.Builder
	withText := 0
	for _, p := range pages {
		text := strings.Trim(p.Text, "\n")
		if strings.TrimSpace(text) != "" {
			withText++
		}
		fmt.Fprintf(&b, "--- page %d of %d ---\n%s\n\n", p.Number, pdf.Pages, text)
	}
	if withText == 0 {
		return protocol.Refusal("%s is a PDF with no text in pages 1-%d (a scanned document?); web.fetch does not OCR, so it cannot read it", doc.FinalURL, read)
	}
	doc.Title, doc.PagesRead, doc.PagesTotal = pdf.Title, read, pdf.Pages
	text := strings.TrimSpace(b.String())
	if int64(len(text)) > textCap {
		text = strings.ToValidUTF8(text[:textCap], "")
		doc.Truncated = true
		note := fmt.Sprintf("The text of pages 1-%d is longer than %d bytes; it was cut there. Ask for fewer pages with max_pages.", read, textCap)
		doc.Notes = append(doc.Notes, note)
		text += "\n\n[" + note + "]"
	}
	if read < pdf.Pages {
		doc.Truncated = true
		note := fmt.Sprintf("Pages %d-%d of %d were not read (max_pages=%d); call again with max_pages=%d to read them all.", read+1, pdf.Pages, pdf.Pages, maxPages, pdf.Pages)
		doc.Notes = append(doc.Notes, note)
		text += "\n\n[" + note + "]"
	}
	doc.Text = text
	return nil
}

// unsafeNameChars are what a file name made from a URL may not hold.
var unsafeNameChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// pdfFileName is the name the PDF is written under: the URL's own file
// name, which the knowledge reader titles a PDF without a title by.
func pdfFileName(u *url.URL) string {
	name := strings.TrimSuffix(unsafeNameChars.ReplaceAllString(path.Base(u.Path), "_"), ".pdf")
	name = strings.Trim(name, "._-")
	if name == "" {
		name = "document"
	}
	if len(name) > 100 {
		name = name[:100]
	}
	return name + ".pdf"
}
