package twin

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/metaforge/metaforge/internal/units"
)

// statedValues is every value the requirements state, by dimension, in
// the dimension's SI unit: each limit with its unit, and any quantity
// written in an expression, description or acceptance criteria.
type statedValues map[string][]float64

func statedValuesOf(reqs []SetRequirement) statedValues {
	sv := statedValues{}
	for _, r := range reqs {
		if r.Limit != nil && strings.TrimSpace(r.Unit) != "" {
			sv.add(units.Quantity{Value: *r.Limit, Unit: r.Unit})
		}
		for _, text := range []string{r.Expression, r.Description, r.AcceptanceCriteria} {
			for _, q := range scanQuantities(text) {
				sv.add(q.Quantity)
			}
		}
	}
	return sv
}

func (sv statedValues) add(q units.Quantity) {
	dim, v := comparableValue(q)
	sv[dim] = append(sv[dim], v)
}

// has says whether q is stated, in any unit of its dimension (2 W is
// 2000 mW).
func (sv statedValues) has(q units.Quantity) bool {
	dim, v := comparableValue(q)
	for _, s := range sv[dim] {
		if units.Equal(s, v) {
			return true
		}
	}
	return false
}

// comparableValue is a quantity's dimension and its value in the
// dimension's SI unit; a unit internal/units does not know (dB) is its own
// dimension, compared as written.
func comparableValue(q units.Quantity) (string, float64) {
	if dim, v, err := q.InSI(); err == nil {
		return dim, v
	}
	return "unit " + units.Normalize(q.Unit), q.Value
}

// Values in text.

// proseQuantity is a number with a unit found in text: the unit as
// internal/units reads it (or as written, when it does not know it), and the
// text it was read from.
type proseQuantity struct {
	units.Quantity
	written string // as written: "2 W", "$20"
}

var (
	// quantityRe is a number and the word after it; the word counts when
	// it is a unit.
	quantityRe = regexp.MustCompile(`(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?[ \t\x{00a0}\x{202f}]?` +
		`([A-Za-zµμΩ°℃℉][A-Za-z0-9µμΩ°·*/^²³.\-]*|[%°℃℉Ωµμ])`)
	currencyRe = regexp.MustCompile(`([$€£])[ \x{00a0}]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:[ ]?(k|K|M|million|bn|billion)\b)?`)
	multiplier = map[string]float64{"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
	// proseUnits are units spelled out, or ones internal/units does not know
	// (compared only with the same unit).
	proseUnits = map[string]string{
		"watt": "W", "watts": "W", "volt": "V", "volts": "V", "amp": "A", "amps": "A", "ampere": "A", "amperes": "A",
		"gram": "g", "grams": "g", "kilogram": "kg", "kilograms": "kg", "kilo": "kg", "kilos": "kg",
		"meter": "m", "meters": "m", "metre": "m", "metres": "m", "millimeter": "mm", "millimeters": "mm", "millimetre": "mm",
		"millimetres": "mm", "centimeter": "cm", "centimeters": "cm", "centimetre": "cm", "centimetres": "cm",
		"inches": "in", "feet": "ft", "pounds": "lb", "newton": "N", "newtons": "N",
		"second": "s", "seconds": "s", "secs": "s", "minute": "min", "minutes": "min", "mins": "min", "hour": "h", "hours": "h",
		"hrs": "h", "days": "day", "percent": "%", "dollar": "$", "dollars": "$", "euro": "€", "euros": "€",
		"degrees": "°", "degree": "°", "hertz": "Hz",
		"dB": "dB", "dBA": "dBA", "N/mm": "N/mm", "kg·cm": "kg·cm", "kgcm": "kg·cm", "kgf·cm": "kg·cm",
	}
	// notUnitsInProse are unit symbols that read as ordinary words or
	// marks in prose: "2 in the box", "5 pm", "20 C" (a grade), "20K".
	notUnitsInProse = map[string]bool{"in": true, "C": true, "F": true, "K": true, "l": true, "L": true, "1": true, "-": true,
		"pm": true, "PM": true, "Pm": true, "us": true, "cs": true, "ratio": true, "v": true, "w": true, "ms-": true}
)

// proseUnit says whether a word after a number is a unit, and which.
func proseUnit(word string) (string, bool) {
	if u, ok := proseUnits[word]; ok {
		return u, true
	}
	if notUnitsInProse[word] {
		return "", false
	}
	if _, err := units.Dimension(word); err != nil {
		return "", false
	}
	return word, true
}

// scanQuantities finds the numbers written with a unit: "2 W", "150 mm",
// "3.3V", "20%", "$20", and each number of "150 x 100 mm" or "10-20 mm".
func scanQuantities(text string) []proseQuantity {
	type found struct {
		at int
		q  proseQuantity
	}
	var all []found
	for _, m := range currencyRe.FindAllStringSubmatchIndex(text, -1) {
		num := strings.ReplaceAll(text[m[4]:m[5]], ",", "")
		if m[6] >= 0 {
			num += text[m[6]:m[7]]
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || !wordEnds(text, m[1]) {
			continue
		}
		mult := ""
		if m[8] >= 0 {
			mult = text[m[8]:m[9]]
		}
		q := units.Quantity{Value: v * multiplier[mult], Unit: text[m[2]:m[3]]}
		all = append(all, found{m[0], proseQuantity{q, text[m[0]:m[1]]}})
	}
	for pos := 0; pos < len(text); {
		m := quantityRe.FindStringSubmatchIndex(text[pos:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += pos
			}
		}
		// A rejected match resumes after its number, so "150x100mm" still
		// finds 100mm; an accepted one after its unit.
		pos = m[3]
		start := m[0]
		if !boundaryBefore(text, start) || start > 0 && strings.ContainsAny(text[start-1:start], "$€£") {
			continue // inside a word or another number, or the currency scan has it
		}
		// The unit ends before trailing punctuation ("2 W.") or a hyphen
		// ("a 150 mm-wide slot").
		word := strings.TrimRight(text[m[6]:m[7]], ".-/·*^")
		unit, ok := proseUnit(word)
		if before, _, cut := strings.Cut(word, "-"); !ok && cut {
			word = before
			unit, ok = proseUnit(word)
		}
		if !ok {
			continue
		}
		pos = m[6] + len(word)
		end := m[6] + len(word)
		num := strings.ReplaceAll(text[m[2]:m[3]], ",", "")
		numEnd := m[3]
		if m[4] >= 0 {
			num += text[m[4]:m[5]]
			numEnd = m[5]
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			continue
		}
		gap := text[numEnd:m[6]]
		written := text[start:end]
		if sign, ok := signBefore(text, start); ok {
			v, written = -v, sign+written
			start -= len(sign)
		} else if strings.HasSuffix(text[:start], "±") {
			written = "±" + written
			start -= len("±")
		}
		all = append(all, found{start, proseQuantity{units.Quantity{Value: v, Unit: unit}, written}})
		// The numbers before it in "150 x 100 mm" or "10-20 mm" share its unit.
		for _, lead := range leadingNumbers(text, start) {
			lv, err := strconv.ParseFloat(lead.num, 64)
			if err != nil {
				continue
			}
			all = append(all, found{lead.at, proseQuantity{units.Quantity{Value: lv, Unit: unit}, lead.num + gap + word}})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at < all[j].at })
	out := make([]proseQuantity, 0, len(all))
	for _, f := range all {
		out = append(out, f.q)
	}
	return out
}

// boundaryBefore: the number does not continue a word or another number
// (M3, v2, 1.5), though it may follow the x of "150x100".
func boundaryBefore(text string, at int) bool {
	if at == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:at])
	if r == 'x' || r == '×' {
		return true
	}
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == ',' || r == '_')
}

// wordEnds: nothing alphanumeric follows ($20/month is $20; $20abc is not).
func wordEnds(text string, at int) bool {
	if at >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[at:])
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
}

// signBefore finds a minus sign written before a number: "-20 °C".
func signBefore(text string, at int) (string, bool) {
	for _, s := range []string{"-", "−"} {
		if strings.HasSuffix(text[:at], s) {
			rest := text[:at-len(s)]
			if rest == "" {
				return s, true
			}
			r, _ := utf8.DecodeLastRuneInString(rest)
			if !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
				return s, true
			}
		}
	}
	return "", false
}

type leadNumber struct {
	at  int
	num string
}

var leadRe = regexp.MustCompile(`(\d+(?:\.\d+)?)[ \t]*(?:x|×|-|–|to)[ \t]*$`)

// leadingNumbers walks back from a quantity over "150 x 100 x " or "10 to ".
func leadingNumbers(text string, at int) []leadNumber {
	var out []leadNumber
	for len(out) < 5 {
		lo := max(at-40, 0)
		m := leadRe.FindStringSubmatchIndex(text[lo:at])
		if m == nil || !boundaryBefore(text, lo+m[2]) {
			break
		}
		out = append(out, leadNumber{at: lo + m[2], num: text[lo+m[2] : lo+m[3]]})
		at = lo + m[2]
	}
	return out
}
