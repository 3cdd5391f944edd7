package flows

import (
	"regexp"
	"sort"
)

// mention is one quantity found in the text. A mention with a metric was
// resolved by its pattern (an envelope, a safety factor); the others get
// theirs from the words of their clause.
type mention struct {
	start, end int
	value      float64
	unit, dim  string
	op         string // set by the pattern, else read from the words
	metric     string
	category   string
}

// parsedQuantities is what parseQuantities found, in text order.
type parsedQuantities struct {
	constraints []IntentConstraint
	loads       []Load
}

// parseQuantities finds every quantity in normalised text and says what it
// constrains. Patterns run from the most specific (an envelope, a range) to
// the least (a number with a unit); each blanks what it consumed, so a
// number is read once.
func parseQuantities(text string) parsedQuantities {
	cs := clauses(text)
	masked := []byte(text)
	var ms []mention
	ms = append(ms, envelopes(masked)...)
	ms = append(ms, ranges(masked)...)
	ms = append(ms, safetyFactors(text, masked, cs)...)
	ms = append(ms, currencies(masked)...)
	ms = append(ms, plainQuantities(masked)...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].start < ms[j].start })

	var out parsedQuantities
	for i, m := range ms {
		c := clauseAt(cs, m.start)
		ct := text[c.start:c.end]
		op := m.op
		if m.metric == "" {
			from := c.start
			for _, p := range ms[:i] {
				if p.end > from && p.end <= m.start {
					from = p.end
				}
			}
			r := resolveMetric(m.dim, ct, m.start-c.start, m.end-c.start)
			if op == "" {
				op = lastComparator(text[from:m.start])
			}
			if op == "" && m.end <= c.end {
				op = followingComparator(text[m.end:c.end])
			}
			if r.load {
				l := asLoad(m.value, m.unit, m.dim, clauseText(text, c))
				out.loads = append(out.loads, l)
				out.constraints = append(out.constraints, IntentConstraint{Category: r.category, Text: clauseText(text, c),
					Metric: "load", Limit: ptr(l.Magnitude), Unit: l.Unit})
				continue
			}
			if op == "" {
				op = r.defaultOp
			}
			m.metric, m.category = r.metric, r.category
			if m.metric == "temperature_rise" && m.unit == "°C" {
				m.unit = "K" // a difference: a rise of 40 °C is 40 K
			}
		}
		if m.metric == "" {
			op = "" // a value with no metric bounds nothing
		}
		out.constraints = append(out.constraints, IntentConstraint{Category: m.category, Text: clauseText(text, c),
			Metric: m.metric, Operator: op, Limit: ptr(m.value), Unit: m.unit})
	}
	return out
}

func ptr(v float64) *float64 { return &v }

// findAll is every match of re in s, where each search resumes right after
// the previous match's last group, so the delimiter one match ends on can
// start the next ("5 V 2 A").
func findAll(re *regexp.Regexp, s string) [][]int {
	var out [][]int
	for pos := 0; pos < len(s); {
		m := re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		end := 0
		for k := range m {
			if m[k] >= 0 {
				m[k] += pos
				if k >= 2 && m[k] > end {
					end = m[k]
				}
			}
		}
		out = append(out, m)
		if end <= pos {
			end = pos + 1
		}
		pos = end
	}
	return out
}

// group is submatch g of m in s, or "".
func group(s string, m []int, g int) string {
	if m[2*g] < 0 {
		return ""
	}
	return s[m[2*g]:m[2*g+1]]
}

// blank masks [from, to) so later patterns do not read it again.
func blank(b []byte, from, to int) {
	for i := from; i < to; i++ {
		b[i] = ' '
	}
}

// envelopes reads "120 x 40 x 30 mm" (and "50 x 30 mm" for a board) as the
// largest size along each axis.
func envelopes(masked []byte) []mention {
	s := string(masked)
	var out []mention
	for _, m := range findAll(envelopeRe, s) {
		last := group(s, m, 6)
		axes := []struct {
			num, unit int
			metric    string
		}{{1, 2, "envelope_x"}, {3, 4, "envelope_y"}, {5, 0, "envelope_z"}}
		start, end := m[2], m[2*6+1]
		for _, a := range axes {
			v, ok := parseNumber(group(s, m, a.num))
			if !ok {
				continue
			}
			written := last
			if a.unit > 0 && group(s, m, a.unit) != "" {
				written = group(s, m, a.unit)
			}
			sym, dim, _ := lookupUnit(written)
			if dim != dimLength {
				continue
			}
			out = append(out, mention{start: start, end: end, value: v, unit: sym, dim: dim, op: "<=",
				metric: a.metric, category: CategoryGeometry})
		}
		blank(masked, start, end)
	}
	return out
}

// ranges reads "-40 to 85 °C" as two bounds on one metric.
func ranges(masked []byte) []mention {
	s := string(masked)
	var out []mention
	for _, m := range findAll(rangeRe, s) {
		sym, dim, ok := lookupUnit(group(s, m, 4))
		lo, ok1 := parseNumber(group(s, m, 1))
		hi, ok2 := parseNumber(group(s, m, 3))
		if !ok || !ok1 || !ok2 || attachedOnly[group(s, m, 4)] && m[8] > m[7] {
			continue
		}
		if u := group(s, m, 2); u != "" {
			if s2, d2, ok := lookupUnit(u); ok && d2 == dim && s2 != sym {
				continue // "5 V to 3300 mV": not worth guessing
			}
		}
		if lo > hi {
			lo, hi = hi, lo
		}
		start, end := m[2], m[2*4+1]
		out = append(out, mention{start: start, end: end, value: lo, unit: sym, dim: dim, op: ">="},
			mention{start: start, end: end, value: hi, unit: sym, dim: dim, op: "<="})
		blank(masked, start, end)
	}
	return out
}

// safetyFactors reads "safety factor at least 2", "factor of safety of
// 1.5" and "a 2.5 safety factor": a plain number near the words.
func safetyFactors(text string, masked []byte, cs []clause) []mention {
	var out []mention
	for _, k := range safetyFactorRe.FindAllStringIndex(text, -1) {
		c := clauseAt(cs, k[0])
		if k[1] > c.end {
			continue
		}
		after := string(masked[k[1]:c.end])
		if m := bareNumberRe.FindStringSubmatchIndex(after); m != nil && !unitFollowsRe.MatchString(after[m[3]:]) {
			v, _ := parseNumber(after[m[2]:m[3]])
			op := lastComparator(after[:m[2]])
			if op == "" {
				op = followingComparator(after[m[3]:])
			}
			if op == "" {
				op = ">="
			}
			start, end := k[1]+m[2], k[1]+m[3]
			out = append(out, mention{start: start, end: end, value: v, unit: "1", op: op, metric: "safety_factor",
				category: CategoryStructural})
			blank(masked, start, end)
			continue
		}
		before := string(masked[c.start:k[1]])
		if m := sfBeforeRe.FindStringSubmatchIndex(before); m != nil {
			v, _ := parseNumber(before[m[2]:m[3]])
			op := lastComparator(before[:m[2]])
			if op == "" {
				op = ">="
			}
			start, end := c.start+m[2], c.start+m[3]
			out = append(out, mention{start: start, end: end, value: v, unit: "1", op: op, metric: "safety_factor",
				category: CategoryStructural})
			blank(masked, start, end)
		}
	}
	return out
}

// currencies reads "$20", "€1.5k".
func currencies(masked []byte) []mention {
	s := string(masked)
	var out []mention
	for _, m := range findAll(currencyRe, s) {
		v, ok := parseNumber(group(s, m, 2))
		if !ok {
			continue
		}
		if group(s, m, 3) == "k" {
			v *= 1000
		}
		out = append(out, mention{start: m[0], end: m[1], value: v, unit: currencySymbols[group(s, m, 1)], dim: dimCurrency})
		blank(masked, m[0], m[1])
	}
	return out
}

// attachedOnly are units that are also words ("500 a year", "2 c
// batteries"): read only when written against the number (2a, 85c).
var attachedOnly = map[string]bool{"a": true, "c": true}

// plainQuantities reads every remaining number with a unit.
func plainQuantities(masked []byte) []mention {
	s := string(masked)
	var out []mention
	for _, m := range findAll(quantityRe, s) {
		v, ok := parseNumber(group(s, m, 1))
		written := group(s, m, 2)
		sym, dim, ok2 := lookupUnit(written)
		if !ok || !ok2 || attachedOnly[written] && m[4] > m[3] {
			continue
		}
		out = append(out, mention{start: m[2], end: m[5], value: v, unit: sym, dim: dim})
		blank(masked, m[2], m[5])
	}
	return out
}
