package knowledge

import (
	"context"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	kb "github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// ToolExtract reads the figures of a part's datasheet.
const ToolExtract = "knowledge.extract"

var extractTool = adapters.Declare(adapters.Manifest{
	ToolID:     ToolExtract,
	Name:       "Extract a datasheet's figures",
	Capability: "knowledge_extract",
	Description: "Resolve a manufacturer part number to its indexed datasheet and read the figures of its parameter tables. The " +
		"datasheet is source_id when given, else an indexed source tagged mpn=<MPN> at ingest (letter case aside; of several, the " +
		"newest with a parameter table), else the source of the best full-text passage for the MPN whose text contains the MPN " +
		"itself. A table is read from the page text as pdftotext -layout prints it: a header row with Min, Typ and/or Max and Unit " +
		"columns, then each row whose number cells parse; units are kept as printed, an empty cell is null, and a row that cannot be " +
		"read without guessing (\"±1\", \"see text\", a value between two columns) is left out. Answers {mpn, source: {id, title, " +
		"origin, tags}, figures: [{name, symbol, conditions, min, typ, max, unit, page}], resolved_by: \"tag\"|\"search\"|" +
		"\"source_id\"}, with a note when no table was read. No datasheet is a refusal naming what to ingest. Writes nothing.",
	Idempotent: true, TimeoutSeconds: 30, Short: true,
}, method((*Adapter).extract),
	adapters.At("mpn", adapters.MinLength(1), adapters.MaxLength(maxMPN)),
	adapters.At("source_id", adapters.MinLength(1), adapters.MaxLength(100)))

func (a *Adapter) extract(ctx context.Context, in extractArgs) (any, error) {
	if a.store == nil {
		return nil, errNoStore
	}
	return extract(ctx, a.store, in)
}

// extractArgs are knowledge.extract's arguments.
type extractArgs struct {
	MPN      string `json:"mpn" jsonschema:"The manufacturer part number whose datasheet to read, e.g. MFB2307."`
	SourceID string `json:"source_id,omitempty" jsonschema:"The datasheet's source id (src-...), when it is known; otherwise the MPN is looked up."`
}

// extractAnswer is knowledge.extract's answer.
type extractAnswer struct {
	MPN        string      `json:"mpn"`
	Source     sourceRef   `json:"source"`
	Figures    []kb.Figure `json:"figures"`
	ResolvedBy string      `json:"resolved_by"`
	Note       string      `json:"note,omitempty"`
}

// extract resolves an MPN to its datasheet and reads the figures of its
// parameter tables, each with the page it is printed on. A figure the
// tables do not print is absent: nothing is guessed.
func extract(ctx context.Context, store kb.Store, in extractArgs) (extractAnswer, error) {
	mpn, err := checkMPN("mpn", in.MPN)
	if err != nil {
		return extractAnswer{}, err
	}
	d, err := resolveMPN(ctx, store, mpn, in.SourceID)
	if err != nil {
		return extractAnswer{}, err
	}
	figures, err := sourceFigures(ctx, store, d.source.ID)
	if err != nil {
		return extractAnswer{}, err
	}
	out := extractAnswer{MPN: mpn, Source: refOf(d.source), Figures: figures, ResolvedBy: d.by}
	if len(figures) == 0 {
		out.Note = fmt.Sprintf("no parameter table was read in %s (%s): no page has a header row with Min, Typ or Max and Unit columns whose rows parse; search it with knowledge.search instead", d.source.ID, d.source.Title)
	}
	return out, nil
}

// resolveMPN is the datasheet of mpn: the named source, else a source
// tagged mpn=<MPN>, else the best passage of a source that contains the
// MPN. None is a refusal naming what to ingest.
func resolveMPN(ctx context.Context, store kb.Store, mpn, sourceID string) (datasheet, error) {
	if sourceID != "" {
		s, err := bySourceID(ctx, store, sourceID)
		return datasheet{source: s, by: BySourceID}, err
	}
	s, ok, err := byMPNTag(ctx, store, mpn, nil)
	if err != nil || ok {
		return datasheet{source: s, by: ByTag}, err
	}
	s, hit, err := byMPNSearch(ctx, store, mpn, nil)
	if err != nil {
		return datasheet{}, err
	}
	if hit == nil {
		return datasheet{}, noDatasheet(mpn)
	}
	return datasheet{source: s, hit: hit, by: BySearch}, nil
}

func noDatasheet(mpn string) error {
	return protocol.Refusal("no datasheet for %s in the knowledge base: no indexed source is tagged mpn=%s and none mentions it; ingest its datasheet with knowledge.ingest (tags {\"mpn\": %q, \"manufacturer\": ...}) or metaforge ingest FILE --tag mpn=%s, then ask again", mpn, mpn, mpn, mpn)
}

// sourceFigures reads the figures of a source's parameter tables.
func sourceFigures(ctx context.Context, store kb.Store, id string) ([]kb.Figure, error) {
	pages, err := sourcePages(ctx, store, id)
	if err != nil {
		return nil, err
	}
	figures := kb.ExtractFigures(pages)
	if figures == nil {
		figures = []kb.Figure{}
	}
	return figures, nil
}
