package kicad

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/internal/solver/solvertest"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// copyDemo copies a KiCad demo project into dir.
func copyDemo(t *testing.T, name, dir string) {
	t.Helper()
	if out, err := exec.Command("cp", "-r", demo(name), dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
}

// KiCad reads files the board or schematic does not name directly: the
// project files beside it (pcbnew opened a <board>.kicad_dru linked to a
// file outside the roots, and failed the DRC on it), the library tables
// and the libraries they list, the project's drawing sheet, a schematic's
// sheet files and simulation libraries. Each leading out of the roots is
// refused before KiCad runs; the demo project as shipped still runs.
func TestDesignCompanionsConfined(t *testing.T) {
	needKiCad(t)
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(filepath.Join(outside, "x.pretty"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("(rule x (condition \"A.Type == 'Pad'\"))\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// climb leads from anywhere under / to outside.
	climb := strings.Repeat("../", 20) + strings.TrimPrefix(outside, "/")
	type variant struct {
		name, tool, want string
		change           func(t *testing.T, proj string)
	}
	link := func(name, target string) func(t *testing.T, proj string) {
		return func(t *testing.T, proj string) {
			p := filepath.Join(proj, name)
			os.Remove(p)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	write := func(name, text string) func(t *testing.T, proj string) {
		return func(t *testing.T, proj string) {
			if err := os.WriteFile(filepath.Join(proj, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	edit := func(name, old, new string) func(t *testing.T, proj string) {
		return func(t *testing.T, proj string) {
			p := filepath.Join(proj, name)
			b, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(b), old) {
				t.Fatalf("%s has no %q: %v", p, old, err)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	fpTable := func(uri string) func(t *testing.T, proj string) {
		return write("fp-lib-table", "(fp_lib_table\n  (lib (name evil)(type KiCad)(uri \""+uri+"\")(options \"\")(descr \"\"))\n)\n")
	}
	for _, v := range []variant{
		{"rules file linked out", ToolRunDRC, "pic_programmer.kicad_dru beside", link("pic_programmer.kicad_dru", secret)},
		{"project file linked out", ToolRunDRC, "pic_programmer.kicad_pro beside", link("pic_programmer.kicad_pro", secret)},
		{"local settings linked to /etc/hostname", ToolExportGerber, "pic_programmer.kicad_prl beside", link("pic_programmer.kicad_prl", "/etc/hostname")},
		{"library table linked out", ToolRunDRC, "fp-lib-table beside", link("fp-lib-table", secret)},
		{"library outside", ToolRunDRC, "library evil's uri", fpTable(filepath.Join(outside, "x.pretty"))},
		{"library climbing out of ${KIPRJMOD}", ToolRunDRC, "library evil's uri", fpTable("${KIPRJMOD}/" + climb + "/x.pretty")},
		{"library from an environment variable", ToolRunDRC, "environment variable HOME", fpTable("${HOME}/x.pretty")},
		{"library from an unbraced variable", ToolRunDRC, "environment variable $HOME", fpTable("$HOME/x.pretty")},
		{"library by URI", ToolRunDRC, "is a URI", fpTable("https://example.com/x.pretty")},
		{"library in /proc", ToolRunDRC, "library evil's uri", fpTable("/proc/self/environ")},
		{"KiCad's libraries climbed out of", ToolRunDRC, "climbs out of KiCad's libraries", fpTable("${KICAD6_FOOTPRINT_DIR}/../../../etc")},
		{"drawing sheet outside", ToolRunDRC, "page_layout_descr_file", edit("pic_programmer.kicad_pro", `"page_layout_descr_file": ""`, `"page_layout_descr_file": "/etc/hostname"`)},
		{"ERC: sheet file outside", ToolRunERC, "sheet file", edit("pic_programmer.kicad_sch", `"pic_sockets.kicad_sch"`, `"`+secret+`"`)},
		{"ERC: sheet file climbing out", ToolRunERC, "sheet file", edit("pic_programmer.kicad_sch", `"pic_sockets.kicad_sch"`, `"`+climb+`/secret.txt"`)},
		{"ERC: simulation library outside", ToolRunERC, "Sim.Library", edit("pic_programmer.kicad_sch", `(property "Sheet file" "pic_sockets.kicad_sch"`, `(property "Sim.Library" "/etc/hostname"`)},
	} {
		t.Run(v.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			copyDemo(t, "pic_programmer", root)
			proj := filepath.Join(root, "pic_programmer")
			v.change(t, proj)
			ws := workspace.New(filepath.Join(base, "data"), root)
			file := map[string]string{ToolRunERC: "schematic_file"}[v.tool]
			ext := ".kicad_sch"
			if file == "" {
				file, ext = "board_file", ".kicad_pcb"
			}
			rt := solvertest.Process()
			ctx := solver.WithRuntime(context.Background(), rt, solver.Policy{})
			raw, _ := json.Marshal(map[string]any{file: filepath.Join(proj, "pic_programmer"+ext)})
			_, err := New(ws).Call(ctx, v.tool, raw)
			pe := wantCode(t, err, protocol.InvalidParams)
			if !strings.Contains(pe.Details, v.want) {
				t.Errorf("%q does not name %q", pe.Details, v.want)
			}
			if strings.Contains(pe.Details, "rule x") {
				t.Errorf("the refusal carries the outside file: %s", pe.Details)
			}
			if n := rt.Runs(); n != 0 {
				t.Errorf("KiCad was started %d times for a refused design", n)
			}
		})
	}
	t.Run("the demo as shipped", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "root")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		copyDemo(t, "pic_programmer", root)
		ws := workspace.New(filepath.Join(base, "data"), root)
		var r DRCResult
		raw, _ := json.Marshal(map[string]any{"board_file": filepath.Join(root, "pic_programmer", "pic_programmer.kicad_pcb")})
		res, err := New(ws).Call(context.Background(), ToolRunDRC, raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(res.Data, &r); err != nil {
			t.Fatal(err)
		}
	})
}
