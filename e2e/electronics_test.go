//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// kicadDemos is where Debian's kicad-demos puts KiCad's own projects.
const kicadDemos = "/usr/share/kicad/demos"

type electronics struct {
	Divider          float64 `json:"divider"`
	RCAt5Tau         float64 `json:"rcAt5Tau"`
	ACAt100k         float64 `json:"acAt100k"`
	ACAtCorner       float64 `json:"acAtCorner"`
	AfterSyntaxError float64 `json:"afterSyntaxError"`
	SyntaxError      struct {
		Converged bool     `json:"converged"`
		Log       []string `json:"log"`
	} `json:"syntaxError"`
	DRC struct {
		Violations  int  `json:"violations"`
		Listed      int  `json:"listed"`
		Unconnected int  `json:"unconnected"`
		Passed      bool `json:"passed"`
	} `json:"drc"`
	Gerber struct {
		Layers []string `json:"layers"`
		Drills int      `json:"drills"`
	} `json:"gerber"`
	BOM struct {
		Lines      int `json:"lines"`
		References int `json:"references"`
	} `json:"bom"`
	Netlist struct {
		Board     int `json:"board"`
		Schematic int `json:"schematic"`
	} `json:"netlist"`
	Rectifier struct {
		Converged bool `json:"converged"`
		Vectors   []struct {
			Name string   `json:"name"`
			Max  *float64 `json:"max"`
		} `json:"vectors"`
	} `json:"rectifier"`
	ERC          *rpcFailure `json:"erc"`
	NotABoard    *rpcFailure `json:"notABoard"`
	OutsideRoots *rpcFailure `json:"outsideRoots"`
	MissingBoard *rpcFailure `json:"missingBoard"`
}

// The electronics reference cases of issue 6 through MCP, against
// `metaforge serve` with KiCad's demos as an allowed root.
func TestElectronicsReferenceCasesThroughMCP(t *testing.T) {
	ports := freePorts(t, 3)
	cmd := command(t, 5*time.Minute, binary, "serve",
		"--data-dir", filepath.Join(t.TempDir(), "data"),
		"--temporal-port", strconv.Itoa(ports[0]), "--ui-port", strconv.Itoa(ports[1]),
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", ports[2]))
	cmd.Env = append(cmd.Env, "METAFORGE_ALLOWED_ROOTS="+kicadDemos)
	p := start(t, "metaforge serve", cmd)
	waitHealthy(t, p, fmt.Sprintf("http://127.0.0.1:%d/healthz", ports[2]), time.Minute)

	node := start(t, "node electronics_client.mjs", command(t, 5*time.Minute, nodePath, "electronics_client.mjs",
		fmt.Sprintf("http://127.0.0.1:%d/mcp", ports[2]), kicadDemos))
	if code := node.wait(t, 5*time.Minute); code != 0 {
		t.Fatalf("node electronics_client.mjs exited %d:\n%s", code, node.stderr.String())
	}
	var o electronics
	if err := json.Unmarshal([]byte(nodeStdoutLine(t, node)), &o); err != nil {
		t.Fatal(err)
	}
	within := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.6g, want %.6g within %.3g", what, got, want, tol)
		} else {
			t.Logf("%s = %.6g (reference %.6g, tolerance %.3g)", what, got, want, tol)
		}
	}
	within("divider v(out) (V)", o.Divider, 2.5, 0.0005)
	within("RC v(cap) at 5 tau (V)", o.RCAt5Tau, 5*(1-math.Exp(-5)), 0.005*5*(1-math.Exp(-5)))
	h := func(f float64) float64 { return -10 * math.Log10(1+math.Pow(2*math.Pi*f*1e-3, 2)) }
	within("RC gain at 100 kHz (dB)", o.ACAt100k, h(100e3), 0.1)
	within("RC gain at 159.15 Hz (dB)", o.ACAtCorner, h(159.15), 0.1)
	if o.SyntaxError.Converged || !strings.Contains(strings.Join(o.SyntaxError.Log, "\n"), "unknown subckt: x1 out 0 nosuch") {
		t.Errorf("a netlist with an unknown subcircuit: converged %v, log %q (want ngspice's own error line)", o.SyntaxError.Converged, o.SyntaxError.Log)
	}
	within("divider after the syntax error (V)", o.AfterSyntaxError, 2.5, 0.0005)

	// KiCad: the numbers pcbnew itself reports for the same board.
	want := pcbnewFacts(t, filepath.Join(kicadDemos, "ecc83", "ecc83-pp.kicad_pcb"))
	if o.DRC.Violations != want.Violations || o.DRC.Listed != want.Violations || o.DRC.Unconnected != want.Unconnected {
		t.Errorf("DRC: %+v, pcbnew's own report: %+v", o.DRC, want)
	}
	if o.Gerber.Drills == 0 || len(o.Gerber.Layers) != want.PlotLayers {
		t.Errorf("Gerbers: %v layers and %d drill files; the board enables %d plotted layers", o.Gerber.Layers, o.Gerber.Drills, want.PlotLayers)
	}
	if o.Netlist.Board != want.PadNets || o.Netlist.Schematic != want.PadNets {
		t.Errorf("nets joining two or more pins: board %d, schematic %d; pcbnew's pads are on %d nets", o.Netlist.Board, o.Netlist.Schematic, want.PadNets)
	}
	if o.BOM.References != want.BOMFootprints || o.BOM.Lines == 0 {
		t.Errorf("BOM: %+v; the board has %d footprints that are not board-only", o.BOM, want.BOMFootprints)
	}
	if !o.Rectifier.Converged || len(o.Rectifier.Vectors) == 0 {
		t.Errorf("the rectifier's exported SPICE netlist did not simulate: %+v", o.Rectifier)
	}
	expect := func(what string, f *rpcFailure, code int, part string) {
		t.Helper()
		if f == nil || f.Code != code || !strings.Contains(f.Message, part) {
			t.Errorf("%s: %+v, want code %d mentioning %q", what, f, code, part)
		}
	}
	expect("run_erc with KiCad 6", o.ERC, -32003, "kicad-cli")
	expect("a schematic given as board_file", o.NotABoard, codeInvalidParams, "board_file")
	expect("a netlist outside the allowed roots", o.OutsideRoots, codeInvalidParams, "outside the allowed roots")
	expect("a missing board", o.MissingBoard, codeInvalidParams, "does not exist")
}

// boardFacts are what pcbnew itself says of a board.
type boardFacts struct {
	Violations    int `json:"violations"`
	Unconnected   int `json:"unconnected"`
	PlotLayers    int `json:"plot_layers"`
	PadNets       int `json:"pad_nets"`
	BOMFootprints int `json:"bom_footprints"`
}

// pcbnewFacts asks KiCad's own pcbnew module, in a script of this test's
// (not the adapter's), for the board's DRC counts, plotted layers, nets on
// pads and BOM footprints.
func pcbnewFacts(t *testing.T, board string) boardFacts {
	t.Helper()
	report := filepath.Join(t.TempDir(), "drc.rpt")
	script := `
import json, sys, re, pcbnew
b = pcbnew.LoadBoard(sys.argv[1])
pcbnew.WriteDRCReport(b, sys.argv[2], pcbnew.EDA_UNITS_MILLIMETRES, True)
text = open(sys.argv[2]).read()
def found(what):
    m = re.search(r"\*\* Found (\d+) " + what, text)
    return int(m.group(1)) if m else 0
layers = [l for l in b.GetEnabledLayers().Seq() if pcbnew.IsCopperLayer(l) or l in (
    pcbnew.F_Mask, pcbnew.B_Mask, pcbnew.F_SilkS, pcbnew.B_SilkS, pcbnew.F_Paste, pcbnew.B_Paste, pcbnew.Edge_Cuts)]
nets = {p.GetNetname() for f in b.GetFootprints() for p in f.Pads() if p.GetNetCode() > 0}
bom = [f for f in b.GetFootprints() if not f.GetReference().startswith("#") and not (f.GetAttributes() & pcbnew.FP_BOARD_ONLY)]
print(json.dumps({"violations": found("DRC violations"), "unconnected": found("unconnected pads"),
    "plot_layers": len(layers), "pad_nets": len(nets), "bom_footprints": len(bom)}))
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, board, report).Output()
	if err != nil {
		t.Fatalf("pcbnew on %s: %v (is kicad installed? deploy/test-deps.sh installs it)", board, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var f boardFacts
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &f); err != nil {
		t.Fatalf("pcbnew's facts: %v: %s", err, out)
	}
	t.Logf("pcbnew on %s: %+v", filepath.Base(board), f)
	_ = os.Remove(report)
	return f
}
