package knowledge

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// A PDF is read by poppler's programs (poppler-utils): pdfinfo for its
// page count and title, pdftotext -layout for its text, which keeps a
// datasheet's table columns lined up. Each run has a deadline, so a
// pathological file cannot hold an ingest forever.
const (
	pdfInfoTimeout = 30 * time.Second
	// pdfTextTimeout bounds one pdftotext run (a batch of pages).
	pdfTextTimeout = 2 * time.Minute
)

type pdfMeta struct {
	pages int
	title string
}

// pdfInfo asks pdfinfo for the page count and title. A PDF that needs a
// password to open and a file poppler cannot parse are refused with what
// to do. One encrypted with an owner password only (many vendors'
// datasheets, copying "forbidden") opens without one, and poppler reads
// its text: it is read.
func pdfInfo(ctx context.Context, path string) (pdfMeta, error) {
	out, err := runPoppler(ctx, pdfInfoTimeout, "pdfinfo", "-enc", "UTF-8", path)
	if err != nil {
		return pdfMeta{}, err
	}
	var m pdfMeta
	for _, line := range strings.Split(string(out), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "Title":
			m.title = val
		case "Pages":
			m.pages, _ = strconv.Atoi(val)
		}
	}
	if m.pages < 1 {
		return pdfMeta{}, protocol.Refusal("%s has no pages pdfinfo can count; is it a PDF? (pdfinfo said: %s)",
			filepath.Base(path), strings.TrimSpace(string(out)))
	}
	return m, nil
}

// pdfPages runs pdftotext -layout over pages first to last. pdftotext
// ends each page with a form feed, so the pages are the pieces between
// them, numbered from first; an empty page stays an empty page, keeping
// the numbering.
func pdfPages(ctx context.Context, path string, first, last int) ([]Page, error) {
	out, err := runPoppler(ctx, pdfTextTimeout, "pdftotext", "-layout", "-enc", "UTF-8",
		"-f", strconv.Itoa(first), "-l", strconv.Itoa(last), path, "-")
	if err != nil {
		return nil, err
	}
	pieces := strings.Split(string(out), "\f")
	want := last - first + 1
	if len(pieces) > want && strings.TrimSpace(strings.Join(pieces[want:], "")) == "" {
		pieces = pieces[:want]
	}
	if len(pieces) != want {
		return nil, protocol.Refusal("pdftotext gave %d pages of %s for pages %d to %d, not %d: the file may be damaged; "+
			"repair it (qpdf in.pdf out.pdf) and ingest the copy", len(pieces), filepath.Base(path), first, last, want)
	}
	pages := make([]Page, want)
	for i, text := range pieces {
		pages[i] = Page{Number: first + i, Text: text}
	}
	return pages, nil
}

// runPoppler runs one of poppler's programs with a deadline and returns
// its standard output; its standard error is the reason when it fails.
func runPoppler(ctx context.Context, timeout time.Duration, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	file := filepath.Base(args[len(args)-1])
	if name == "pdftotext" {
		file = filepath.Base(args[len(args)-2])
	}
	if errors.Is(err, exec.ErrNotFound) {
		return nil, protocol.Unavailable("%s is not installed: install poppler-utils (apt-get install poppler-utils) to read PDFs", name)
	}
	if ctx.Err() == context.DeadlineExceeded {
		return nil, protocol.Transient("%s took longer than %s on %s", name, timeout, file)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	why := strings.TrimSpace(stderr.String())
	switch {
	case strings.Contains(why, "Incorrect password"):
		return nil, protocol.Refusal("%s is an encrypted PDF that needs a password to open: ingest a decrypted copy "+
			"(qpdf --password=... --decrypt in.pdf out.pdf)", file)
	case why == "":
		why = err.Error()
	}
	return nil, protocol.Refusal("%s cannot be read as a PDF (%s said: %s): check it opens in a PDF viewer, or repair it (qpdf in.pdf out.pdf)",
		file, name, why)
}
