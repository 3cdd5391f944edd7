package solver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/calculix"
	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/adapters/kicad"
	"github.com/metaforge/metaforge/adapters/spice"
	"github.com/metaforge/metaforge/internal/hostile"
	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// The hostile path catalogue: every file argument and every file-naming
// construct of every solver input (ngspice cards, CalculiX keywords, a
// STEP's external references, what KiCad reads beside a design, a CadQuery
// script's file access) tried with hostile targets, in each runtime this
// machine has (process, sandbox, and docker against the fake engine). An
// attempt is held when it is refused and no solver started (the runtime
// ran nothing, the engine made no container), and nothing of the target
// came back.

// secretMark is in every outside file the catalogue aims at: a refusal or
// result that carries it leaked the file.
const secretMark = "HOSTILE-SECRET-7f3a"

// recorder runs commands in its runtime and counts them.
type recorder struct {
	solver.Runtime
	runs atomic.Int32
}

func (r *recorder) Exec(ctx context.Context, c solver.Command, p solver.Policy) (solver.Output, error) {
	r.runs.Add(1)
	return r.Runtime.Exec(ctx, c, p)
}

// bench is where the catalogue runs: a workspace whose one read root
// holds the inputs, and an outside folder holding the secret.
type bench struct {
	ws           *workspace.Workspace
	root, outdir string
}

// targets are the hostile names a construct or argument may carry; each
// leads outside the roots, or is no file at all.
func (b bench) targets() map[string]string {
	return map[string]string{
		"absolute":       filepath.Join(b.outdir, "secret.txt"),
		"absolute-gone":  filepath.Join(b.outdir, "gone.txt"),
		"dot-dot":        filepath.Join(b.root, strings.Repeat("../", 20)+strings.TrimPrefix(b.outdir, "/"), "secret.txt"),
		"symlink-out":    filepath.Join(b.root, "link-out.txt"),
		"proc-environ":   "/proc/self/environ",
		"etc-hostname":   "/etc/hostname",
		"uri":            "file://" + filepath.Join(b.outdir, "secret.txt"),
		"nul-byte":       filepath.Join(b.outdir, "secret.txt") + "\x00.txt",
		"very-long":      "/" + strings.Repeat("a/", 3000) + "secret.txt",
		"home":           "~/secret.txt",
		"env-var":        "$HOME/secret.txt",
		"dir-link-climb": filepath.Join(b.root, "dir-out", "secret.txt"),
	}
}

func newBench(t *testing.T) bench {
	base, err := os.MkdirTemp("", "metaforge-hostile-paths-") // lower case: ngspice 39 lower-cases model files
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	b := bench{root: filepath.Join(base, "root"), outdir: filepath.Join(base, "outside")}
	for _, d := range []string{b.root, b.outdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(b.outdir, "secret.txt"), []byte(secretMark+"\n0 1\n1 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link-out.txt": filepath.Join(b.outdir, "secret.txt"), "dir-out": b.outdir} {
		if err := os.Symlink(target, filepath.Join(b.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	b.ws = workspace.New(filepath.Join(base, "data"), b.root)
	return b
}

// write puts an input file in the root.
func (b bench) write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(b.root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// attempt is one hostile call: the tool, and arguments written for target.
type attempt struct {
	construct string
	adapter   func(ws *workspace.Workspace) adapters.Adapter
	tool      string
	args      func(t *testing.T, b bench, target string) map[string]any
	fixed     bool // the construct is refused whatever it names: tried once
}

func TestHostilePaths(t *testing.T) {
	tl := hostile.New(t, "paths")
	b := newBench(t)
	runtimes := map[string]func() solver.Runtime{"process": func() solver.Runtime { return solver.Process{} }}
	if s, err := solver.NewSandbox(); err == nil {
		runtimes["sandbox"] = func() solver.Runtime { return s }
	} else {
		t.Logf("no sandbox runtime on this machine: %v", err)
	}
	host, made := solver.FakeDockerEngine(t)
	d, err := solver.NewDocker(host, "metaforge/solver-hostile:test")
	if err != nil {
		t.Fatal(err)
	}
	runtimes["docker (fake engine)"] = func() solver.Runtime { return d }

	for name, rt := range runtimes {
		for _, at := range catalogue() {
			targets := b.targets()
			if at.fixed {
				targets = map[string]string{"-": ""}
			}
			for tname, target := range targets {
				label := fmt.Sprintf("%s/%s/%s", name, at.construct, tname)
				rec := &recorder{Runtime: rt()}
				before := made()
				ctx := solver.WithRuntime(context.Background(), rec, solver.Policy{WorkspaceRoot: b.ws.Root, ReadRoots: b.ws.Extra})
				raw, _ := json.Marshal(at.args(t, b, target))
				res, err := at.adapter(b.ws).Call(ctx, at.tool, raw)
				var pe *protocol.Error
				switch {
				case err == nil:
					tl.Failed(label, "ran: %.200s", res.Data)
				case !errors.As(err, &pe) || pe.Code != protocol.InvalidParams:
					tl.Failed(label, "not refused as invalid params: %v", err)
				case rec.runs.Load() != 0:
					tl.Failed(label, "the solver was started %d times", rec.runs.Load())
				case made() != before:
					tl.Failed(label, "the engine was asked for a container")
				case strings.Contains(err.Error(), secretMark):
					tl.Failed(label, "the refusal carries the outside file: %v", err)
				default:
					tl.Held(label)
				}
			}
		}
	}
	cadqueryScripts(t, tl, b)
}

// catalogue is every construct and file argument, as an attempt.
func catalogue() []attempt {
	spiceIn := func(ws *workspace.Workspace) adapters.Adapter { return spice.NewIn(ws) }
	tran := func(netlist string) map[string]any {
		return map[string]any{"netlist": netlist, "analysis_type": "transient", "params": map[string]any{"tstep": 1e-4, "tstop": 5e-4}}
	}
	deck := func(card func(target string) string) func(*testing.T, bench, string) map[string]any {
		return func(_ *testing.T, _ bench, target string) map[string]any {
			return tran("hostile\nV1 in 0 1\nR1 in 0 1k\n" + card(target) + "\n")
		}
	}
	model := func(typ, param string) func(*testing.T, bench, string) map[string]any {
		return deck(func(target string) string { return ".model m " + typ + " (" + param + "=\"" + target + "\")" })
	}
	fixed := func(netlist string) func(*testing.T, bench, string) map[string]any {
		return func(*testing.T, bench, string) map[string]any { return tran(netlist) }
	}
	ccx := func(ws *workspace.Workspace) adapters.Adapter { return calculix.New(ws) }
	fea := func(extra func(target string) string) func(*testing.T, bench, string) map[string]any {
		return func(t *testing.T, b bench, target string) map[string]any {
			m := b.write(t, "mesh.inp", tinyMesh+extra(target)+"\n")
			return map[string]any{"mesh_file": m, "material": "steel", "fixed_node_set": "Face1", "load_node_set": "Face2", "load_force_n": 1}
		}
	}
	kicadIn := func(ws *workspace.Workspace) adapters.Adapter { return kicad.New(ws) }
	board := func(companion func(t *testing.T, b bench, target string)) func(*testing.T, bench, string) map[string]any {
		return func(t *testing.T, b bench, target string) map[string]any {
			dir := filepath.Join(b.root, "board")
			os.RemoveAll(dir)
			p := b.write(t, "board/b.kicad_pcb", "(kicad_pcb (version 20211014) (generator pcbnew))\n")
			companion(t, b, target)
			return map[string]any{"board_file": p}
		}
	}
	table := func(kind string) func(*testing.T, bench, string) {
		return func(t *testing.T, b bench, target string) {
			b.write(t, "board/"+kind+"-lib-table", "("+kind+"_lib_table\n  (lib (name evil)(type KiCad)(uri \""+strings.ReplaceAll(target, `"`, `\"`)+"\")(options \"\")(descr \"\"))\n)\n")
		}
	}
	linked := func(name string) func(*testing.T, bench, string) {
		return func(t *testing.T, b bench, target string) {
			// A link holds no NUL and at most 4095 bytes of target.
			target = strings.ReplaceAll(target, "\x00", "")
			if len(target) > 4000 {
				target = target[len(target)-4000:]
			}
			if err := os.Symlink(target, filepath.Join(b.root, "board", name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	schematic := func(prop string) func(*testing.T, bench, string) map[string]any {
		return func(t *testing.T, b bench, target string) map[string]any {
			q, _ := json.Marshal(target) // a quoted KiCad string for plain text
			p := b.write(t, "sch/s.kicad_sch", "(kicad_sch (version 20211123) (generator eeschema)\n  (sheet (property \""+prop+"\" "+string(q)+"))\n)\n")
			return map[string]any{"schematic_file": p}
		}
	}
	step, _ := os.ReadFile(filepath.Join("..", "..", "adapters", "gmsh", "testdata", "extref_assembly.step"))
	return []attempt{
		// File arguments.
		{"spice netlist_path", spiceIn, spice.ToolRunSimulation, func(_ *testing.T, _ bench, target string) map[string]any {
			return map[string]any{"netlist_path": target, "analysis_type": "op"}
		}, false},
		{"calculix mesh_file", ccx, calculix.ToolRunFEA, func(_ *testing.T, _ bench, target string) map[string]any {
			return map[string]any{"mesh_file": target, "material": "steel", "fixed_node_set": "Face1", "load_node_set": "Face2", "load_force_n": 1}
		}, false},
		{"gmsh input_file", gmshIn, gmsh.ToolGenerateMesh, func(_ *testing.T, _ bench, target string) map[string]any {
			return map[string]any{"input_file": target}
		}, false},
		{"kicad board_file", kicadIn, kicad.ToolRunDRC, func(_ *testing.T, _ bench, target string) map[string]any {
			return map[string]any{"board_file": target}
		}, false},
		{"kicad schematic_file", kicadIn, kicad.ToolRunERC, func(_ *testing.T, _ bench, target string) map[string]any {
			return map[string]any{"schematic_file": target}
		}, false},

		// ngspice cards that read a file.
		{"spice filesource file=", spiceIn, spice.ToolRunSimulation, model("filesource", "file"), false},
		{"spice d_source input_file=", spiceIn, spice.ToolRunSimulation, model("d_source", "input_file"), false},
		{"spice d_state state_file=", spiceIn, spice.ToolRunSimulation, model("d_state", "state_file"), false},
		{"spice table2d file=", spiceIn, spice.ToolRunSimulation, model("table2d", "file"), false},
		{"spice CIDER infile=", spiceIn, spice.ToolRunSimulation, model("numd", "infile"), false},
		{"spice CIDER ic.file=", spiceIn, spice.ToolRunSimulation, deck(func(t string) string { return "D1 in 0 dm ic.file=\"" + t + "\"" }), false},
		{"spice .include", spiceIn, spice.ToolRunSimulation, deck(func(t string) string { return ".include \"" + t + "\"" }), false},
		{"spice .lib file section", spiceIn, spice.ToolRunSimulation, deck(func(t string) string { return ".lib \"" + t + "\" tt" }), false},
		{"spice .incx", spiceIn, spice.ToolRunSimulation, deck(func(t string) string { return ".incx \"" + t + "\"" }), false},
		{"spice .include on the title line", spiceIn, spice.ToolRunSimulation, func(_ *testing.T, _ bench, target string) map[string]any {
			return tran(".include \"" + target + "\"\nR1 a 0 1k\n")
		}, false},
		// ngspice constructs that run commands: refused outright.
		{"spice .control shell", spiceIn, spice.ToolRunSimulation, fixed("t\nR1 a 0 1k\n.control\nshell cat /etc/hostname\n.endc\n"), true},
		{"spice *# shell", spiceIn, spice.ToolRunSimulation, fixed("t\nR1 a 0 1k\n*# shell cat /etc/hostname\n"), true},
		{"spice *ng_script", spiceIn, spice.ToolRunSimulation, fixed("*ng_script\nshell cat /etc/hostname\n"), true},
		{"spice d_process", spiceIn, spice.ToolRunSimulation, fixed("t\n.model p d_process (process_file=\"/bin/sh\")\nR1 a 0 1k\n"), true},
		{"spice d_cosim", spiceIn, spice.ToolRunSimulation, fixed("t\n.model c d_cosim (simulation=\"/tmp/x.so\")\nR1 a 0 1k\n"), true},
		{"spice CIDER rootfile= (writes)", spiceIn, spice.ToolRunSimulation, fixed("t\n.model m numd\n+ output rootfile=/tmp/x\nR1 a 0 1k\n"), true},

		// CalculiX keywords in the mesh.
		{"calculix *INCLUDE", ccx, calculix.ToolRunFEA, fea(func(t string) string { return "*INCLUDE, INPUT=" + t }), false},
		{"calculix *include quoted", ccx, calculix.ToolRunFEA, fea(func(t string) string { return "*include,input=\"" + t + "\"" }), false},
		{"calculix *SUBMODEL INPUT=", ccx, calculix.ToolRunFEA, fea(func(t string) string { return "*SUBMODEL,TYPE=NODE,INPUT=" + t }), false},
		{"calculix *MATRIX ASSEMBLE STIFFNESSFILE=", ccx, calculix.ToolRunFEA, fea(func(t string) string { return "*MATRIX ASSEMBLE,STIFFNESSFILE=" + t }), false},
		{"calculix *VIEW FACTOR OUTPUT= (writes)", ccx, calculix.ToolRunFEA, fea(func(string) string { return "*VIEW FACTOR,OUTPUT=/tmp/metaforge-vf" }), true},

		// A STEP's external references.
		{"gmsh STEP DOCUMENT_FILE", gmshIn, gmsh.ToolGenerateMesh, func(t *testing.T, b bench, target string) map[string]any {
			text := strings.ReplaceAll(string(step), "'extpart1.stp'", "'"+strings.ReplaceAll(target, "'", "''")+"'")
			return map[string]any{"input_file": b.write(t, "assembly.step", text)}
		}, false},

		// What KiCad reads beside a design.
		{"kicad fp-lib-table uri", kicadIn, kicad.ToolRunDRC, board(table("fp")), false},
		{"kicad sym-lib-table uri", kicadIn, kicad.ToolExportGerber, board(table("sym")), false},
		{"kicad .kicad_dru linked", kicadIn, kicad.ToolRunDRC, board(linked("b.kicad_dru")), false},
		{"kicad .kicad_pro linked", kicadIn, kicad.ToolRunDRC, board(linked("b.kicad_pro")), false},
		{"kicad drawing sheet", kicadIn, kicad.ToolRunDRC, board(func(t *testing.T, b bench, target string) {
			q, _ := json.Marshal(target)
			b.write(t, "board/b.kicad_pro", `{"pcbnew": {"page_layout_descr_file": `+string(q)+`}}`)
		}), false},
		{"kicad ERC sheet file", kicadIn, kicad.ToolRunERC, schematic("Sheet file"), false},
		{"kicad ERC Sim.Library", kicadIn, kicad.ToolRunERC, schematic("Sim.Library"), false},
	}
}

func gmshIn(ws *workspace.Workspace) adapters.Adapter { return gmsh.New(ws) }

// tinyMesh is one tetrahedron with the sets run_fea needs.
const tinyMesh = `*NODE
1, 0, 0, 0
2, 1, 0, 0
3, 0, 1, 0
4, 0, 0, 1
*ELEMENT, TYPE=C3D4, ELSET=SOLID
1, 1, 2, 3, 4
*NSET, NSET=Face1
1, 2, 3
*NSET, NSET=Face2
4
`

// cadqueryScripts tries a script's ways to reach a file: CadQuery runs it
// in a confined child of its own, not through a solver runtime, so these
// are tried once. Held when the script fails and nothing of the target
// came back.
func cadqueryScripts(t *testing.T, tl *hostile.Tally, b bench) {
	a := cadquery.New(b.ws, cadquery.Options{})
	t.Cleanup(func() { a.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for tname, target := range b.targets() {
		if strings.ContainsRune(target, 0) {
			continue // not a Python string literal a script can open
		}
		q, _ := json.Marshal(target)
		for construct, script := range map[string]string{
			"open":       "result = cq.Workplane().box(1, 1, 1)\nprint(open(" + string(q) + ").read())",
			"importStep": "result = cq.importers.importStep(" + string(q) + ")",
			"importDXF":  "result = cq.Workplane().box(1, 1, 1)\ncq.importers.importDXF(" + string(q) + ")",
			"os.open":    "import os\nresult = cq.Workplane().box(1, 1, 1)\nprint(os.read(os.open(" + string(q) + ", os.O_RDONLY), 100))",
		} {
			label := "cadquery/" + construct + "/" + tname
			raw, _ := json.Marshal(map[string]any{"script": script, "timeout_seconds": 20})
			res, err := a.Call(ctx, cadquery.ToolExecuteScript, raw)
			switch {
			case err == nil:
				tl.Failed(label, "the script ran: %.200s", res.Data)
			case strings.Contains(err.Error(), secretMark):
				tl.Failed(label, "the error carries the outside file: %v", err)
			default:
				tl.Held(label)
			}
		}
	}
	for construct, script := range map[string]string{
		"subprocess": "import subprocess\nresult = cq.Workplane().box(1, 1, 1)\nprint(subprocess.run(['cat', '/etc/hostname'], capture_output=True).stdout)",
		"os.system":  "import os\nresult = cq.Workplane().box(1, 1, 1)\nos.system('cat /etc/hostname')",
	} {
		label := "cadquery/" + construct
		raw, _ := json.Marshal(map[string]any{"script": script, "timeout_seconds": 20})
		if res, err := a.Call(ctx, cadquery.ToolExecuteScript, raw); err == nil {
			tl.Failed(label, "the script ran: %.200s", res.Data)
		} else {
			tl.Held(label)
		}
	}
}
