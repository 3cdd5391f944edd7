package knowledge

import (
	"context"
	"errors"
	"strings"

	kb "github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// How a datasheet was found for an MPN or a BOM line.
const (
	// ByTag: an indexed source tagged mpn=<MPN> at ingest (letter case
	// aside).
	ByTag = "tag"
	// BySearch: the best full-text passage for the MPN, in a source whose
	// text contains the MPN itself, so a passage that only shares a word
	// with it ("3" of "MFL1117-3.3") is not taken for its datasheet.
	BySearch = "search"
	// BySourceID: the source the caller named.
	BySourceID = "source_id"
	// ByDescription: the best full-text passage for a BOM line's
	// description; a fuzzy match, said so.
	ByDescription = "description"
)

// maxMPN bounds an MPN argument: part numbers are short.
const maxMPN = 100

// searchDepth is how many passages a lookup reads before giving up.
const searchDepth = 20

// datasheet is the source found for a part and the passage that found it
// (nil when it was found by its tag alone).
type datasheet struct {
	source kb.Source
	hit    *kb.Hit
	by     string
}

// checkMPN is an MPN argument trimmed, or what to fix.
func checkMPN(field, mpn string) (string, error) {
	mpn = strings.TrimSpace(mpn)
	switch {
	case mpn == "":
		return "", protocol.Invalid("%s is empty; give the manufacturer part number, e.g. \"MFB2307\"", field)
	case len(mpn) > maxMPN:
		return "", protocol.Invalid("%s is %d characters; a manufacturer part number is at most %d", field, len(mpn), maxMPN)
	}
	return mpn, nil
}

// byMPNTag is the source among those tags keep, indexed, whose mpn tag
// is mpn, letter case aside. When several are (a datasheet and an
// application note), the newest whose pages hold a parameter table is
// the datasheet; when none does, the newest.
func byMPNTag(ctx context.Context, store kb.Store, mpn string, tags map[string]string) (kb.Source, bool, error) {
	sources, err := store.Sources(ctx, tags)
	if err != nil {
		return kb.Source{}, false, err
	}
	var tagged []kb.Source
	for _, s := range sources {
		if s.State == kb.StateIndexed && strings.EqualFold(strings.TrimSpace(s.Tags["mpn"]), mpn) {
			tagged = append(tagged, s)
		}
	}
	if len(tagged) == 0 {
		return kb.Source{}, false, nil
	}
	for _, s := range tagged[:min(len(tagged), searchDepth)] {
		figures, err := sourceFigures(ctx, store, s.ID)
		if err != nil {
			return kb.Source{}, false, err
		}
		if len(figures) > 0 {
			return s, true, nil
		}
	}
	return tagged[0], true, nil
}

// byMPNSearch is the source of the best passage for mpn whose text
// contains mpn (letter case aside), with the passage.
func byMPNSearch(ctx context.Context, store kb.Store, mpn string, tags map[string]string) (kb.Source, *kb.Hit, error) {
	hits, err := store.Search(ctx, kb.Query{Text: mpn, Tags: tags, Limit: searchDepth})
	if err != nil {
		return kb.Source{}, nil, err
	}
	checked := map[string]bool{}
	for i := range hits {
		h := &hits[i]
		if checked[h.SourceID] {
			continue
		}
		checked[h.SourceID] = true
		ok, err := mentions(ctx, store, h.SourceID, h.Title, mpn)
		if err != nil {
			return kb.Source{}, nil, err
		}
		if !ok {
			continue
		}
		s, err := store.Source(ctx, h.SourceID)
		if err != nil {
			return kb.Source{}, nil, err
		}
		return s, h, nil
	}
	return kb.Source{}, nil, nil
}

// mentions says whether a source's title or text contains mpn.
func mentions(ctx context.Context, store kb.Store, id, title, mpn string) (bool, error) {
	want := strings.ToLower(mpn)
	if strings.Contains(strings.ToLower(title), want) {
		return true, nil
	}
	chunks, err := store.Chunks(ctx, id)
	if err != nil {
		return false, err
	}
	for _, c := range chunks {
		if strings.Contains(strings.ToLower(c.Text), want) {
			return true, nil
		}
	}
	return false, nil
}

// bySourceID is the named source, indexed, or what to fix.
func bySourceID(ctx context.Context, store kb.Store, id string) (kb.Source, error) {
	s, err := store.Source(ctx, strings.TrimSpace(id))
	if errors.Is(err, kb.ErrNotFound) {
		return kb.Source{}, protocol.Invalid("source_id %q is not in the knowledge base; list the sources (metaforge sources, or the resource metaforge://knowledge/sources) or leave source_id out to look the MPN up", id)
	}
	if err != nil {
		return kb.Source{}, err
	}
	if s.State != kb.StateIndexed {
		return kb.Source{}, protocol.Refusal("source %s is still %s; call again when its knowledge.ingest has finished", s.ID, s.State)
	}
	return s, nil
}

// bestPassage is the best passage of the source for the words, so an
// answer can cite a page; nil when none of its passages has them.
func bestPassage(ctx context.Context, store kb.Store, s kb.Source, words string) (*kb.Hit, error) {
	if strings.TrimSpace(words) == "" {
		return nil, nil
	}
	// Search keeps sources by tag, not by ID: the mpn tag narrows it to
	// this source and its re-ingests, the loop to this source.
	var tags map[string]string
	if mpn := s.Tags["mpn"]; mpn != "" {
		tags = map[string]string{"mpn": mpn}
	}
	hits, err := store.Search(ctx, kb.Query{Text: words, Tags: tags, Limit: 100})
	if err != nil {
		return nil, err
	}
	for i := range hits {
		if hits[i].SourceID == s.ID {
			return &hits[i], nil
		}
	}
	return nil, nil
}

// sourcePages rebuilds a source's pages from its chunks: a page's chunks
// in order are the page's text exactly (knowledge.ChunkPage).
func sourcePages(ctx context.Context, store kb.Store, id string) ([]kb.Page, error) {
	chunks, err := store.Chunks(ctx, id)
	if err != nil {
		return nil, err
	}
	var pages []kb.Page
	for _, c := range chunks {
		if len(pages) == 0 || pages[len(pages)-1].Number != c.Page {
			pages = append(pages, kb.Page{Number: c.Page})
		}
		pages[len(pages)-1].Text += c.Text
	}
	return pages, nil
}

// sourceRef is a source as an answer cites it.
type sourceRef struct {
	ID     string            `json:"id"`
	Title  string            `json:"title"`
	Origin string            `json:"origin"`
	Tags   map[string]string `json:"tags"`
}

func refOf(s kb.Source) sourceRef {
	tags := s.Tags
	if tags == nil {
		tags = map[string]string{}
	}
	return sourceRef{ID: s.ID, Title: s.Title, Origin: s.Origin, Tags: tags}
}
