package component

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/components"
	"github.com/metaforge/metaforge/protocol"
)

// ToolIndexCatalog fills the catalogue from a file or inline rows.
const ToolIndexCatalog = "component.index_catalog"

// Bounds of one index_catalog call.
const (
	maxCatalogueBytes = 32 << 20
	maxInlineRows     = 2000
)

type indexCatalogArgs struct {
	FilePath string      `json:"file_path,omitempty" jsonschema:"a catalogue file (.csv or .json) under the server's read roots"`
	Rows     []inlineRow `json:"rows,omitempty" jsonschema:"rows given inline instead of a file"`
}

// inlineRow is one row given in the call.
type inlineRow struct {
	MPN          string                   `json:"mpn"`
	Manufacturer string                   `json:"manufacturer"`
	Category     string                   `json:"category" jsonschema:"lower case with underscores: buck_converter, ldo"`
	Kind         string                   `json:"kind" jsonschema:"assembly (bought complete) or part (a discrete component)"`
	Description  string                   `json:"description,omitempty"`
	Figures      []components.FigureInput `json:"figures,omitempty"`
	Price        *float64                 `json:"price,omitempty" jsonschema:"per unit, in currency"`
	Currency     string                   `json:"currency,omitempty" jsonschema:"USD, EUR or GBP; needed with price"`
	ImageURL     string                   `json:"image_url,omitempty"`
	Footprint    string                   `json:"footprint,omitempty"`
	CADModelURL  string                   `json:"cad_model_url,omitempty"`
	DatasheetURL string                   `json:"datasheet_url,omitempty"`
}

var indexCatalogTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolIndexCatalog,
	AdapterID: AdapterID,
	Name:      "Index a component catalogue",
	Description: "Load a catalogue into the typed component catalogue, from file_path (a .csv or .json file under the server's read " +
		"roots) or from rows given inline (figures as [{name, value, unit}]). " + components.CatalogueFormat + " A row is " +
		"added, replaced (same mpn and manufacturer, something changed: the new row replaces the old whole) or unchanged " +
		"(indexing the same catalogue again changes nothing). A row that cannot be read is refused with its place (FILE#L7) " +
		"and reason, and the others load; a file that is not a catalogue (no header, a bad column) loads nothing. Returns the " +
		"counts, the rows per category and the refused rows.",
	Capability:     "component_index",
	Idempotent:     true,
	Short:          true,
	TimeoutSeconds: 120,
}, method((*Adapter).indexCatalog),
	adapters.At("file_path", adapters.MinLength(1), adapters.MaxLength(4096)),
	adapters.At("rows", adapters.MinItems(1), adapters.MaxItems(maxInlineRows)),
	adapters.At("rows[].mpn", adapters.MinLength(1), adapters.MaxLength(100)),
	adapters.At("rows[].manufacturer", adapters.MinLength(1), adapters.MaxLength(200)),
	adapters.At("rows[].category", adapters.MinLength(1), adapters.MaxLength(100)),
	adapters.At("rows[].description", adapters.MaxLength(2000)),
	adapters.At("rows[].figures", adapters.MaxItems(300)),
	adapters.At("rows[].figures[].name", adapters.MinLength(1), adapters.MaxLength(100)),
	adapters.At("rows[].figures[].unit", adapters.MaxLength(40)),
	adapters.At("rows[].figures[].page", adapters.Minimum(1)),
	adapters.At("rows[].price", adapters.Minimum(0)),
)

type indexReport struct {
	File        string               `json:"file,omitempty"`
	Format      string               `json:"format"`
	RowsRead    int                  `json:"rows_read"`
	Added       int                  `json:"added"`
	Replaced    int                  `json:"replaced"`
	Unchanged   int                  `json:"unchanged"`
	Refused     []components.Refused `json:"refused"`
	ByCategory  map[string]int       `json:"by_category"`
	Catalogue   map[string]int       `json:"catalogue_categories"`
	Description string               `json:"store"`
}

func (a *Adapter) indexCatalog(ctx context.Context, in indexCatalogArgs) (any, error) {
	var rows []components.Row
	var refused []components.Refused
	rep := indexReport{Refused: []components.Refused{}, ByCategory: map[string]int{}, Description: a.cat.Describe()}
	switch {
	case in.FilePath != "" && len(in.Rows) > 0:
		return nil, protocol.Invalid("give file_path or rows, not both")
	case in.FilePath != "":
		var err error
		if rows, refused, rep.Format, rep.File, err = a.readCatalogue(in.FilePath); err != nil {
			return nil, err
		}
	case len(in.Rows) > 0:
		rep.Format = "inline"
		rows, refused = inlineRows(in.Rows)
	default:
		return nil, protocol.Invalid("give file_path (a .csv or .json catalogue under the read roots) or rows")
	}
	rep.RowsRead = len(rows) + len(refused)
	rep.Refused = append(rep.Refused, refused...)
	if len(rows) > 0 {
		out, err := a.cat.Put(ctx, rows)
		if err != nil {
			return nil, classify(err)
		}
		for i, o := range out {
			switch o {
			case components.Added:
				rep.Added++
			case components.Replaced:
				rep.Replaced++
			case components.Unchanged:
				rep.Unchanged++
			}
			rep.ByCategory[rows[i].Category]++
		}
	}
	cats, err := a.cat.Categories(ctx)
	if err != nil {
		return nil, classify(err)
	}
	rep.Catalogue = cats
	return rep, nil
}

// readCatalogue reads a catalogue file under the read roots, by its
// extension.
func (a *Adapter) readCatalogue(path string) ([]components.Row, []components.Refused, string, string, error) {
	if a.files == nil {
		return nil, nil, "", "", protocol.Refusal("file_path: this server reads no files for the catalogue; give the rows inline (rows)")
	}
	src, err := a.files.ResolveRead("file_path", path)
	if err != nil {
		return nil, nil, "", "", err
	}
	load := map[string]func(io.Reader, string) ([]components.Row, []components.Refused, error){
		".csv": components.LoadCSV, ".json": components.LoadJSON}[strings.ToLower(filepath.Ext(src))]
	if load == nil {
		return nil, nil, "", "", protocol.Invalid("file_path %s: a catalogue is a .csv or .json file", path)
	}
	f, err := os.Open(src)
	if err != nil {
		return nil, nil, "", "", protocol.Refusal("file_path %s cannot be read: %v", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCatalogueBytes+1))
	if err != nil {
		return nil, nil, "", "", protocol.Refusal("file_path %s cannot be read: %v", path, err)
	}
	if len(data) > maxCatalogueBytes {
		return nil, nil, "", "", protocol.Invalid("file_path %s is over %d MiB: split the catalogue", path, maxCatalogueBytes>>20)
	}
	rows, refused, err := load(bytes.NewReader(data), src)
	if err != nil {
		return nil, nil, "", "", protocol.Invalid("%v", err)
	}
	return rows, refused, strings.TrimPrefix(strings.ToLower(filepath.Ext(src)), "."), src, nil
}

// inlineRows types rows given in the call; each is sourced inline#/i.
func inlineRows(in []inlineRow) ([]components.Row, []components.Refused) {
	var rows []components.Row
	var refused []components.Refused
	seen := map[[2]string]string{}
	for i, ir := range in {
		src := fmt.Sprintf("inline#/%d", i)
		r, err := ir.row(src)
		if err == nil {
			mk, fk := r.Key()
			if first, ok := seen[[2]string{mk, fk}]; ok {
				err = fmt.Errorf("%s by %s is already at %s in these rows; keep one row per part", r.MPN, r.Manufacturer, first)
			} else {
				seen[[2]string{mk, fk}] = src
			}
		}
		if err != nil {
			refused = append(refused, components.Refused{Source: src, MPN: ir.MPN, Reason: err.Error()})
			continue
		}
		rows = append(rows, r)
	}
	return rows, refused
}

func (ir inlineRow) row(src string) (components.Row, error) {
	figs, err := components.Figures(ir.Figures)
	if err != nil {
		return components.Row{}, err
	}
	r := components.Row{MPN: ir.MPN, Manufacturer: ir.Manufacturer, Category: ir.Category, Kind: ir.Kind, Description: ir.Description,
		Figures: figs, Price: ir.Price, Currency: ir.Currency, ImageURL: ir.ImageURL, Footprint: ir.Footprint, CADModelURL: ir.CADModelURL,
		DatasheetURL: ir.DatasheetURL, Source: src}
	return r, r.Check()
}
