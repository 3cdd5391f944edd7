package components

import (
	"regexp"
	"strconv"
	"strings"
)

// Intent is a free-text goal ("step 12V down to 5V at 2A for a flight
// controller") read into catalogue categories and bounds on figures. It
// is read from the text alone by fixed patterns, in the way
// flows.CompileIntent reads a design goal: the same text always gives the
// same intent, and what each phrase was read as is shown.
type Intent struct {
	Text string `json:"text"`
	// Categories are the catalogue categories the goal asks for, most
	// likely first; empty when no word names one.
	Categories []string `json:"categories"`
	// Bounds are the figures' filters the goal implies.
	Bounds []Filter `json:"bounds"`
	// Read lists each phrase read and what it was read as.
	Read []Reading `json:"read"`
	// Leftover are the words no pattern read ("flight", "controller"),
	// in order: what a full-text search can still use.
	Leftover []string `json:"leftover"`
}

// Reading is one phrase of the goal and what it became.
type Reading struct {
	Phrase string `json:"phrase"`
	As     string `json:"as"`
}

// IntentRules says how ParseIntent reads a goal, for the tool description.
const IntentRules = "A conversion \"12V down to 5V\", \"12 V to 5 V\", \"from 24V to 3.3V\" (a word such as battery or rail may follow " +
	"the first voltage) is an input the part must accept (v_in_min <= 12 V and v_in_max >= 12 V) and an output it gives " +
	"(v_out == 5 V); an input range \"7-12V input\" must be covered whole (v_in_min <= 7 V, v_in_max >= 12 V); \"5V output\" is " +
	"v_out == 5 V, \"12V input\" or \"from 12V\" an input. A lone voltage (when no conversion is stated) is the output for a " +
	"regulator and the supply (v_in) for anything else (a motor driver). A current (\"at 2A\", \"2 A output\", \"500mA\") is i_out >= it, a quiescent current " +
	"(\"50uA quiescent\") i_q <= it; a power (\"10W\") p_out >= it; \">90%\" or \"90% efficient\" efficiency >= 90 % (> for " +
	"\">\", \"above\", \"over\"), and \"efficient\" without a number efficiency >= 90 %. Categories: step down, down to, buck: " +
	"buck_converter; step up, up to, boost: boost_converter; buck-boost: buck_boost_converter; LDO, low dropout, linear " +
	"regulator, low noise: ldo; motor driver, H-bridge: motor_driver; ESC, brushless: esc; charger: battery_charger; servo: " +
	"servo. A conversion with no such word is buck_converter then ldo when it steps down (buck_converter only when the goal " +
	"asks for efficiency), boost_converter when it steps up."

// Category names ParseIntent gives.
const (
	CatBuck      = "buck_converter"
	CatBoost     = "boost_converter"
	CatBuckBoost = "buck_boost_converter"
	CatLDO       = "ldo"
	CatMotor     = "motor_driver"
	CatESC       = "esc"
	CatCharger   = "battery_charger"
	CatServo     = "servo"
)

// regulators are the categories whose lone voltage is their output.
var regulators = map[string]bool{CatBuck: true, CatBoost: true, CatBuckBoost: true, CatLDO: true}

const num = `(\d+(?:\.\d+)?|\.\d+)`

var (
	volt    = `\s*(?:v|vdc|volts?)\b`
	inRange = regexp.MustCompile(`\b` + num + `(?:` + volt + `)?\s*(?:-|to)\s*` + num + volt + `\s*(?:input|in|supply)\b`)
	convert = regexp.MustCompile(`(?:\bfrom\s+)?\b` + num + volt + `(?:\s+(?:battery|input|rail|supply|bus|lipo|li-ion))?\s*` +
		`(down\s+to|up\s+to|to|into|->|→)\s*` + num + volt)
	outV     = regexp.MustCompile(`(?:\b` + num + volt + `\s*(?:output|out)\b|\b(?:output|out)\s*(?:of\s+)?` + num + volt + `)`)
	inV      = regexp.MustCompile(`(?:\b` + num + volt + `\s*(?:input|in|supply|battery|bus)\b|\b(?:input|from|supply(?:\s+of)?)\s+` + num + volt + `)`)
	loneV    = regexp.MustCompile(`\b` + num + volt)
	quiesc   = regexp.MustCompile(`(?:\b` + num + `\s*(ua|ma|na)\b\s*(?:of\s+)?(?:quiescent|iq|i_q)(?:\s+current)?|\b(?:quiescent(?:\s+current)?|iq)\s*(?:of\s+|below\s+|under\s+|<=?\s*)?` + num + `\s*(ua|ma|na)\b)`)
	current  = regexp.MustCompile(`\b` + num + `\s*(ma|a|amps?|amperes?|milliamps?)\b(?:\s+(?:output|out|continuous|load))?`)
	power    = regexp.MustCompile(`\b` + num + `\s*(mw|kw|w|watts?)\b(?:\s+(?:output|out))?`)
	effNum   = regexp.MustCompile(`(?:(>=|>|above|over|at\s+least)\s*)?` + num + `\s*%\s*(?:efficien(?:t|cy))?|efficien(?:t|cy)\s*(?:of\s+)?(>=|>|above|over|at\s+least)?\s*` + num + `\s*%`)
	effWord  = regexp.MustCompile(`\b(?:highly\s+|high[- ]?)?efficien(?:t|cy)\b`)
	wordsRE  = regexp.MustCompile(`[a-z0-9][a-z0-9_+.\-]*`)
	purposes = []struct {
		re  *regexp.Regexp
		cat string
	}{
		{regexp.MustCompile(`\bbuck[- ]?boost\b`), CatBuckBoost},
		{regexp.MustCompile(`\bstep[- ]?down\b|\bbuck\b`), CatBuck},
		{regexp.MustCompile(`\bstep[- ]?up\b|\bboost\b`), CatBoost},
		{regexp.MustCompile(`\bldo\b|\blow[- ]?dropout\b|\blinear\s+regulator\b|\blow[- ]?noise\b`), CatLDO},
		{regexp.MustCompile(`\bmotor\s+driver\b|\bh[- ]?bridge\b|\bdrive\s+(?:a\s+|the\s+)?(?:dc\s+|brushed\s+|stepper\s+)?motors?\b`), CatMotor},
		{regexp.MustCompile(`\besc\b|\bbrushless\b`), CatESC},
		{regexp.MustCompile(`\b(?:battery\s+)?charger\b|\bcharge\s+(?:a\s+|the\s+)?(?:li-?ion|lipo|battery)\b`), CatCharger},
		{regexp.MustCompile(`\bservos?\b`), CatServo},
	}
	regulatorWord = regexp.MustCompile(`\b(?:voltage\s+)?(?:regulator|converter|dc-?dc)\b`)
	stepWord      = regexp.MustCompile(`\bstep\b`)
)

// stopWords are words that say nothing a search can use.
var stopWords = map[string]bool{"a": true, "an": true, "the": true, "for": true, "to": true, "at": true, "with": true, "of": true,
	"from": true, "i": true, "need": true, "want": true, "that": true, "and": true, "or": true, "on": true, "in": true, "my": true,
	"some": true, "which": true, "can": true, "please": true, "me": true, "find": true, "get": true, "down": true, "up": true,
	"it": true, "is": true, "be": true, "we": true, "our": true, "something": true, "part": true, "parts": true, "into": true}

// intentReader is one ParseIntent run: the text, what is left of it
// unread, and what was found.
type intentReader struct {
	text, rest []byte
	it         Intent
	cats       []string
	loneVolts  []Reading
	loneValues []float64
	stepDir    string // "down" or "up" from a conversion
	vin, vout  float64
	conversion bool
}

// ParseIntent reads a goal as IntentRules says.
func ParseIntent(text string) Intent {
	t := strings.ToLower(strings.NewReplacer("µ", "u", "μ", "u", "≥", ">=", "–", " to ", "—", " to ", "→", " to ", "−", "-").Replace(text))
	t = strings.Join(strings.Fields(t), " ")
	r := &intentReader{text: []byte(t), rest: []byte(t), it: Intent{Text: strings.TrimSpace(text), Categories: []string{},
		Bounds: []Filter{}, Read: []Reading{}, Leftover: []string{}}}
	r.take(inRange, func(m []string) string {
		lo, hi := parseNum(m[1]), parseNum(m[2])
		return r.vinCovers(lo, hi)
	})
	r.take(convert, func(m []string) string {
		r.vin, r.vout, r.conversion = parseNum(m[1]), parseNum(m[3]), true
		switch strings.Fields(m[2])[0] {
		case "down":
			r.stepDir = "down"
		case "up":
			r.stepDir = "up"
		}
		return r.vinCovers(r.vin, r.vin) + ", " + r.bound("v_out", OpEq, r.vout, "V")
	})
	r.take(outV, func(m []string) string { return r.bound("v_out", OpEq, parseNum(first(m[1], m[2])), "V") })
	r.take(inV, func(m []string) string { v := parseNum(first(m[1], m[2])); return r.vinCovers(v, v) })
	r.take(quiesc, func(m []string) string {
		return r.bound("i_q", OpLe, parseNum(first(m[1], m[3])), unitOf(first(m[2], m[4])))
	})
	r.take(current, func(m []string) string { return r.bound("i_out", OpGe, parseNum(m[1]), unitOf(m[2])) })
	r.take(power, func(m []string) string { return r.bound("p_out", OpGe, parseNum(m[1]), unitOf(m[2])) })
	efficiency := false
	r.take(effNum, func(m []string) string {
		efficiency = true
		op := OpGe
		if w := first(m[1], m[3]); w == ">" || w == "above" || w == "over" {
			op = OpGt
		}
		return r.bound("efficiency", op, parseNum(first(m[2], m[4])), "%")
	})
	r.take(effWord, func([]string) string {
		if efficiency {
			return "efficiency (its figure is stated)"
		}
		efficiency = true
		return r.bound("efficiency", OpGe, 90, "%")
	})
	r.take(loneV, func(m []string) string {
		r.loneVolts = append(r.loneVolts, Reading{Phrase: m[0]})
		r.loneValues = append(r.loneValues, parseNum(m[1]))
		return "" // placed once the category is known
	})
	for _, p := range purposes {
		r.take(p.re, func([]string) string { r.addCat(p.cat); return "category " + p.cat })
	}
	r.categoriesFromConversion(efficiency)
	r.placeLoneVolts()
	for _, w := range wordsRE.FindAllString(string(r.rest), -1) {
		w = strings.Trim(w, ".-")
		if w != "" && !stopWords[w] && !contains(r.it.Leftover, w) {
			r.it.Leftover = append(r.it.Leftover, w)
		}
	}
	r.it.Categories = r.cats
	if r.it.Categories == nil {
		r.it.Categories = []string{}
	}
	return r.it
}

// take reads every match of re in what is still unread, records what
// read returns it as (nothing when it returns ""), and blanks the match so
// no later pattern reads it again.
func (r *intentReader) take(re *regexp.Regexp, read func(m []string) string) {
	for _, idx := range re.FindAllSubmatchIndex(r.rest, -1) {
		m := make([]string, len(idx)/2)
		for i := range m {
			if idx[2*i] >= 0 {
				m[i] = string(r.text[idx[2*i]:idx[2*i+1]])
			}
		}
		if as := read(m); as != "" {
			r.it.Read = append(r.it.Read, Reading{Phrase: strings.TrimSpace(m[0]), As: as})
		}
		for i := idx[0]; i < idx[1]; i++ {
			r.rest[i] = ' '
		}
	}
}

// bound adds a bound unless the same one is there, and writes it.
func (r *intentReader) bound(name, op string, v float64, unit string) string {
	f := Filter{Name: name, Op: op, Value: v, Unit: unit}
	for _, b := range r.it.Bounds {
		if b.Name == f.Name && b.Op == f.Op && b.Value == f.Value && b.Unit == f.Unit {
			return f.String()
		}
	}
	r.it.Bounds = append(r.it.Bounds, f)
	return f.String()
}

// vinCovers bounds the input range to cover lo..hi volts.
func (r *intentReader) vinCovers(lo, hi float64) string {
	return r.bound("v_in_min", OpLe, lo, "V") + ", " + r.bound("v_in_max", OpGe, hi, "V")
}

func (r *intentReader) addCat(c string) {
	if !contains(r.cats, c) {
		r.cats = append(r.cats, c)
	}
}

// categoriesFromConversion names categories from the conversion when no
// word did: its direction, else which voltage is higher.
func (r *intentReader) categoriesFromConversion(efficiency bool) {
	if len(r.cats) > 0 || !r.conversion {
		return
	}
	down := r.stepDir == "down" || r.stepDir == "" && r.vin > r.vout
	up := r.stepDir == "up" || r.stepDir == "" && r.vin < r.vout
	phrase := "conversion " + voltsText(r.vin) + " to " + voltsText(r.vout)
	switch {
	case down && r.stepDir == "down":
		r.addCat(CatBuck)
		r.it.Read = append(r.it.Read, Reading{Phrase: phrase, As: "category " + CatBuck + " (steps down)"})
	case down && efficiency:
		r.addCat(CatBuck)
		r.it.Read = append(r.it.Read, Reading{Phrase: phrase, As: "category " + CatBuck + " (steps down, efficiently)"})
	case down:
		r.addCat(CatBuck)
		r.addCat(CatLDO)
		r.it.Read = append(r.it.Read, Reading{Phrase: phrase, As: "categories " + CatBuck + ", " + CatLDO + " (steps down)"})
	case up:
		r.addCat(CatBoost)
		r.it.Read = append(r.it.Read, Reading{Phrase: phrase, As: "category " + CatBoost + " (steps up)"})
	}
	r.take(stepWord, func([]string) string { return "" })
	r.take(regulatorWord, func([]string) string { return "" })
}

// placeLoneVolts reads voltages with no word saying what they are: the
// output of a regulator, the supply of anything else.
func (r *intentReader) placeLoneVolts() {
	regulator := len(r.cats) == 0 || regulators[r.cats[0]]
	for i, rd := range r.loneVolts {
		v := r.loneValues[i]
		switch {
		case r.conversion:
			rd.As = "nothing: the conversion already gives the input and the output"
		case regulator:
			rd.As = r.bound("v_out", OpEq, v, "V") + " (a regulator's voltage is its output)"
		default:
			rd.As = r.vinCovers(v, v) + " (the supply)"
		}
		r.it.Read = append(r.it.Read, rd)
	}
	if len(r.cats) > 0 && regulators[r.cats[0]] {
		r.take(regulatorWord, func([]string) string { return "" })
	}
}

func parseNum(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// unitOf spells a unit word as its symbol.
func unitOf(w string) string {
	switch {
	case w == "ua":
		return "uA"
	case w == "na":
		return "nA"
	case w == "ma" || strings.HasPrefix(w, "milliamp"):
		return "mA"
	case w == "a" || strings.HasPrefix(w, "amp"):
		return "A"
	case w == "mw":
		return "mW"
	case w == "kw":
		return "kW"
	}
	return "W"
}

func voltsText(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) + " V" }

func contains(s []string, w string) bool {
	for _, x := range s {
		if x == w {
			return true
		}
	}
	return false
}
