package kicad

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// KiCad 6 reads a .kicad_sch only in eeschema, which has no command-line
// tool and no Python API of its own (kicad-cli came with KiCad 7, and
// pcbnew's Python has no netlist reader in 6.0). So the tests ask eeschema
// itself, on a virtual X display (Xvfb), driven by keystrokes (xdotool):
//   - its netlist: a hotkey (bound in a fresh user config) opens Export
//     Netlist, Return presses Export Netlist, Return saves <name>.net
//     beside the schematic, which is then read as KiCad wrote it;
//   - its ERC: a hotkey opens the Electrical Rules Checker, another the
//     KiPython console eeschema embeds, where a script presses Run ERC and
//     reads the violations out of the dialog's list (wxPython sees the
//     dialog's widgets and their data model).

// needEeschemaGUI skips when this machine cannot run eeschema headless.
func needEeschemaGUI(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"eeschema", "Xvfb", "xdotool"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed: KiCad's own reading of a schematic needs eeschema on a virtual display (apt-get install kicad xvfb xdotool)", bin)
		}
	}
}

// The keys the session's user config binds to eeschema's actions, as
// KiCad's hotkey file names them and as xdotool does.
var eeschemaHotkeys = []struct{ action, kicad, xdotool string }{
	{"eeschema.EditorControl.exportNetlist", "Shift+F12", "shift+F12"},
	{"eeschema.InspectionTool.runERC", "Shift+F11", "shift+F11"},
	{"eeschema.EditorControl.showPythonConsole", "Shift+F10", "shift+F10"},
}

// eeschemaSession is eeschema running on its own display with a copy of
// a schematic, the sheets and project file beside it, in a scratch folder
// (eeschema writes project files there).
type eeschemaSession struct {
	t                *testing.T
	env              []string
	work, proj, stem string
	editor           string
	out              *bytes.Buffer
}

// openInEeschema starts eeschema on a copy of sch (and the .kicad_sch and
// .kicad_pro files beside it). libs are the symbol
// libraries (names in DefaultSymbolDir) its library table lists, so ERC
// compares the schematic's symbols with them; none leaves the table empty.
func openInEeschema(t *testing.T, sch string, libs ...string) *eeschemaSession {
	t.Helper()
	needEeschemaGUI(t)
	work := t.TempDir()
	home, proj := filepath.Join(work, "home"), filepath.Join(work, "proj")
	conf := filepath.Join(home, ".config", "kicad", "6.0")
	for _, d := range []string{conf, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	table := "(sym_lib_table\n"
	for _, l := range libs {
		table += fmt.Sprintf("  (lib (name %q)(type \"KiCad\")(uri %q)(options \"\")(descr \"\"))\n", l, filepath.Join(DefaultSymbolDir, l+".kicad_sym"))
	}
	var keys strings.Builder
	for _, h := range eeschemaHotkeys {
		keys.WriteString(h.action + "\t" + h.kicad + "\n")
	}
	// A user config that exists skips KiCad's first-run dialogs.
	files := map[string]string{
		filepath.Join(conf, "kicad_common.json"): "{}\n",
		filepath.Join(conf, "sym-lib-table"):     table + ")\n",
		filepath.Join(conf, "fp-lib-table"):      "(fp_lib_table\n)\n",
		filepath.Join(conf, "user.hotkeys"):      keys.String(),
	}
	// The schematic with its sheets and project file (ERC's severities).
	siblings, _ := filepath.Glob(filepath.Join(filepath.Dir(sch), "*.kicad_*"))
	for _, f := range append(siblings, sch) {
		if ext := filepath.Ext(f); ext == ".kicad_sch" || ext == ".kicad_pro" {
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Join(proj, filepath.Base(f))] = string(text)
		}
	}
	copyPath := filepath.Join(proj, filepath.Base(sch))
	for p, body := range files {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	display := startXvfb(t)
	s := &eeschemaSession{t: t, work: work, proj: proj, stem: strings.TrimSuffix(filepath.Base(sch), filepath.Ext(sch)), out: &bytes.Buffer{}}
	s.env = append(os.Environ(), "DISPLAY="+display, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
	ee := exec.Command("eeschema", copyPath)
	ee.Env, ee.Dir = s.env, proj
	ee.Stdout, ee.Stderr = s.out, s.out
	if err := ee.Start(); err != nil {
		t.Fatalf("eeschema: %v", err)
	}
	t.Cleanup(func() { _ = ee.Process.Kill(); _ = ee.Wait() })
	if s.editor = s.waitWindow(s.stem+" .*Schematic Editor", 90*time.Second); s.editor == "" {
		t.Fatalf("eeschema did not open %s within 90 s; windows: %s\n%s", copyPath, s.windows(), s.out)
	}
	return s
}

// x runs xdotool on the session's display.
func (s *eeschemaSession) x(args ...string) string {
	cmd := exec.Command("xdotool", args...)
	cmd.Env = s.env
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

// windows names the visible windows, for failure messages.
func (s *eeschemaSession) windows() string {
	var names []string
	for _, w := range strings.Fields(s.x("search", "--onlyvisible", "--name", ".")) {
		names = append(names, s.x("getwindowname", w))
	}
	return strings.Join(names, "; ")
}

// waitWindow waits for a visible window whose title matches name.
func (s *eeschemaSession) waitWindow(name string, timeout time.Duration) string {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if w := strings.Fields(s.x("search", "--onlyvisible", "--name", name)); len(w) > 0 {
			time.Sleep(500 * time.Millisecond) // let GTK finish drawing it
			return w[0]
		}
		time.Sleep(200 * time.Millisecond)
	}
	return ""
}

// hotkey presses the key bound to action in the editor until the window
// next shows, and returns that window.
func (s *eeschemaSession) hotkey(action, next string) string {
	s.t.Helper()
	for _, h := range eeschemaHotkeys {
		if h.action == action {
			return s.press(h.xdotool, s.editor, next, true)
		}
	}
	s.t.Fatalf("no hotkey for %s", action)
	return ""
}

// press sends a key to the window focus until the window next shows.
// KiCad's hotkeys reach its canvas, so click first sets the focus there
// with a click on an empty spot (the sheet's lower left, kept clear).
func (s *eeschemaSession) press(key, focus, next string, click bool) string {
	s.t.Helper()
	for try := 0; try < 3; try++ {
		s.x("windowfocus", "--sync", focus)
		if click {
			s.x("mousemove", "--window", focus, "300", "500", "click", "1")
		}
		s.x("key", "--clearmodifiers", key)
		// A loaded machine can take a while to draw a dialog: wait long
		// before pressing again.
		if w := s.waitWindow(next, 40*time.Second); w != "" {
			return w
		}
	}
	s.t.Fatalf("eeschema showed no %q window after %s; windows: %s", next, key, s.windows())
	return ""
}

// netlist has eeschema export its KiCad netlist and returns the nets: the
// name as KiCad shows it (its {slash} escapes read) -> "REF.PIN", sorted.
func (s *eeschemaSession) netlist() map[string][]string {
	s.t.Helper()
	dialog := s.hotkey("eeschema.EditorControl.exportNetlist", "^Export Netlist$")
	save := s.press("Return", dialog, "Save Netlist File", false)
	s.x("windowfocus", "--sync", save)
	s.x("key", "--clearmodifiers", "Return")
	netFile := filepath.Join(s.proj, s.stem+".net")
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if text, err := os.ReadFile(netFile); err == nil {
			if nets, err := parseKiCadNetlist(string(text)); err == nil {
				return nets
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.t.Fatalf("eeschema wrote no readable %s within 30 s; windows: %s\n%s", netFile, s.windows(), s.out)
	return nil
}

// kicadViolation is one line of eeschema's ERC list: "Error: ..." or
// "Warning: ...", and the items it names ("Symbol U1 [NE555P]").
type kicadViolation struct {
	Text  string   `json:"text"`
	Items []string `json:"items"`
}

// ercScript runs in eeschema's KiPython console: it presses Run ERC in
// the Electrical Rules Checker (synchronously) and writes the violations
// its list then holds, as JSON, to the file named by %q.
const ercScript = `
import json, wx, wx.dataview as dv
def _mf_find(w, cls):
    r = []
    for c in w.GetChildren():
        if isinstance(c, cls): r.append(c)
        r += _mf_find(c, cls)
    return r
_mf_d = [w for w in wx.GetTopLevelWindows() if w.GetTitle() == 'Electrical Rules Checker'][0]
_mf_run = [b for b in _mf_find(_mf_d, wx.Button) if b.GetLabel() == 'Run ERC'][0]
_mf_ev = wx.CommandEvent(wx.wxEVT_BUTTON, _mf_run.GetId())
_mf_ev.SetEventObject(_mf_run)
_mf_run.GetEventHandler().ProcessEvent(_mf_ev)
_mf_m = _mf_find(_mf_d, dv.DataViewCtrl)[0].GetModel()
_mf_out = []
_mf_top = dv.DataViewItemArray()
_mf_m.GetChildren(dv.NullDataViewItem, _mf_top)
for _mf_i in _mf_top:
    _mf_sub = dv.DataViewItemArray()
    _mf_m.GetChildren(_mf_i, _mf_sub)
    _mf_out.append({'text': _mf_m.GetValue(_mf_i, 0), 'items': [_mf_m.GetValue(s, 0) for s in _mf_sub]})
with open(%q + '.tmp', 'w') as f:
    json.dump(_mf_out, f)
import os
os.rename(%q + '.tmp', %q)
`

// erc runs eeschema's own ERC, with the default rule severities of a new
// project, and returns its violations.
func (s *eeschemaSession) erc() []kicadViolation {
	s.t.Helper()
	s.hotkey("eeschema.InspectionTool.runERC", "^Electrical Rules Checker$")
	console := s.hotkey("eeschema.EditorControl.showPythonConsole", "^KiPython$")
	result := filepath.Join(s.work, "erc.json")
	script := filepath.Join(s.work, "erc.py")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(ercScript, result, result, result)), 0o644); err != nil {
		s.t.Fatal(err)
	}
	s.x("windowfocus", "--sync", console)
	s.x("type", "--delay", "5", fmt.Sprintf("exec(open(%q).read())", script))
	s.x("key", "Return")
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if text, err := os.ReadFile(result); err == nil {
			var v []kicadViolation
			if err := json.Unmarshal(text, &v); err != nil {
				s.t.Fatalf("eeschema's ERC list: %v\n%s", err, text)
			}
			return v
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.t.Fatalf("the ERC script wrote nothing within 60 s; windows: %s\n%s", s.windows(), s.out)
	return nil
}

// startXvfb starts a virtual display for the test and returns its name.
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// -displayfd: Xvfb picks a free display and writes its number.
	xv := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1600x1000x24", "-nolisten", "tcp")
	xv.ExtraFiles = []*os.File{w}
	if err := xv.Start(); err != nil {
		t.Fatalf("Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() { _ = xv.Process.Kill(); _ = xv.Wait() })
	num := make(chan string, 1)
	go func() {
		buf := make([]byte, 16)
		n, _ := r.Read(buf)
		num <- strings.TrimSpace(string(buf[:n]))
	}()
	select {
	case d := <-num:
		if _, err := strconv.Atoi(d); err != nil {
			t.Fatalf("Xvfb gave display %q", d)
		}
		return ":" + d
	case <-time.After(20 * time.Second):
		t.Fatal("Xvfb did not start within 20 s")
	}
	return ""
}

// parseKiCadNetlist reads the nets of a KiCad netlist file (kicadsexpr,
// version E): (nets (net (code) (name) (node (ref) (pin) ...) ...)).
func parseKiCadNetlist(text string) (map[string][]string, error) {
	root, err := parseSexpr(text)
	if err != nil {
		return nil, err
	}
	if root.head() != "export" {
		return nil, fmt.Errorf("not a KiCad netlist: (%s", root.head())
	}
	nets := root.child("nets")
	if nets == nil {
		return nil, fmt.Errorf("no (nets) section")
	}
	out := map[string][]string{}
	for _, n := range nets.children("net") {
		var pins []string
		for _, node := range n.children("node") {
			pins = append(pins, childArg(node, "ref")+"."+childArg(node, "pin"))
		}
		naturalSort(pins)
		out[unescapeKiCad(childArg(n, "name"))] = pins
	}
	return out, nil
}
