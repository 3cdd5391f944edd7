package calculix

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/internal/solver/solvertest"
	"github.com/metaforge/metaforge/protocol"
)

// CalculiX acts on every keyword of the mesh a deck includes. A mesh (or a
// file it includes) that makes ccx read a file outside the roots, in any
// spelling ccx takes (lower case, blanks, quotes, a line past ccx's 1319
// bytes), or write one, is refused before ccx starts, naming the line; a
// mesh that includes a file inside the roots still runs and gives the
// same answer.
func TestMeshNamingFiles(t *testing.T) {
	ws, mesh := barMesh(t)
	plain, err := os.ReadFile(mesh)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(ws.Root, "screen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.inp")
	if err := os.WriteFile(secret, []byte("*NSET, NSET=LEAKED\n1,\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link.inp")); err != nil {
		t.Fatal(err)
	}
	variant := func(name, extra string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		// The mesh's face table goes with it, as gmsh writes it.
		table, _ := os.ReadFile(strings.TrimSuffix(mesh, ".inp") + ".faces.json")
		if err := os.WriteFile(strings.TrimSuffix(p, ".inp")+".faces.json", table, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append(append([]byte{}, plain...), extra...), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := os.WriteFile(filepath.Join(dir, "hop.inp"), []byte("*INCLUDE, INPUT="+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(m string) map[string]any {
		return map[string]any{"mesh_file": m, "material": "steel", "fixed_node_set": "Face1", "load_node_set": "Face2",
			"load_force_n": 1000, "load_direction": []float64{0, 0, -1}}
	}
	for _, c := range []struct{ name, extra, want string }{
		{"*INCLUDE outside", "*INCLUDE, INPUT=" + secret + "\n", "*INCLUDE"},
		{"*include in lower case with blanks", "* include , input = " + secret + "\n", "*INCLUDE"},
		{"*INCLUDE after leading blanks", " \t *INCLUDE,INPUT=" + secret + "\n", "*INCLUDE"},
		{"*INCLUDE in quotes", "*INCLUDE,INPUT=\"" + secret + "\"\n", "*INCLUDE"},
		{"*INCLUDE /etc/hostname", "*INCLUDE,INPUT=/etc/hostname\n", "*INCLUDE"},
		{"*INCLUDE /proc/self/environ", "*INCLUDE,INPUT=/proc/self/environ\n", "*INCLUDE"},
		{"*INCLUDE through a link", "*INCLUDE,INPUT=" + filepath.Join(dir, "link.inp") + "\n", "*INCLUDE"},
		{"*INCLUDE relative, climbing out", "*INCLUDE,INPUT=../../../../../../../../../../" + secret + "\n", "*INCLUDE"},
		{"*INCLUDE hidden past 1319 bytes", "**" + strings.Repeat("x", ccxLineMax-2) + "*INCLUDE,INPUT=" + secret + "\n", "*INCLUDE"},
		{"*INCLUDE of a file that includes one outside", "*INCLUDE,INPUT=" + filepath.Join(dir, "hop.inp") + "\n", "included file"},
		{"*SUBMODEL INPUT=", "*SUBMODEL,TYPE=NODE,INPUT=/etc/hostname\nFace1\n", "*SUBMODEL, INPUT="},
		{"*MATRIX ASSEMBLE STIFFNESSFILE=", "*MATRIX ASSEMBLE,STIFFNESSFILE=/etc/hostname\n", "STIFFNESSFILE="},
		{"*VIEWFACTOR OUTPUT= writes", "*VIEW FACTOR,OUTPUT=/tmp/metaforge-vf\n", "it names a file for CalculiX to write"},
		{"*SUBSTRUCTURE MATRIX OUTPUT FILENAME= writes", "*SUBSTRUCTURE MATRIX OUTPUT,FILENAME=/tmp/metaforge-sub\n", "it names a file for CalculiX to write"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := variant("hostile.inp", c.extra)
			rt := solvertest.Process()
			ctx := solver.WithRuntime(context.Background(), rt, solver.Policy{})
			b, _ := json.Marshal(args(m))
			res, err := New(ws).Call(ctx, ToolRunFEA, b)
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams {
				t.Fatalf("want INVALID_PARAMS, got %v %v", err, res)
			}
			if !strings.Contains(pe.Details, c.want) || !strings.Contains(pe.Details, "line") {
				t.Errorf("%q does not name the construct %q and its line", pe.Details, c.want)
			}
			if strings.Contains(pe.Details, "LEAKED") {
				t.Errorf("the refusal carries the outside file: %s", pe.Details)
			}
			if n := rt.Runs(); n != 0 {
				t.Errorf("ccx was started %d times for a refused mesh", n)
			}
		})
	}

	// A mesh including a file inside the roots runs as before.
	if err := os.WriteFile(filepath.Join(dir, "extra.inp"), []byte("** an extra set\n*NSET, NSET=EXTRA\n1,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var base, with FEAResult
	if err := call(t, New(ws), ToolRunFEA, args(mesh), &base); err != nil {
		t.Fatal(err)
	}
	if err := call(t, New(ws), ToolRunFEA, args(variant("honest.inp", "*include, input="+filepath.Join(dir, "extra.inp")+"\n")), &with); err != nil {
		t.Fatal(err)
	}
	if math.Abs(*base.MaxDeflectionMM-*with.MaxDeflectionMM) > 1e-12 {
		t.Errorf("an include inside the roots changed the result: %g mm, plain %g mm", *with.MaxDeflectionMM, *base.MaxDeflectionMM)
	}
}
