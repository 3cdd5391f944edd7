package kicad

import (
	"path/filepath"
	"strings"
	"testing"
)

// schematicDemos pair a root schematic with its board; their references
// and connectivity agree (checked below against pcbnew).
var schematicDemos = []struct{ sch, board string }{
	{"ecc83/ecc83-pp.kicad_sch", "ecc83/ecc83-pp.kicad_pcb"},
	{"pic_programmer/pic_programmer.kicad_sch", "pic_programmer/pic_programmer.kicad_pcb"},
	// One sheet file placed twice: references and units per placement.
	{"complex_hierarchy/complex_hierarchy.kicad_sch", "complex_hierarchy/complex_hierarchy.kicad_pcb"},
}

func TestSchematicNetlistMatchesBoard(t *testing.T) {
	needKiCad(t)
	a, _ := newAdapter(t)
	for _, d := range schematicDemos {
		t.Run(filepath.Base(d.sch), func(t *testing.T) {
			f := facts(t, demo(d.board))
			got, _ := call[NetlistResult](t, a, ToolExportNetlist, map[string]any{"schematic_file": demo(d.sch)})
			if got.Source != SourceSchematic {
				t.Errorf("source %q", got.Source)
			}
			want := partition(func(yield func(string, string)) {
				for k, c := range f.Pads {
					yield(k, string(rune(c)))
				}
			})
			if diff := comparePartitions(netPartition(got.Nets), want); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestBOMMatchesBoard(t *testing.T) {
	needKiCad(t)
	a, _ := newAdapter(t)
	for _, d := range schematicDemos {
		t.Run(filepath.Base(d.sch), func(t *testing.T) {
			f := facts(t, demo(d.board))
			got, _ := call[BOMResult](t, a, ToolExportBOM, map[string]any{"schematic_file": demo(d.sch)})
			var refs []string
			for _, l := range got.Lines {
				if l.Quantity != len(l.References) {
					t.Errorf("line %+v: quantity is not the reference count", l)
				}
				refs = append(refs, l.References...)
			}
			if got.TotalReferences != len(f.BOMRefs) {
				t.Errorf("%d BOM references, the board has %d BOM footprints", got.TotalReferences, len(f.BOMRefs))
			}
			if a, b := sortedJoin(refs), sortedJoin(f.BOMRefs); a != b {
				t.Errorf("BOM references\n %s\nboard's\n %s", a, b)
			}
		})
	}
}

func TestBOMLinesByHand(t *testing.T) {
	a, _ := newAdapter(t)
	needDemos(t)
	got, _ := call[BOMResult](t, a, ToolExportBOM, map[string]any{"schematic_file": demo("ecc83/ecc83-pp.kicad_sch")})
	line := func(ref string) BOMLine {
		for _, l := range got.Lines {
			for _, r := range l.References {
				if r == ref {
					return l
				}
			}
		}
		t.Fatalf("no BOM line holds %s: %+v", ref, got.Lines)
		return BOMLine{}
	}
	// ecc83-pp: one ECC83 double triode drawn as three units (two
	// triodes and the heater) but one reference; R1 and R2 are 1.5K.
	tube := line("U1")
	if tube.Value != "ECC83" || strings.Join(tube.References, ",") != "U1" || tube.Footprint != "Valve:Valve_ECC-83-1" {
		t.Errorf("tube line %+v", tube)
	}
	if r := line("R1"); r.Value != "1.5K" || strings.Join(r.References, ",") != "R1,R2" || r.Quantity != 2 {
		t.Errorf("R1 line %+v", r)
	}
	if r := line("R3"); r.Value != "100K" || r.Quantity != 1 {
		t.Errorf("R3 line %+v", r)
	}
	if h := line("P5"); h.Value != "MOUNTING_HOLE" || h.Quantity != 4 {
		t.Errorf("mounting hole line %+v", h)
	}
	if got.PowerAndFlags == 0 {
		t.Error("power symbols were not counted as left out")
	}
	for _, l := range got.Lines {
		for _, r := range l.References {
			if strings.HasPrefix(r, "#") {
				t.Errorf("power or flag symbol %s in the BOM", r)
			}
		}
	}
	t.Logf("ecc83 BOM: %+v", got.Lines)
}

func sortedJoin(l []string) string {
	c := append([]string(nil), l...)
	sortNatural(c)
	return strings.Join(c, " ")
}
