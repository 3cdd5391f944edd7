package spice

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/internal/solver/solvertest"
	"github.com/metaforge/metaforge/internal/workspace"
)

// A deck's own cards can make ngspice read a file (filesource and the
// other code models' file parameters, includes in any of ngspice's
// spellings, even on the title line) or run a command (*# lines, an
// *ng_script deck, d_process). Each is refused before ngspice starts,
// naming the card; a file inside the roots is still read, and gives the
// result it gave before.
func TestDeckFileConstructs(t *testing.T) {
	needNgspice(t)
	// ngspice 39 lower-cases a code model's file name, so the folder a
	// filesource reads from must be lower case; t.TempDir's is not.
	base, err := os.MkdirTemp("", "metaforge-spice-screen-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "lib")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const secret = "0 7.5\n1 7.5\n"
	write(filepath.Join(outside, "wave.txt"), secret)
	write(filepath.Join(root, "wave.txt"), "0 2.5\n1 2.5\n")
	write(filepath.Join(root, "Wave2.txt"), "0 2.5\n1 2.5\n")
	write(filepath.Join(outside, "r.inc"), "R2 out 0 1k\n")
	for _, link := range []string{"link.txt", "wave2.txt"} {
		if err := os.Symlink(filepath.Join(outside, "wave.txt"), filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "lib", "abs.inc"), ".model fsrc filesource (file=\""+filepath.Join(outside, "wave.txt")+"\")\n")
	write(filepath.Join(root, "lib", "rel.inc"), ".model fsrc filesource (file=\"wave.txt\")\n")
	write(filepath.Join(root, "lib", "hash.inc"), "*# shell cat /etc/hostname\n")
	write(filepath.Join(root, "lib", "climb.inc"), ".include ../lib/../../outside/r.inc\n")
	write(filepath.Join(root, "lib", "ps.inc"), ".lib "+filepath.Join(outside, "r.inc")+"\n")

	ws := workspace.New(filepath.Join(base, "data"), root)
	fsrc := func(model string) string {
		return "fs\nA1 %v([out]) fsrc\n" + model + "\nR2 out 0 1k\n"
	}
	tran := map[string]any{"analysis_type": "transient", "params": map[string]any{"tstep": 1e-4, "tstop": 5e-4}}
	with := func(netlist string) map[string]any {
		args := map[string]any{"netlist": netlist}
		for k, v := range tran {
			args[k] = v
		}
		return args
	}
	for _, c := range []struct {
		name, netlist, want string
	}{
		{"the issue's filesource", "t\nA1 %v([out2]) fsrc\n.model fsrc filesource (file=\"/etc/hostname\" amploffset=[0] amplscale=[1])\nR2 out2 0 1k\n.end\n", "netlist line 3: file of .model fsrc (filesource)"},
		{"filesource outside", fsrc(`.model fsrc filesource (file="` + filepath.Join(outside, "wave.txt") + `")`), "outside the allowed roots"},
		{"filesource without =", fsrc(`.model fsrc filesource (file "` + filepath.Join(outside, "wave.txt") + `")`), "outside the allowed roots"},
		{"filesource on a continuation line", fsrc(".model fsrc filesource\n+ (file=\n+ \"" + filepath.Join(outside, "wave.txt") + "\")"), "outside the allowed roots"},
		{"filesource through a link", fsrc(`.model fsrc filesource (file="` + filepath.Join(root, "link.txt") + `")`), "outside the allowed roots"},
		{"filesource relative in text", fsrc(`.model fsrc filesource (file="../outside/wave.txt")`), "is relative"},
		{"filesource from a parameter", fsrc(".param f='x'\n.model fsrc filesource (file={f})"), "is an expression"},
		{"filesource /proc", fsrc(`.model fsrc filesource (file="/proc/self/environ")`), "outside the allowed roots"},
		{"filesource whose lower-case spelling leads out", fsrc(`.model fsrc filesource (file="` + filepath.Join(root, "Wave2.txt") + `")`), "ngspice may lower-case it"},
		{"d_source input_file", "t\nA1 [d] dsrc\n.model dsrc d_source (input_file=\"/etc/hostname\")\nR1 d 0 1k\n", "input_file of .model dsrc (d_source)"},
		{"d_state state_file", "t\n.model st d_state (state_file=/etc/hostname)\nR1 a 0 1k\n", "state_file of .model st (d_state)"},
		{"table2d file", "t\n.model tb table2d (file='/etc/hostname')\nR1 a 0 1k\n", "file of .model tb (table2d)"},
		{"CIDER rootfile", "t\n.model m numd\n+ output rootfile=/tmp/x\nR1 a 0 1k\n", "is refused: it names the files CIDER writes"},
		{"CIDER ic.file on an instance", "t\nD1 a 0 m ic.file=\"/etc/hostname\"\nR1 a 0 1k\n", "ic.file of this card"},
		{"d_process", "t\n.model p d_process (process_file=\"/bin/sh\")\nR1 a 0 1k\n", "d_process is refused: it starts a program"},
		{"d_cosim", "t\n.model c d_cosim (simulation=\"/tmp/x.so\")\nR1 a 0 1k\n", "d_cosim is refused: it loads a shared library"},
		{"include on the title line", ".include /etc/hostname\nR1 a 0 1k\n", "line 1 is the deck's title"},
		{".incx spelling", divider + ".incx " + filepath.Join(outside, "r.inc") + "\n", "outside the allowed roots"},
		{".lib with a vertical tab", divider + ".lib\v" + filepath.Join(outside, "r.inc") + " sect\n", "outside the allowed roots"},
		{"*# command", divider + "*# shell cat /etc/hostname\n", "*# lines are refused"},
		{"*ng_script deck", "*ng_script\nshell cat /etc/hostname\n", "line 1 is the deck's title"},
		{".controls spelling", divider + ".controls\nshell cat /etc/hostname\n.endc\n", ".controls blocks are refused"},
		{"filesource in an included file", divider + ".include " + filepath.Join(root, "lib", "abs.inc") + "\n", "outside the allowed roots"},
		{"relative filesource in an included file", divider + ".include " + filepath.Join(root, "lib", "rel.inc") + "\n", "in an included file give an absolute path"},
		{"*# in an included file", divider + ".include " + filepath.Join(root, "lib", "hash.inc") + "\n", "*# lines are refused"},
		{"an include that climbs out", divider + ".include " + filepath.Join(root, "lib", "climb.inc") + "\n", "outside the allowed roots"},
		{".lib naming a file alone, in an included file", divider + ".include " + filepath.Join(root, "lib", "ps.inc") + "\n", "outside the allowed roots"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt := solvertest.Process()
			ctx := solver.WithRuntime(context.Background(), rt, solver.Policy{})
			raw, _ := json.Marshal(with(c.netlist))
			res, err := NewIn(ws).Call(ctx, ToolRunSimulation, raw)
			if err == nil {
				t.Fatalf("ran: %s", res.Data)
			}
			wantInvalid(t, err, c.want)
			if n := rt.Runs(); n != 0 {
				t.Errorf("ngspice was started %d times for a refused deck", n)
			}
			if strings.Contains(err.Error(), "7.5") {
				t.Errorf("the refusal carries the outside file's content: %v", err)
			}
		})
	}

	// Inside the roots a filesource still reads its file: from netlist_path's
	// folder when relative, and by absolute path in text.
	write(filepath.Join(root, "rel.cir"), fsrc(".model fsrc filesource (file=\"wave.txt\" amploffset=[0] amplscale=[1])"))
	for name, args := range map[string]map[string]any{
		"absolute in text":          with(fsrc(`.model fsrc filesource (file="` + filepath.Join(root, "wave.txt") + `" amploffset=[0] amplscale=[1])`)),
		"relative to netlist_path":  {"netlist_path": filepath.Join(root, "rel.cir"), "analysis_type": "transient", "params": tran["params"]},
		"continuation line, inside": with(fsrc(".model fsrc filesource\n+ (file=\"" + filepath.Join(root, "wave.txt") + "\"\n+ amploffset=[0] amplscale=[1])")),
	} {
		t.Run(name, func(t *testing.T) {
			out := call(t, NewIn(ws), args)
			v := vector(t, out, "v(out)")
			if !out.Converged || math.Abs(float64(*v.Final)-2.5) > 1e-9 {
				t.Fatalf("v(out) = %v, want the file's 2.5 V: %+v", *v.Final, out)
			}
		})
	}
}
