package knowledge_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/knowledge/datasheettest"
)

// layoutPages runs poppler's pdftotext -layout, as knowledge.ingest
// does, and numbers the pages it separates with form feeds.
func layoutPages(t *testing.T, path string) []knowledge.Page {
	t.Helper()
	out, err := exec.Command("pdftotext", "-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext -layout %s: %v (poppler-utils: bash deploy/install-solvers.sh)", path, err)
	}
	var pages []knowledge.Page
	for i, text := range strings.Split(strings.TrimSuffix(string(out), "\f"), "\f") {
		pages = append(pages, knowledge.Page{Number: i + 1, Text: text})
	}
	return pages
}

func show(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func showFigure(f knowledge.Figure) string {
	return fmt.Sprintf("p%d %q %q %q min=%s typ=%s max=%s %q", f.Page, f.Name, f.Symbol, f.Conditions, show(f.Min), show(f.Typ), show(f.Max), f.Unit)
}

func showWant(f datasheettest.Figure) string {
	return showFigure(knowledge.Figure{Name: f.Name, Symbol: f.Symbol, Conditions: f.Conditions, Min: f.Min, Typ: f.Typ, Max: f.Max, Unit: f.Unit, Page: f.Page})
}

// Every readable row of the three datasheets' tables is read from the
// real pdftotext output, exactly, with its page; the rows printed with
// "±1" and "see text" are not.
func TestExtractFiguresFromDatasheets(t *testing.T) {
	for _, d := range datasheettest.Write(t, t.TempDir()) {
		t.Run(d.MPN, func(t *testing.T) {
			got := knowledge.ExtractFigures(layoutPages(t, d.Path))
			var gotS, wantS []string
			for _, f := range got {
				gotS = append(gotS, showFigure(f))
			}
			for _, f := range d.Figures {
				wantS = append(wantS, showWant(f))
			}
			if strings.Join(gotS, "\n") != strings.Join(wantS, "\n") {
				t.Errorf("figures:\n%s\nwant:\n%s", strings.Join(gotS, "\n"), strings.Join(wantS, "\n"))
			}
			onTablePage := 0
			for _, f := range got {
				if f.Page == datasheettest.TablePage {
					onTablePage++
				}
				if strings.Contains(f.Name, "accuracy") || strings.Contains(f.Name, "on-time") {
					t.Errorf("a row that cannot be read was guessed: %s", showFigure(f))
				}
			}
			if onTablePage < 10 {
				t.Errorf("%d figures on page %d, want 10 or more", onTablePage, datasheettest.TablePage)
			}
		})
	}
	// A few figures written out here too, so a mistake shared by the
	// datasheets' expectations and the reader would still show.
	sheets := datasheettest.Write(t, t.TempDir())
	buck := knowledge.ExtractFigures(layoutPages(t, sheets[0].Path))
	checks := map[string]string{
		"Feedback voltage":               `p2 "Feedback voltage" "VFB" "TA = 25 °C" min=0.788 typ=0.8 max=0.812 "V"`,
		"Quiescent current":              `p2 "Quiescent current" "IQ" "VFB = 0.9 V, not switching" min=- typ=40 max=60 "µA"`,
		"Load regulation":                `p2 "Load regulation" "" "IOUT = 0.1 A to 3 A" min=- typ=-0.2 max=- "%"`,
		"Operating junction temperature": `p3 "Operating junction temperature" "TJ" "" min=-40 typ=- max=125 "°C"`,
	}
	for _, f := range buck {
		if want, ok := checks[f.Name]; ok {
			if got := showFigure(f); got != want {
				t.Errorf("MFB2307 %s:\n got %s\nwant %s", f.Name, got, want)
			}
			delete(checks, f.Name)
		}
	}
	for name := range checks {
		t.Errorf("MFB2307: no figure %q", name)
	}
}

// Text without a parameter table has no figures, even when its prose
// names Min, Typ and Max and is full of numbers.
func TestExtractFiguresNoTable(t *testing.T) {
	pages := []knowledge.Page{
		{Number: 1, Text: "Typical values are at 25 C; Min and Max limits apply over -40 C to 125 C.\nInput 4.5 V to 28 V, 3 A output, 1.4 MHz.\n"},
		{Number: 2, Text: "Parameter    Value    Unit\nInput voltage    12    V\n"},
	}
	if got := knowledge.ExtractFigures(pages); len(got) != 0 {
		t.Errorf("figures from text without a table: %v", got)
	}
	if got := knowledge.ExtractFigures(nil); len(got) != 0 {
		t.Errorf("figures from no pages: %v", got)
	}
}

// The reader's rules on text written here: a header printed with single
// spaces, the Unicode minus, a row between two columns left out, prose
// ending the table, a second table on the same page, and a blank
// Parameter cell only repeating the row just above.
func TestExtractFiguresRules(t *testing.T) {
	// Columns: Parameter at 0, Symbol at 23; Min, Typ, Max and Unit
	// centred on 33, 37, 41 and 47.5.
	text := strings.Join([]string{
		"Parameter              Symbol   Min Typ Max   Unit",
		line(0, "Offset voltage", 23, "VOS", 32, "\u22121", 36, "0.5", 41, "3", 47, "mV"),
		line(0, "Drift", 34, "7.5", 46, "µV/°C"), // 7.5 centred on 35, between Min and Typ
		line(0, "Gain", 23, "AV", 36, "100", 47, "dB"),
		line(36, "80", 47, "dB"), // the Gain row again
		line(0, "Bias", 23, "IB", 36, "±1", 47, "nA"),
		line(36, "2", 47, "nA"), // not Bias: the row above was not read
		"This sentence of prose runs right across the number columns of the table above it",
		line(0, "Standby", 23, "ISB", 33, "2", 37, "4", 41, "7", 47, "µA"), // after the table: not read
		"",
		"Parameter                 Min       Max       Units",
		"Supply voltage            2.7       5.5       V",
		"Wrapped parameter name",
		"                          1         2         V",
		"Junk                      1,5       2         V",
		"Exponent                  1e3       2         V",
		"Unitless                  10        20",
		"Two units                 1         2         V  mV",
	}, "\n")
	got := knowledge.ExtractFigures([]knowledge.Page{{Number: 4, Text: text}})
	var s []string
	for _, f := range got {
		s = append(s, showFigure(f))
	}
	want := []string{
		`p4 "Offset voltage" "VOS" "" min=-1 typ=0.5 max=3 "mV"`,
		`p4 "Gain" "AV" "" min=- typ=100 max=- "dB"`,
		`p4 "Gain" "AV" "" min=- typ=80 max=- "dB"`,
		`p4 "Supply voltage" "" "" min=2.7 typ=- max=5.5 "V"`,
		`p4 "Unitless" "" "" min=10 typ=- max=20 ""`,
	}
	if strings.Join(s, "\n") != strings.Join(want, "\n") {
		t.Errorf("figures:\n%s\nwant:\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
}

// line places each string at its column (pairs of column, text).
func line(parts ...any) string {
	var r []rune
	for i := 0; i < len(parts); i += 2 {
		col, s := parts[i].(int), []rune(parts[i+1].(string))
		for len(r) < col {
			r = append(r, ' ')
		}
		r = append(r[:col], s...)
	}
	return string(r)
}
