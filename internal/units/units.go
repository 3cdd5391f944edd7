// Package units is a small unit library: enough to read a datasheet value
// ("3300 mV", "50 µA", "$20") and hold it against a requirement's limit in
// another unit of the same dimension. It knows the units engineering
// requirements are written in, SI prefixes (p n u µ m c k M G) on the units
// that take them, and nothing else: an unknown unit is an error, never a
// guess.
//
// Temperatures are absolute: °C, K and °F convert with their offsets
// (85 °C is 358.15 K). A temperature difference (a rise of 40 K) must be
// written in K; 40 °C as a rise would be read as 313.15 K.
//
// Currencies are each their own dimension: there are no exchange rates, so
// $ against € is incompatible, not converted.
//
// Symbols are case-sensitive (mW is not MW); another case is read only when
// it names exactly one unit (KV is kV, mhz is refused as mHz or MHz). C is
// degrees Celsius (there is no coulomb), F the farad (°F or degF is
// Fahrenheit), g the gram (not standard gravity), and a lone ° or deg an
// angle. A lone "k" is refused rather than read as kelvin.
package units

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Errors a caller tells apart: what could not be read as a number with a
// unit, a unit this library does not know, and two units that do not
// measure the same thing.
var (
	ErrNotAQuantity      = errors.New("not a quantity")
	ErrUnknownUnit       = errors.New("unknown unit")
	ErrIncompatibleUnits = errors.New("incompatible units")
)

// Dimensions.
const (
	Length          = "length"
	Area            = "area"
	Volume          = "volume"
	Mass            = "mass"
	Force           = "force"
	Torque          = "torque"
	Energy          = "energy"
	Voltage         = "voltage"
	Current         = "current"
	Power           = "power"
	Pressure        = "pressure"
	Temperature     = "temperature"
	Frequency       = "frequency"
	Capacitance     = "capacitance"
	Resistance      = "resistance"
	Time            = "time"
	Charge          = "charge"
	RotationalSpeed = "rotational speed"
	Speed           = "speed"
	Angle           = "angle"
	Dimensionless   = "dimensionless"
	Currency        = "currency" // qualified by the code: "currency USD"
)

// unitDef is one unit: its dimension and how to reach the dimension's SI
// unit (si = value*factor + offset; offset is non-zero for °C and °F only).
type unitDef struct {
	dim        string
	factor     float64
	offset     float64
	prefixable bool
}

var unitDefs = map[string]unitDef{
	// length (SI: m)
	"m": {Length, 1, 0, true}, "in": {Length, 0.0254, 0, false}, "inch": {Length, 0.0254, 0, false},
	"ft": {Length, 0.3048, 0, false}, "mil": {Length, 25.4e-6, 0, false},
	// volume (SI: m³); area and volume also come from a length with an exponent: mm2, mm^3, m²
	"L": {Volume, 1e-3, 0, true}, "l": {Volume, 1e-3, 0, true},
	// mass (SI: kg)
	"g": {Mass, 1e-3, 0, true}, "lb": {Mass, 0.45359237, 0, false}, "lbs": {Mass, 0.45359237, 0, false},
	"oz": {Mass, 0.028349523125, 0, false},
	// force (N), torque (N·m), energy (J)
	"N": {Force, 1, 0, true}, "lbf": {Force, 4.4482216152605, 0, false},
	"Nm": {Torque, 1, 0, true}, "N·m": {Torque, 1, 0, true}, "N*m": {Torque, 1, 0, true}, "N.m": {Torque, 1, 0, true},
	"J": {Energy, 1, 0, true}, "Wh": {Energy, 3600, 0, true},
	// electrical
	"V": {Voltage, 1, 0, true}, "v": {Voltage, 1, 0, false},
	"VDC": {Voltage, 1, 0, false}, "Vdc": {Voltage, 1, 0, false}, "VAC": {Voltage, 1, 0, false}, "Vac": {Voltage, 1, 0, false},
	"Ah": {Charge, 3600, 0, true}, // battery capacity: mAh
	"A":  {Current, 1, 0, true},
	"W":  {Power, 1, 0, true}, "w": {Power, 1, 0, false},
	"F": {Capacitance, 1, 0, true},
	"Ω": {Resistance, 1, 0, true}, "ohm": {Resistance, 1, 0, true}, "Ohm": {Resistance, 1, 0, true},
	"ohms": {Resistance, 1, 0, true},
	// pressure and stress (SI: Pa)
	"Pa": {Pressure, 1, 0, true}, "bar": {Pressure, 1e5, 0, true},
	"psi": {Pressure, 6894.757293168361, 0, false}, "ksi": {Pressure, 6894757.293168361, 0, false},
	"N/mm2": {Pressure, 1e6, 0, false}, "N/mm^2": {Pressure, 1e6, 0, false}, "N/mm²": {Pressure, 1e6, 0, false},
	// temperature (SI: K), absolute
	"K": {Temperature, 1, 0, false}, "°C": {Temperature, 1, 273.15, false}, "C": {Temperature, 1, 273.15, false},
	"degC": {Temperature, 1, 273.15, false}, "°F": {Temperature, 5.0 / 9, 273.15 - 32*5.0/9, false},
	"degF": {Temperature, 5.0 / 9, 273.15 - 32*5.0/9, false},
	// frequency, time
	"Hz":  {Frequency, 1, 0, true},
	"rpm": {RotationalSpeed, 1, 0, false}, "RPM": {RotationalSpeed, 1, 0, false},
	"m/s": {Speed, 1, 0, false}, "mm/s": {Speed, 1e-3, 0, false}, "km/h": {Speed, 1 / 3.6, 0, false},
	"s": {Time, 1, 0, true}, "sec": {Time, 1, 0, false}, "min": {Time, 60, 0, false},
	"h": {Time, 3600, 0, false}, "hr": {Time, 3600, 0, false}, "day": {Time, 86400, 0, false},
	// angle (SI: rad)
	"rad": {Angle, 1, 0, true}, "deg": {Angle, math.Pi / 180, 0, false}, "°": {Angle, math.Pi / 180, 0, false},
	// dimensionless
	"1": {Dimensionless, 1, 0, false}, "ratio": {Dimensionless, 1, 0, false}, "-": {Dimensionless, 1, 0, false},
	"%": {Dimensionless, 0.01, 0, false}, "ppm": {Dimensionless, 1e-6, 0, false},
	// currencies: each its own dimension
	"$": {Currency + " USD", 1, 0, false}, "USD": {Currency + " USD", 1, 0, false},
	"€": {Currency + " EUR", 1, 0, false}, "EUR": {Currency + " EUR", 1, 0, false},
	"£": {Currency + " GBP", 1, 0, false}, "GBP": {Currency + " GBP", 1, 0, false},
}

// siPrefixes are the SI prefixes a prefixable unit takes; µ and μ are read as u.
var siPrefixes = map[string]float64{"p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, "c": 1e-2, "k": 1e3, "M": 1e6, "G": 1e9}

// unitSpellings normalizes what people type for the same symbol.
var unitSpellings = strings.NewReplacer(
	"µ", "u", "μ", "u", // micro sign, Greek mu
	"\u2126", "\u03a9", // ohm sign -> Greek capital omega
	"º", "°", "˚", "°", // ordinal indicator and ring above, typed for a degree sign
	"℃", "°C", "℉", "°F",
)

// resolve reads a unit symbol: exact, then an SI prefix on a unit that
// takes one, then a length with an exponent (area, volume), then ignoring
// case when that names exactly one unit ("KV" is kV; "MM" is refused, it
// could be mm or Mm).
func resolve(sym string) (unitDef, error) {
	s := Normalize(sym)
	if s == "" {
		return unitDef{}, fmt.Errorf("%w: no unit given", ErrUnknownUnit)
	}
	if u, ok := exactOrPrefixed(s); ok {
		return u, nil
	}
	if u, ok := withExponent(s, exactOrPrefixed); ok {
		return u, nil
	}
	if len([]rune(s)) > 1 {
		type scale struct {
			dim            string
			factor, offset float64
		}
		cands := map[scale][]string{}
		var found unitDef
		for _, spelled := range allUnitSpellings() {
			if strings.EqualFold(spelled, s) {
				u, _ := exactOrPrefixed(spelled)
				k := scale{u.dim, u.factor, u.offset}
				cands[k] = append(cands[k], spelled)
				found = u
			}
		}
		if len(cands) == 1 {
			found.prefixable = false
			return found, nil
		}
		if len(cands) > 1 {
			var names []string
			for _, n := range cands {
				names = append(names, n[0])
			}
			sort.Strings(names)
			return unitDef{}, fmt.Errorf("%w: %q is ambiguous: it could be %s; write the unit with its exact case",
				ErrUnknownUnit, sym, strings.Join(names, " or "))
		}
	}
	return unitDef{}, fmt.Errorf("%w: %q is not a unit this server knows (it reads SI units with siPrefixes p n u m c k M G, "+
		"°C/K/°F, %%, ppm, in, ft, lb, psi, bar, $ and others)", ErrUnknownUnit, sym)
}

// Normalize writes a unit symbol one way: micro as u, the ohm sign as Ω,
// no spaces ("deg C" is degC).
func Normalize(sym string) string {
	s := unitSpellings.Replace(strings.TrimSpace(sym))
	return strings.Join(strings.Fields(s), "") // "deg C" -> "degC", "k ohm" -> "kohm"
}

func exactOrPrefixed(s string) (unitDef, bool) {
	if u, ok := unitDefs[s]; ok {
		return u, true
	}
	for p, f := range siPrefixes {
		rest, ok := strings.CutPrefix(s, p)
		if !ok || rest == "" {
			continue
		}
		if u, ok := unitDefs[rest]; ok && u.prefixable {
			u.factor *= f
			u.prefixable = false
			return u, true
		}
	}
	return unitDef{}, false
}

// withExponent reads mm2, mm^3, m², in3: a length to a power.
func withExponent(s string, resolve func(string) (unitDef, bool)) (unitDef, bool) {
	for _, e := range []struct {
		suffix string
		power  float64
		dim    string
	}{{"^2", 2, Area}, {"²", 2, Area}, {"2", 2, Area}, {"^3", 3, Volume}, {"³", 3, Volume}, {"3", 3, Volume}} {
		base, ok := strings.CutSuffix(s, e.suffix)
		if !ok || base == "" {
			continue
		}
		if u, ok := resolve(base); ok && u.dim == Length {
			return unitDef{dim: e.dim, factor: math.Pow(u.factor, e.power)}, true
		}
	}
	return unitDef{}, false
}

// allUnitSpellings is every unit with and without each prefix it takes.
func allUnitSpellings() []string {
	var out []string
	for s, u := range unitDefs {
		out = append(out, s)
		if u.prefixable {
			for p := range siPrefixes {
				out = append(out, p+s)
			}
		}
	}
	return out
}

// Dimension names what a unit measures: "voltage", "currency USD".
func Dimension(sym string) (string, error) {
	u, err := resolve(sym)
	return u.dim, err
}

// IsPlainRatio says whether a unit is a bare ratio (1, ratio, -): a bare
// number against it assumes nothing.
func IsPlainRatio(sym string) bool {
	u, err := resolve(sym)
	return err == nil && u.dim == Dimensionless && u.factor == 1
}

// CanBeNegative says whether a quantity of the dimension can be below zero
// (a mass cannot; a voltage, a temperature in °C or a torque can).
func CanBeNegative(dim string) bool {
	switch dim {
	case Length, Area, Volume, Mass, Frequency, Capacitance, Resistance, Time, Charge:
		return false
	}
	return !strings.HasPrefix(dim, Currency)
}

// Convert expresses value, in unit from, in unit to. Units of different
// dimensions are ErrIncompatibleUnits; the result is rounded to 12
// significant digits, so 3300 mV is 3.3 V and not 3.3000000000000003.
func Convert(value float64, from, to string) (float64, error) {
	if Normalize(from) == Normalize(to) && Normalize(from) != "" {
		return value, nil
	}
	dim, si, err := Quantity{Value: value, Unit: from}.InSI()
	if err != nil {
		return 0, err
	}
	t, err := resolve(to)
	if err != nil {
		return 0, err
	}
	if dim != t.dim {
		if strings.HasPrefix(dim, Currency) && strings.HasPrefix(t.dim, Currency) {
			return 0, fmt.Errorf("%w: %s and %s are different currencies, and no exchange rate is applied", ErrIncompatibleUnits, from, to)
		}
		return 0, fmt.Errorf("%w: %s measures %s and %s measures %s", ErrIncompatibleUnits, from, dim, to, t.dim)
	}
	return RoundSig((si-t.offset)/t.factor, 12), nil
}

// Equal says whether two values are equal but for floating-point
// residue: within a relative 1e-9.
func Equal(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// Format writes a value in the fewest digits that read back as it.
func Format(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// RoundSig rounds x to n significant digits.
func RoundSig(x float64, n int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	return r
}

// Quantity is a number with the unit it was written in; Unit is "" for a
// bare number.
type Quantity struct {
	Value float64
	Unit  string
}

var quantityNumberRE = regexp.MustCompile(`^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?`)

// leadingCurrencySymbols may lead the number: "$20".
var leadingCurrencySymbols = []string{"$", "€", "£"}

// Parse reads "3300 mV", "3.3V", "50 µA", "-40 °C", "10 %", "$20"
// or a bare "75". Ranges ("2.7-5.5 V"), tolerances ("3.3 V ±5%") and
// thousands separators are refused: give one value.
func Parse(s string) (Quantity, error) {
	in := strings.TrimSpace(strings.ReplaceAll(s, "−", "-")) // U+2212 minus sign
	if in == "" {
		return Quantity{}, fmt.Errorf("%w: empty", ErrNotAQuantity)
	}
	var lead string
	for _, c := range leadingCurrencySymbols {
		if rest, ok := strings.CutPrefix(in, c); ok {
			lead, in = c, strings.TrimSpace(rest)
			break
		}
	}
	num := quantityNumberRE.FindString(in)
	if num == "" {
		return Quantity{}, fmt.Errorf("%w: %q does not start with a number", ErrNotAQuantity, s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return Quantity{}, fmt.Errorf("%w: %q: %v", ErrNotAQuantity, s, err)
	}
	rest := strings.TrimSpace(in[len(num):])
	switch {
	case strings.Contains(rest, "±") || strings.Contains(rest, "+/-"):
		return Quantity{}, fmt.Errorf("%w: %q carries a tolerance; give the one value to compare (the worst case)", ErrNotAQuantity, s)
	case strings.HasPrefix(rest, ","):
		return Quantity{}, fmt.Errorf("%w: %q: write numbers without thousands separators, with a decimal point", ErrNotAQuantity, s)
	case isRangeTail(rest):
		return Quantity{}, fmt.Errorf("%w: %q is a range; give the one value to compare (the worst case)", ErrNotAQuantity, s)
	}
	if lead != "" {
		if rest != "" {
			return Quantity{}, fmt.Errorf("%w: %q: nothing may follow the amount after a currency symbol", ErrNotAQuantity, s)
		}
		return Quantity{Value: v, Unit: lead}, nil
	}
	if rest == "" {
		return Quantity{Value: v}, nil
	}
	if _, err := resolve(rest); err != nil {
		return Quantity{}, err
	}
	return Quantity{Value: v, Unit: Normalize(rest)}, nil
}

// isRangeTail says whether what follows a number starts a second one: "-5.5 V",
// "to 5.5 V", "..5.5", "~5.5".
func isRangeTail(rest string) bool {
	for _, sep := range []string{"-", "to ", "..", "~", "…"} {
		if after, ok := strings.CutPrefix(rest, sep); ok {
			after = strings.TrimSpace(after)
			if after != "" && (after[0] >= '0' && after[0] <= '9' || after[0] == '.') {
				return true
			}
		}
	}
	return false
}

// InSI is the quantity in its dimension's SI unit (mW in W, °C in K): the
// dimension, and the value there.
func (q Quantity) InSI() (dim string, v float64, err error) {
	u, err := resolve(q.Unit)
	if err != nil {
		return "", 0, err
	}
	return u.dim, q.Value*u.factor + u.offset, nil
}

func (q Quantity) String() string {
	n := Format(q.Value)
	switch {
	case q.Unit == "":
		return n
	case q.Unit == "$" || q.Unit == "€" || q.Unit == "£":
		return q.Unit + n
	}
	return n + " " + q.Unit
}
