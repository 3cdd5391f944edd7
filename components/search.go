package components

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// ErrBadQuery is a query that cannot be run as written: a filter in a unit
// of another dimension than its figure's, a kind that is not one.
var ErrBadQuery = errors.New("bad catalogue query")

// Search limits.
const (
	DefaultLimit = 20
	MaxLimit     = 200
)

// Order is the order of a search's rows.
const Order = "cheapest first (rows without a price after those with one), then by mpn and manufacturer"

// Query is one parametric search.
type Query struct {
	// Category is the category searched; "" searches every category.
	Category string
	Filters  []Filter
	// Kind keeps only assembly or part rows; "" keeps both.
	Kind  string
	Limit int
}

// AppliedFilter is a filter as it was held against the rows: its value
// in SI.
type AppliedFilter struct {
	Filter    string   `json:"filter"`
	Name      string   `json:"name"`
	Op        string   `json:"op"`
	SIValue   float64  `json:"si_value"`
	SIMax     *float64 `json:"si_max,omitempty"`
	SIUnit    string   `json:"si_unit,omitempty"`
	Dimension string   `json:"dimension,omitempty"`
	// UnitAssumed: the filter had no unit and its number was read in the
	// figure's SI unit.
	UnitAssumed bool `json:"unit_assumed,omitempty"`
}

// Answer is what a parametric search found.
type Answer struct {
	Category string          `json:"category"`
	Kind     string          `json:"kind,omitempty"`
	Filters  []AppliedFilter `json:"filters"`
	Rows     []Row           `json:"rows"`
	// Matched counts the rows meeting every filter, Rows the first
	// Limit of them.
	Matched int `json:"matched"`
	// Considered counts the rows of the category (and kind).
	Considered int `json:"considered"`
	// ExcludedMissing counts, per filtered figure, the rows considered
	// that do not state it: such a row never matches a filter on it.
	ExcludedMissing map[string]int `json:"excluded_missing"`
	// ExcludedOtherDimension counts, per filtered figure, the rows whose
	// figure measures something else than the filter's unit.
	ExcludedOtherDimension map[string]int `json:"excluded_other_dimension,omitempty"`
	Tolerance              string         `json:"equal_tolerance"`
	Order                  string         `json:"order"`
	// Message says, for an empty answer, what was asked and why nothing
	// came back.
	Message string `json:"message,omitempty"`
}

// Search runs a parametric query over a store's rows.
func Search(ctx context.Context, st Store, q Query) (Answer, error) {
	a := Answer{Category: Category(q.Category), Filters: []AppliedFilter{}, Rows: []Row{}, ExcludedMissing: map[string]int{},
		Tolerance: fmt.Sprintf("== and != hold within a relative %g", EqualTolerance), Order: Order}
	if q.Kind != "" {
		k, err := Kind(q.Kind)
		if err != nil {
			return a, fmt.Errorf("%w: %v", ErrBadQuery, err)
		}
		a.Kind = k
	}
	limit := q.Limit
	switch {
	case limit <= 0:
		limit = DefaultLimit
	case limit > MaxLimit:
		return a, fmt.Errorf("%w: limit %d is over %d", ErrBadQuery, limit, MaxLimit)
	}
	bounds := make([]bound, len(q.Filters))
	for i, f := range q.Filters {
		if err := f.check(); err != nil {
			return a, fmt.Errorf("%w: %v", ErrBadQuery, err)
		}
		b, err := newBound(f)
		if err != nil {
			return a, fmt.Errorf("%w: filter %s: %v", ErrBadQuery, f, err)
		}
		bounds[i] = b
	}
	all, err := st.Rows(ctx, a.Category)
	if err != nil {
		return a, err
	}
	var rows []Row
	for _, r := range all {
		if a.Kind == "" || r.Kind == a.Kind {
			rows = append(rows, r)
		}
	}
	a.Considered = len(rows)
	for _, b := range bounds {
		af, err := applied(b, rows, a.Category)
		if err != nil {
			return a, err
		}
		a.Filters = append(a.Filters, af)
		a.ExcludedMissing[b.Name] = 0
	}
	var matched []Row
	for _, r := range rows {
		if meets(r, bounds, &a) {
			matched = append(matched, r)
		}
	}
	sort.SliceStable(matched, func(i, j int) bool { return cheaper(matched[i], matched[j]) })
	a.Matched = len(matched)
	if len(matched) > limit {
		matched = matched[:limit]
	}
	a.Rows = append(a.Rows, matched...)
	if a.Matched == 0 {
		a.Message, err = emptyMessage(ctx, st, a, rows)
	}
	return a, err
}

// applied holds a filter's unit against the figure's dimension in the
// rows: a unit no row's figure is measured in is refused by name.
func applied(b bound, rows []Row, category string) (AppliedFilter, error) {
	af := AppliedFilter{Filter: b.Filter.String(), Name: b.Name, Op: b.Op, SIValue: b.lo, Dimension: b.dim, UnitAssumed: b.assumedSI}
	if b.Op == OpBetween {
		hi := b.hi
		af.SIMax = &hi
	}
	dims := map[string]int{}
	for _, r := range rows {
		if f, ok := r.Figure(b.Name); ok {
			dims[f.Dimension]++
		}
	}
	if b.dim == "" {
		// A bare number: read in the figure's SI unit, the one most rows use.
		best := ""
		for d, n := range dims {
			if n > dims[best] || n == dims[best] && d < best {
				best = d
			}
		}
		af.Dimension, af.SIUnit = best, siUnit(best)
		return af, nil
	}
	af.SIUnit = siUnit(b.dim)
	if len(dims) > 0 && dims[b.dim] == 0 {
		var have []string
		for d := range dims {
			have = append(have, fmt.Sprintf("a %s (%s)", d, siUnit(d)))
		}
		sort.Strings(have)
		in := "the catalogue"
		if category != "" {
			in = category
		}
		return af, fmt.Errorf("%w: filter %s: %s is a %s, but %s in %s is %s; write the value in that unit", ErrBadQuery,
			b.Filter.String(), b.Unit, b.dim, b.Name, in, strings.Join(have, " or "))
	}
	return af, nil
}

// meets says whether a row meets every bound, counting the rows that lack
// a figure (or state it in another dimension) per figure.
func meets(r Row, bounds []bound, a *Answer) bool {
	ok := true
	for _, b := range bounds {
		f, has := r.Figure(b.Name)
		switch {
		case !has:
			a.ExcludedMissing[b.Name]++
			ok = false
		case b.dim != "" && f.Dimension != b.dim:
			if a.ExcludedOtherDimension == nil {
				a.ExcludedOtherDimension = map[string]int{}
			}
			a.ExcludedOtherDimension[b.Name]++
			ok = false
		case !b.holds(f.SI):
			ok = false
		}
	}
	return ok
}

// cheaper orders rows as Order says.
func cheaper(x, y Row) bool {
	switch {
	case x.Price != nil && y.Price == nil:
		return true
	case x.Price == nil && y.Price != nil:
		return false
	case x.Price != nil && *x.Price != *y.Price:
		return *x.Price < *y.Price
	}
	xm, xf := x.Key()
	ym, yf := y.Key()
	if xm != ym {
		return xm < ym
	}
	return xf < yf
}

// emptyMessage says what an empty answer asked and why nothing came back.
func emptyMessage(ctx context.Context, st Store, a Answer, rows []Row) (string, error) {
	what := "no catalogue row"
	if a.Kind != "" {
		what = "no " + a.Kind + " row"
	}
	if a.Category != "" {
		what += " in category " + a.Category
	}
	var fs []string
	for _, f := range a.Filters {
		fs = append(fs, f.Filter)
	}
	if len(fs) > 0 {
		what += " meets " + strings.Join(fs, ", ")
	}
	if len(rows) == 0 {
		if a.Category == "" {
			return what + ": the catalogue is empty (index one with component.index_catalog)", nil
		}
		cats, err := st.Categories(ctx)
		if err != nil {
			return "", err
		}
		names := make([]string, 0, len(cats))
		for c := range cats {
			names = append(names, c)
		}
		sort.Strings(names)
		if len(names) == 0 {
			return what + ": the catalogue is empty (index one with component.index_catalog)", nil
		}
		return fmt.Sprintf("%s: the category has no rows%s; the catalogue's categories are %s", what, kindNote(a.Kind), strings.Join(names, ", ")), nil
	}
	var why []string
	for _, f := range a.Filters {
		if n := a.ExcludedMissing[f.Name]; n > 0 {
			why = append(why, fmt.Sprintf("%d of %d rows do not state %s", n, len(rows), f.Name))
		}
	}
	if len(why) == 0 {
		why = append(why, fmt.Sprintf("each of the %d rows considered fails at least one filter", len(rows)))
	}
	known := map[string]bool{}
	for _, r := range rows {
		for _, f := range r.Figures {
			known[f.Name] = true
		}
	}
	var unknown []string
	for _, f := range a.Filters {
		if !known[f.Name] {
			unknown = append(unknown, f.Name)
		}
	}
	msg := what + ": " + strings.Join(why, "; ")
	if len(unknown) > 0 {
		names := make([]string, 0, len(known))
		for n := range known {
			names = append(names, n)
		}
		sort.Strings(names)
		msg += fmt.Sprintf(". No row states %s; the figures stated are %s", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	return msg, nil
}

func kindNote(kind string) string {
	if kind == "" {
		return ""
	}
	return " of kind " + kind
}

// Describe writes a figure as read: "2000 mA (2 A)".
func (f Figure) Describe() string {
	q := units.Quantity{Value: f.Value, Unit: f.Unit}.String()
	if f.Unit == "" || f.SIUnit == "" || units.Normalize(f.Unit) == units.Normalize(f.SIUnit) {
		return q
	}
	return fmt.Sprintf("%s (%s %s)", q, units.Format(f.SI), f.SIUnit)
}
