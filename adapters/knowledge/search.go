package knowledge

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	kb "github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// ToolSearch finds passages of indexed sources by full text.
const ToolSearch = "knowledge.search"

// What the search is, said in every answer: full text ranked by BM25,
// never "semantic".
const (
	searchMode = "fulltext"
	ranking    = "bm25"
)

type searchArgs struct {
	Query string            `json:"query" jsonschema:"The words to find, as the documents would print them (a part number, a parameter name, a phrase). Plain words: quotes and operators are not interpreted."`
	Tags  map[string]string `json:"tags,omitempty" jsonschema:"Keep only sources whose tags equal these (category, mpn, manufacturer, purchase_unit, any key given at ingest)."`
	Limit int               `json:"limit,omitempty" jsonschema:"Most passages to return (default 10, at most 100)."`
}

var searchTool = adapters.Declare(adapters.Manifest{
	ToolID:     ToolSearch,
	Name:       "Search the knowledge base",
	Capability: "knowledge_search",
	Description: "Find passages of indexed documents (knowledge.ingest) by full text, ranked by BM25: the passages with all the " +
		"query's words first (any of them when none has all), best first, each with its source (source_id, title, origin), the page " +
		"it is on, a snippet with each matched word marked **word**, its score (higher is better) and the source's tags. tags keeps " +
		"only sources with those tags. This is full-text search, not semantic search: search with the words a datasheet prints " +
		"(\"switching frequency\", an MPN), not a paraphrase. Answers {query, filters, hits, search_mode: \"fulltext\", ranking: " +
		"\"bm25\"}; a query that finds nothing answers hits [] with a note naming the query and the filters applied.",
	Idempotent: true, TimeoutSeconds: 30, Short: true,
}, method((*Adapter).search),
	adapters.At("query", adapters.MinLength(1), adapters.MaxLength(1000)),
	adapters.At("limit", adapters.Minimum(1), adapters.Maximum(100)))

// searchHit is one passage found.
type searchHit struct {
	SourceID string            `json:"source_id"`
	Title    string            `json:"title"`
	Origin   string            `json:"origin"`
	Page     int               `json:"page"`
	Snippet  string            `json:"snippet"`
	Score    float64           `json:"score"`
	Tags     map[string]string `json:"tags"`
}

// searchAnswer is knowledge.search's answer. Meta repeats what the search
// is under _meta, where the spec has clients read it.
type searchAnswer struct {
	Query      string            `json:"query"`
	Filters    map[string]string `json:"filters"`
	Hits       []searchHit       `json:"hits"`
	SearchMode string            `json:"search_mode"`
	Ranking    string            `json:"ranking"`
	Note       string            `json:"note,omitempty"`
	Meta       searchMeta        `json:"_meta"`
}

type searchMeta struct {
	SearchMode string `json:"search_mode"`
	Ranking    string `json:"ranking"`
}

func (a *Adapter) search(ctx context.Context, in searchArgs) (any, error) {
	if a.store == nil {
		return nil, errNoStore
	}
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return nil, protocol.Invalid("query is blank: give the words to find")
	}
	if in.Limit < 0 || in.Limit > 100 {
		return nil, protocol.Invalid("limit %d: give 1 to 100 (default 10)", in.Limit)
	}
	filters := make(map[string]string, len(in.Tags))
	for k, v := range in.Tags {
		key := strings.ToLower(strings.TrimSpace(k))
		if key == "" {
			return nil, protocol.Invalid("tag %q=%q has an empty key; give each filter a tag name", k, v)
		}
		filters[key] = v
	}
	hits, err := a.store.Search(ctx, kb.Query{Text: q, Tags: filters, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	out := searchAnswer{Query: q, Filters: filters, Hits: make([]searchHit, len(hits)), SearchMode: searchMode, Ranking: ranking,
		Meta: searchMeta{SearchMode: searchMode, Ranking: ranking}}
	for i, h := range hits {
		out.Hits[i] = searchHit{SourceID: h.SourceID, Title: h.Title, Origin: h.Origin, Page: h.Page, Snippet: h.Snippet, Score: h.Score, Tags: h.Tags}
	}
	if len(hits) == 0 {
		out.Note = noHits(q, filters)
	}
	return out, nil
}

// noHits says a search found nothing, naming the query and the filters,
// and what to try.
func noHits(q string, filters map[string]string) string {
	where := "in any indexed source (no tag filters applied)"
	if len(filters) > 0 {
		keys := make([]string, 0, len(filters))
		for k := range filters {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s=%q", k, filters[k])
		}
		where = "in sources tagged " + strings.Join(parts, ", ")
	}
	return fmt.Sprintf("no passage matches %q %s. The search is full text (BM25), not semantic: try the words a document "+
		"prints, fewer words, or fewer filters; knowledge.ingest adds documents", q, where)
}
