package component

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/components"
	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// ToolSearchIntent finds parts for a goal written in words.
const ToolSearchIntent = "component.search_intent"

// fallbackPerPhrase caps the passages each full-text phrase brings back.
const fallbackPerPhrase = 5

type searchIntentArgs struct {
	Goal  string `json:"goal" jsonschema:"what the part must do, in words: \"step 12V down to 5V at 2A for a flight controller\""`
	Limit int    `json:"limit,omitempty" jsonschema:"how many rows per category to return"`
}

var searchIntentTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolSearchIntent,
	AdapterID: AdapterID,
	Name:      "Find parts for a goal in words",
	Description: "Read a free-text goal into catalogue categories and bounds on figures, deterministically (the same words give " +
		"the same reading; intent.read shows what each phrase was read as, intent.leftover the words not read). " + components.IntentRules +
		" Then run component.search_parametric per category and per kind with those bounds (queries: each one's filters, matched, " +
		"excluded_missing, and message when nothing matched; a category whose figures are in another dimension says so in refused), " +
		"up to limit rows each. Rows are split by kind, never merged: buy_complete (assemblies, bought complete) and build_from_parts " +
		"(discrete parts), each row with its category, source and candidate (as twin.select_component takes one). For each category with no " +
		"matching row, the knowledge base is searched by full text (BM25, search_mode fulltext; not semantic) for the category's " +
		"names (\"step-down converter\", \"buck regulator\"...): fallback_passages give source, page and a snippet with the hit " +
		"marked, for a person to read the datasheet; they are not catalogue rows. Reads only.",
	Capability:     "component_search",
	Idempotent:     true,
	Short:          true,
	TimeoutSeconds: 30,
}, method((*Adapter).searchIntent),
	adapters.At("goal", adapters.MinLength(1), adapters.MaxLength(2000)),
	adapters.At("limit", adapters.Minimum(1), adapters.Maximum(components.MaxLimit), adapters.Default(components.DefaultLimit)),
)

// categoryQuery is what the parametric query of one category and kind
// found.
type categoryQuery struct {
	Category        string         `json:"category"`
	Kind            string         `json:"kind"`
	Filters         []string       `json:"filters"`
	Matched         int            `json:"matched"`
	Considered      int            `json:"considered"`
	ExcludedMissing map[string]int `json:"excluded_missing"`
	Message         string         `json:"message,omitempty"`
	// Refused is why the query could not run in this category (a bound in
	// a unit of another dimension than the category's figure).
	Refused string `json:"refused,omitempty"`
}

// passage is a knowledge-base passage found for a category the catalogue
// had nothing for.
type passage struct {
	Category string `json:"category"`
	Query    string `json:"query"`
	knowledge.Hit
}

type intentAnswer struct {
	Goal             string            `json:"goal"`
	Intent           components.Intent `json:"intent"`
	Queries          []categoryQuery   `json:"queries"`
	BuyComplete      []resultRow       `json:"buy_complete"`
	BuildFromParts   []resultRow       `json:"build_from_parts"`
	FallbackPassages []passage         `json:"fallback_passages"`
	FallbackFor      []string          `json:"fallback_for"`
	SearchMode       string            `json:"search_mode,omitempty"`
	Notes            []string          `json:"notes"`
	Tolerance        string            `json:"equal_tolerance"`
}

func (a *Adapter) searchIntent(ctx context.Context, in searchIntentArgs) (any, error) {
	goal := strings.TrimSpace(in.Goal)
	if goal == "" {
		return nil, protocol.Invalid("goal is empty: say what the part must do, e.g. \"step 12V down to 5V at 2A\"")
	}
	it := components.ParseIntent(goal)
	ans := intentAnswer{Goal: goal, Intent: it, Queries: []categoryQuery{}, BuyComplete: []resultRow{}, BuildFromParts: []resultRow{},
		FallbackPassages: []passage{}, FallbackFor: []string{}, Notes: []string{},
		Tolerance: fmt.Sprintf("== and != hold within a relative %g", components.EqualTolerance)}
	cats := it.Categories
	if len(cats) == 0 {
		cats = []string{""}
		ans.Notes = append(ans.Notes, "no word of the goal names a category: the bounds were held against every category, "+
			"and there is no full-text fallback without a category")
	}
	if len(it.Bounds) == 0 {
		ans.Notes = append(ans.Notes, "the goal states no figure (a voltage, a current, a power, an efficiency): every row of the category matches")
	}
	var empty []string
	for _, c := range cats {
		found := 0
		// Each kind is its own query, so limit applies to each half and
		// cheap parts never crowd the assemblies out.
		for _, kind := range []string{components.KindAssembly, components.KindPart} {
			q := categoryQuery{Category: c, Kind: kind, Filters: []string{}, ExcludedMissing: map[string]int{}}
			for _, b := range it.Bounds {
				q.Filters = append(q.Filters, b.String())
			}
			res, err := components.Search(ctx, a.cat, components.Query{Category: c, Kind: kind, Filters: it.Bounds, Limit: in.Limit})
			switch {
			case errors.Is(err, components.ErrBadQuery):
				q.Refused = err.Error()
			case err != nil:
				return nil, classify(err)
			default:
				q.Matched, q.Considered, q.ExcludedMissing, q.Message = res.Matched, res.Considered, res.ExcludedMissing, res.Message
				if kind == components.KindAssembly {
					ans.BuyComplete = append(ans.BuyComplete, resultRows(res.Rows)...)
				} else {
					ans.BuildFromParts = append(ans.BuildFromParts, resultRows(res.Rows)...)
				}
			}
			found += q.Matched
			ans.Queries = append(ans.Queries, q)
		}
		if found == 0 && c != "" {
			empty = append(empty, c)
		}
	}
	if len(empty) > 0 {
		if err := a.fallback(ctx, &ans, empty); err != nil {
			return nil, err
		}
	}
	return ans, nil
}

// fallback searches the knowledge base's full text for each category the
// catalogue had nothing for, by the names datasheets give it, keeping
// each passage once.
func (a *Adapter) fallback(ctx context.Context, ans *intentAnswer, cats []string) error {
	if a.kb == nil {
		ans.Notes = append(ans.Notes, fmt.Sprintf("no catalogue row for %s, and this server has no knowledge base to search instead",
			strings.Join(cats, ", ")))
		return nil
	}
	ans.SearchMode = "fulltext"
	seen := map[string]bool{}
	for _, c := range cats {
		ans.FallbackFor = append(ans.FallbackFor, c)
		found := 0
		for _, phrase := range components.SearchPhrases(c) {
			hits, err := a.kb.Search(ctx, knowledge.Query{Text: phrase, Limit: fallbackPerPhrase})
			if err != nil {
				return protocol.Transient("the knowledge base's full-text search for %q: %v", phrase, err)
			}
			for _, h := range hits {
				k := fmt.Sprintf("%s/%d/%d", h.SourceID, h.Page, h.Seq)
				if seen[k] {
					continue
				}
				seen[k] = true
				found++
				ans.FallbackPassages = append(ans.FallbackPassages, passage{Category: c, Query: phrase, Hit: h})
			}
		}
		if found == 0 {
			ans.Notes = append(ans.Notes, fmt.Sprintf("the knowledge base has no passage naming %s (searched: %s)", c,
				strings.Join(components.SearchPhrases(c), "; ")))
		}
	}
	return nil
}
