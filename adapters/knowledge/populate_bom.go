package knowledge

import (
	"context"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	kb "github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// ToolPopulateBOM enriches BOM lines from indexed datasheets.
const ToolPopulateBOM = "knowledge.populate_bom"

var populateBOMTool = adapters.Declare(adapters.Manifest{
	ToolID:     ToolPopulateBOM,
	Name:       "Populate a BOM from datasheets",
	Capability: "knowledge_populate_bom",
	Description: "Enrich BOM lines from indexed datasheets. A line with an mpn is matched by it only: a source tagged mpn=<MPN> " +
		"(match_method mpn_tag), else the best full-text passage of a source containing the MPN (mpn_search); a line without one by " +
		"its description, or its category, in words (description_search, a fuzzy full-text match; a source tagged with another " +
		"category is passed over). purchase_unit narrows candidates to sources tagged purchase_unit=<it> at ingest; a line that finds " +
		"nothing among them is searched again without the filter and flagged purchase_unit_filter_degraded (per line and overall), " +
		"rather than losing recall against an untagged corpus. Each line comes back as given plus matched, match_method, source " +
		"{id, title, origin, tags}, page and snippet of the best passage, manufacturer (the source's tag), mpn and category filled " +
		"from the source's tags when the line lacked them, and figures (as knowledge.extract reads them); or matched false with the " +
		"reason. Answers {lines, matched, unmatched, purchase_unit, purchase_unit_filter_degraded}. Writes nothing.",
	Idempotent: true, TimeoutSeconds: 60, Short: true,
}, method((*Adapter).populateBOM),
	adapters.At("lines", adapters.MinItems(1), adapters.MaxItems(maxBOMLines)),
	adapters.At("lines[].mpn", adapters.MaxLength(maxMPN)),
	adapters.At("lines[].description", adapters.MaxLength(maxBOMDescription)),
	adapters.At("lines[].quantity", adapters.Minimum(0)),
	adapters.At("purchase_unit", adapters.MinLength(1), adapters.MaxLength(100)))

func (a *Adapter) populateBOM(ctx context.Context, in populateBOMArgs) (any, error) {
	if a.store == nil {
		return nil, errNoStore
	}
	return populateBOM(ctx, a.store, in)
}

// Bounds of one populate_bom call.
const (
	maxBOMLines       = 500
	maxBOMDescription = 500
)

// bomLine is one BOM line as given.
type bomLine struct {
	Ref         string   `json:"ref,omitempty" jsonschema:"The line's reference designator(s) or item number, returned as given."`
	MPN         string   `json:"mpn,omitempty" jsonschema:"The manufacturer part number. A line with one is matched by it only: its datasheet tagged mpn=<MPN>, else the best passage of a source that contains the MPN."`
	Description string   `json:"description,omitempty" jsonschema:"What the part is, in words (e.g. 3 A synchronous buck converter); searched when the line has no MPN."`
	Category    string   `json:"category,omitempty" jsonschema:"The part's category (e.g. buck_converter). A description match whose source is tagged another category is passed over."`
	Quantity    *float64 `json:"quantity,omitempty" jsonschema:"How many, returned as given."`
}

// populateBOMArgs are knowledge.populate_bom's arguments.
type populateBOMArgs struct {
	Lines        []bomLine `json:"lines" jsonschema:"The BOM lines to enrich; each needs an mpn, a description or a category."`
	PurchaseUnit string    `json:"purchase_unit,omitempty" jsonschema:"Keep only datasheets tagged purchase_unit=<this> at ingest; a line that finds none among them is searched again without the filter and flagged purchase_unit_filter_degraded."`
}

// Match methods of an enriched line.
const (
	MatchMPNTag      = "mpn_tag"
	MatchMPNSearch   = "mpn_search"
	MatchDescription = "description_search"
)

// bomAnswerLine is a line back: as given, and what its datasheet says.
type bomAnswerLine struct {
	Ref         string   `json:"ref,omitempty"`
	MPN         string   `json:"mpn,omitempty"`
	Description string   `json:"description,omitempty"`
	Category    string   `json:"category,omitempty"`
	Quantity    *float64 `json:"quantity,omitempty"`

	Matched     bool   `json:"matched"`
	MatchMethod string `json:"match_method,omitempty"`
	// Source is the datasheet; Page and Snippet its best passage for
	// the line (absent when no passage has the line's words).
	Source       *sourceRef  `json:"source,omitempty"`
	Page         int         `json:"page,omitempty"`
	Snippet      string      `json:"snippet,omitempty"`
	Manufacturer string      `json:"manufacturer,omitempty"`
	Figures      []kb.Figure `json:"figures,omitempty"`
	// PurchaseUnitFilterDegraded: the purchase_unit filter found nothing
	// for this line and it was searched without it.
	PurchaseUnitFilterDegraded bool   `json:"purchase_unit_filter_degraded"`
	Reason                     string `json:"reason,omitempty"`
}

// populateBOMAnswer is knowledge.populate_bom's answer.
type populateBOMAnswer struct {
	Lines        []bomAnswerLine `json:"lines"`
	Matched      int             `json:"matched"`
	Unmatched    int             `json:"unmatched"`
	PurchaseUnit string          `json:"purchase_unit,omitempty"`
	// PurchaseUnitFilterDegraded: at least one line was searched without
	// the purchase_unit filter.
	PurchaseUnitFilterDegraded bool `json:"purchase_unit_filter_degraded"`
}

// populateBOM enriches each line from its indexed datasheet: source and
// best passage, manufacturer from the source's tags, and the figures of
// its parameter tables. A line without a datasheet comes back unmatched
// with the reason; nothing is written.
func populateBOM(ctx context.Context, store kb.Store, in populateBOMArgs) (populateBOMAnswer, error) {
	if err := checkBOM(in); err != nil {
		return populateBOMAnswer{}, err
	}
	unit := strings.TrimSpace(in.PurchaseUnit)
	out := populateBOMAnswer{Lines: []bomAnswerLine{}, PurchaseUnit: unit}
	figures := map[string][]kb.Figure{}
	for _, line := range in.Lines {
		a, err := enrich(ctx, store, line, unit, figures)
		if err != nil {
			return populateBOMAnswer{}, err
		}
		if a.Matched {
			out.Matched++
		} else {
			out.Unmatched++
		}
		out.PurchaseUnitFilterDegraded = out.PurchaseUnitFilterDegraded || a.PurchaseUnitFilterDegraded
		out.Lines = append(out.Lines, a)
	}
	return out, nil
}

// checkBOM refuses a BOM the lookup cannot work on, naming the line.
func checkBOM(in populateBOMArgs) error {
	if len(in.Lines) == 0 {
		return protocol.Invalid("lines is empty; give the BOM lines to enrich, each with an mpn, a description or a category")
	}
	if len(in.Lines) > maxBOMLines {
		return protocol.Invalid("lines has %d lines; enrich at most %d per call", len(in.Lines), maxBOMLines)
	}
	if in.PurchaseUnit != "" && strings.TrimSpace(in.PurchaseUnit) == "" {
		return protocol.Invalid("purchase_unit is blank; give the purchase unit the datasheets were tagged with, or leave it out")
	}
	for i, l := range in.Lines {
		if strings.TrimSpace(l.MPN) == "" && strings.TrimSpace(l.Description) == "" && strings.TrimSpace(l.Category) == "" {
			return protocol.Invalid("lines[%d] (ref %q) has no mpn, description or category; give at least one to look its datasheet up", i, l.Ref)
		}
		if len(l.MPN) > maxMPN {
			return protocol.Invalid("lines[%d].mpn is %d characters; a manufacturer part number is at most %d", i, len(l.MPN), maxMPN)
		}
		if len(l.Description) > maxBOMDescription {
			return protocol.Invalid("lines[%d].description is %d characters; describe the part in at most %d", i, len(l.Description), maxBOMDescription)
		}
		if l.Quantity != nil && *l.Quantity < 0 {
			return protocol.Invalid("lines[%d].quantity is %g; a quantity is 0 or more", i, *l.Quantity)
		}
	}
	return nil
}

// enrich looks one line's datasheet up: with the purchase_unit filter
// first when there is one, then, when that finds nothing, without it
// (flagged), so an untagged corpus still answers.
func enrich(ctx context.Context, store kb.Store, line bomLine, unit string, cache map[string][]kb.Figure) (bomAnswerLine, error) {
	a := bomAnswerLine{
		Ref: line.Ref, MPN: strings.TrimSpace(line.MPN), Description: strings.TrimSpace(line.Description),
		Category: strings.TrimSpace(line.Category), Quantity: line.Quantity,
	}
	var filter map[string]string
	if unit != "" {
		filter = map[string]string{"purchase_unit": unit}
	}
	d, method, err := lookupLine(ctx, store, a, filter)
	if err != nil {
		return a, err
	}
	if method == "" && filter != nil {
		a.PurchaseUnitFilterDegraded = true
		if d, method, err = lookupLine(ctx, store, a, nil); err != nil {
			return a, err
		}
	}
	if method == "" {
		a.Reason = unmatchedReason(a, unit)
		return a, nil
	}
	a.Matched, a.MatchMethod = true, method
	ref := refOf(d.source)
	a.Source = &ref
	a.Manufacturer = d.source.Tags["manufacturer"]
	if a.MPN == "" {
		a.MPN = d.source.Tags["mpn"]
	}
	if a.Category == "" {
		a.Category = d.source.Tags["category"]
	}
	hit := d.hit
	if hit == nil {
		if hit, err = bestPassage(ctx, store, d.source, a.MPN); err != nil {
			return a, err
		}
	}
	if hit != nil {
		a.Page, a.Snippet = hit.Page, hit.Snippet
	}
	figures, ok := cache[d.source.ID]
	if !ok {
		if figures, err = sourceFigures(ctx, store, d.source.ID); err != nil {
			return a, err
		}
		cache[d.source.ID] = figures
	}
	a.Figures = figures
	return a, nil
}

// lookupLine finds a line's datasheet among the sources tags keep: by MPN
// when the line has one (its tag, else a passage of a source containing
// it), else by its description or category in words. An empty method is
// nothing found.
func lookupLine(ctx context.Context, store kb.Store, a bomAnswerLine, tags map[string]string) (datasheet, string, error) {
	if a.MPN != "" {
		s, ok, err := byMPNTag(ctx, store, a.MPN, tags)
		if err != nil || ok {
			return datasheet{source: s, by: ByTag}, MatchMPNTag, err
		}
		s, hit, err := byMPNSearch(ctx, store, a.MPN, tags)
		if err != nil || hit == nil {
			return datasheet{}, "", err
		}
		return datasheet{source: s, hit: hit, by: BySearch}, MatchMPNSearch, nil
	}
	words := a.Description
	if words == "" {
		words = a.Category
	}
	hits, err := store.Search(ctx, kb.Query{Text: words, Tags: tags, Limit: searchDepth})
	if err != nil {
		return datasheet{}, "", err
	}
	for i := range hits {
		h := &hits[i]
		if a.Category != "" && h.Tags["category"] != "" && !sameCategory(a.Category, h.Tags["category"]) {
			continue
		}
		s, err := store.Source(ctx, h.SourceID)
		if err != nil {
			return datasheet{}, "", err
		}
		return datasheet{source: s, hit: h, by: ByDescription}, MatchDescription, nil
	}
	return datasheet{}, "", nil
}

// sameCategory compares categories as people spell them: letter case,
// "-", "_" and spaces aside (buck_converter is buck-converter).
func sameCategory(a, b string) bool {
	norm := func(s string) string {
		return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '-' || r == '_' || r == ' ' }), " ")
	}
	return norm(a) == norm(b)
}

// unmatchedReason says why a line found no datasheet and what would.
func unmatchedReason(a bomAnswerLine, unit string) string {
	where := "the knowledge base"
	if unit != "" {
		where = fmt.Sprintf("the knowledge base (with purchase_unit=%s, then without it)", unit)
	}
	if a.MPN != "" {
		return fmt.Sprintf("no datasheet for %s in %s: no indexed source is tagged mpn=%s and none mentions it; ingest its datasheet with knowledge.ingest tagged mpn=%s", a.MPN, where, a.MPN, a.MPN)
	}
	words := a.Description
	if words == "" {
		words = a.Category
	}
	what := fmt.Sprintf("no passage in %s matches %q", where, words)
	if a.Category != "" {
		what += fmt.Sprintf(" in a source of category %s", a.Category)
	}
	return what + "; give the line's mpn, or ingest a datasheet for it"
}
