package flows

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Findings are what a checker's result lists behind a count (ERC and DRC
// violations, unconnected items): a step keeps them with the evidence of
// the count, and a gate judging that evidence names them. They are kept
// and described without knowing which checker wrote them: an object is
// read by the keys checkers use (type or rule, description, severity,
// sheet, references, pins, items, position).

// MaxFindings is how many findings one piece of evidence keeps, errors
// first; FindingsTotal says how many there were.
const MaxFindings = 50

// KeepFindings is what evidence keeps of a result's list of findings:
// those with severity error first (in the checker's order), then the
// rest, at most MaxFindings, and how many there were. Anything but a JSON
// list keeps nothing.
func KeepFindings(raw json.RawMessage) (kept []any, total int) {
	var list []any
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return nil, 0
	}
	sort.SliceStable(list, func(i, j int) bool { return isError(list[i]) && !isError(list[j]) })
	if len(list) > MaxFindings {
		return list[:MaxFindings], len(list)
	}
	return list, len(list)
}

func isError(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	s, _ := m["severity"].(string)
	return strings.EqualFold(s, "error")
}

// DescribeFindings writes each kept finding as one line a person reads at
// a gate.
func DescribeFindings(kept []any) []string {
	out := make([]string, 0, len(kept))
	for _, f := range kept {
		out = append(out, clip(describeFinding(f), 300))
	}
	return out
}

// describeFinding is one finding as a line: "rule: description (severity)
// at U1 pin 8, sheet /, (25.4, 30.5) mm".
func describeFinding(f any) string {
	m, ok := f.(map[string]any)
	if !ok {
		if s, ok := f.(string); ok {
			return s
		}
		b, _ := json.Marshal(f)
		return string(b)
	}
	var b strings.Builder
	head := firstString(m, "type", "rule", "code", "kind", "check")
	text := firstString(m, "description", "message", "detail")
	switch {
	case head != "" && text != "":
		b.WriteString(head + ": " + text)
	case head != "":
		b.WriteString(head)
	default:
		b.WriteString(text)
	}
	if sev := firstString(m, "severity"); sev != "" {
		b.WriteString(" (" + strings.ToLower(sev) + ")")
	}
	var where []string
	for _, k := range []string{"references", "refs", "pins", "items"} {
		if w := listWords(m[k]); w != "" {
			where = append(where, w)
		}
	}
	if s := firstString(m, "sheet"); s != "" {
		where = append(where, "sheet "+s)
	}
	for _, k := range []string{"position", "location", "at"} {
		if p := point(m[k]); p != "" {
			where = append(where, p)
			break
		}
	}
	if len(where) > 0 {
		b.WriteString(" at " + strings.Join(where, ", "))
	}
	return b.String()
}

// firstString is the first of keys that holds a non-empty string.
func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// listWords writes a list of names or of objects naming a part and pin
// (U1 pin 8) or describing an item, joined by commas.
func listWords(v any) string {
	list, ok := v.([]any)
	if !ok {
		return ""
	}
	var words []string
	for _, x := range list {
		switch x := x.(type) {
		case string:
			words = append(words, x)
		case map[string]any:
			ref := firstString(x, "reference", "ref", "component")
			pin := firstString(x, "pin", "number", "pin_number")
			if pin == "" {
				if n, ok := x["pin"].(float64); ok {
					pin = formatNumber(n)
				}
			}
			switch {
			case ref != "" && pin != "":
				w := ref + " pin " + pin
				if name := firstString(x, "pin_name", "name"); name != "" && name != pin {
					w += " (" + name + ")"
				}
				words = append(words, w)
			case ref != "":
				words = append(words, ref)
			default:
				if d := firstString(x, "description", "name"); d != "" {
					words = append(words, d)
				}
			}
		}
	}
	return strings.Join(words, ", ")
}

// point writes a position object ({x_mm, y_mm} or {x, y}) in mm.
func point(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	for _, k := range [][2]string{{"x_mm", "y_mm"}, {"x", "y"}} {
		x, okx := m[k[0]].(float64)
		y, oky := m[k[1]].(float64)
		if okx && oky {
			return fmt.Sprintf("(%s, %s) mm", formatNumber(x), formatNumber(y))
		}
	}
	return ""
}
