package components

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// CatalogueFormat is how a catalogue file is written, for the tool
// descriptions that index one.
const CatalogueFormat = "CSV: a header row, then one row per part. Columns mpn, manufacturer, category, kind (assembly: bought complete, " +
	"a module; part: a discrete component) are required; description, price, currency, image_url, footprint, cad_model_url, " +
	"datasheet_url are optional. Every other column is a figure, its unit in brackets: v_in_min[V], v_out[V], i_out[A], " +
	"i_q[uA], f_sw[kHz], efficiency (no brackets: a bare number, dimensionless). A cell may carry its own unit of the same " +
	"dimension (\"3300 mV\" in a v_out[V] column); an empty cell is a figure the part does not state. price may be \"$1.20\" or " +
	"a number with a currency column or price[USD]. JSON: an array (or {\"rows\": [...]}) of objects with those keys, figures " +
	"as an object {\"v_out\": \"5 V\", \"i_out\": {\"value\": 2, \"unit\": \"A\"}, \"efficiency\": 0.92} or a list " +
	"[{\"name\", \"value\", \"unit\"}]. Figure names are lower case with underscores. A row with the same mpn and manufacturer " +
	"as an indexed one replaces it."

// Refused is a catalogue row not indexed, and why.
type Refused struct {
	// Source is where the row is: "FILE#L7", "FILE#/3".
	Source string `json:"source"`
	MPN    string `json:"mpn,omitempty"`
	Reason string `json:"reason"`
}

// reservedColumns are a row's columns that are not figures.
var reservedColumns = map[string]bool{"mpn": true, "manufacturer": true, "category": true, "kind": true, "description": true,
	"price": true, "currency": true, "image_url": true, "footprint": true, "cad_model_url": true, "datasheet_url": true}

var headerUnitRE = regexp.MustCompile(`^\s*([^\[\]]+?)\s*(?:\[\s*([^\[\]]*?)\s*\])?\s*$`)

// column is one header cell read: a reserved field or a figure in a unit.
type column struct {
	name, unit string
	figure     bool
}

// LoadCSV reads a CSV catalogue (see CatalogueFormat); origin names it in
// each row's source. A bad header is an error; a bad row is refused with
// its reason, and the others load.
func LoadCSV(r io.Reader, origin string) ([]Row, []Refused, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("catalogue %s is empty: it needs a header row (mpn,manufacturer,category,kind,...)", origin)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("catalogue %s: %w", origin, err)
	}
	cols, err := readHeader(header)
	if err != nil {
		return nil, nil, fmt.Errorf("catalogue %s: %w", origin, err)
	}
	var rows []Row
	var refused []Refused
	seen := map[[2]string]string{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				refused = append(refused, Refused{Source: fmt.Sprintf("%s#L%d", origin, pe.Line), Reason: pe.Err.Error()})
				continue
			}
			return nil, nil, fmt.Errorf("catalogue %s: %w", origin, err)
		}
		line, _ := cr.FieldPos(0)
		src := fmt.Sprintf("%s#L%d", origin, line)
		if blank(rec) {
			continue
		}
		row, err := csvRow(cols, rec, src)
		if err == nil {
			err = seenBefore(seen, row)
		}
		if err != nil {
			refused = append(refused, Refused{Source: src, MPN: row.MPN, Reason: err.Error()})
			continue
		}
		rows = append(rows, row)
	}
	return rows, refused, nil
}

// seenBefore refuses a second row of one file for a part already in it:
// which of the two is meant cannot be told.
func seenBefore(seen map[[2]string]string, r Row) error {
	mk, fk := r.Key()
	if first, ok := seen[[2]string{mk, fk}]; ok {
		return fmt.Errorf("%s by %s is already at %s in this catalogue; keep one row per part", r.MPN, r.Manufacturer, first)
	}
	seen[[2]string{mk, fk}] = r.Source
	return nil
}

func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

func readHeader(header []string) ([]column, error) {
	cols := make([]column, len(header))
	have := map[string]bool{}
	for i, h := range header {
		m := headerUnitRE.FindStringSubmatch(strings.TrimPrefix(h, "\ufeff"))
		if m == nil {
			return nil, fmt.Errorf("header column %d %q: write a name, with the unit in brackets for a figure (v_out[V])", i+1, h)
		}
		name, err := FigureName(m[1])
		if err != nil {
			return nil, fmt.Errorf("header column %d: %w", i+1, err)
		}
		c := column{name: name, unit: m[2], figure: !reservedColumns[name]}
		if c.unit != "" {
			if _, err := units.Dimension(c.unit); err != nil {
				return nil, fmt.Errorf("header column %q: %w", h, err)
			}
			if !c.figure && name != "price" {
				return nil, fmt.Errorf("header column %q: %s takes no unit", h, name)
			}
		}
		if have[name] {
			return nil, fmt.Errorf("header names %s twice", name)
		}
		have[name] = true
		cols[i] = c
	}
	var missing []string
	for _, need := range []string{"mpn", "manufacturer", "category", "kind"} {
		if !have[need] {
			missing = append(missing, need)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("header lacks %s (a catalogue's columns start mpn,manufacturer,category,kind)", strings.Join(missing, ", "))
	}
	return cols, nil
}

func csvRow(cols []column, rec []string, src string) (Row, error) {
	r := Row{Source: src, Figures: []Figure{}}
	var price, priceUnit string
	if len(rec) > len(cols) {
		return r, fmt.Errorf("%d cells but the header has %d columns", len(rec), len(cols))
	}
	for i, cell := range rec {
		c, cell := cols[i], strings.TrimSpace(cell)
		switch {
		case c.figure:
			if cell == "" {
				continue
			}
			f, err := ParseFigure(c.name, cell, c.unit)
			if err != nil {
				return r, err
			}
			r.Figures = append(r.Figures, f)
		case c.name == "price":
			price, priceUnit = cell, c.unit
		default:
			setField(&r, c.name, cell)
		}
	}
	if err := setPrice(&r, price, priceUnit); err != nil {
		return r, err
	}
	return r, r.Check()
}

// setField sets a reserved text field by its column name.
func setField(r *Row, name, v string) {
	switch name {
	case "mpn":
		r.MPN = v
	case "manufacturer":
		r.Manufacturer = v
	case "category":
		r.Category = v
	case "kind":
		r.Kind = v
	case "description":
		r.Description = v
	case "currency":
		r.Currency = v
	case "image_url":
		r.ImageURL = v
	case "footprint":
		r.Footprint = v
	case "cad_model_url":
		r.CADModelURL = v
	case "datasheet_url":
		r.DatasheetURL = v
	}
}

// setPrice reads a price cell: "$1.20", "1.20 USD", or a number in the
// column's or the currency column's currency.
func setPrice(r *Row, cell, unit string) error {
	if cell == "" {
		return nil
	}
	q, err := units.Parse(cell)
	if err != nil {
		return fmt.Errorf("price %q: %w", cell, err)
	}
	cur := q.Unit
	for _, c := range []string{unit, r.Currency} {
		if cur == "" {
			cur = c
		}
	}
	r.Price, r.Currency = &q.Value, cur
	return nil
}

// jsonRow is one row of a JSON catalogue; figures are an object or a list.
type jsonRow struct {
	MPN          string          `json:"mpn"`
	Manufacturer string          `json:"manufacturer"`
	Category     string          `json:"category"`
	Kind         string          `json:"kind"`
	Description  string          `json:"description"`
	Figures      json.RawMessage `json:"figures"`
	Price        json.RawMessage `json:"price"`
	Currency     string          `json:"currency"`
	ImageURL     string          `json:"image_url"`
	Footprint    string          `json:"footprint"`
	CADModelURL  string          `json:"cad_model_url"`
	DatasheetURL string          `json:"datasheet_url"`
}

// FigureInput is one figure as a caller gives it: a value and its unit,
// and the datasheet page it was read from when it was.
type FigureInput struct {
	Name  string  `json:"name" jsonschema:"the figure's name, lower case with underscores (v_out, i_out, efficiency)"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty" jsonschema:"the value's unit (V, mA, kHz, %); none for a bare dimensionless number"`
	Page  int     `json:"page,omitempty" jsonschema:"the datasheet page the value was read from"`
}

// LoadJSON reads a JSON catalogue (see CatalogueFormat). A document that
// is not a list of objects is an error; a bad row is refused with its
// reason, and the others load.
func LoadJSON(r io.Reader, origin string) ([]Row, []Refused, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("catalogue %s: %w", origin, err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		var wrapped struct {
			Rows []json.RawMessage `json:"rows"`
		}
		if err2 := json.Unmarshal(raw, &wrapped); err2 != nil || wrapped.Rows == nil {
			return nil, nil, fmt.Errorf("catalogue %s: a JSON catalogue is an array of rows or {\"rows\": [...]}: %v", origin, err)
		}
		items = wrapped.Rows
	}
	var rows []Row
	var refused []Refused
	seen := map[[2]string]string{}
	for i, it := range items {
		src := fmt.Sprintf("%s#/%d", origin, i)
		row, err := jsonItem(it, src)
		if err == nil {
			err = seenBefore(seen, row)
		}
		if err != nil {
			refused = append(refused, Refused{Source: src, MPN: row.MPN, Reason: err.Error()})
			continue
		}
		rows = append(rows, row)
	}
	return rows, refused, nil
}

func jsonItem(raw json.RawMessage, src string) (Row, error) {
	var j jsonRow
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return Row{}, fmt.Errorf("not a catalogue row: %v", err)
	}
	r := Row{MPN: j.MPN, Manufacturer: j.Manufacturer, Category: j.Category, Kind: j.Kind, Description: j.Description,
		Currency: j.Currency, ImageURL: j.ImageURL, Footprint: j.Footprint, CADModelURL: j.CADModelURL, DatasheetURL: j.DatasheetURL,
		Source: src}
	figs, err := jsonFigures(j.Figures)
	if err != nil {
		return r, err
	}
	r.Figures = figs
	if len(j.Price) > 0 && string(j.Price) != "null" {
		var cell string
		var n float64
		if err := json.Unmarshal(j.Price, &n); err == nil {
			cell = strconv.FormatFloat(n, 'g', -1, 64)
		} else if err := json.Unmarshal(j.Price, &cell); err != nil {
			return r, fmt.Errorf("price must be a number or a string such as \"$1.20\"")
		}
		if err := setPrice(&r, cell, ""); err != nil {
			return r, err
		}
	}
	return r, r.Check()
}

// jsonFigures reads figures written as an object (name: 5, "5 V" or
// {value, unit}) or as a list of FigureInput.
func jsonFigures(raw json.RawMessage) ([]Figure, error) {
	out := []Figure{}
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	var list []FigureInput
	if err := json.Unmarshal(raw, &list); err == nil {
		return Figures(list)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("figures must be an object {\"v_out\": \"5 V\"} or a list [{\"name\", \"value\", \"unit\"}]")
	}
	names := make([]string, 0, len(obj))
	for n := range obj {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := obj[n]
		var num float64
		var text string
		var pair FigureInput
		var f Figure
		var err error
		switch {
		case json.Unmarshal(v, &num) == nil:
			f, err = NewFigure(n, num, "")
		case json.Unmarshal(v, &text) == nil:
			f, err = ParseFigure(n, text, "")
		case json.Unmarshal(v, &pair) == nil:
			f, err = NewFigure(n, pair.Value, pair.Unit)
			f.Page = pair.Page
		default:
			err = fmt.Errorf("figure %s must be a number, a string with its unit (\"5 V\") or {\"value\", \"unit\"}", n)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Figures types a list of figures as a caller gives them.
func Figures(in []FigureInput) ([]Figure, error) {
	out := make([]Figure, 0, len(in))
	for _, fi := range in {
		f, err := NewFigure(fi.Name, fi.Value, fi.Unit)
		if err != nil {
			return nil, err
		}
		if fi.Page < 0 {
			return nil, fmt.Errorf("figure %s: page %d is not a page", f.Name, fi.Page)
		}
		f.Page = fi.Page
		out = append(out, f)
	}
	return out, nil
}
