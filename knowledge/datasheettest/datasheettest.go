// Package datasheettest makes real PDF datasheets for the knowledge
// base's tests, with reportlab (PyPI, installed by deploy/test-deps.sh):
// three component datasheets whose parameter tables sit on page 2, with
// the figures each table prints, and a long PDF for the ingest that must
// survive a crash. Output is deterministic: the same call writes the same
// bytes, so a source's content hash is stable across runs.
//
// The package does not import knowledge (knowledge's own tests use it);
// its Figure mirrors knowledge.Figure field for field.
package datasheettest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Figure is one parameter row a datasheet prints: what a reader of its
// table must find. Min, Typ and Max are nil where the cell is empty.
type Figure struct {
	Name       string
	Symbol     string
	Conditions string
	Min        *float64
	Typ        *float64
	Max        *float64
	Unit       string
	// Page is the page the row is printed on, from 1.
	Page int
}

// Datasheet is one PDF written by Write and what it holds.
type Datasheet struct {
	Path         string
	MPN          string
	Manufacturer string
	// Category is the tag a test ingests it with: buck-converter, ldo,
	// op-amp.
	Category string
	// Title is the first line of page 1 (and the PDF's title).
	Title string
	// Summary is a short description of the part, in words page 1 uses,
	// for looking it up as a BOM line's description would.
	Summary string
	Pages   int
	// Figures are every readable row of every table, in print order.
	// Rows printed with a value that cannot be read without guessing
	// ("±1", "see text") are not here.
	Figures []Figure
}

// TablePage is the page each datasheet's electrical characteristics
// table is on.
const TablePage = 2

// Write writes the three datasheets into dir as <MPN>.pdf: the buck
// converter MFB2307 and the LDO MFL1117 by Acme Power, and the dual
// op-amp MFA358 by Borealis Analog.
func Write(t testing.TB, dir string) []Datasheet {
	t.Helper()
	var out []Datasheet
	for _, s := range []sheet{buck, ldo, opamp} {
		pages, figures := lay(s)
		path := filepath.Join(dir, s.mpn+".pdf")
		render(t, document{Path: path, Title: s.title, Author: s.manufacturer, Pages: pages})
		out = append(out, Datasheet{
			Path: path, MPN: s.mpn, Manufacturer: s.manufacturer, Category: s.category,
			Title: s.title, Summary: s.summary, Pages: len(pages), Figures: figures,
		})
	}
	return out
}

// Marker is the searchable words on page n of a Long PDF: "marker zq0123"
// for page 123. The tokenizer keeps "zq0123" as one word, and it appears
// on that page only.
func Marker(n int) string { return fmt.Sprintf("marker zq%04d", n) }

// Long writes a PDF of the given number of pages to path, each page with
// its Marker and a few lines of prose, for the ingest that is killed
// part-way and must resume.
func Long(t testing.TB, path string, pages int) {
	t.Helper()
	doc := document{Path: path, Title: fmt.Sprintf("Long test document of %d pages", pages), Author: "datasheettest"}
	for n := 1; n <= pages; n++ {
		var page []text
		y := pageTop
		page = append(page, text{X: marginLeft, Y: y, Font: "Helvetica-Bold", Size: 12, Align: "left", S: fmt.Sprintf("Section %d", n)})
		y -= 24
		prose := fmt.Sprintf("This page carries the %s, which no other page of this document repeats. "+
			"The rest is filler prose about power converters, regulators and amplifiers, so every page has "+
			"enough words to be chunked and indexed like a real datasheet page. ", Marker(n))
		for _, line := range wrap(strings.Repeat(prose, 3), proseWidth) {
			page = append(page, text{X: marginLeft, Y: y, Font: "Helvetica", Size: 9, Align: "left", S: line})
			y -= 12
		}
		page = append(page, text{X: 306, Y: 30, Font: "Helvetica", Size: 8, Align: "center", S: fmt.Sprintf("Page %d of %d", n, pages)})
		doc.Pages = append(doc.Pages, page)
	}
	render(t, doc)
}
