package kicad

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

// needFreerouting skips when Freerouting or its Java is not installed.
func needFreerouting(t *testing.T) {
	t.Helper()
	needKiCad(t)
	if _, err := locateFreerouting(); err != nil {
		t.Skipf("Freerouting is not installed (bash deploy/install-freerouting.sh): %v", err)
	}
}

// stripScript copies a board without its tracks and vias, and without
// its zones unless told to keep them: a board to route.
const stripScript = `
import sys, pcbnew
b = pcbnew.LoadBoard(sys.argv[1])
if sys.argv[3] != "keep-zones":
    for z in list(b.Zones()):
        b.Remove(z)
for t in list(b.GetTracks()):
    b.Remove(t)
pcbnew.SaveBoard(sys.argv[2], b)
`

// bareBoard writes a demo board stripped for routing into the workspace.
func bareBoard(t *testing.T, root, demoBoard, zones string) string {
	t.Helper()
	dir := filepath.Join(root, "fixtures", strings.TrimSuffix(filepath.Base(demoBoard), ".kicad_pcb")+"-"+zones)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bare.kicad_pcb")
	runPython(t, stripScript, demo(demoBoard), out, zones)
	return out
}

// routedFacts is what the test's own pcbnew says of the routed board, and
// what its own reading of the session file says (not the adapter's).
type routedFacts struct {
	Unconnected int `json:"unconnected"`
	Tracks      int `json:"tracks"`
	Vias        int `json:"vias"`
	// "net|layer" -> summed track length, mm, from the board and from the
	// session (its points, at its resolution, in its own arithmetic).
	BoardLength   map[string]float64 `json:"board_length"`
	SessionLength map[string]float64 `json:"session_length"`
	// Each via "net|x|y|diameter|drill" (nm), from both.
	BoardVias   []string `json:"board_vias"`
	SessionVias []string `json:"session_vias"`
}

const routedFactsScript = `
import json, math, re, sys, pcbnew
b = pcbnew.LoadBoard(sys.argv[1])
b.BuildConnectivity()
f = {"unconnected": b.GetConnectivity().GetUnconnectedCount(), "tracks": 0, "vias": 0,
     "board_length": {}, "session_length": {}, "board_vias": [], "session_vias": []}
for t in b.GetTracks():
    if t.GetClass() == "PCB_VIA":
        f["vias"] += 1
        f["board_vias"].append("%s|%d|%d|%d|%d" % (t.GetNetname(), t.GetPosition().x, t.GetPosition().y, t.GetWidth(), t.GetDrill()))
    else:
        f["tracks"] += 1
        k = "%s|%s" % (t.GetNetname(), b.GetLayerName(t.GetLayer()))
        f["board_length"][k] = f["board_length"].get(k, 0) + t.GetLength() / 1e6
text = open(sys.argv[2]).read() if len(sys.argv) > 2 and sys.argv[2] else ""
routes = text[text.find("(routes"):]
m = re.search(r"\(resolution (\w+) (\d+)\)", routes)
nm = {"um": 1000.0, "mm": 1e6, "mil": 25400.0, "inch": 25.4e6}[m.group(1)] / int(m.group(2)) if m else 0
drill = {}
for name, d, dr in re.findall(r'\(padstack "?(Via\[\d+-\d+\]_(\d+):(\d+)_um)"?', routes):
    drill[name] = (int(d) * 1000, int(dr) * 1000)
for net_block in re.split(r"\n\s*\(net ", routes)[1:]:
    net = net_block.split("\n", 1)[0].strip().strip('"')
    for layer, width, pts in re.findall(r'\(path "?([^" ]+)"? (\d+)\s+([-\d\s]+)\)', net_block):
        v = [int(x) for x in pts.split()]
        k = "%s|%s" % (net, layer)
        for i in range(0, len(v) - 3, 2):
            f["session_length"][k] = f["session_length"].get(k, 0) + math.hypot(v[i+2] - v[i], v[i+3] - v[i+1]) * nm / 1e6
    for name, x, y in re.findall(r'\(via "?([^" ]+)"? (-?\d+) (-?\d+)', net_block):
        d, dr = drill[name]
        f["session_vias"].append("%s|%d|%d|%d|%d" % (net, round(int(x) * nm), round(-int(y) * nm), d, dr))
print(json.dumps(f))
`

func readRoutedFacts(t *testing.T, board, ses string) routedFacts {
	t.Helper()
	lines := splitLines(runPython(t, routedFactsScript, board, ses))
	var f routedFacts
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &f); err != nil {
		t.Fatalf("routed board facts: %v", err)
	}
	return f
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestAutoRouteDemoBoard routes pic_programmer (KiCad's demo: 2 copper
// layers, 63 footprints, 125 connections; about 25 s in Freerouting here)
// with its tracks, vias and ground zone removed, and checks the merged
// board against KiCad's connectivity, the session file and the DRC.
func TestAutoRouteDemoBoard(t *testing.T) {
	needFreerouting(t)
	a, ws := newAdapter(t)
	bare := bareBoard(t, ws.Root, "pic_programmer/pic_programmer.kicad_pcb", "strip-zones")
	before := fileHash(t, bare)
	start := time.Now()
	got, res := call[RouteResult](t, a, ToolAutoRoute, map[string]any{"board_file": bare})
	t.Logf("routed in %.1f s (Freerouting %.1f s): %+v, freerouting %+v", time.Since(start).Seconds(), got.RoutingS, got.Connections, got.Reported)

	if fileHash(t, bare) != before {
		t.Error("the source board was changed")
	}
	if got.StoppedEarly || got.Reported.Completion != "completed" || got.SESFile == "" || len(got.Reported.Errors) != 0 || len(got.Warnings) != 0 {
		t.Fatalf("the route did not complete: %+v", got)
	}
	// The board's own connectivity after the merge against Freerouting's claims.
	c, r := got.Connections, got.Reported
	if c.Total != r.StartedUnrouted || c.Unrouted != r.FinalUnrouted || c.Routed != r.Routed {
		t.Errorf("connectivity %+v, Freerouting claims %d to route, %d routed, %d left", c, r.StartedUnrouted, r.Routed, r.FinalUnrouted)
	}
	if c.Routed+c.Unrouted != c.Total || c.UnroutedBefore != c.Total {
		t.Errorf("connections %+v: the bare board has nothing routed, so unrouted_before is the total", c)
	}
	// Freerouting leaves a few of pic_programmer's connections: at most 5%.
	if c.Unrouted*20 > c.Total || len(r.Unrouted) != c.Unrouted {
		t.Errorf("%d of %d connections unrouted (Freerouting lists %v)", c.Unrouted, c.Total, r.Unrouted)
	}
	if got.DRC.UnconnectedCount != c.Unrouted {
		t.Errorf("the DRC counts %d unconnected, the connectivity %d", got.DRC.UnconnectedCount, c.Unrouted)
	}
	// pic_programmer has text on its copper: kept clear of as keepouts.
	if len(got.DRC.CopperClearanceErrors) != 0 || got.CopperKeepouts == 0 {
		t.Errorf("clearance errors on the routed copper (%d keepouts): %+v", got.CopperKeepouts, got.DRC.CopperClearanceErrors)
	}
	// Routing adds no DRC error: the bare board's errors (not its
	// unconnected items, a section of their own) are all there are.
	if bareErrors := facts(t, bare).Errors; got.DRC.ErrorCount != bareErrors {
		report, _ := os.ReadFile(got.DRC.ReportFile)
		t.Errorf("%d DRC errors on the routed board, %d on the bare one:\n%s", got.DRC.ErrorCount, bareErrors, report)
	}

	// The routed board loads in pcbnew again, and holds the session's copper.
	f := readRoutedFacts(t, got.BoardFile, got.SESFile)
	if f.Unconnected != c.Unrouted {
		t.Errorf("the reloaded board has %d unconnected, the result says %d", f.Unconnected, c.Unrouted)
	}
	if f.Tracks != got.TracksAdded || f.Vias != got.ViasAdded || got.TracksAdded == 0 {
		t.Errorf("the board has %d tracks and %d vias, the result says %d and %d added", f.Tracks, f.Vias, got.TracksAdded, got.ViasAdded)
	}
	// Lengths per net and layer: each segment's ends are rounded to 1 nm
	// from the session's 100 nm units, so 2 nm per segment at most; 1e-3 mm
	// is far above that for any net here.
	if len(f.BoardLength) != len(f.SessionLength) {
		t.Errorf("copper on %d net/layer pairs, the session has %d", len(f.BoardLength), len(f.SessionLength))
	}
	for k, want := range f.SessionLength {
		if math.Abs(f.BoardLength[k]-want) > 1e-3 {
			t.Errorf("%s: %.6f mm of track on the board, %.6f mm in the session", k, f.BoardLength[k], want)
		}
	}
	if strings.Join(sorted(f.BoardVias), ";") != strings.Join(sorted(f.SessionVias), ";") {
		t.Errorf("vias on the board %v, in the session %v", f.BoardVias, f.SessionVias)
	}
	if got.ViasWithDefaultDrill != 0 {
		t.Errorf("%d vias without a drill from their padstack name", got.ViasWithDefaultDrill)
	}
	for _, p := range res.OutputFiles {
		if !strings.HasPrefix(p, ws.Root) {
			t.Errorf("output %s is outside the workspace", p)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("output %s: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(got.BoardFile), userDataDir)); err == nil {
		t.Error("Freerouting's settings folder was left in the call's folder")
	}
}

// TestAutoRouteKeepsZone routes ecc83-pp (2 layers, 15 footprints, 20
// connections; a few seconds) with its ground zone kept: Freerouting
// connects to it as a plane, and the merge refills it.
func TestAutoRouteKeepsZone(t *testing.T) {
	needFreerouting(t)
	a, ws := newAdapter(t)
	bare := bareBoard(t, ws.Root, "ecc83/ecc83-pp.kicad_pcb", "keep-zones")
	got, _ := call[RouteResult](t, a, ToolAutoRoute, map[string]any{"board_file": bare, "output_path": "ecc83 routed.kicad_pcb", "optimize": true})
	// The kept zone's old fill still joins some ground pads on the bare
	// board, as the plane does in Freerouting: both count 14 unrouted of
	// the 20 connections the nets need with no copper at all.
	c, r := got.Connections, got.Reported
	if got.StoppedEarly || c.Total != 20 || c.UnroutedBefore != r.StartedUnrouted || c.Unrouted != 0 || r.FinalUnrouted != 0 {
		t.Errorf("connections %+v, Freerouting %+v", c, r)
	}
	if r.OptimizerPasses == 0 {
		t.Error("optimize ran no optimizer pass")
	}
	if filepath.Base(got.BoardFile) != "ecc83 routed.kicad_pcb" {
		t.Errorf("board file %s", got.BoardFile)
	}
	// ecc83's own silkscreen errors stay; routing adds none.
	if bareErrors := facts(t, bare).Errors; got.DRC.ErrorCount != bareErrors || got.DRC.UnconnectedCount != 0 || len(got.DRC.CopperClearanceErrors) != 0 {
		report, _ := os.ReadFile(got.DRC.ReportFile)
		t.Errorf("DRC of the routed board: %+v (the bare board has %d errors)\n%s", got.DRC, bareErrors, report)
	}
	if f := readRoutedFacts(t, got.BoardFile, ""); f.Unconnected != 0 {
		t.Errorf("the reloaded board has %d unconnected", f.Unconnected)
	}
}

// TestAutoRouteReroutesExistingTracks routes ecc83-pp as KiCad ships it,
// fully routed: its (unlocked) tracks are left out of the DSN, routed anew
// and replaced, and the board is as connected as before.
func TestAutoRouteReroutesExistingTracks(t *testing.T) {
	needFreerouting(t)
	a, _ := newAdapter(t)
	source := demo("ecc83/ecc83-pp.kicad_pcb")
	got, _ := call[RouteResult](t, a, ToolAutoRoute, map[string]any{"board_file": source})
	c, r := got.Connections, got.Reported
	if got.StoppedEarly || c.Total != 20 || c.UnroutedBefore != 0 || c.Unrouted != 0 || r.FinalUnrouted != 0 || got.LockedKept != 0 || got.TracksAdded == 0 {
		t.Errorf("result %+v", got)
	}
	if f := readRoutedFacts(t, got.BoardFile, got.SESFile); f.Tracks != got.TracksAdded || f.Unconnected != 0 {
		t.Errorf("the routed board: %+v", f)
	}
	if want := facts(t, source).Errors; got.DRC.ErrorCount != want || len(got.DRC.CopperClearanceErrors) != 0 {
		t.Errorf("DRC %+v; the source has %d errors", got.DRC, want)
	}
}

// TestAutoRouteKeepsLockedTracks locks every third track of ecc83-pp and
// removes the rest: the locked ones go to Freerouting as fixed wiring and
// stay on the routed board with the session's tracks.
func TestAutoRouteKeepsLockedTracks(t *testing.T) {
	needFreerouting(t)
	a, ws := newAdapter(t)
	dir := filepath.Join(ws.Root, "locked")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	board := filepath.Join(dir, "locked.kicad_pcb")
	out := runPython(t, `
import sys, pcbnew
b = pcbnew.LoadBoard(sys.argv[1])
gone, locked = [], 0
for i, t in enumerate(list(b.GetTracks())):
    if i % 3 == 0:
        t.SetLocked(True)
        locked += 1
    else:
        b.Remove(t)
        gone.append(t)
pcbnew.SaveBoard(sys.argv[2], b)
print("LOCKED %d" % locked)
`, demo("ecc83/ecc83-pp.kicad_pcb"), board)
	locked := 0
	for _, line := range splitLines(out) {
		if n, ok := strings.CutPrefix(line, "LOCKED "); ok {
			locked, _ = strconv.Atoi(n)
		}
	}
	// Bounded: Freerouting 2.2.3 can fail on fixed wiring.
	got, _ := call[RouteResult](t, a, ToolAutoRoute, map[string]any{"board_file": board, "max_seconds": 20})
	f := readRoutedFacts(t, got.BoardFile, "")
	t.Logf("%d locked kept; connections %+v; Freerouting %+v", got.LockedKept, got.Connections, got.Reported)
	// Freerouting 2.2.3 fails on the fixed wiring (it logs a
	// NullPointerException): the result says so.
	if len(got.Warnings) == 0 {
		t.Error("no warning about Freerouting's errors")
	}
	if locked == 0 || got.LockedKept != locked || f.Tracks+f.Vias != got.TracksAdded+got.ViasAdded+locked || f.Unconnected != got.Connections.Unrouted {
		t.Errorf("%d locked; result %+v; the routed board %+v", locked, got, f)
	}
}

// TestAutoRouteStoppedByTime gives pic_programmer one second: Freerouting's
// own timeout stops it in its first pass, and the board gets what it had.
func TestAutoRouteStoppedByTime(t *testing.T) {
	needFreerouting(t)
	a, ws := newAdapter(t)
	bare := bareBoard(t, ws.Root, "pic_programmer/pic_programmer.kicad_pcb", "strip-zones")
	got, _ := call[RouteResult](t, a, ToolAutoRoute, map[string]any{"board_file": bare, "max_seconds": 1})
	c, r := got.Connections, got.Reported
	t.Logf("stopped: %+v, freerouting %+v", c, r)
	if !got.StoppedEarly || got.StopReason == "" || got.MaxSeconds != 1 {
		t.Fatalf("not stopped early: %+v", got)
	}
	if r.Completion != "completed with timeout" {
		t.Errorf("Freerouting's completion %q", r.Completion)
	}
	if c.Unrouted != r.FinalUnrouted || c.Routed != r.Routed || c.Unrouted == 0 {
		t.Errorf("connectivity %+v, Freerouting claims %+v", c, r)
	}
	if f := readRoutedFacts(t, got.BoardFile, got.SESFile); f.Unconnected != c.Unrouted || f.Tracks != got.TracksAdded {
		t.Errorf("the reloaded board: %+v", f)
	}
}

// TestFreeroutingKilledOutsideItsWindow: a run whose window ends before
// Freerouting can finish is killed, and says so instead of failing.
func TestFreeroutingKilledOutsideItsWindow(t *testing.T) {
	needFreerouting(t)
	fr, _ := locateFreerouting()
	dir := t.TempDir()
	exportBareDSN(t, "pic_programmer/pic_programmer.kicad_pcb", filepath.Join(dir, "b.dsn"))
	a, _ := newAdapter(t)
	out, err := a.route(context.Background(), fr, routeRun{dir: dir, dsn: "b.dsn", ses: "b.ses", jobSeconds: 60}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !out.killed || out.elapsed > 10*time.Second {
		t.Errorf("outcome %+v, want killed at about 2 s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, userDataDir)); err == nil {
		t.Error("the settings folder was left behind")
	}
}

func TestAutoRouteRefusals(t *testing.T) {
	needKiCad(t)
	a, ws := newAdapter(t)
	text := filepath.Join(ws.Root, "notes.kicad_pcb")
	if err := os.MkdirAll(ws.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(text, []byte("not a board\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		args map[string]any
		want string
	}{
		"not a board":      {map[string]any{"board_file": text}, "not a KiCad board"},
		"a schematic":      {map[string]any{"board_file": demo("ecc83/ecc83-pp.kicad_sch")}, "schematic"},
		"missing file":     {map[string]any{"board_file": filepath.Join(ws.Root, "nope.kicad_pcb")}, "does not exist"},
		"output in folder": {map[string]any{"board_file": demo("ecc83/ecc83-pp.kicad_pcb"), "output_path": "sub/x.kicad_pcb"}, "output_path"},
		"output not board": {map[string]any{"board_file": demo("ecc83/ecc83-pp.kicad_pcb"), "output_path": "x.txt"}, "output_path"},
		"zero seconds":     {map[string]any{"board_file": demo("ecc83/ecc83-pp.kicad_pcb"), "max_seconds": 0}, "max_seconds"},
		"unknown argument": {map[string]any{"board_file": demo("ecc83/ecc83-pp.kicad_pcb"), "passes": 3}, "passes"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := callErr(t, a, ToolAutoRoute, c.args)
			if pe := wantCode(t, err, protocol.InvalidParams); !strings.Contains(pe.Details+pe.Error(), c.want) {
				t.Errorf("error %v should mention %q", pe, c.want)
			}
		})
	}
	// A direct call (no schema check) is refused the same way.
	_, err := a.Call(context.Background(), ToolAutoRoute, json.RawMessage(`{"board_file": "x.kicad_pcb", "output_path": "../x.kicad_pcb"}`))
	wantCode(t, err, protocol.InvalidParams)
	assertNoCallFiles(t, ws.Root)
}

// TestAutoRouteWithoutFreerouting: a missing jar or a Java too old is
// TOOL_UNAVAILABLE naming the installer, and leaves no files.
func TestAutoRouteWithoutFreerouting(t *testing.T) {
	needKiCad(t)
	a, ws := newAdapter(t)
	board := demo("ecc83/ecc83-pp.kicad_pcb")
	t.Setenv(EnvFreeroutingJar, filepath.Join(t.TempDir(), "freerouting.jar"))
	_, err := callErr(t, a, ToolAutoRoute, map[string]any{"board_file": board})
	if pe := wantCode(t, err, protocol.ToolUnavailable); !strings.Contains(pe.Details, "install-freerouting.sh") {
		t.Errorf("details %q should name the installer", pe.Details)
	}
	const java17 = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
	if _, err := os.Stat(java17); err == nil {
		jar := filepath.Join(t.TempDir(), "freerouting-"+FreeroutingVersion+".jar")
		if err := os.WriteFile(jar, []byte("PK"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv(EnvFreeroutingJar, jar)
		t.Setenv(EnvFreeroutingJava, java17)
		_, err := callErr(t, a, ToolAutoRoute, map[string]any{"board_file": board})
		if pe := wantCode(t, err, protocol.ToolUnavailable); !strings.Contains(pe.Details, "Java 17") {
			t.Errorf("details %q should say the Java is 17", pe.Details)
		}
	}
	assertNoCallFiles(t, ws.Root)
}

func TestRouteBudget(t *testing.T) {
	if b, err := routeBudget(context.Background(), 0); err != nil || b != defaultRouteSeconds {
		t.Errorf("no deadline: %d, %v; want the default %d", b, err, defaultRouteSeconds)
	}
	if b, err := routeBudget(context.Background(), 7); err != nil || b != 7 {
		t.Errorf("max_seconds 7: %d, %v", b, err)
	}
	// 200 s left: 200 - 20 (startup) - 60 (merge and DRC) = 120, less a
	// moment for the test itself.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Second)
	defer cancel()
	if b, err := routeBudget(ctx, 300); err != nil || b < 118 || b > 120 {
		t.Errorf("200 s left, max_seconds 300: %d, %v; want about 120", b, err)
	}
	if b, err := routeBudget(ctx, 30); err != nil || b != 30 {
		t.Errorf("200 s left, max_seconds 30: %d, %v", b, err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel2()
	_, err := routeBudget(short, 30)
	wantCode(t, err, protocol.ToolTimeout)
}

// assertNoCallFiles checks that failed calls left nothing in call folders.
func assertNoCallFiles(t *testing.T, root string) {
	t.Helper()
	_ = filepath.Walk(filepath.Join(root, "calls"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			t.Errorf("a failed call left %s", p)
		}
		return nil
	})
}

func sorted(l []string) []string {
	out := append([]string(nil), l...)
	sortNatural(out)
	return out
}

// TestAutoRouteInSandbox routes ecc83-pp (20 connections) in the solver
// sandbox a worker runs tools in, under the tool's own limits: bwrap's
// read-only root, no network, a private /tmp, 100 processes, the
// manifest's memory and CPU time. The board's custom rules go with it.
func TestAutoRouteInSandbox(t *testing.T) {
	needFreerouting(t)
	sb, err := solver.NewSandbox()
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	a, ws := newAdapter(t)
	bare := bareBoard(t, ws.Root, "ecc83/ecc83-pp.kicad_pcb", "strip-zones")
	// A custom rule beside the board that every 0.8 mm track breaks: the
	// routed board's DRC applies it (the rules file is copied beside it).
	rules := "(version 1)\n(rule wide (constraint track_width (min 5mm)))\n"
	if err := os.WriteFile(strings.TrimSuffix(bare, ".kicad_pcb")+".kicad_dru", []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	lim := routeManifest().ResourceLimits
	ctx := solver.WithRuntime(context.Background(), sb, solver.Policy{
		Limits:        solver.Limits{MemoryMB: lim.MaxMemoryMB, CPUSeconds: lim.MaxCPUSeconds, Processes: solver.DefaultProcesses, FileSizeMB: lim.MaxDiskMB},
		WorkspaceRoot: ws.Root, ReadRoots: ws.Extra,
	})
	raw, _ := json.Marshal(map[string]any{"board_file": bare})
	res, err := a.Call(ctx, ToolAutoRoute, raw)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, a, ToolAutoRoute, res.Data)
	var got RouteResult
	if err := json.Unmarshal(res.Data, &got); err != nil {
		t.Fatal(err)
	}
	c, r := got.Connections, got.Reported
	if got.StoppedEarly || c.Total != 20 || c.Unrouted != 0 || c.Routed != r.Routed || r.StartedUnrouted != 20 {
		t.Errorf("connections %+v, Freerouting %+v", c, r)
	}
	widthErrors := 0
	report, _ := os.ReadFile(got.DRC.ReportFile)
	for _, line := range strings.Split(string(report), "\n") {
		if strings.HasPrefix(line, "[track_width]") {
			widthErrors++
		}
	}
	if widthErrors != got.TracksAdded || got.DRC.ErrorCount != facts(t, bare).Errors+got.TracksAdded {
		t.Errorf("%d track_width violations and %d errors for %d tracks:\n%s", widthErrors, got.DRC.ErrorCount, got.TracksAdded, report)
	}
}

// TestMergeWithoutSession is the merge of a run killed before writing a
// session: the routed board is the source as it was, tracks and all.
func TestMergeWithoutSession(t *testing.T) {
	needKiCad(t)
	a, _ := newAdapter(t)
	dir, err := a.callDir(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	copper := filepath.Join(dir, "copper.json")
	if err := os.WriteFile(copper, []byte(`{"tracks": [], "vias": [], "replace": false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	source := demo("ecc83/ecc83-pp.kicad_pcb")
	var m merged
	if err := a.runPcbnew(context.Background(), routeScript, "merge", source, dir, &m, copper, filepath.Join(dir, "copy.kicad_pcb")); err != nil {
		t.Fatal(err)
	}
	src := readRoutedFacts(t, source, "")
	got := readRoutedFacts(t, filepath.Join(dir, "copy.kicad_pcb"), "")
	if m.TracksAdded != 0 || m.LockedKept != src.Tracks+src.Vias || got.Tracks != src.Tracks || got.Unconnected != src.Unconnected || m.Unrouted != src.Unconnected {
		t.Errorf("merge %+v; the copy %+v, the source %+v", m, got, src)
	}
}
