package kicad

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// boardDemos load cleanly in KiCad 6 and have schematics that agree with
// their boards.
var boardDemos = []string{"ecc83/ecc83-pp.kicad_pcb", "pic_programmer/pic_programmer.kicad_pcb"}

func TestDRCMatchesPcbnew(t *testing.T) {
	needKiCad(t)
	a, _ := newAdapter(t)
	for _, b := range boardDemos {
		t.Run(filepath.Base(b), func(t *testing.T) {
			want := facts(t, demo(b))
			got, res := call[DRCResult](t, a, ToolRunDRC, map[string]any{"board_file": demo(b)})
			if got.ViolationCount != want.Violations || len(got.Violations) != want.Violations {
				t.Errorf("violations %d (%d listed), pcbnew reports %d", got.ViolationCount, len(got.Violations), want.Violations)
			}
			if got.ErrorCount != want.Errors {
				t.Errorf("error-severity violations %d, pcbnew reports %d", got.ErrorCount, want.Errors)
			}
			if got.Unconnected.Count != want.Unconnected {
				t.Errorf("unconnected %d, pcbnew reports %d", got.Unconnected.Count, want.Unconnected)
			}
			if got.Passed != (want.Errors == 0 && want.Unconnected == 0) {
				t.Errorf("passed %v with %d errors and %d unconnected", got.Passed, want.Errors, want.Unconnected)
			}
			for _, v := range got.Violations {
				if v.Rule == "" || v.Severity == "" || v.Location == nil || len(v.Items) == 0 {
					t.Errorf("incomplete violation %+v", v)
				}
			}
			if len(res.OutputFiles) != 1 || !strings.HasPrefix(res.OutputFiles[0], a.ws.Root) {
				t.Errorf("output files %v, want the report under %s", res.OutputFiles, a.ws.Root)
			}
		})
	}
}

// TestDRCUnconnected cuts three tracks off a copy of ecc83 (with the
// test's own pcbnew) and checks the adapter reports what pcbnew does.
func TestDRCUnconnected(t *testing.T) {
	needKiCad(t)
	a, ws := newAdapter(t)
	dir := filepath.Join(ws.Root, "cut")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.kicad_pcb")
	runPython(t, `
import sys, pcbnew
b = pcbnew.LoadBoard(sys.argv[1])
for t in list(b.GetTracks())[:3]:
    b.Remove(t)
pcbnew.SaveBoard(sys.argv[2], b)
`, demo("ecc83/ecc83-pp.kicad_pcb"), cut)
	want := facts(t, cut)
	if want.Unconnected == 0 {
		t.Fatal("cutting tracks left nothing unconnected; the fixture is wrong")
	}
	got, _ := call[DRCResult](t, a, ToolRunDRC, map[string]any{"board_file": cut})
	if got.Unconnected.Count != want.Unconnected || len(got.Unconnected.Items) != want.Unconnected {
		t.Errorf("unconnected %d, pcbnew reports %d", got.Unconnected.Count, want.Unconnected)
	}
	if got.Passed {
		t.Error("a board with unrouted connections passed")
	}
	u := got.Unconnected.Items[0]
	if u.Rule != "unconnected_items" || len(u.Items) != 2 || u.Severity != "error" {
		t.Errorf("unconnected item %+v", u)
	}
}

func TestGerberLayersMatchBoard(t *testing.T) {
	needKiCad(t)
	a, _ := newAdapter(t)
	fab := map[string]bool{"F.Paste": true, "B.Paste": true, "F.Silkscreen": true, "B.Silkscreen": true, "F.Mask": true, "B.Mask": true, "Edge.Cuts": true}
	for _, b := range boardDemos {
		t.Run(filepath.Base(b), func(t *testing.T) {
			f := facts(t, demo(b))
			var want []string
			for _, l := range f.Layers {
				if strings.HasSuffix(l, ".Cu") || fab[l] {
					want = append(want, l)
				}
			}
			got, res := call[GerberResult](t, a, ToolExportGerber, map[string]any{"board_file": demo(b)})
			var layers []string
			copper := 0
			for _, g := range got.Gerbers {
				layers = append(layers, g.Layer)
				if strings.HasSuffix(g.Layer, ".Cu") {
					copper++
				}
				if g.SizeBytes == 0 || !strings.HasPrefix(g.Path, got.OutputDir) {
					t.Errorf("gerber %+v is empty or outside %s", g, got.OutputDir)
				}
				head, _ := os.ReadFile(g.Path)
				if !strings.Contains(string(head), "%FSLAX") {
					t.Errorf("%s is not an RS-274X Gerber", g.Path)
				}
			}
			sort.Strings(layers)
			sort.Strings(want)
			if strings.Join(layers, ",") != strings.Join(want, ",") {
				t.Errorf("layers %v, the board's enabled fabrication layers are %v", layers, want)
			}
			if copper != f.CopperCount {
				t.Errorf("%d copper gerbers, the board has %d copper layers", copper, f.CopperCount)
			}
			if len(got.DrillFiles) == 0 {
				t.Fatal("no drill file")
			}
			for _, d := range got.DrillFiles {
				body, _ := os.ReadFile(d.Path)
				if !strings.HasPrefix(string(body), "M48") {
					t.Errorf("%s is not an Excellon file", d.Path)
				}
			}
			if len(res.OutputFiles) != len(got.Gerbers)+len(got.DrillFiles) {
				t.Errorf("output files %v", res.OutputFiles)
			}
		})
	}
}

func TestGerberChosenLayers(t *testing.T) {
	needKiCad(t)
	a, _ := newAdapter(t)
	// ecc83 calls its front copper "top_cu".
	got, _ := call[GerberResult](t, a, ToolExportGerber, map[string]any{"board_file": demo(boardDemos[0]), "layers": []string{"top_cu", "Edge.Cuts"}})
	if len(got.Gerbers) != 2 || got.Gerbers[0].Layer != "F.Cu" || got.Gerbers[0].BoardLayerName != "top_cu" || got.Gerbers[1].Layer != "Edge.Cuts" {
		t.Errorf("gerbers %+v", got.Gerbers)
	}
	_, err := callErr(t, a, ToolExportGerber, map[string]any{"board_file": demo(boardDemos[0]), "layers": []string{"In1.Cu"}})
	if pe := wantCode(t, err, -32602); !strings.Contains(pe.Details, "In1.Cu") || !strings.Contains(pe.Details, "F.Cu") {
		t.Errorf("details %q should name the bad layer and the enabled ones", pe.Details)
	}
}

func TestBoardNetlistMatchesPcbnew(t *testing.T) {
	needKiCad(t)
	a, _ := newAdapter(t)
	for _, b := range boardDemos {
		t.Run(filepath.Base(b), func(t *testing.T) {
			f := facts(t, demo(b))
			got, _ := call[NetlistResult](t, a, ToolExportNetlist, map[string]any{"board_file": demo(b)})
			if got.Source != SourceBoard {
				t.Errorf("source %q, want board", got.Source)
			}
			codes := map[int]bool{}
			for _, c := range f.Pads {
				codes[c] = true
			}
			if got.NetCount != len(codes) {
				t.Errorf("%d nets, pcbnew's pads are on %d distinct nets (GetNetCount %d counts the empty net and padless nets)", got.NetCount, len(codes), f.NetCount)
			}
			if got.NetCount > f.NetCount {
				t.Errorf("%d nets, more than the board's %d", got.NetCount, f.NetCount)
			}
			want := partition(func(yield func(string, string)) {
				for k, c := range f.Pads {
					yield(k, string(rune(c)))
				}
			})
			if d := comparePartitions(netPartition(got.Nets), want); d != "" {
				t.Error(d)
			}
		})
	}
}

func runPython(t *testing.T, script string, args ...string) string {
	t.Helper()
	out, err := execPython(script, args...)
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	return out
}
