package knowledge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// The formats a document is read in.
const (
	FormatPDF      = "pdf"
	FormatMarkdown = "markdown"
	FormatText     = "text"
	FormatHTML     = "html"
	FormatCSV      = "csv"
)

// Formats are the accepted formats, in the order an error names them.
var Formats = []string{FormatPDF, FormatMarkdown, FormatText, FormatHTML, FormatCSV}

// formatByExt maps a file's extension to its format.
var formatByExt = map[string]string{
	".pdf": FormatPDF,
	".md":  FormatMarkdown, ".markdown": FormatMarkdown,
	".txt": FormatText, ".text": FormatText,
	".html": FormatHTML, ".htm": FormatHTML,
	".csv": FormatCSV,
}

// FormatOf is the format a document is read in: the one given (checked),
// else the one its extension names. Neither: an error naming the accepted
// formats, so the caller can say which it is.
func FormatOf(path, given string) (string, error) {
	if g := strings.ToLower(strings.TrimSpace(given)); g != "" {
		switch g {
		case "md":
			g = FormatMarkdown
		case "txt":
			g = FormatText
		case "htm":
			g = FormatHTML
		}
		for _, f := range Formats {
			if f == g {
				return f, nil
			}
		}
		return "", protocol.Invalid("format %q is not one the knowledge base reads; give one of %s", given, strings.Join(Formats, ", "))
	}
	ext := strings.ToLower(filepath.Ext(path))
	if f, ok := formatByExt[ext]; ok {
		return f, nil
	}
	return "", protocol.Invalid("%s: the extension %q names no format the knowledge base reads; give format, one of %s "+
		"(extensions .pdf, .md, .markdown, .txt, .text, .html, .htm, .csv)", filepath.Base(path), ext, strings.Join(Formats, ", "))
}

// Document is a file opened for reading page by page: its format, title
// and page count are known before any page is read, so an ingest can
// read a long PDF a batch of pages at a time.
type Document struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// Title is the document's own (the PDF's, Markdown's first "# ",
	// HTML's <title>); "" when it has none: TitleOr names it then.
	Title string `json:"title"`
	Pages int    `json:"pages"`
}

// TitleOr is the document's own title, or else the name of the file it
// came from without its extension. The file opened may be a copy named
// for its hash, so the caller says which name a person knows it by.
func (d Document) TitleOr(origin string) string {
	if strings.TrimSpace(d.Title) != "" {
		return d.Title
	}
	return strings.TrimSuffix(filepath.Base(origin), filepath.Ext(origin))
}

// OpenDocument opens a file in a format (FormatOf's): for a PDF it asks
// pdfinfo for the page count and title and refuses an encrypted or
// unreadable one; any other format is one page, titled by its own
// heading (Markdown's first "# ", HTML's <title>), or untitled.
func OpenDocument(ctx context.Context, path, format string) (Document, error) {
	f, err := FormatOf(path, format)
	if err != nil {
		return Document{}, err
	}
	d := Document{Path: path, Format: f, Pages: 1}
	if f == FormatPDF {
		info, err := pdfInfo(ctx, path)
		if err != nil {
			return Document{}, err
		}
		d.Pages, d.Title = info.pages, info.title
	} else {
		data, err := readWhole(path)
		if err != nil {
			return Document{}, err
		}
		switch f {
		case FormatMarkdown:
			d.Title = markdownTitle(string(data))
		case FormatHTML:
			d.Title, _ = HTMLText(string(data), nil)
		}
	}
	return d, nil
}

// ReadPages reads pages first to last (from 1, inclusive) of the
// document. A one-page format reads its whole text as page 1.
func (d Document) ReadPages(ctx context.Context, first, last int) ([]Page, error) {
	if first < 1 || last < first || last > d.Pages {
		return nil, fmt.Errorf("pages %d to %d of %s: it has pages 1 to %d", first, last, d.Path, d.Pages)
	}
	if d.Format == FormatPDF {
		return pdfPages(ctx, d.Path, first, last)
	}
	data, err := readWhole(d.Path)
	if err != nil {
		return nil, err
	}
	var text string
	switch d.Format {
	case FormatHTML:
		_, text = HTMLText(string(data), nil)
	case FormatCSV:
		if text, err = csvText(data); err != nil {
			return nil, protocol.Refusal("%s is not a readable CSV file: %v", filepath.Base(d.Path), err)
		}
	default:
		// Markdown keeps its text: its headings and tables are what a
		// reader (and a search snippet) wants to see.
		text = string(data)
	}
	return []Page{{Number: 1, Text: text}}, nil
}

func readWhole(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, protocol.Refusal("%s cannot be read: %v", path, err)
	}
	return data, nil
}

// markdownTitle is the text of the first level-one heading.
func markdownTitle(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}
