package component

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/components"
	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// ToolAcceptFigures records datasheet figures a person accepts as a
// catalogue row.
const ToolAcceptFigures = "component.accept_figures"

type acceptFiguresArgs struct {
	MPN          string                   `json:"mpn"`
	Manufacturer string                   `json:"manufacturer"`
	Category     string                   `json:"category" jsonschema:"lower case with underscores: buck_converter, ldo"`
	Kind         string                   `json:"kind" jsonschema:"assembly (bought complete) or part (a discrete component)"`
	SourceID     string                   `json:"source_id" jsonschema:"the knowledge source (src-...) the figures were read from, as knowledge.extract names it"`
	Figures      []components.FigureInput `json:"figures" jsonschema:"the figures accepted, each with the page it is on; for a min/typ/max row of knowledge.extract, value is the one chosen"`
	Description  string                   `json:"description,omitempty"`
	Price        *float64                 `json:"price,omitempty" jsonschema:"per unit, in currency"`
	Currency     string                   `json:"currency,omitempty" jsonschema:"USD, EUR or GBP; needed with price"`
	ImageURL     string                   `json:"image_url,omitempty"`
	Footprint    string                   `json:"footprint,omitempty"`
	CADModelURL  string                   `json:"cad_model_url,omitempty"`
	DatasheetURL string                   `json:"datasheet_url,omitempty"`
}

var acceptFiguresTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolAcceptFigures,
	AdapterID: AdapterID,
	Name:      "Accept datasheet figures into the catalogue",
	Description: "A person accepts figures read from an indexed datasheet (knowledge.extract's answer: for each parameter row " +
		"name, min/typ/max, unit, page; pick the value that applies, typ or the worst case, into value) as the catalogue row " +
		"of one part: mpn, manufacturer, category, kind, source_id (the knowledge source), figures [{name, value, unit, page}]. " +
		"Every figure must cite a page of that source (1 to its page count); the source must be indexed. The row's source is " +
		"knowledge:SOURCE_ID#page=P1,P2 and accepted_by the approver; it replaces any row of the same mpn and manufacturer, " +
		"keeping that row's price, image_url, footprint, cad_model_url and datasheet_url where this call gives none (kept_from_previous " +
		"names them). Always held for an identified person's approval.",
	Capability:     "component_index",
	Idempotent:     true,
	Short:          true,
	TimeoutSeconds: 30,
}, method((*Adapter).acceptFigures),
	adapters.At("mpn", adapters.MinLength(1), adapters.MaxLength(100)),
	adapters.At("manufacturer", adapters.MinLength(1), adapters.MaxLength(200)),
	adapters.At("category", adapters.MinLength(1), adapters.MaxLength(100)),
	adapters.At("kind", adapters.Enum("assembly", "part")),
	adapters.At("source_id", adapters.MinLength(1), adapters.MaxLength(100)),
	adapters.At("figures", adapters.MinItems(1), adapters.MaxItems(300)),
	adapters.At("figures[].name", adapters.MinLength(1), adapters.MaxLength(100)),
	adapters.At("figures[].unit", adapters.MaxLength(40)),
	adapters.At("figures[].page", adapters.Minimum(1)),
	adapters.At("description", adapters.MaxLength(2000)),
	adapters.At("price", adapters.Minimum(0)),
)

type acceptAnswer struct {
	Outcome          string    `json:"outcome"`
	Row              resultRow `json:"row"`
	ReplacedSource   string    `json:"replaced_source,omitempty"`
	KeptFromPrevious []string  `json:"kept_from_previous"`
}

func (a *Adapter) acceptFigures(ctx context.Context, in acceptFiguresArgs) (any, error) {
	if a.kb == nil {
		return nil, protocol.Unavailable("this server has no knowledge base, so the source a figure cites cannot be checked")
	}
	figs, err := components.Figures(in.Figures)
	if err != nil {
		return nil, protocol.Invalid("figures: %v", err)
	}
	src, err := a.kb.Source(ctx, strings.TrimSpace(in.SourceID))
	if errors.Is(err, knowledge.ErrNotFound) {
		return nil, protocol.Invalid("source_id %q is not a knowledge source: knowledge.extract names the source its figures come from", in.SourceID)
	}
	if err != nil {
		return nil, protocol.Transient("the knowledge base: %v", err)
	}
	if src.State != knowledge.StateIndexed {
		return nil, protocol.Refusal("source %s is still %s: accept its figures once its ingest has finished", src.ID, src.State)
	}
	pages := map[int]bool{}
	for _, f := range figs {
		if f.Page < 1 || f.Page > src.Pages {
			return nil, protocol.Invalid("figure %s: page %d is not a page of %s (pages 1 to %d): every accepted figure cites the page it is on",
				f.Name, f.Page, src.ID, src.Pages)
		}
		pages[f.Page] = true
	}
	r := components.Row{MPN: in.MPN, Manufacturer: in.Manufacturer, Category: in.Category, Kind: in.Kind, Description: in.Description,
		Figures: figs, Price: in.Price, Currency: in.Currency, ImageURL: in.ImageURL, Footprint: in.Footprint, CADModelURL: in.CADModelURL,
		DatasheetURL: in.DatasheetURL, Source: "knowledge:" + src.ID + "#page=" + pageList(pages),
		AcceptedBy: adapters.CallInfoFrom(ctx).ApprovedBy}
	if err := r.Check(); err != nil {
		return nil, protocol.Invalid("%v", err)
	}
	ans := acceptAnswer{KeptFromPrevious: []string{}}
	prev, err := a.cat.Row(ctx, r.MPN, r.Manufacturer)
	switch {
	case err == nil:
		ans.ReplacedSource = prev.Source
		ans.KeptFromPrevious = keepMedia(&r, prev)
	case !errors.Is(err, components.ErrNotFound):
		return nil, classify(err)
	}
	out, err := a.cat.Put(ctx, []components.Row{r})
	if err != nil {
		return nil, classify(err)
	}
	ans.Outcome = out[0]
	if ans.Outcome == components.Unchanged {
		ans.ReplacedSource = ""
	}
	stored, err := a.cat.Row(ctx, r.MPN, r.Manufacturer)
	if err != nil {
		return nil, classify(err)
	}
	ans.Row = resultRows([]components.Row{stored})[0]
	return ans, nil
}

// keepMedia carries over what a datasheet does not give (price and
// links) from the row being replaced, where the call gives none, and
// names what it kept.
func keepMedia(r *components.Row, prev components.Row) []string {
	kept := []string{}
	if r.Price == nil && prev.Price != nil {
		r.Price, r.Currency = prev.Price, prev.Currency
		kept = append(kept, "price")
	}
	for _, f := range []struct {
		name      string
		dst       *string
		prevValue string
	}{{"image_url", &r.ImageURL, prev.ImageURL}, {"footprint", &r.Footprint, prev.Footprint},
		{"cad_model_url", &r.CADModelURL, prev.CADModelURL}, {"datasheet_url", &r.DatasheetURL, prev.DatasheetURL}} {
		if *f.dst == "" && f.prevValue != "" {
			*f.dst = f.prevValue
			kept = append(kept, f.name)
		}
	}
	return kept
}

func pageList(pages map[int]bool) string {
	ps := make([]int, 0, len(pages))
	for p := range pages {
		ps = append(ps, p)
	}
	sort.Ints(ps)
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}
