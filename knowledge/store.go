// Package knowledge is the knowledge base: documents (datasheets, notes,
// catalogues) split into page-numbered chunks and searched by full text,
// ranked by BM25. It is full-text search, not semantic search: there is
// no embedding model here, and health.check says so.
//
// One Store interface has two implementations with the same behaviour and
// the same tests: SQLite FTS5 in a file of the data dir (the zero-config
// default) and PostgreSQL full text (tsvector with a GIN index) when
// DATABASE_URL is set. The package knows nothing of MCP or Temporal.
package knowledge

import (
	"context"
	"time"
)

// Source states: a source is indexing from the moment an ingest begins
// until every chunk is stored, then indexed. Search sees only indexed
// sources, so a half-done ingest is never half-found.
const (
	StateIndexing = "indexing"
	StateIndexed  = "indexed"
)

// Source is one ingested document.
type Source struct {
	// ID is "src-" and the first 16 hex digits of SHA256: the same bytes
	// are the same source.
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
	// Origin is where the bytes came from: a file path, a URL, or
	// "inline".
	Origin string `json:"origin"`
	Title  string `json:"title"`
	// Format is pdf, markdown, text, html or csv.
	Format string `json:"format"`
	// Tags are the ingest's labels (purchase_unit, category, mpn,
	// manufacturer, and any other key), lower-case keys.
	Tags       map[string]string `json:"tags"`
	Pages      int               `json:"pages"`
	Chunks     int               `json:"chunks"`
	Bytes      int64             `json:"bytes"`
	State      string            `json:"state"`
	IngestedAt time.Time         `json:"ingested_at"`
}

// Page is one page of a document's text, numbered from 1 (a document
// without pages is one page).
type Page struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
}

// Chunk is one passage of a source, never spanning pages. Its text keeps
// the page's lines and spacing (a datasheet's table is read from it), so
// a page's chunks in order are the page.
type Chunk struct {
	SourceID string `json:"source_id"`
	Page     int    `json:"page"`
	// Seq orders a page's chunks from 0. (SourceID, Page, Seq) is a
	// chunk's identity, so storing it again replaces it, and a page can
	// be chunked without knowing the pages before it.
	Seq  int    `json:"seq"`
	Text string `json:"text"`
}

// Query is one full-text search.
type Query struct {
	// Text is the words to find (a plain phrase; operators are not
	// interpreted).
	Text string
	// Tags keep only sources whose tags equal these.
	Tags map[string]string
	// Limit caps the passages returned (default 10, at most 100).
	Limit int
}

// Hit is one passage found, best first.
type Hit struct {
	SourceID string            `json:"source_id"`
	Origin   string            `json:"origin"`
	Title    string            `json:"title"`
	Page     int               `json:"page"`
	Seq      int               `json:"seq"`
	Tags     map[string]string `json:"tags"`
	// Snippet is the passage around the match with each matched term
	// marked as **term**.
	Snippet string `json:"snippet"`
	// Score is the BM25 score: higher is better.
	Score float64 `json:"score"`
}

// Store keeps sources and their chunks and searches them.
type Store interface {
	// BeginSource records a source about to be indexed. When a source
	// with the same SHA256 is already indexed it is returned with
	// existed true and nothing changes (re-ingesting is a no-op); a
	// source left indexing by an interrupted ingest is returned with
	// existed false, to be resumed.
	BeginSource(ctx context.Context, s Source) (got Source, existed bool, err error)
	// PutChunks stores chunks of an indexing source; a chunk stored
	// again (same SourceID, Page and Seq) replaces the first, so a
	// retried batch never duplicates.
	PutChunks(ctx context.Context, chunks []Chunk) error
	// FinishSource marks a source indexed with its page and chunk counts.
	FinishSource(ctx context.Context, id string, pages, chunks int) error
	// Source is one source; ErrNotFound when there is none.
	Source(ctx context.Context, id string) (Source, error)
	// SourceBySHA256 is the source with these bytes; ErrNotFound when
	// there is none.
	SourceBySHA256(ctx context.Context, sha256 string) (Source, error)
	// Sources lists sources, newest first, those whose tags equal the
	// filter's.
	Sources(ctx context.Context, tags map[string]string) ([]Source, error)
	// Chunks are a source's chunks in order (by page, then Seq).
	Chunks(ctx context.Context, id string) ([]Chunk, error)
	// Search ranks the passages of indexed sources by BM25.
	Search(ctx context.Context, q Query) ([]Hit, error)
	// Describe says what the search is and where it is kept, for
	// health.check ("full text, BM25 (SQLite FTS5) in /data/knowledge.db").
	Describe() string
	Close() error
}
