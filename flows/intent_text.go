package flows

import (
	"regexp"
	"strconv"
	"strings"
)

// Text handling for CompileIntent: one lowercase spelling of the text, its
// clauses, and the comparison words that turn a quantity into a bound.

var (
	spaces         = regexp.MustCompile(`\s+`)
	thousands      = regexp.MustCompile(`(\d),(\d{3})\b`)
	betweenAnd     = regexp.MustCompile(`\bbetween\s+(-?\d+(?:\.\d+)?)(\s*[a-z°%µ]*\s*)and\s+`)
	clauseBoundary = regexp.MustCompile(`[,;:!?()\[\]]|\.(?:\s|$)|\b(?:and|with|that|which|while|but|whereas|where)\b`)
)

// normaliseText lowercases the text and spells symbols one way, so the
// patterns need not know every variant: × is x, µ is u, ≤ is <=, 1,000 is
// 1000, and "between 5 and 12 V" reads as the range "5 to 12 V".
func normaliseText(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("×", " x ", "µ", "u", "μ", "u", "≤", " <= ", "≥", " >= ", "–", " to ", "—", " to ",
		"−", "-", "º", "°", "’", "'").Replace(s)
	s = thousands.ReplaceAllString(s, "$1$2")
	s = betweenAnd.ReplaceAllString(s, "between ${1}${2}to ")
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// clause is a stretch of text between boundaries: the words that say what
// a quantity in it measures are looked for here only.
type clause struct{ start, end int }

// clauses splits text at punctuation and at the words that join clauses.
func clauses(text string) []clause {
	var out []clause
	start := 0
	for _, b := range clauseBoundary.FindAllStringIndex(text, -1) {
		if b[0] > start {
			out = append(out, clause{start, b[0]})
		}
		start = b[1]
	}
	if start < len(text) {
		out = append(out, clause{start, len(text)})
	}
	return out
}

// clauseAt is the clause holding position i.
func clauseAt(cs []clause, i int) clause {
	for _, c := range cs {
		if i >= c.start && i < c.end {
			return c
		}
	}
	return clause{i, i}
}

// clauseText is the clause's text, trimmed, for a constraint's Text.
func clauseText(text string, c clause) string { return strings.TrimSpace(text[c.start:c.end]) }

// Comparison words. Longer phrases come first, so "no less than" is not
// read as "less than".
var (
	comparator = regexp.MustCompile(`<=|>=|<|>|\b(?:no more than|not more than|no greater than|not greater than|` +
		`must not exceed|not exceed(?:ing)?|never exceed(?:ing)?|no less than|not less than|no lower than|not below|` +
		`at most|up to|less than|lower than|smaller than|fewer than|within|under|below|max(?:imum)?|` +
		`at least|more than|greater than|higher than|exceed(?:s|ing)?|over|above|min(?:imum)?)\b`)
	trailingComparator = regexp.MustCompile(`^\s*(?:\b(or less|or lower|or below|or under|or smaller|max(?:imum)?|at most)\b|` +
		`\b(or more|or greater|or higher|or above|or larger|min(?:imum)?|at least)\b|(\+))`)
)

// comparatorWord maps a comparison phrase to its operator.
func comparatorWord(w string) string {
	switch w {
	case "<", "<=", ">", ">=":
		return w
	case "no less than", "not less than", "no lower than", "not below", "at least", "more than", "greater than",
		"higher than", "exceed", "exceeds", "exceeding", "over", "above", "min", "minimum":
		return ">="
	}
	return "<="
}

// lastComparator is the operator of the last comparison phrase in s, or "".
func lastComparator(s string) string {
	all := comparator.FindAllString(s, -1)
	if len(all) == 0 {
		return ""
	}
	return comparatorWord(all[len(all)-1])
}

// followingComparator reads "0.5 mm or less", "3 mm min", "2+".
func followingComparator(s string) string {
	m := trailingComparator.FindStringSubmatch(s)
	switch {
	case m == nil:
		return ""
	case m[1] != "":
		return "<="
	}
	return ">="
}

// formatNumber writes a number as briefly as it reads: 0.5, 200, 1e-06.
func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// parseNumber reads a number the patterns matched.
func parseNumber(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v, err == nil
}
