package datasheettest

import (
	"fmt"
	"strings"
)

// sheet is one datasheet as written: pages of blocks, laid out by lay.
type sheet struct {
	mpn, manufacturer, category, title, summary string
	pages                                       [][]block
}

// block is a heading, a paragraph or a parameter table.
type block struct {
	heading string
	para    string
	table   []row
}

// row is one table row as printed, and the figure a reader must find in
// it: nil where the row cannot be read without guessing (a "±1" or a
// "see text"), so a reader that guesses is caught.
type row struct {
	cells [7]string // Parameter, Symbol, Conditions, Min, Typ, Max, Unit
	want  *Figure
}

// Page geometry in points (US letter).
const (
	pageTop    = 742.0
	pageBottom = 60.0
	marginLeft = 50.0
	proseWidth = 96 // characters of 9 pt Helvetica per line, well inside the margins
)

// Table columns: text columns start at their x, number columns are
// centred on theirs, as datasheets print them.
var columns = [7]struct {
	x     float64
	align string
}{
	{50, "left"}, {215, "left"}, {262, "left"},
	{422, "center"}, {466, "center"}, {510, "center"}, {552, "center"},
}

var header = [7]string{"Parameter", "Symbol", "Conditions", "Min", "Typ", "Max", "Unit"}

// lay positions every string of s and returns the pages and the figures
// with the page each was printed on.
func lay(s sheet) ([][]text, []Figure) {
	var pages [][]text
	var figures []Figure
	for i, blocks := range s.pages {
		n := i + 1
		y := pageTop
		var page []text
		for _, b := range blocks {
			switch {
			case b.heading != "":
				y -= 6
				page = append(page, text{X: marginLeft, Y: y, Font: "Helvetica-Bold", Size: 12, Align: "left", S: b.heading})
				y -= 20
			case b.para != "":
				for _, line := range wrap(b.para, proseWidth) {
					page = append(page, text{X: marginLeft, Y: y, Font: "Helvetica", Size: 9, Align: "left", S: line})
					y -= 12
				}
				y -= 8
			case b.table != nil:
				page = append(page, tableRow(y, header, "Helvetica-Bold")...)
				y -= 15
				for _, r := range b.table {
					page = append(page, tableRow(y, r.cells, "Helvetica")...)
					y -= 13
					if r.want != nil {
						f := *r.want
						f.Page = n
						figures = append(figures, f)
					}
				}
				y -= 10
			}
			if y < pageBottom {
				panic(fmt.Sprintf("datasheettest: %s page %d overflows", s.mpn, n))
			}
		}
		footer := fmt.Sprintf("%s  %s datasheet  Page %d of %d", s.manufacturer, s.mpn, n, len(s.pages))
		page = append(page, text{X: 306, Y: 30, Font: "Helvetica", Size: 8, Align: "center", S: footer})
		pages = append(pages, page)
	}
	return pages, figures
}

func tableRow(y float64, cells [7]string, font string) []text {
	var out []text
	for i, c := range cells {
		if c == "" {
			continue
		}
		out = append(out, text{X: columns[i].x, Y: y, Font: font, Size: 8, Align: columns[i].align, S: c})
	}
	return out
}

// wrap breaks prose into lines of at most width characters.
func wrap(s string, width int) []string {
	var lines []string
	var line strings.Builder
	for _, w := range strings.Fields(s) {
		if line.Len() > 0 && line.Len()+1+len(w) > width {
			lines = append(lines, line.String())
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(w)
	}
	if line.Len() > 0 {
		lines = append(lines, line.String())
	}
	return lines
}
