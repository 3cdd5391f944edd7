package digitaltwin

// A small unit library: enough to read a datasheet value ("3300 mV",
// "50 µA", "$20") and hold it against a requirement's limit in another unit
// of the same dimension. It knows the units engineering requirements are
// written in, SI prefixes (p n u µ m c k M G) on the units that take them,
// and nothing else: an unknown unit is an error, never a guess.
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
	errNotAQuantity      = errors.New("not a quantity")
	errUnknownUnit       = errors.New("unknown unit")
	errIncompatibleUnits = errors.New("incompatible units")
)

// Dimensions.
const (
	dimLength        = "length"
	dimArea          = "area"
	dimVolume        = "volume"
	dimMass          = "mass"
	dimForce         = "force"
	dimTorque        = "torque"
	dimEnergy        = "energy"
	dimVoltage       = "voltage"
	dimCurrent       = "current"
	dimPower         = "power"
	dimPressure      = "pressure"
	dimTemperature   = "temperature"
	dimFrequency     = "frequency"
	dimCapacitance   = "capacitance"
	dimResistance    = "resistance"
	dimTime          = "time"
	dimCharge        = "charge"
	dimRotation      = "rotational speed"
	dimSpeed         = "speed"
	dimAngle         = "angle"
	dimDimensionless = "dimensionless"
	dimCurrency      = "currency" // qualified by the code: "currency USD"
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
	"m": {dimLength, 1, 0, true}, "in": {dimLength, 0.0254, 0, false}, "inch": {dimLength, 0.0254, 0, false},
	"ft": {dimLength, 0.3048, 0, false}, "mil": {dimLength, 25.4e-6, 0, false},
	// volume (SI: m³); area and volume also come from a length with an exponent: mm2, mm^3, m²
	"L": {dimVolume, 1e-3, 0, true}, "l": {dimVolume, 1e-3, 0, true},
	// mass (SI: kg)
	"g": {dimMass, 1e-3, 0, true}, "lb": {dimMass, 0.45359237, 0, false}, "lbs": {dimMass, 0.45359237, 0, false},
	"oz": {dimMass, 0.028349523125, 0, false},
	// force (N), torque (N·m), energy (J)
	"N": {dimForce, 1, 0, true}, "lbf": {dimForce, 4.4482216152605, 0, false},
	"Nm": {dimTorque, 1, 0, true}, "N·m": {dimTorque, 1, 0, true}, "N*m": {dimTorque, 1, 0, true}, "N.m": {dimTorque, 1, 0, true},
	"J": {dimEnergy, 1, 0, true}, "Wh": {dimEnergy, 3600, 0, true},
	// electrical
	"V": {dimVoltage, 1, 0, true}, "v": {dimVoltage, 1, 0, false},
	"VDC": {dimVoltage, 1, 0, false}, "Vdc": {dimVoltage, 1, 0, false}, "VAC": {dimVoltage, 1, 0, false}, "Vac": {dimVoltage, 1, 0, false},
	"Ah": {dimCharge, 3600, 0, true}, // battery capacity: mAh
	"A":  {dimCurrent, 1, 0, true},
	"W":  {dimPower, 1, 0, true}, "w": {dimPower, 1, 0, false},
	"F": {dimCapacitance, 1, 0, true},
	"Ω": {dimResistance, 1, 0, true}, "ohm": {dimResistance, 1, 0, true}, "Ohm": {dimResistance, 1, 0, true},
	"ohms": {dimResistance, 1, 0, true},
	// pressure and stress (SI: Pa)
	"Pa": {dimPressure, 1, 0, true}, "bar": {dimPressure, 1e5, 0, true},
	"psi": {dimPressure, 6894.757293168361, 0, false}, "ksi": {dimPressure, 6894757.293168361, 0, false},
	"N/mm2": {dimPressure, 1e6, 0, false}, "N/mm^2": {dimPressure, 1e6, 0, false}, "N/mm²": {dimPressure, 1e6, 0, false},
	// temperature (SI: K), absolute
	"K": {dimTemperature, 1, 0, false}, "°C": {dimTemperature, 1, 273.15, false}, "C": {dimTemperature, 1, 273.15, false},
	"degC": {dimTemperature, 1, 273.15, false}, "°F": {dimTemperature, 5.0 / 9, 273.15 - 32*5.0/9, false},
	"degF": {dimTemperature, 5.0 / 9, 273.15 - 32*5.0/9, false},
	// frequency, time
	"Hz":  {dimFrequency, 1, 0, true},
	"rpm": {dimRotation, 1, 0, false}, "RPM": {dimRotation, 1, 0, false},
	"m/s": {dimSpeed, 1, 0, false}, "mm/s": {dimSpeed, 1e-3, 0, false}, "km/h": {dimSpeed, 1 / 3.6, 0, false},
	"s": {dimTime, 1, 0, true}, "sec": {dimTime, 1, 0, false}, "min": {dimTime, 60, 0, false},
	"h": {dimTime, 3600, 0, false}, "hr": {dimTime, 3600, 0, false}, "day": {dimTime, 86400, 0, false},
	// angle (SI: rad)
	"rad": {dimAngle, 1, 0, true}, "deg": {dimAngle, math.Pi / 180, 0, false}, "°": {dimAngle, math.Pi / 180, 0, false},
	// dimensionless
	"1": {dimDimensionless, 1, 0, false}, "ratio": {dimDimensionless, 1, 0, false}, "-": {dimDimensionless, 1, 0, false},
	"%": {dimDimensionless, 0.01, 0, false}, "ppm": {dimDimensionless, 1e-6, 0, false},
	// currencies: each its own dimension
	"$": {dimCurrency + " USD", 1, 0, false}, "USD": {dimCurrency + " USD", 1, 0, false},
	"€": {dimCurrency + " EUR", 1, 0, false}, "EUR": {dimCurrency + " EUR", 1, 0, false},
	"£": {dimCurrency + " GBP", 1, 0, false}, "GBP": {dimCurrency + " GBP", 1, 0, false},
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

// resolveUnit resolves a unit symbol: exact, then an SI prefix on a unit that
// takes one, then a length with an exponent (area, volume), then ignoring
// case when that names exactly one unit ("KV" is kV; "MM" is refused, it
// could be mm or Mm).
func resolveUnit(sym string) (unitDef, error) {
	s := normalizeUnit(sym)
	if s == "" {
		return unitDef{}, fmt.Errorf("%w: no unit given", errUnknownUnit)
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
				errUnknownUnit, sym, strings.Join(names, " or "))
		}
	}
	return unitDef{}, fmt.Errorf("%w: %q is not a unit this server knows (it reads SI units with siPrefixes p n u m c k M G, "+
		"°C/K/°F, %%, ppm, in, ft, lb, psi, bar, $ and others)", errUnknownUnit, sym)
}

func normalizeUnit(sym string) string {
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
	}{{"^2", 2, dimArea}, {"²", 2, dimArea}, {"2", 2, dimArea}, {"^3", 3, dimVolume}, {"³", 3, dimVolume}, {"3", 3, dimVolume}} {
		base, ok := strings.CutSuffix(s, e.suffix)
		if !ok || base == "" {
			continue
		}
		if u, ok := resolve(base); ok && u.dim == dimLength {
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

// unitDimension names what a unit measures: "voltage", "currency USD".
func unitDimension(sym string) (string, error) {
	u, err := resolveUnit(sym)
	return u.dim, err
}

// canBeNegative says whether a quantity of the dimension can be below zero
// (a mass cannot; a voltage, a temperature in °C or a torque can).
func canBeNegative(dim string) bool {
	switch dim {
	case dimLength, dimArea, dimVolume, dimMass, dimFrequency, dimCapacitance, dimResistance, dimTime, dimCharge:
		return false
	}
	return !strings.HasPrefix(dim, dimCurrency)
}

// convert expresses value, in unit from, in unit to. Units of different
// dimensions are errIncompatibleUnits; the result is rounded to 12
// significant digits, so 3300 mV is 3.3 V and not 3.3000000000000003.
func convert(value float64, from, to string) (float64, error) {
	if normalizeUnit(from) == normalizeUnit(to) && normalizeUnit(from) != "" {
		return value, nil
	}
	dim, si, err := unitQuantity{Value: value, Unit: from}.inSI()
	if err != nil {
		return 0, err
	}
	t, err := resolveUnit(to)
	if err != nil {
		return 0, err
	}
	if dim != t.dim {
		if strings.HasPrefix(dim, dimCurrency) && strings.HasPrefix(t.dim, dimCurrency) {
			return 0, fmt.Errorf("%w: %s and %s are different currencies, and no exchange rate is applied", errIncompatibleUnits, from, to)
		}
		return 0, fmt.Errorf("%w: %s measures %s and %s measures %s", errIncompatibleUnits, from, dim, to, t.dim)
	}
	return roundSig((si-t.offset)/t.factor, 12), nil
}

// sameValue says whether two values are equal but for floating-point
// residue: within a relative 1e-9.
func sameValue(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// formatFloat writes a value in the fewest digits that read back as it.
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// roundSig rounds x to n significant digits.
func roundSig(x float64, n int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	return r
}

// unitQuantity is a number with the unit it was written in; Unit is "" for a
// bare number.
type unitQuantity struct {
	Value float64
	Unit  string
}

var quantityNumberRE = regexp.MustCompile(`^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?`)

// leadingCurrencySymbols may lead the number: "$20".
var leadingCurrencySymbols = []string{"$", "€", "£"}

// parseQuantity reads "3300 mV", "3.3V", "50 µA", "-40 °C", "10 %", "$20"
// or a bare "75". Ranges ("2.7-5.5 V"), tolerances ("3.3 V ±5%") and
// thousands separators are refused: give one value.
func parseQuantity(s string) (unitQuantity, error) {
	in := strings.TrimSpace(strings.ReplaceAll(s, "−", "-")) // U+2212 minus sign
	if in == "" {
		return unitQuantity{}, fmt.Errorf("%w: empty", errNotAQuantity)
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
		return unitQuantity{}, fmt.Errorf("%w: %q does not start with a number", errNotAQuantity, s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return unitQuantity{}, fmt.Errorf("%w: %q: %v", errNotAQuantity, s, err)
	}
	rest := strings.TrimSpace(in[len(num):])
	switch {
	case strings.Contains(rest, "±") || strings.Contains(rest, "+/-"):
		return unitQuantity{}, fmt.Errorf("%w: %q carries a tolerance; give the one value to compare (the worst case)", errNotAQuantity, s)
	case strings.HasPrefix(rest, ","):
		return unitQuantity{}, fmt.Errorf("%w: %q: write numbers without thousands separators, with a decimal point", errNotAQuantity, s)
	case isRangeTail(rest):
		return unitQuantity{}, fmt.Errorf("%w: %q is a range; give the one value to compare (the worst case)", errNotAQuantity, s)
	}
	if lead != "" {
		if rest != "" {
			return unitQuantity{}, fmt.Errorf("%w: %q: nothing may follow the amount after a currency symbol", errNotAQuantity, s)
		}
		return unitQuantity{Value: v, Unit: lead}, nil
	}
	if rest == "" {
		return unitQuantity{Value: v}, nil
	}
	if _, err := resolveUnit(rest); err != nil {
		return unitQuantity{}, err
	}
	return unitQuantity{Value: v, Unit: normalizeUnit(rest)}, nil
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

// inSI is the quantity in its dimension's SI unit (mW in W, °C in K): the
// dimension, and the value there.
func (q unitQuantity) inSI() (dim string, v float64, err error) {
	u, err := resolveUnit(q.Unit)
	if err != nil {
		return "", 0, err
	}
	return u.dim, q.Value*u.factor + u.offset, nil
}

func (q unitQuantity) String() string {
	n := formatFloat(q.Value)
	switch {
	case q.Unit == "":
		return n
	case q.Unit == "$" || q.Unit == "€" || q.Unit == "£":
		return q.Unit + n
	}
	return n + " " + q.Unit
}
