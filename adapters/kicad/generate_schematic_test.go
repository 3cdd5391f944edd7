package kicad

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/protocol"
)

// needSymbols skips when KiCad's symbol libraries are not installed.
func needSymbols(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(DefaultSymbolDir, "Device.kicad_sym")); err != nil {
		t.Skip("KiCad's symbol libraries are not installed: apt-get install kicad-symbols")
	}
}

// astable555 is the 555 astable: NE555 (Debian's library names it
// Timer:NE555P), timing resistors R1 (VCC-DIS) and R2 (DIS-THR/TRIG),
// timing capacitor C1 (THR/TRIG-GND), C2 on CV, reset tied to VCC, and a
// three-pin connector bringing VCC and GND in and OUT out. VCC and GND are
// power ports with a PWR_FLAG each (the connector is their source).
func astable555() map[string]any {
	return map[string]any{
		"title": "555 astable",
		"components": []map[string]any{
			{"reference": "U1", "symbol": "Timer:NE555P", "footprint": "Package_DIP:DIP-8_W7.62mm"},
			{"reference": "R1", "symbol": "Device:R", "value": "1k"},
			{"reference": "R2", "symbol": "Device:R", "value": "10k"},
			{"reference": "C1", "symbol": "Device:C", "value": "10n"},
			{"reference": "C2", "symbol": "Device:C", "value": "10n"},
			{"reference": "J1", "symbol": "Connector_Generic:Conn_01x03", "value": "PWR_OUT"},
		},
		"nets": []map[string]any{
			{"name": "VCC", "pins": []string{"J1.1", "U1.8:VCC", "U1.4:R", "R1.1"}, "style": "power_symbol", "power_flag": true},
			{"name": "GND", "pins": []string{"J1.3", "U1.1:GND", "C1.2", "C2.2"}, "style": "power_symbol", "power_flag": true},
			{"name": "DIS", "pins": []string{"U1.7:DIS", "R1.2", "R2.1"}},
			{"name": "THR/TRIG", "pins": []string{"U1.2:TR", "U1.6:THR", "R2.2", "C1.1"}},
			{"name": "OUT", "pins": []string{"U1.3:Q", "J1.2"}},
			{"name": "CV", "pins": []string{"U1.5:CV", "C2.1"}},
		},
		"output_path": "astable555.kicad_sch",
	}
}

// requestedNets is the request's nets under the names KiCad gives them:
// /NAME for a local label, NAME for a power port or global label.
func requestedNets(req map[string]any) map[string][]string {
	out := map[string][]string{}
	for _, n := range req["nets"].([]map[string]any) {
		name := n["name"].(string)
		if s, _ := n["style"].(string); s == "" || s == StyleLabel {
			name = "/" + name
		}
		var pins []string
		for _, p := range n["pins"].([]string) {
			ref, rest, _ := strings.Cut(p, ".")
			num, _, _ := strings.Cut(rest, ":")
			pins = append(pins, ref+"."+num)
		}
		naturalSort(pins)
		out[name] = pins
	}
	return out
}

// netsByName turns export_netlist's nets into name -> REF.PIN.
func netsByName(nets []Net) map[string][]string {
	out := map[string][]string{}
	for _, n := range nets {
		var pins []string
		for _, p := range n.Pins {
			pins = append(pins, p.Reference+"."+p.Pin)
		}
		naturalSort(pins)
		out[n.Name] = pins
	}
	return out
}

func TestGenerate555Astable(t *testing.T) {
	needSymbols(t)
	a, ws := newAdapter(t)
	req := astable555()
	got, res := call[SchematicResult](t, a, ToolGenerateSchematic, req)
	want := requestedNets(req)

	if got.ComponentCount != 6 || got.NetCount != 6 || got.PowerFlagCount != 2 || got.PowerSymbolCount != 10 {
		t.Errorf("counts: %d components, %d nets, %d flags, %d power ports; want 6, 6, 2 and 10 (4 VCC pins, 4 GND pins, one per flag)",
			got.ComponentCount, got.NetCount, got.PowerFlagCount, got.PowerSymbolCount)
	}
	if len(got.UnconnectedPins) != 0 || len(got.Warnings) != 0 {
		t.Errorf("unconnected %v, warnings %v: every pin of the 555 astable is on a net", got.UnconnectedPins, got.Warnings)
	}
	if !strings.HasPrefix(got.SchematicFile, ws.Root) || filepath.Base(got.SchematicFile) != "astable555.kicad_sch" ||
		!reflect.DeepEqual(res.OutputFiles, []string{got.SchematicFile}) {
		t.Errorf("file %s (outputs %v), want astable555.kicad_sch in the call's folder under %s", got.SchematicFile, res.OutputFiles, ws.Root)
	}
	for name, pins := range got.Nets {
		if k := got.KiCadNetNames[name]; !reflect.DeepEqual(pins, want[k]) {
			t.Errorf("result net %s (KiCad's %s): %v, want %v", name, k, pins, want[k])
		}
	}

	// Our own schematic reader, through the tool.
	nl, _ := call[NetlistResult](t, a, ToolExportNetlist, map[string]any{"schematic_file": got.SchematicFile})
	if ours := netsByName(nl.Nets); !reflect.DeepEqual(ours, want) {
		t.Errorf("kicad.export_netlist reads\n %v\nwant\n %v", ours, want)
	}
	checkSchematicFile(t, got.SchematicFile)
	ercClean(t, a, got.SchematicFile)

	// KiCad's own reader: eeschema's netlist export, then its ERC, with
	// the libraries the symbols came from in its table so that ERC also
	// compares each embedded symbol with the library's.
	ee := openInEeschema(t, got.SchematicFile, "Timer", "Device", "Connector_Generic", "power")
	if kicad := ee.netlist(); !reflect.DeepEqual(kicad, want) {
		t.Errorf("eeschema's netlist reads\n %v\nwant\n %v", kicad, want)
	}
	if v := ee.erc(); len(v) != 0 {
		t.Errorf("eeschema's ERC reports %d violations: %+v", len(v), v)
	}
}

// ercClean runs kicad.run_erc on a generated schematic: no errors and no
// warnings, as KiCad's own ERC finds on it (checked below with eeschema).
func ercClean(t *testing.T, a *Adapter, sch string) {
	t.Helper()
	erc, _ := call[ERCResult](t, a, ToolRunERC, map[string]any{"schematic_file": sch})
	if !erc.Passed || erc.ErrorCount != 0 || erc.WarningCount != 0 {
		t.Errorf("kicad.run_erc (%s): passed %v, %d errors, %d warnings: %+v", erc.Checker, erc.Passed, erc.ErrorCount, erc.WarningCount, erc.Violations)
	}
}

// checkSchematicFile reads the written file as text, independently of the
// generator: KiCad 6.0's format version, everything on the 50 mil grid,
// every placed symbol annotated in symbol_instances, and no two parts'
// drawings (body and pins, from the embedded library symbols) overlapping.
func checkSchematicFile(t *testing.T, path string) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root, err := parseSexpr(string(text))
	if err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	if v := childArg(root, "version"); root.head() != "kicad_sch" || v != "20211123" {
		t.Errorf("(%s (version %s)), want kicad_sch 20211123", root.head(), v)
	}
	onGrid := func(what string, x, y float64) {
		const g = 1.27
		for _, v := range []float64{x, y} {
			if r := v/g - float64(int64(v/g+0.5)); r > 1e-6 || r < -1e-6 {
				t.Errorf("%s at (%g, %g) is off the 1.27 mm grid", what, x, y)
				return
			}
		}
	}
	for _, w := range root.children("wire") {
		for _, p := range w.child("pts").children("xy") {
			onGrid("wire end", p.num(0), p.num(1))
		}
	}
	for _, l := range append(root.children("label"), root.children("global_label")...) {
		onGrid("label "+l.arg(0), l.child("at").num(0), l.child("at").num(1))
	}
	annotated := map[string]string{}
	for _, p := range root.child("symbol_instances").children("path") {
		annotated[strings.TrimPrefix(p.arg(0), "/")] = childArg(p, "reference")
	}
	libs := map[string]*node{}
	for _, s := range root.child("lib_symbols").children("symbol") {
		libs[s.arg(0)] = s
	}
	type outline struct {
		ref            string
		x0, y0, x1, y1 float64
	}
	var parts []outline
	for _, s := range root.children("symbol") {
		id := childArg(s, "uuid")
		ref := annotated[id]
		var fieldRef string
		for _, p := range s.children("property") {
			if p.arg(0) == "Reference" {
				fieldRef = p.arg(1)
			}
		}
		if ref == "" || ref != fieldRef {
			t.Errorf("symbol %s (Reference field %s) is annotated as %q in symbol_instances", id, fieldRef, ref)
		}
		a := s.child("at")
		ox, oy := a.num(0), a.num(1)
		onGrid("symbol "+ref, ox, oy)
		lib := libs[childArg(s, "lib_id")]
		if lib == nil {
			t.Errorf("%s: lib_id %s is not in lib_symbols", ref, childArg(s, "lib_id"))
			continue
		}
		if strings.HasPrefix(ref, "#") || a.num(2) != 0 {
			continue // power ports sit on their wires' ends
		}
		o := outline{ref: ref, x0: 1e9, y0: 1e9, x1: -1e9, y1: -1e9}
		grow := func(x, y float64) { // library Y up, sheet Y down
			o.x0, o.x1 = min(o.x0, ox+x), max(o.x1, ox+x)
			o.y0, o.y1 = min(o.y0, oy-y), max(o.y1, oy-y)
		}
		var walk func(n *node)
		walk = func(n *node) {
			switch n.head() {
			case "start", "end", "xy", "center":
				grow(n.num(0), n.num(1))
			case "pin":
				if at := n.child("at"); at != nil {
					grow(at.num(0), at.num(1))
				}
			}
			for _, c := range n.list {
				if c.isList {
					walk(c)
				}
			}
		}
		walk(lib)
		parts = append(parts, o)
	}
	for i := range parts {
		for j := i + 1; j < len(parts); j++ {
			p, q := parts[i], parts[j]
			if p.x0 < q.x1 && q.x0 < p.x1 && p.y0 < q.y1 && q.y0 < p.y1 {
				t.Errorf("%s (%.2f,%.2f)-(%.2f,%.2f) overlaps %s (%.2f,%.2f)-(%.2f,%.2f)", p.ref, p.x0, p.y0, p.x1, p.y1, q.ref, q.x0, q.y0, q.x1, q.y1)
			}
		}
	}
}

// followerAndGate exercises the rest: a multi-unit symbol that extends
// another (LM358 extends LM2904 in Amplifier_Operational: two op-amps and
// a power unit), a gate whose power pins are hidden (74LVC1G00: VCC 5 and
// GND 3, which KiCad joins by name), global labels, and a no-connect flag
// on each pin of the unused op-amp.
func followerAndGate() map[string]any {
	return map[string]any{
		"components": []map[string]any{
			{"reference": "U1", "symbol": "Amplifier_Operational:LM358"},
			{"reference": "U2", "symbol": "74xGxx:74LVC1G00"},
			{"reference": "R1", "symbol": "Device:R", "value": "100k"},
			{"reference": "R2", "symbol": "Device:R", "value": "1k"},
			{"reference": "J1", "symbol": "Connector_Generic:Conn_01x04"},
		},
		"nets": []map[string]any{
			{"name": "VCC", "pins": []string{"J1.1", "U1.8:V+", "U2.5:VCC"}, "style": "power_symbol", "power_flag": true},
			{"name": "GND", "pins": []string{"J1.4", "U1.4:V-", "U2.3:GND", "R1.2", "R2.2"}, "style": "power_symbol", "power_flag": true},
			{"name": "IN", "pins": []string{"J1.2", "U1.3:+", "R1.1"}, "style": "global_label"},
			{"name": "FB", "pins": []string{"U1.1", "U1.2:-", "U2.1"}},
			{"name": "EN", "pins": []string{"J1.3", "U2.2"}, "style": "global_label"},
			{"name": "OUT", "pins": []string{"U2.4", "R2.1"}},
		},
		"no_connect": []string{"U1.5", "U1.6", "U1.7"},
	}
}

func TestGenerateUnitsHiddenPinsAndGlobals(t *testing.T) {
	needSymbols(t)
	a, _ := newAdapter(t)
	req := followerAndGate()
	got, _ := call[SchematicResult](t, a, ToolGenerateSchematic, req)
	want := requestedNets(req)
	// Each pin flagged unconnected is a net of its own in KiCad's netlist.
	for _, p := range []string{"5", "6", "7"} {
		want["unconnected-(U1-Pad"+p+")"] = []string{"U1." + p}
	}
	if len(got.UnconnectedPins) != 0 || len(got.Warnings) != 0 || !reflect.DeepEqual(got.NoConnect, []string{"U1.5", "U1.6", "U1.7"}) {
		t.Errorf("unconnected %v, warnings %v, no_connect %v", got.UnconnectedPins, got.Warnings, got.NoConnect)
	}
	units := 0
	for _, p := range got.Placements {
		if p.Reference == "U1" {
			units++
		}
	}
	var lm358 UsedSymbol
	for _, s := range got.Symbols {
		if s.LibID == "Amplifier_Operational:LM358" {
			lm358 = s
		}
	}
	if units != 3 || lm358.Units != 3 || lm358.Extends != "LM2904" {
		t.Errorf("U1 placed as %d units; symbol %+v: want 3 units of LM358, which extends LM2904", units, lm358)
	}
	nl, _ := call[NetlistResult](t, a, ToolExportNetlist, map[string]any{"schematic_file": got.SchematicFile})
	if ours := netsByName(nl.Nets); !reflect.DeepEqual(ours, want) {
		t.Errorf("kicad.export_netlist reads\n %v\nwant\n %v", ours, want)
	}
	checkSchematicFile(t, got.SchematicFile)
	ercClean(t, a, got.SchematicFile)
	// The embedded LM358 is LM2904's drawing under LM358's name.
	text, _ := os.ReadFile(got.SchematicFile)
	for _, w := range []string{`(symbol "Amplifier_Operational:LM358"`, `(symbol "LM358_3_1"`, `(property "Value" "LM358"`} {
		if !strings.Contains(string(text), w) {
			t.Errorf("the schematic does not hold %s", w)
		}
	}
	if strings.Contains(string(text), "extends") || strings.Contains(string(text), "LM2904") {
		t.Error("the embedded LM358 still names LM2904: it was not merged with its parent")
	}
	ee := openInEeschema(t, got.SchematicFile, "Amplifier_Operational", "74xGxx", "Device", "Connector_Generic", "power")
	if kicad := ee.netlist(); !reflect.DeepEqual(kicad, want) {
		t.Errorf("eeschema's netlist reads\n %v\nwant\n %v", kicad, want)
	}
	if v := ee.erc(); len(v) != 0 {
		t.Errorf("eeschema's ERC reports %d violations: %+v", len(v), v)
	}
}

// A chain of 150 resistors does not fit A4: the rows go on and the paper
// grows, with every part still on the grid, apart, and wired as asked.
func TestGenerateManyPartsOnLargerPaper(t *testing.T) {
	needSymbols(t)
	a, _ := newAdapter(t)
	const n = 150
	comps := []map[string]any{{"reference": "J1", "symbol": "Connector_Generic:Conn_01x02"}}
	nets := []map[string]any{{"name": "N0", "pins": []string{"J1.1", "R1.1"}}}
	for i := 1; i <= n; i++ {
		comps = append(comps, map[string]any{"reference": fmt.Sprintf("R%d", i), "symbol": "Device:R", "value": "1k"})
		next := fmt.Sprintf("R%d.1", i+1)
		if i == n {
			next = "J1.2"
		}
		nets = append(nets, map[string]any{"name": fmt.Sprintf("N%d", i), "pins": []string{fmt.Sprintf("R%d.2", i), next}})
	}
	req := map[string]any{"components": comps, "nets": nets}
	got, _ := call[SchematicResult](t, a, ToolGenerateSchematic, req)
	if got.Paper == "A4" || got.NetCount != n+1 || got.ComponentCount != n+1 {
		t.Errorf("paper %s, %d nets, %d components; want more than A4, %d and %d", got.Paper, got.NetCount, got.ComponentCount, n+1, n+1)
	}
	rows := map[float64]bool{}
	for _, p := range got.Placements {
		rows[p.YMM] = true
	}
	if len(rows) < 2 {
		t.Errorf("%d parts in %d row(s)", len(got.Placements), len(rows))
	}
	nl, _ := call[NetlistResult](t, a, ToolExportNetlist, map[string]any{"schematic_file": got.SchematicFile})
	if ours, want := netsByName(nl.Nets), requestedNets(req); !reflect.DeepEqual(ours, want) {
		t.Errorf("kicad.export_netlist reads\n %v\nwant\n %v", ours, want)
	}
	checkSchematicFile(t, got.SchematicFile)
}

func TestGenerateIsIdempotent(t *testing.T) {
	needSymbols(t)
	a, _ := newAdapter(t)
	first, _ := call[SchematicResult](t, a, ToolGenerateSchematic, astable555())
	second, _ := call[SchematicResult](t, a, ToolGenerateSchematic, astable555())
	x, _ := os.ReadFile(first.SchematicFile)
	y, _ := os.ReadFile(second.SchematicFile)
	if first.SchematicFile == second.SchematicFile || len(x) == 0 || string(x) != string(y) {
		t.Errorf("two calls with one request wrote %s (%d bytes) and %s (%d bytes), not the same bytes in two folders",
			first.SchematicFile, len(x), second.SchematicFile, len(y))
	}
}

// TestGenerateRefusals: each wrong request is refused naming what is
// wrong, and writes nothing.
func TestGenerateRefusals(t *testing.T) {
	needSymbols(t)
	with := func(edit func(r map[string]any)) map[string]any {
		r := astable555()
		edit(r)
		return r
	}
	comps := func(r map[string]any) []map[string]any { return r["components"].([]map[string]any) }
	nets := func(r map[string]any) []map[string]any { return r["nets"].([]map[string]any) }
	cases := []struct {
		name string
		req  map[string]any
		want []string
	}{
		{"unknown symbol", with(func(r map[string]any) { comps(r)[0]["symbol"] = "Timer:NE556X" }), []string{"U1", "NE556X", "no symbol", "NE556"}},
		{"unknown library", with(func(r map[string]any) { comps(r)[1]["symbol"] = "Devices:R" }), []string{"R1", "Devices", "no symbol library", "Device"}},
		{"unknown pin", with(func(r map[string]any) { nets(r)[2]["pins"] = []string{"U1.9", "R1.2", "R2.1"} }), []string{"U1", "no pin 9", "7(DIS)"}},
		{"wrong pin name", with(func(r map[string]any) { nets(r)[4]["pins"] = []string{"U1.3:OUT", "J1.2"} }), []string{"pin 3 of U1", "named Q", "not OUT"}},
		{"duplicate reference", with(func(r map[string]any) { comps(r)[2]["reference"] = "R1" }), []string{"reference R1", "two components"}},
		{"pin on two nets", with(func(r map[string]any) { nets(r)[5]["pins"] = []string{"U1.5", "C2.1", "R1.2"} }), []string{"R1.2", "two nets", "DIS", "CV"}},
		{"unknown component", with(func(r map[string]any) { nets(r)[4]["pins"] = []string{"U1.3", "J2.2"} }), []string{"J2", "does not list"}},
		{"power port as a part", with(func(r map[string]any) { comps(r)[5]["symbol"] = "power:GND" }), []string{"J1", "power port", "power_symbol"}},
		{"no such power port", with(func(r map[string]any) { nets(r)[2]["style"] = "power_symbol" }), []string{"net DIS", "power:DIS does not exist"}},
		{"no_connect on a net", with(func(r map[string]any) { r["no_connect"] = []string{"U1.5"} }), []string{"U1.5", "on net CV"}},
		{"hidden power pin on a local net", func() map[string]any {
			r := followerAndGate()
			nets(r)[1]["style"] = "label"
			return r
		}(), []string{"U2.3", "hidden power input", "global net GND"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, ws := newAdapter(t)
			_, err := callErr(t, a, ToolGenerateSchematic, c.req)
			pe := wantCode(t, err, protocol.InvalidParams)
			for _, w := range c.want {
				if !strings.Contains(pe.Details, w) {
					t.Errorf("error %q does not say %q", pe.Details, w)
				}
			}
			if files := filesUnder(t, ws.Root); len(files) > 0 {
				t.Errorf("a refused call left %v", files)
			}
		})
	}
}

// Without the symbol libraries the tool is unavailable, saying what to
// install, and writes nothing.
func TestGenerateWithoutLibrariesIsUnavailable(t *testing.T) {
	a, ws := newAdapter(t)
	a.SymbolDir = filepath.Join(t.TempDir(), "no-symbols")
	_, err := callErr(t, a, ToolGenerateSchematic, astable555())
	if pe := wantCode(t, err, protocol.ToolUnavailable); !strings.Contains(pe.Details, "apt-get install kicad-symbols") {
		t.Errorf("details %q do not say what to install", pe.Details)
	}
	if files := filesUnder(t, ws.Root); len(files) > 0 {
		t.Errorf("an unavailable call left %v", files)
	}
}

// filesUnder lists the files anywhere below dir.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}
