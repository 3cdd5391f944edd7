package webfetch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

const installPoppler = "install poppler-utils (apt-get install poppler-utils), which provides pdfinfo and pdftotext"

// pdfTextCap is how much text pdftotext's output may be (the solver
// runtime keeps this much of a program's output); past it the text is
// said to be truncated.
const pdfTextCap = 1 << 20

// readPDF reads a whole downloaded PDF with poppler, in the solver
// runtime the call runs in (a sandbox where the deployment chose one, for
// a PDF from the web is untrusted input): pdfinfo for its page count and
// encryption, then pdftotext -layout on pages 1 to maxPages. It fills
// doc's title, text and page figures, saying in the text itself when
// pages were left unread. A PDF that needs a password, or has no text in
// the pages read (a scan: web.fetch does no OCR), is refused with why.
func readPDF(ctx context.Context, tempDir string, data []byte, maxPages int, doc *Document) error {
	dir, err := os.MkdirTemp(tempDir, "webfetch-pdf-")
	if err != nil {
		return protocol.Transient("web.fetch cannot make a folder for the PDF: %v", err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "document.pdf")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return protocol.Transient("web.fetch cannot write the PDF for reading: %v", err)
	}

	info, err := solver.Run(ctx, solver.Command{Binary: "pdfinfo", Args: []string{"-enc", "UTF-8", file}, Dir: dir, Install: installPoppler})
	if err != nil {
		return err
	}
	if info.ExitCode != 0 {
		msg := firstLine(info.Stderr)
		if strings.Contains(strings.ToLower(msg), "password") {
			return protocol.Refusal("%s is an encrypted PDF that needs a password to open (%s); web.fetch cannot read it", doc.FinalURL, msg)
		}
		return protocol.Refusal("%s is not a readable PDF: pdfinfo says %q", doc.FinalURL, msg)
	}
	fields := pdfInfoFields(info.Stdout)
	total, err := strconv.Atoi(fields["Pages"])
	if err != nil || total < 1 {
		return protocol.Refusal("%s is a PDF with no pages pdfinfo can count (Pages: %q)", doc.FinalURL, fields["Pages"])
	}
	if t := fields["Title"]; t != "" && !strings.EqualFold(t, "untitled") {
		doc.Title = t
	}
	if enc := fields["Encrypted"]; strings.HasPrefix(enc, "yes") {
		// Opened without a password: only its permissions are restricted,
		// and pdftotext reads it as any viewer shows it.
		doc.Notes = append(doc.Notes, "The PDF is encrypted with permissions only ("+strings.Trim(strings.TrimPrefix(enc, "yes"), " ()")+"); it opens without a password and its text was read.")
	}

	read := min(maxPages, total)
	out, err := solver.Run(ctx, solver.Command{
		Binary: "pdftotext", Args: []string{"-layout", "-enc", "UTF-8", "-f", "1", "-l", strconv.Itoa(read), file, "-"},
		Dir: dir, Install: installPoppler, TimeoutHint: "ask for fewer pages with max_pages",
	})
	if err != nil {
		return err
	}
	if out.ExitCode != 0 {
		return protocol.Refusal("%s: pdftotext could not read the PDF: %s", doc.FinalURL, firstLine(out.Stderr))
	}
	pages := strings.Split(strings.TrimRight(out.Stdout, "\f"), "\f")
	var b strings.Builder
	withText := 0
	for i, p := range pages {
		p = strings.Trim(p, "\n")
		if strings.TrimSpace(p) != "" {
			withText++
		}
		fmt.Fprintf(&b, "--- page %d of %d ---\n%s\n\n", i+1, total, p)
	}
	if withText == 0 {
		return protocol.Refusal("%s is a PDF with no text in pages 1-%d (a scanned document?); web.fetch does not OCR, so it cannot read it", doc.FinalURL, read)
	}
	doc.PagesRead, doc.PagesTotal = read, total
	if len(out.Stdout) >= pdfTextCap {
		doc.Truncated = true
		note := fmt.Sprintf("The text of pages 1-%d is longer than %d bytes; it was cut there. Ask for fewer pages with max_pages.", read, pdfTextCap)
		doc.Notes = append(doc.Notes, note)
		b.WriteString("[" + note + "]\n")
	}
	if read < total {
		doc.Truncated = true
		note := fmt.Sprintf("Pages %d-%d of %d were not read (max_pages=%d); call again with max_pages=%d to read them all.", read+1, total, total, maxPages, total)
		doc.Notes = append(doc.Notes, note)
		b.WriteString("[" + note + "]\n")
	}
	doc.Text = strings.TrimSpace(b.String())
	return nil
}

// pdfInfoFields are pdfinfo's "Name: value" lines.
func pdfInfoFields(out string) map[string]string {
	fields := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return fields
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return "no message"
	}
	return s
}
