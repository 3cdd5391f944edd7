package components

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// Filter operators. Between is the range form: Value <= figure <= Max,
// both ends included.
const (
	OpEq      = "=="
	OpNe      = "!="
	OpLt      = "<"
	OpLe      = "<="
	OpGt      = ">"
	OpGe      = ">="
	OpBetween = "between"
)

// EqualTolerance is how near == and != call two values equal: within
// this fraction of the larger (one part per million), so 3300 mV == 3.3 V
// and floating-point residue never decides; a wider band is the range
// form (v_out=4.9..5.1 V).
const EqualTolerance = 1e-6

// FilterSyntax is how a filter is written, for the tool descriptions.
const FilterSyntax = "name op value [unit] with op one of == != < <= > >= (\"v_out==5 V\", \"efficiency>0.9\", \"i_out>=2A\", " +
	"\"i_q<=50 uA\"), or the range name=lo..hi [unit] (\"v_out=4.9..5.1 V\", both ends included). The value's unit is converted " +
	"to the figure's SI unit (2 A and 2000 mA are the same filter); a unit of another dimension than the figure's is refused; a " +
	"bare number is read in the figure's SI unit (V, A, W, Hz, and 1 for a dimensionless figure such as efficiency: 0.9, or " +
	"write 90 %). == and != hold within a relative 1e-6."

// Filter is one condition on a figure.
type Filter struct {
	Name  string   `json:"name" jsonschema:"the figure (v_out, i_out, efficiency)"`
	Op    string   `json:"op" jsonschema:"the comparison: one of ==, !=, <, <=, >, >=, between"`
	Value float64  `json:"value" jsonschema:"the value compared with (the low end for between)"`
	Max   *float64 `json:"max,omitempty" jsonschema:"the high end, for between only"`
	Unit  string   `json:"unit,omitempty" jsonschema:"the value's unit (V, mA, kHz, %); none: the figure's SI unit"`
}

// String writes the filter as ParseFilter reads it.
func (f Filter) String() string {
	v := units.Format(f.Value)
	if f.Op == OpBetween && f.Max != nil {
		v += ".." + units.Format(*f.Max)
		return strings.TrimSpace(fmt.Sprintf("%s=%s %s", f.Name, v, f.Unit))
	}
	return strings.TrimSpace(fmt.Sprintf("%s %s %s %s", f.Name, f.Op, v, f.Unit))
}

var filterRE = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z0-9_ -]*?)\s*(==|!=|<=|>=|=|<|>)\s*(.+?)\s*$`)

// ParseFilter reads one filter written as FilterSyntax says.
func ParseFilter(s string) (Filter, error) {
	text := strings.NewReplacer("≤", "<=", "≥", ">=", "≠", "!=").Replace(s)
	m := filterRE.FindStringSubmatch(text)
	if m == nil {
		return Filter{}, fmt.Errorf("filter %q: write name op value [unit], e.g. v_out==5 V, i_out>=2A, efficiency>0.9, or v_out=4.9..5.1 V", s)
	}
	f := Filter{Op: m[2]}
	if f.Op == "=" {
		f.Op = OpEq
	}
	name, err := FigureName(m[1])
	if err != nil {
		return Filter{}, fmt.Errorf("filter %q: %w", s, err)
	}
	f.Name = name
	if lo, hi, ok := strings.Cut(m[3], ".."); ok {
		if f.Op != OpEq {
			return Filter{}, fmt.Errorf("filter %q: a range is written name=lo..hi [unit]", s)
		}
		qh, err := units.Parse(hi)
		if err != nil {
			return Filter{}, fmt.Errorf("filter %q: the high end: %w", s, err)
		}
		ql, err := units.Parse(lo)
		if err != nil {
			return Filter{}, fmt.Errorf("filter %q: the low end: %w", s, err)
		}
		if ql.Unit != "" && qh.Unit != "" && units.Normalize(ql.Unit) != units.Normalize(qh.Unit) {
			if ql.Value, err = units.Convert(ql.Value, ql.Unit, qh.Unit); err != nil {
				return Filter{}, fmt.Errorf("filter %q: %w", s, err)
			}
		}
		f.Op, f.Value, f.Max, f.Unit = OpBetween, ql.Value, &qh.Value, qh.Unit
		if f.Unit == "" {
			f.Unit = ql.Unit
		}
		return f, f.check()
	}
	q, err := units.Parse(m[3])
	if err != nil {
		return Filter{}, fmt.Errorf("filter %q: %w", s, err)
	}
	f.Value, f.Unit = q.Value, q.Unit
	return f, f.check()
}

// check says what is wrong with a filter given field by field.
func (f *Filter) check() error {
	n, err := FigureName(f.Name)
	if err != nil {
		return err
	}
	f.Name = n
	switch f.Op {
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		if f.Max != nil {
			return fmt.Errorf("filter on %s: max is for op between only", f.Name)
		}
	case OpBetween:
		if f.Max == nil {
			return fmt.Errorf("filter on %s: between needs max (value <= %s <= max)", f.Name, f.Name)
		}
		if *f.Max < f.Value {
			return fmt.Errorf("filter on %s: the range %s..%s is empty: write the low end first", f.Name, units.Format(f.Value), units.Format(*f.Max))
		}
	default:
		return fmt.Errorf("filter on %s: op %q must be one of == != < <= > >= between", f.Name, f.Op)
	}
	if math.IsNaN(f.Value) || math.IsInf(f.Value, 0) {
		return fmt.Errorf("filter on %s: the value is not a number", f.Name)
	}
	if f.Unit = strings.TrimSpace(f.Unit); f.Unit != "" {
		if _, err := units.Dimension(f.Unit); err != nil {
			return fmt.Errorf("filter on %s: %w", f.Name, err)
		}
		f.Unit = units.Normalize(f.Unit)
	}
	return nil
}

// Check puts a filter given field by field in its one spelling and says
// what is wrong with it.
func (f *Filter) Check() error { return f.check() }

// bound is a filter with its value(s) in SI, ready to hold a figure
// against.
type bound struct {
	Filter
	dim       string // "" when the filter has no unit
	lo, hi    float64
	assumedSI bool
}

func newBound(f Filter) (bound, error) {
	b := bound{Filter: f, lo: f.Value, hi: f.Value, assumedSI: f.Unit == ""}
	if f.Max != nil {
		b.hi = *f.Max
	}
	if f.Unit == "" {
		return b, nil
	}
	var err error
	if b.dim, b.lo, err = (units.Quantity{Value: b.lo, Unit: f.Unit}).InSI(); err != nil {
		return b, err
	}
	if _, b.hi, err = (units.Quantity{Value: b.hi, Unit: f.Unit}).InSI(); err != nil {
		return b, err
	}
	b.lo, b.hi = units.RoundSig(b.lo, 12), units.RoundSig(b.hi, 12) // as figures are kept
	return b, nil
}

// holds says whether the figure's SI value meets the bound.
func (b bound) holds(si float64) bool {
	eq := math.Abs(si-b.lo) <= EqualTolerance*math.Max(math.Abs(si), math.Abs(b.lo))
	switch b.Op {
	case OpEq:
		return eq
	case OpNe:
		return !eq
	case OpLt:
		return si < b.lo && !eq
	case OpLe:
		return si <= b.lo || eq
	case OpGt:
		return si > b.lo && !eq
	case OpGe:
		return si >= b.lo || eq
	case OpBetween:
		return si >= b.lo && si <= b.hi
	}
	return false
}
