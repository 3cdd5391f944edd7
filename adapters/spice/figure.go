package spice

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// suffixHelp is how an error and the schema name SPICE's scale factors.
// M is milli in SPICE, whatever its case: a mega is MEG.
const suffixHelp = `SPICE suffixes T G MEG K M U N P F, any case; M is milli (1e-3), MEG is mega (1e6)`

// scales are ngspice's scale factors as powers of ten, by their first
// letter, lower case; m is milli unless it starts "meg" or "mil", which
// parseSpiceNumber reads first. A (atto) is not one: see figure.
var scales = map[byte]int{'t': 12, 'g': 9, 'k': 3, 'm': -3, 'u': -6, 'n': -9, 'p': -12, 'f': -15}

// parseSpiceNumber reads a number as ngspice reads one on a card
// (INPevaluate in src/spicelib/parser/inpeval.c): an optional sign, digits
// with an optional decimal point, an optional exponent (e or E, or
// Fortran's d or D, with an optional sign), then an optional scale factor
// (T 1e12, G 1e9, MEG 1e6, K 1e3, MIL 25.4e-6, M 1e-3, U 1e-6, N 1e-9,
// P 1e-12, F 1e-15; any case, MEG and MIL before M), and letters
// after it are ignored, as the ngspice manual says ("10kHz" is 1e4, "5ms"
// 5e-3, "1e3k" 1e6, "10V" 10). Where ngspice would read a typo silently it
// is refused instead: a number with no digit ("." is 0 to ngspice), an
// exponent sign with no digits after it ("1e-"), anything but letters
// after the number ("5 ms", "1.2.3"), a value too large for a float64.
// letters are what follows the number (its scale factor first), lower case.
func parseSpiceNumber(text string) (v float64, letters string, ok bool) {
	s := strings.TrimSpace(text)
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0, "", false
	}
	mantissa := s[:i]
	exponent := 0
	if i < len(s) && strings.IndexByte("eEdD", s[i]) >= 0 {
		j := i + 1
		sign := 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			if s[j] == '-' {
				sign = -1
			}
			j++
			if j >= len(s) || !isDigit(s[j]) {
				return 0, "", false
			}
		}
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k > j {
			e, err := strconv.Atoi(s[j:k])
			if err != nil {
				return 0, "", false
			}
			exponent = sign * e
		}
		// ngspice takes a bare e or d as an exponent of 0 ("1e" is 1);
		// either way the letter is consumed.
		i = k
	}
	rest := strings.ToLower(s[i:])
	factor := 1.0
	switch {
	case strings.HasPrefix(rest, "meg"):
		exponent += 6
	case strings.HasPrefix(rest, "mil"):
		exponent -= 6
		factor = 25.4
	case rest != "":
		exponent += scales[rest[0]]
	}
	for _, c := range []byte(rest) {
		if c < 'a' || c > 'z' {
			return 0, "", false
		}
	}
	// One decimal string, so the value is the correctly rounded one: 1.6n
	// is exactly the float64 nearest 1.6e-9.
	v, err := strconv.ParseFloat(mantissa+"e"+strconv.Itoa(exponent), 64)
	if err != nil {
		return 0, "", false
	}
	v *= factor
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, "", false
	}
	return v, rest, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// figure reads params.<name> as given: a JSON number, or a string in
// SPICE's notation. Anything else is INVALID_PARAMS naming the param and
// both forms it could take.
func figure(name string, raw json.RawMessage) (float64, error) {
	var n float64
	if err := json.Unmarshal(raw, &n); err == nil {
		return n, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, protocol.Invalid("params.%s is %s, not a number: give a JSON number such as 0.005 or a SPICE number string such as \"5m\" (%s)", name, strings.TrimSpace(string(raw)), suffixHelp)
	}
	v, letters, ok := parseSpiceNumber(s)
	if !ok {
		return 0, protocol.Invalid("params.%s %q is not a number: %s (%s)", name, s, bothForms(s), suffixHelp)
	}
	// ngspice 42 made A a scale factor, atto (1e-18); before it, as in
	// ngspice 39, an A is a letter it ignores. "2A" is 2 amperes to one
	// and 2e-18 to the other, so it is neither here.
	if strings.HasPrefix(letters, "a") {
		return 0, protocol.Invalid("params.%s %q is ambiguous: ngspice 42 and later read A as atto (%s), earlier versions ignore it (%s); give %s or %s", name, s, num(v*1e-18), num(v), num(v), num(v*1e-18))
	}
	return v, nil
}

// bothForms says what to give instead: the value meant, in both forms,
// when the string reads as a number once its spaces are gone ("5 ms" is
// 0.005 or "5ms"), else an example of each.
func bothForms(s string) string {
	compact := strings.Join(strings.Fields(s), "")
	if v, _, ok := parseSpiceNumber(compact); ok && compact != s {
		return "give " + num(v) + " or " + strconv.Quote(compact)
	}
	return `give a JSON number such as 0.005 or a SPICE number string such as "5m"`
}

// megaHint says which of the named figures was written with a capital M
// ("1MHz", "2M"), which SPICE reads as milli: appended to a range error
// it names the likely cause; "" when none was.
func megaHint(p *Params, names ...string) string {
	var hints []string
	for _, name := range names {
		var s string
		if json.Unmarshal(p.raw(name), &s) != nil {
			continue
		}
		if v, letters, ok := parseSpiceNumber(s); ok && capitalMilli(s, letters) {
			hints = append(hints, fmt.Sprintf("params.%s %q is %s: M is milli in SPICE, write MEG for mega (1e6)", name, s, num(v)))
		}
	}
	if len(hints) == 0 {
		return ""
	}
	return "; " + strings.Join(hints, "; ")
}

// capitalMilli is whether a SPICE number's scale factor is a capital M
// read as milli: letters (lower case) start with m but not meg or mil,
// and the letter as written is upper case.
func capitalMilli(s, letters string) bool {
	if !strings.HasPrefix(letters, "m") || strings.HasPrefix(letters, "meg") || strings.HasPrefix(letters, "mil") {
		return false
	}
	t := strings.TrimSpace(s)
	return t[len(t)-len(letters)] == 'M'
}
