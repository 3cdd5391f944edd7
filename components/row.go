// Package components is the typed component catalogue: parts and
// assemblies with their figures (v_out, i_out, efficiency...) held as
// numbers with units, normalised to SI, so a query can ask for
// v_out == 5 V and i_out >= 2000 mA and compare like with like. It is
// what knowledge.search's equality-only tag filters cannot express.
//
// Rows come from a CSV or JSON catalogue (LoadCSV, LoadJSON) or from
// datasheet figures a person accepted; each carries its source. One Store
// interface has two implementations with the same behaviour and the same
// tests: SQLite (a file of the data dir, which it may share with the
// knowledge store: its tables are prefixed component_) and PostgreSQL.
// Filtering is done here, in Go, over a category's rows, so both stores
// answer a query the same way. The package knows nothing of MCP or
// Temporal.
package components

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/metaforge/metaforge/internal/units"
)

// Kinds: what the result of search_intent is split by, never merged.
const (
	// KindAssembly is a finished, bought-complete item (a COTS module):
	// search_intent's buy_complete.
	KindAssembly = "assembly"
	// KindPart is a discrete component a design is built from:
	// search_intent's build_from_parts.
	KindPart = "part"
)

// Row is one catalogue entry: a part or assembly, its figures, its media
// and where it came from.
type Row struct {
	MPN          string `json:"mpn"`
	Manufacturer string `json:"manufacturer"`
	// Category is lower-case with underscores: buck_converter, ldo.
	Category    string `json:"category"`
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"`
	// Figures are sorted by name; a name appears once.
	Figures []Figure `json:"figures"`
	// Price is per unit, in Currency (USD, EUR, GBP).
	Price        *float64 `json:"price,omitempty"`
	Currency     string   `json:"currency,omitempty"`
	ImageURL     string   `json:"image_url,omitempty"`
	Footprint    string   `json:"footprint,omitempty"`
	CADModelURL  string   `json:"cad_model_url,omitempty"`
	DatasheetURL string   `json:"datasheet_url,omitempty"`
	// Source is where the row came from: "FILE#L12" (a CSV line),
	// "FILE#/3" (a JSON array index, from 0), "inline#/0", or
	// "knowledge:SOURCE_ID#page=2,3" (figures a person accepted from a
	// datasheet).
	Source string `json:"source"`
	// AcceptedBy is who accepted a datasheet's figures into the row (the
	// approver of the component.accept_figures call); "" for a catalogue
	// row.
	AcceptedBy string    `json:"accepted_by,omitempty"`
	IndexedAt  time.Time `json:"indexed_at"`
}

// Figure is one typed value of a row: as given, and in SI.
type Figure struct {
	Name string `json:"name"`
	// Value and Unit are as the catalogue gave them ("2000", "mA"); Unit
	// is "" for a bare number.
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
	// SI is the value in its dimension's SI unit (2 for 2000 mA); a bare
	// number is dimensionless and its SI value is itself.
	SI        float64 `json:"si_value"`
	SIUnit    string  `json:"si_unit"`
	Dimension string  `json:"dimension"`
	// Page is the datasheet page the figure was read from, for an
	// accepted figure; 0 otherwise.
	Page int `json:"page,omitempty"`
}

// Figure is the row's figure of that name.
func (r Row) Figure(name string) (Figure, bool) {
	for _, f := range r.Figures {
		if f.Name == name {
			return f, true
		}
	}
	return Figure{}, false
}

// Key is the row's identity: MPN and manufacturer, ignoring case and
// surrounding space. Indexing a row with the same key replaces it.
func (r Row) Key() (mpn, manufacturer string) { return identity(r.MPN), identity(r.Manufacturer) }

func identity(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// siUnits are the SI units InSI's values are in, per dimension.
var siUnits = map[string]string{
	units.Length: "m", units.Area: "m^2", units.Volume: "m^3", units.Mass: "kg", units.Force: "N",
	units.Torque: "N*m", units.Energy: "J", units.Voltage: "V", units.Current: "A", units.Power: "W",
	units.Pressure: "Pa", units.Temperature: "K", units.Frequency: "Hz", units.Capacitance: "F",
	units.Resistance: "ohm", units.Time: "s", units.Charge: "A*s", units.RotationalSpeed: "rpm",
	units.Speed: "m/s", units.Angle: "rad", units.Dimensionless: "1",
}

// siUnit names the SI unit of a dimension ("currency USD" is USD).
func siUnit(dim string) string {
	if c, ok := strings.CutPrefix(dim, units.Currency+" "); ok {
		return c
	}
	return siUnits[dim]
}

// NewFigure types one value: a bare number is dimensionless, a unit the
// units library does not know is refused by name.
func NewFigure(name string, value float64, unit string) (Figure, error) {
	n, err := FigureName(name)
	if err != nil {
		return Figure{}, err
	}
	unit = strings.TrimSpace(unit)
	f := Figure{Name: n, Value: value, Unit: unit, SI: value, Dimension: units.Dimensionless, SIUnit: "1"}
	if unit == "" {
		return f, nil
	}
	f.Unit = units.Normalize(unit)
	dim, si, err := units.Quantity{Value: value, Unit: f.Unit}.InSI()
	if err != nil {
		return Figure{}, fmt.Errorf("figure %s: %w", n, err)
	}
	f.SI, f.Dimension, f.SIUnit = units.RoundSig(si, 12), dim, siUnit(dim)
	return f, nil
}

// ParseFigure types a value written with its unit ("3300 mV", "2A",
// "92 %", "0.92"); defaultUnit applies when the text has none.
func ParseFigure(name, text, defaultUnit string) (Figure, error) {
	q, err := units.Parse(text)
	if err != nil {
		return Figure{}, fmt.Errorf("figure %s: %w", name, err)
	}
	if q.Unit == "" {
		q.Unit = defaultUnit
	} else if defaultUnit != "" {
		dq, _ := units.Dimension(defaultUnit)
		if dv, _ := units.Dimension(q.Unit); dq != dv {
			return Figure{}, fmt.Errorf("figure %s: %q is a %s, but the column is in %s (a %s)", name, text, dv, defaultUnit, dq)
		}
	}
	return NewFigure(name, q.Value, q.Unit)
}

var figureNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// FigureName spells a figure's name one way: lower case, spaces and
// hyphens as underscores ("V Out" is v_out).
func FigureName(name string) (string, error) {
	n := strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(name, "-", " ")), "_"))
	if !figureNameRE.MatchString(n) {
		return "", fmt.Errorf("figure name %q must be a letter then letters, digits and underscores (v_out, i_out_max)", name)
	}
	return n, nil
}

// Category spells a category one way, as FigureName does a figure.
func Category(c string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(c, "-", " ")), "_"))
}

// Kind reads a kind: assembly (also buy_complete, module, cots) or part
// (also build_from_parts, component, discrete).
func Kind(k string) (string, error) {
	switch Category(k) {
	case KindAssembly, "buy_complete", "module", "cots":
		return KindAssembly, nil
	case KindPart, "build_from_parts", "component", "discrete":
		return KindPart, nil
	}
	return "", fmt.Errorf("kind %q must be assembly (bought complete: a module, a COTS unit) or part (a discrete component a design is built from)", k)
}

// Check puts a row in its one spelling (category, kind, figures sorted)
// and says what is missing or wrong.
func (r *Row) Check() error {
	r.MPN, r.Manufacturer = strings.TrimSpace(r.MPN), strings.TrimSpace(r.Manufacturer)
	switch {
	case r.MPN == "":
		return fmt.Errorf("mpn is empty: every row needs its manufacturer part number")
	case r.Manufacturer == "":
		return fmt.Errorf("manufacturer is empty for %s: a row is identified by mpn and manufacturer", r.MPN)
	}
	if r.Category = Category(r.Category); !figureNameRE.MatchString(r.Category) {
		return fmt.Errorf("category %q of %s must be a name such as buck_converter or ldo", r.Category, r.MPN)
	}
	k, err := Kind(r.Kind)
	if err != nil {
		return err
	}
	r.Kind = k
	if r.Price != nil {
		if *r.Price < 0 {
			return fmt.Errorf("price of %s is negative", r.MPN)
		}
		dim, err := units.Dimension(r.Currency)
		if err != nil || !strings.HasPrefix(dim, units.Currency) {
			return fmt.Errorf("price of %s needs its currency (USD, EUR, GBP), got %q", r.MPN, r.Currency)
		}
		r.Currency = siUnit(dim)
	}
	sort.Slice(r.Figures, func(i, j int) bool { return r.Figures[i].Name < r.Figures[j].Name })
	for i := 1; i < len(r.Figures); i++ {
		if r.Figures[i].Name == r.Figures[i-1].Name {
			return fmt.Errorf("figure %s is given twice for %s", r.Figures[i].Name, r.MPN)
		}
	}
	if strings.TrimSpace(r.Source) == "" {
		return fmt.Errorf("row %s has no source", r.MPN)
	}
	return nil
}
