package knowledge

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Figure is one row of a datasheet's parameter table: a characteristic
// with its limits as printed. Min, Typ and Max are nil where the cell is
// empty; Unit is kept as printed ("V", "mA", "µA", "%", "MHz").
type Figure struct {
	Name       string   `json:"name"`
	Symbol     string   `json:"symbol"`
	Conditions string   `json:"conditions"`
	Min        *float64 `json:"min"`
	Typ        *float64 `json:"typ"`
	Max        *float64 `json:"max"`
	Unit       string   `json:"unit"`
	// Page is the page the row is printed on.
	Page int `json:"page"`
}

// ExtractFigures reads the parameter tables in pages of `pdftotext
// -layout` text. A table starts at a header row naming Min, Typ and Max
// (two of them at least) and Unit as separate cells; its columns are
// where the header's cells are. A row becomes a figure only when every
// cell in the number columns lands clearly under one header and the
// numbers parse: a row that cannot be read ("±1", "see text", a cell
// between two columns) is left out, never guessed.
func ExtractFigures(pages []Page) []Figure {
	var out []Figure
	for _, p := range pages {
		var t *figTable
		var prev *Figure // the row just above, for a row that repeats its parameter
		for _, line := range strings.Split(p.Text, "\n") {
			r := []rune(line)
			if h, ok := readFigHeader(r); ok {
				t, prev = h, nil
				continue
			}
			if t == nil || strings.TrimSpace(line) == "" {
				continue
			}
			f, kind := t.read(r)
			switch kind {
			case rowEnd:
				t, prev = nil, nil
			case rowSkip:
				prev = nil
			case rowFigure:
				if f.Name == "" {
					if prev == nil || f.Symbol != "" {
						prev = nil
						continue
					}
					// A blank Parameter cell repeats the row above
					// under other conditions, as datasheets print it.
					f.Name, f.Symbol = prev.Name, prev.Symbol
				}
				f.Page = p.Number
				out = append(out, f)
				prev = &out[len(out)-1]
			}
		}
	}
	return out
}

// Column roles in a header.
const (
	colOther = iota
	colName
	colSymbol
	colConditions
	colMin
	colTyp
	colMax
	colUnit
)

var figHeaderWords = map[string]int{
	"parameter": colName, "parameters": colName, "characteristic": colName, "characteristics": colName,
	"symbol": colSymbol, "sym": colSymbol,
	"conditions": colConditions, "condition": colConditions, "test conditions": colConditions, "test condition": colConditions,
	"min": colMin, "minimum": colMin, "min.": colMin,
	"typ": colTyp, "typical": colTyp, "typ.": colTyp, "nom": colTyp,
	"max": colMax, "maximum": colMax, "max.": colMax,
	"unit": colUnit, "units": colUnit,
}

// cellSpan is a run of text on a line, in runes [start, end).
type cellSpan struct {
	start, end int
	text       string
}

func (s cellSpan) center() float64 { return float64(s.start+s.end-1) / 2 }

// cells splits a line at runs of two spaces or more: single spaces stay
// inside a cell ("VIN = 12 V").
func layoutCells(r []rune) []cellSpan { return splitLayout(r, 2) }

// words splits a line at every space.
func layoutWords(r []rune) []cellSpan { return splitLayout(r, 1) }

func splitLayout(r []rune, gap int) []cellSpan {
	var out []cellSpan
	start, spaces := -1, 0
	for i := 0; i <= len(r); i++ {
		if i < len(r) && r[i] != ' ' && r[i] != '\t' {
			if start < 0 {
				start = i
			}
			spaces = 0
			continue
		}
		spaces++
		if start >= 0 && (spaces >= gap || i == len(r)) {
			end := i - spaces + 1
			out = append(out, cellSpan{start, end, string(r[start:end])})
			start = -1
		}
	}
	return out
}

// table is a header's columns: text columns by where they start, number
// columns (Min, Typ, Max, Unit) by their centres.
type figTable struct {
	text []figTextColumn
	num  []figNumColumn
	// edge is where the number columns begin: half a column pitch left
	// of the first one's centre. A cell across it belongs to neither
	// side, which is how prose ends a table.
	edge  float64
	pitch float64
}

type figTextColumn struct {
	start int
	role  int
}

type figNumColumn struct {
	center float64
	role   int
}

// readFigHeader recognises a header row: a Unit cell and at least two of
// Min, Typ, Max, each its own word, right of the text columns.
func readFigHeader(r []rune) (*figTable, bool) {
	t := &figTable{}
	roles := map[int]bool{}
	for _, c := range layoutCells(r) {
		if role, ok := figHeaderWords[strings.ToLower(c.text)]; ok {
			if role >= colMin {
				t.num = append(t.num, figNumColumn{c.center(), role})
			} else {
				t.text = append(t.text, figTextColumn{c.start, role})
			}
			roles[role] = true
			continue
		}
		// "Min Typ Max" printed with single spaces is still three
		// columns when every word is one.
		ws := layoutWords([]rune(c.text))
		all := len(ws) > 1
		for _, w := range ws {
			if role, ok := figHeaderWords[strings.ToLower(w.text)]; !ok || role < colMin {
				all = false
			}
		}
		if !all {
			t.text = append(t.text, figTextColumn{c.start, colOther})
			continue
		}
		for _, w := range ws {
			role := figHeaderWords[strings.ToLower(w.text)]
			t.num = append(t.num, figNumColumn{float64(c.start) + w.center(), role})
			roles[role] = true
		}
	}
	limits := 0
	for _, role := range []int{colMin, colTyp, colMax} {
		if roles[role] {
			limits++
		}
	}
	if !roles[colUnit] || limits < 2 || len(t.text) == 0 {
		return nil, false
	}
	seen := map[int]bool{}
	for i, n := range t.num {
		if seen[n.role] || (i > 0 && n.center <= t.num[i-1].center) {
			return nil, false // a column named twice, or out of order
		}
		seen[n.role] = true
	}
	for _, c := range t.text {
		if float64(c.start) >= t.num[0].center {
			return nil, false // text right of the numbers is not a table we know
		}
	}
	t.pitch = math.Inf(1)
	for i := 1; i < len(t.num); i++ {
		t.pitch = math.Min(t.pitch, t.num[i].center-t.num[i-1].center)
	}
	t.edge = t.num[0].center - t.pitch/2
	// Without a Parameter header the first text column is the name.
	named := false
	for _, c := range t.text {
		named = named || c.role == colName
	}
	sort.Slice(t.text, func(i, j int) bool { return t.text[i].start < t.text[j].start })
	if !named {
		t.text[0].role = colName
	}
	return t, true
}

type figRowKind int

const (
	rowSkip   figRowKind = iota // not a figure, the table goes on
	rowFigure                   // a figure (its Name may be empty: the row above's)
	rowEnd                      // prose: the table is over
)

// number is a printed decimal: a sign, digits, a point. Exponents,
// thousands separators, "±" and words are not read.
var printedNumber = regexp.MustCompile(`^[+-]?(\d+(\.\d*)?|\.\d+)$`)

func parseNumber(s string) (float64, bool) {
	s = strings.Replace(s, "\u2212", "-", 1) // the minus sign PDFs print
	if !printedNumber.MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// read reads one line under the header.
func (t *figTable) read(r []rune) (Figure, figRowKind) {
	var f Figure
	text := map[int][]string{}
	num := map[int]string{}
	for _, c := range layoutCells(r) {
		if float64(c.end-1) < t.edge {
			role := t.textRole(c.start)
			text[role] = append(text[role], c.text)
			continue
		}
		if float64(c.start) < t.edge {
			return f, rowEnd // a cell across the text and number columns: prose
		}
		for _, w := range layoutWords([]rune(c.text)) {
			role, ok := t.numRole(float64(c.start) + w.center())
			if !ok {
				return f, rowSkip
			}
			if _, twice := num[role]; twice {
				return f, rowSkip
			}
			num[role] = w.text
		}
	}
	if len(num) == 0 {
		return f, rowSkip
	}
	f.Name = strings.Join(text[colName], " ")
	f.Symbol = strings.Join(text[colSymbol], " ")
	f.Conditions = strings.Join(text[colConditions], " ")
	for role, dst := range map[int]**float64{colMin: &f.Min, colTyp: &f.Typ, colMax: &f.Max} {
		s, ok := num[role]
		if !ok {
			continue
		}
		x, ok := parseNumber(s)
		if !ok {
			return f, rowSkip
		}
		*dst = &x
	}
	if f.Min == nil && f.Typ == nil && f.Max == nil {
		return f, rowSkip
	}
	f.Unit = num[colUnit]
	if _, isNumber := parseNumber(f.Unit); isNumber {
		return f, rowSkip // a number where the unit goes: the columns are not what the header says
	}
	return f, rowFigure
}

// textRole is the text column a cell starting at start is under: the
// rightmost that starts at or before it (a column's text may start a
// little right of its header).
func (t *figTable) textRole(start int) int {
	role := t.text[0].role
	for _, c := range t.text {
		if c.start <= start+1 {
			role = c.role
		}
	}
	return role
}

// numRole is the number column whose centre is nearest: only when it is
// clearly nearer than the next nearest, and within a column pitch.
func (t *figTable) numRole(center float64) (int, bool) {
	best, second := math.Inf(1), math.Inf(1)
	role := 0
	for _, c := range t.num {
		d := math.Abs(center - c.center)
		switch {
		case d < best:
			best, second, role = d, best, c.role
		case d < second:
			second = d
		}
	}
	if best > t.pitch || second-best < 1 {
		return 0, false
	}
	return role, true
}
