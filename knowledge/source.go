package knowledge

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// newSource is s as BeginSource stores it when it is new: its ID made from
// its SHA256 (lower-cased, checked to be one), tag keys lower-cased,
// indexing, ingested now (to the microsecond, which both stores keep).
func newSource(s Source) (Source, error) {
	sha := strings.ToLower(strings.TrimSpace(s.SHA256))
	if b, err := hex.DecodeString(sha); err != nil || len(b) != 32 {
		return Source{}, protocol.Invalid("source sha256 %q is not 64 hex digits; give the SHA256 of the source's bytes", s.SHA256)
	}
	tags, err := normTags(s.Tags)
	if err != nil {
		return Source{}, err
	}
	s.SHA256 = sha
	s.ID = "src-" + sha[:16]
	s.Tags = tags
	s.Pages, s.Chunks = 0, 0
	s.State = StateIndexing
	s.IngestedAt = time.Now().UTC().Truncate(time.Microsecond)
	return s, nil
}

// checkChunks refuses chunks no store should keep, before anything is
// written.
func checkChunks(chunks []Chunk) error {
	for _, c := range chunks {
		if c.SourceID == "" || c.Page < 1 || c.Seq < 0 {
			return protocol.Invalid("chunk %s page %d seq %d: a chunk needs its source ID, a page from 1 and a seq from 0", c.SourceID, c.Page, c.Seq)
		}
	}
	return nil
}

// checkFinish refuses to mark a source indexed with counts that disagree
// with the chunks stored: a lost batch would otherwise be indexed as a
// whole document.
func checkFinish(id string, pages, chunks, stored, maxPage int) error {
	if chunks != stored {
		return protocol.Invalid("source %s: finishing with %d chunks but %d are stored; store every chunk (PutChunks) before FinishSource", id, chunks, stored)
	}
	if pages < maxPage {
		return protocol.Invalid("source %s: finishing with %d pages but a chunk is on page %d", id, pages, maxPage)
	}
	return nil
}

// notFound is ErrNotFound naming the source looked for.
func notFound(what string) error {
	return fmt.Errorf("%s: %w", what, ErrNotFound)
}
