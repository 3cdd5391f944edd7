package kicad

import (
	"bytes"
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
// tool and no Python API (kicad-cli came with KiCad 7; pcbnew's Python has
// no netlist reader in 6.0). So the test asks eeschema itself: it runs on
// a virtual X display (Xvfb), opens the schematic, and exports its netlist
// (KiCad's own connectivity) through the Export Netlist dialog, driven by
// keystrokes with xdotool: a hotkey (set in a fresh user config) opens the
// dialog, Return presses Export Netlist, Return saves <name>.net beside
// the schematic. The netlist file is then read as KiCad wrote it.

// needEeschemaGUI skips when this machine cannot run eeschema headless.
func needEeschemaGUI(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"eeschema", "Xvfb", "xdotool"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed: KiCad's own netlist of a schematic needs eeschema on a virtual display (apt-get install kicad xvfb xdotool)", bin)
		}
	}
}

// The key the test's user config binds to eeschema's Export Netlist
// action, as KiCad's hotkey file and xdotool name it.
const (
	exportNetHotkey = "Shift+F12"
	exportNetKeys   = "shift+F12"
)

// eeschemaNetlist has eeschema export the KiCad netlist of sch (copied to
// a scratch project, since eeschema writes project files beside it) and
// returns its nets: KiCad's net name as KiCad shows it (its {slash}
// escapes read) -> "REF.PIN", sorted.
func eeschemaNetlist(t *testing.T, sch string) map[string][]string {
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
	// A user config that exists skips KiCad's first-run dialogs; empty
	// library tables, since the schematic carries its own symbols.
	files := map[string]string{
		filepath.Join(conf, "kicad_common.json"): "{}\n",
		filepath.Join(conf, "sym-lib-table"):     "(sym_lib_table\n)\n",
		filepath.Join(conf, "fp-lib-table"):      "(fp_lib_table\n)\n",
		filepath.Join(conf, "user.hotkeys"):      "eeschema.EditorControl.exportNetlist\t" + exportNetHotkey + "\n",
	}
	text, err := os.ReadFile(sch)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(proj, filepath.Base(sch))
	files[copyPath] = string(text)
	for p, body := range files {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	display := startXvfb(t)
	env := append(os.Environ(), "DISPLAY="+display, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "KICAD_CONFIG_HOME=")
	ee := exec.Command("eeschema", copyPath)
	ee.Env, ee.Dir = env, proj
	var eeOut bytes.Buffer
	ee.Stdout, ee.Stderr = &eeOut, &eeOut
	if err := ee.Start(); err != nil {
		t.Fatalf("eeschema: %v", err)
	}
	t.Cleanup(func() { _ = ee.Process.Kill(); _ = ee.Wait() })

	x := func(args ...string) string {
		cmd := exec.Command("xdotool", args...)
		cmd.Env = env
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	windows := func() string {
		var names []string
		for _, w := range strings.Fields(x("search", "--onlyvisible", "--name", ".")) {
			names = append(names, x("getwindowname", w))
		}
		return strings.Join(names, "; ")
	}
	// waitWindow waits for a visible window whose title holds name.
	waitWindow := func(name string, timeout time.Duration) string {
		deadline := time.Now().Add(timeout)
		for time.Now().Before(deadline) {
			if w := strings.Fields(x("search", "--onlyvisible", "--name", name)); len(w) > 0 {
				time.Sleep(500 * time.Millisecond) // let GTK finish drawing it
				return w[0]
			}
			time.Sleep(200 * time.Millisecond)
		}
		return ""
	}
	stem := strings.TrimSuffix(filepath.Base(sch), filepath.Ext(sch))
	editor := waitWindow(stem+" .*Schematic Editor", 90*time.Second)
	if editor == "" {
		t.Fatalf("eeschema did not open %s within 90 s; windows: %s\n%s", copyPath, windows(), eeOut.String())
	}
	// press sends a key to the focused window until the next window shows.
	press := func(key, focus, next string, click bool) {
		for try := 0; try < 3; try++ {
			x("windowfocus", "--sync", focus)
			if click {
				// KiCad's hotkeys reach the canvas: click an empty spot of
				// it (the sheet's lower left, where the layout puts nothing).
				x("mousemove", "--window", focus, "300", "500", "click", "1")
			}
			x("key", "--clearmodifiers", key)
			if waitWindow(next, 15*time.Second) != "" {
				return
			}
		}
		t.Fatalf("eeschema showed no %q window after %s; windows: %s", next, key, windows())
	}
	press(exportNetKeys, editor, "Export Netlist", true)
	press("Return", x("search", "--onlyvisible", "--name", "^Export Netlist$"), "Save Netlist File", false)
	x("windowfocus", "--sync", x("search", "--onlyvisible", "--name", "Save Netlist File"))
	x("key", "--clearmodifiers", "Return")

	netFile := filepath.Join(proj, stem+".net")
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if text, err := os.ReadFile(netFile); err == nil {
			if nets, err := parseKiCadNetlist(string(text)); err == nil {
				return nets
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("eeschema wrote no readable %s within 30 s; windows: %s\n%s", netFile, windows(), eeOut.String())
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
