package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/metaforge/metaforge/adapters"
	kb "github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// ToolIngest indexes a document into the knowledge base.
const ToolIngest = "knowledge.ingest"

// maxIngestBytes caps a document read into memory to be hashed and kept:
// a datasheet is a few megabytes, a full reference manual a few dozen.
const maxIngestBytes = 256 << 20

// The tag keys the knowledge tools read; any other key is kept too.
var documentedTags = []string{"purchase_unit", "category", "mpn", "manufacturer"}

type ingestArgs struct {
	FilePath string            `json:"file_path,omitempty" jsonschema:"A document under the server's read roots (or a path a tool returned): .pdf, .md, .markdown, .txt, .text, .html, .htm or .csv. Give this or text."`
	Text     string            `json:"text,omitempty" jsonschema:"The document itself, inline (with title). Give this or file_path."`
	Title    string            `json:"title,omitempty" jsonschema:"The source's title: required with text; for a file, replaces the one read from it (a PDF's title, a Markdown or HTML heading, else the file name)."`
	Format   string            `json:"format,omitempty" jsonschema:"pdf, markdown, text, html or csv; default: from the file's extension, text for inline text."`
	Tags     map[string]string `json:"tags,omitempty" jsonschema:"Labels the source is filtered by (knowledge.search tags, knowledge.populate_bom): purchase_unit (what a buyer orders: component, module, assembly), category (buck_converter, ldo, op_amp ...), mpn (the manufacturer part number the document is the datasheet of), manufacturer, and any other key. Keys are lower-cased."`
}

var ingestTool = adapters.Declare(adapters.Manifest{
	ToolID:     ToolIngest,
	Name:       "Ingest a document into the knowledge base",
	Capability: "knowledge_ingest",
	Description: "Index a document so knowledge.search finds its passages: a file under the read roots (PDF through poppler's " +
		"pdftotext -layout, which keeps a datasheet's table columns; Markdown, plain text, HTML as readable text, CSV with each row " +
		"as 'column: value; ...') or inline text with a title. The text is split into passages that never span pages, each keeping " +
		"its page number, and stored with the source's content hash, tags and ingest time. The same bytes already indexed are not " +
		"indexed again: the answer says already_indexed true, with the source's id, at once. Otherwise the ingest runs as a durable " +
		"process, a batch of pages at a time (a 300-page PDF survives a restart mid-ingest and is indexed once), and the call answers " +
		"when it is indexed: {source_id, title, origin, format, sha256, tags, pages, chunks, bytes, ingested_at, already_indexed, note}. " +
		"A PDF that needs a password, a file in another format, or one that cannot be read is refused and nothing is stored. The search " +
		"is full text ranked by BM25, not semantic: search with the words the document uses.",
	Idempotent: true, TimeoutSeconds: 1800,
}, method((*Adapter).ingestDocument),
	adapters.At("format", adapters.Enum("pdf", "markdown", "text", "html", "csv")),
	adapters.At("title", adapters.MaxLength(300)),
	adapters.At("file_path", adapters.MinLength(1)),
	adapters.At("text", adapters.MinLength(1)))

// ingestAnswer is the answer when the bytes were already indexed: the
// indexed source, and that nothing was done.
type ingestAnswer struct {
	SourceID       string            `json:"source_id"`
	Title          string            `json:"title"`
	Origin         string            `json:"origin"`
	Format         string            `json:"format"`
	SHA256         string            `json:"sha256"`
	Tags           map[string]string `json:"tags"`
	Pages          int               `json:"pages"`
	Chunks         int               `json:"chunks"`
	Bytes          int64             `json:"bytes"`
	IngestedAt     string            `json:"ingested_at"`
	AlreadyIndexed bool              `json:"already_indexed"`
	Note           string            `json:"note"`
}

// ingestDocument checks the document (its place, its format, that it
// opens), answers at once when its bytes are indexed, and otherwise keeps
// the call's copy and hands the ingest to its durable process.
func (a *Adapter) ingestDocument(ctx context.Context, in ingestArgs) (any, error) {
	if a.store == nil {
		return nil, errNoStore
	}
	data, origin, ext, err := a.documentBytes(in)
	if err != nil {
		return nil, err
	}
	format, err := kb.FormatOf("document"+ext, in.Format)
	if err != nil {
		return nil, err
	}
	tags, err := ingestTags(in.Tags)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	if src, err := a.store.SourceBySHA256(ctx, sha); err == nil && src.State == kb.StateIndexed {
		return alreadyIndexed(src, origin), nil
	} else if err != nil && !errors.Is(err, kb.ErrNotFound) {
		return nil, protocol.Transient("the knowledge base cannot be read (%s): %v", a.store.Describe(), err)
	}
	if a.ingest == nil {
		return nil, protocol.Unavailable("an ingest runs as a durable process, which needs Temporal; this server is not connected to it")
	}
	if a.files == nil {
		return nil, protocol.Unavailable("this server has no workspace to keep the ingest's copy of the document in")
	}
	file, err := a.keepForCall(ctx, data, sha, format)
	if err != nil {
		return nil, err
	}
	if err := checkReadable(ctx, file, format, origin); err != nil {
		return nil, err
	}
	proc, err := a.ingest.IngestProcess(IngestCall{CallID: adapters.CallInfoFrom(ctx).CallID, File: file, SHA256: sha, Origin: origin,
		Title: strings.TrimSpace(in.Title), Format: format, Tags: tags})
	if err != nil {
		return nil, err
	}
	return &adapters.Result{Process: &proc}, nil
}

// documentBytes are the document's bytes, where they came from and the
// extension that names their format: the file under the read roots, or
// the inline text.
func (a *Adapter) documentBytes(in ingestArgs) (data []byte, origin, ext string, err error) {
	switch {
	case in.FilePath != "" && in.Text != "":
		return nil, "", "", protocol.Invalid("give file_path or text, not both")
	case in.Text != "":
		if strings.TrimSpace(in.Title) == "" {
			return nil, "", "", protocol.Invalid("title is required with inline text: name the source as search results will show it")
		}
		if strings.TrimSpace(in.Text) == "" {
			return nil, "", "", protocol.Invalid("text is blank: give the document's text")
		}
		if len(in.Text) > maxIngestBytes {
			return nil, "", "", protocol.Invalid("text is %d bytes; the most an ingest reads is %d", len(in.Text), maxIngestBytes)
		}
		return []byte(in.Text), "inline", ".txt", nil
	case in.FilePath == "":
		return nil, "", "", protocol.Invalid("give file_path (a document under the read roots) or text (with title)")
	}
	if a.files == nil {
		return nil, "", "", protocol.Refusal("file_path: this server reads no files for the knowledge base; pass the document inline as text")
	}
	src, err := a.files.ResolveRead("file_path", in.FilePath)
	if err != nil {
		return nil, "", "", err
	}
	st, err := os.Stat(src)
	if err != nil {
		return nil, "", "", protocol.Refusal("file_path %s cannot be read: %v", in.FilePath, err)
	}
	if st.Size() > maxIngestBytes {
		return nil, "", "", protocol.Refusal("file_path %s is %d bytes; the most an ingest reads is %d: split the document", in.FilePath, st.Size(), maxIngestBytes)
	}
	if data, err = os.ReadFile(src); err != nil {
		return nil, "", "", protocol.Refusal("file_path %s cannot be read: %v", in.FilePath, err)
	}
	return data, src, filepath.Ext(src), nil
}

// ingestTags are the tags with keys trimmed and lower-cased; an empty key
// or value is refused, as is a key given twice in two spellings.
func ingestTags(tags map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(tags))
	for k, v := range tags {
		key := strings.ToLower(strings.TrimSpace(k))
		if key == "" || strings.TrimSpace(v) == "" {
			return nil, protocol.Invalid("tag %q=%q: give each tag a name and a value (documented keys: %s)", k, v, strings.Join(documentedTags, ", "))
		}
		if _, dup := out[key]; dup {
			return nil, protocol.Invalid("tag %q is given twice (keys are lower-cased): give it once", key)
		}
		out[key] = strings.TrimSpace(v)
	}
	return out, nil
}

// keepForCall writes the call's own copy of the document into its
// folder, named by its hash: the copy is what the ingest reads, so the
// file cannot change under it. A retried call finds the copy it made.
func (a *Adapter) keepForCall(ctx context.Context, data []byte, sha, format string) (string, error) {
	dir, err := a.files.ForCall(ctx)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "ingest-"+sha[:16]+extOf[format])
	tmp := path + ".part"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return "", protocol.Transient("cannot keep the call's copy of the document in %s: %v", dir, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", protocol.Transient("cannot keep the call's copy of the document in %s: %v", dir, err)
	}
	return path, nil
}

// extOf is the extension the call's copy is kept under, by format.
var extOf = map[string]string{kb.FormatPDF: ".pdf", kb.FormatMarkdown: ".md", kb.FormatText: ".txt", kb.FormatHTML: ".html", kb.FormatCSV: ".csv"}

// checkReadable opens the copy before any process starts, so a document
// that cannot be read (a PDF that needs a password, a broken CSV, a file
// with no text) is refused and nothing is stored.
func checkReadable(ctx context.Context, file, format, origin string) error {
	doc, err := kb.OpenDocument(ctx, file, format)
	if err != nil {
		return err
	}
	if doc.Format == kb.FormatPDF {
		return nil // its pages are read by the process, a batch at a time
	}
	pages, err := doc.ReadPages(ctx, 1, 1)
	if err != nil {
		return err
	}
	if strings.TrimSpace(pages[0].Text) == "" {
		return protocol.Refusal("%s has no text to index (read as %s)", origin, format)
	}
	return nil
}

func alreadyIndexed(src kb.Source, origin string) ingestAnswer {
	return ingestAnswer{SourceID: src.ID, Title: src.Title, Origin: src.Origin, Format: src.Format, SHA256: src.SHA256, Tags: src.Tags,
		Pages: src.Pages, Chunks: src.Chunks, Bytes: src.Bytes, IngestedAt: src.IngestedAt.UTC().Format(time.RFC3339), AlreadyIndexed: true,
		Note: fmt.Sprintf("%s has the same bytes as %s, indexed at %s: nothing was done (no process ran, no tags changed)",
			origin, src.ID, src.IngestedAt.UTC().Format(time.RFC3339))}
}
