package kicad

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The cases are KiCad's UnescapeString (common/string_utils.cpp) read by
// hand: each {token} of its table becomes its character, markup after
// $ ~ ^ _ keeps its braces, an unknown token keeps its braces with its
// inside read, an unclosed brace is kept, and a string of two characters
// or fewer is returned as it is.
func TestUnescapeKiCad(t *testing.T) {
	for in, want := range map[string]string{
		"/VPP{slash}MCLR":            "/VPP/MCLR",
		"/buspci.sch/P_C{slash}BE0#": "/buspci.sch/P_C/BE0#",
		"/{slash}PCWR":               "//PCWR",
		"{dblquote}{quote}{lt}{gt}":  `"'<>`,
		"a{backslash}b{bar}c":        `a\b|c`,
		"a{comma}b{colon}c{space}d":  "a,b:c d",
		"{dollar}{tab}{return}x":     "$\t\nx",
		"{brace}x}":                  "{x}",
		"~{RESET}":                   "~{RESET}",
		"~{slash}":                   "~{slash}", // an overbarred word "slash", not a '/'
		"${VAR}":                     "${VAR}",
		"V_{CC}":                     "V_{CC}",
		"x^{2}":                      "x^{2}",
		"{foo}":                      "{foo}",
		"{a{slash}b}":                "{a/b}",
		"~{A{slash}B}":               "~{A/B}",
		"{slash":                     "{slash",
		"a{b{slash}":                 "a{b/", // the first { never closes: kept, and the rest read
		"{}":                         "{}",
		"GND":                        "GND",
		"/VPP/MCLR":                  "/VPP/MCLR",
		"Net-(R1-Pad2)":              "Net-(R1-Pad2)",
	} {
		if got := unescapeKiCad(in); got != want {
			t.Errorf("unescapeKiCad(%q) = %q, want %q", in, got, want)
		}
	}
}

// pic_programmer's board stores the net of label VPP/MCLR as
// "/VPP{slash}MCLR" (net 38 of pic_programmer.kicad_pcb); the schematic's
// label reads "VPP/MCLR" on the root sheet, so KiCad shows "/VPP/MCLR" for
// both. The board and schematic netlists give that name to the same pins,
// and every net with the same pins has the same name in both.
func TestBoardAndSchematicNetNamesAgree(t *testing.T) {
	needKiCad(t)
	a, _ := newAdapter(t)
	const dir = "pic_programmer"
	board, _ := call[NetlistResult](t, a, ToolExportNetlist, map[string]any{"board_file": demo(filepath.Join(dir, "pic_programmer.kicad_pcb"))})
	sch, _ := call[NetlistResult](t, a, ToolExportNetlist, map[string]any{"schematic_file": demo(filepath.Join(dir, "pic_programmer.kicad_sch"))})
	pinsOf := func(n Net) string {
		var pins []string
		for _, p := range n.Pins {
			pins = append(pins, p.Reference+"/"+p.Pin)
		}
		sort.Strings(pins)
		return strings.Join(pins, " ")
	}
	schByPins := map[string]string{}
	for _, n := range sch.Nets {
		schByPins[pinsOf(n)] = n.Name
	}
	var vpp *Net
	compared := 0
	for i, n := range board.Nets {
		if strings.Contains(n.Name, "{") {
			t.Errorf("board net %q keeps a KiCad escape", n.Name)
		}
		if n.Name == "/VPP/MCLR" {
			vpp = &board.Nets[i]
		}
		if name, ok := schByPins[pinsOf(n)]; ok {
			compared++
			if name != n.Name {
				t.Errorf("the net on %s is %q on the board, %q in the schematic", pinsOf(n), n.Name, name)
			}
		}
	}
	if vpp == nil {
		t.Fatal("the board netlist has no net /VPP/MCLR")
	}
	if name := schByPins[pinsOf(*vpp)]; name != "/VPP/MCLR" {
		t.Fatalf("the schematic names the pins of /VPP/MCLR (%s) %q", pinsOf(*vpp), name)
	}
	t.Logf("/VPP/MCLR on %s; %d of %d board nets named alike in the schematic", pinsOf(*vpp), compared, len(board.Nets))
}

// Two nets that read alike once unescaped stay two, under their stored
// names, with a warning.
func TestUnescapedNamesThatClashStayApart(t *testing.T) {
	src := &netSource{nets: []Net{{Name: "/A/B"}, {Name: "/A{slash}B"}, {Name: "/C{slash}D"}}}
	src.showNetNames()
	var names []string
	for _, n := range src.nets {
		names = append(names, n.Name)
	}
	if got := strings.Join(names, " "); got != "/A/B /A{slash}B /C/D" {
		t.Fatalf("names %s", got)
	}
	want := `nets "/A/B", "/A{slash}B" all read "/A/B" in KiCad: their names are given as stored, with KiCad's escapes`
	if len(src.warnings) != 1 || src.warnings[0] != want {
		t.Fatalf("warnings %q, want %q", src.warnings, want)
	}
}
