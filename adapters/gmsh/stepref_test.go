package gmsh

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/internal/solver/solvertest"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// A multi-file STEP names its parts' files (DOCUMENT_FILE), and
// OpenCASCADE opens them as gmsh merges the assembly, wherever they are.
// testdata/extref_assembly.step is such an assembly (written by
// OpenCASCADE's STEPCAFControl_Writer in multi-file mode, naming
// extpart1.stp and extpart2.stp). A reference by path, climbing out, or
// hidden in STEP's escapes is refused before gmsh starts; a plain file
// name, which can only reach gmsh's own folder, is let through.
func TestStepExternalReferences(t *testing.T) {
	assembly, err := os.ReadFile(fixture("extref_assembly.step"))
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The referenced part, outside the roots: a box gmsh can mesh.
	box, err := os.ReadFile(fixture("box.step"))
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "part.stp")
	if err := os.WriteFile(secret, box, 0o600); err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(filepath.Join(base, "data"), root)
	run := func(t *testing.T, ref string) (int32, error) {
		t.Helper()
		step := strings.ReplaceAll(string(assembly), "'extpart1.stp'", "'"+ref+"'")
		p := filepath.Join(root, "assembly.step")
		if err := os.WriteFile(p, []byte(step), 0o644); err != nil {
			t.Fatal(err)
		}
		rt := solvertest.Process()
		ctx := solver.WithRuntime(context.Background(), rt, solver.Policy{})
		raw, _ := json.Marshal(map[string]any{"input_file": p, "mesh_size_mm": 5})
		_, err := New(ws).Call(ctx, ToolGenerateMesh, raw)
		return rt.Runs(), err
	}
	for name, ref := range map[string]string{
		"absolute, outside":  secret,
		"/etc/hostname":      "/etc/hostname",
		"/proc/self/environ": "/proc/self/environ",
		"climbing out":       "../../../../../../../../.." + secret,
		"a hidden slash":     `\X\2Fetc\X\2Fhostname`,
		"a URI":              "file://" + secret,
		"from home":          "~/part.stp",
		"dot dot":            "..",
	} {
		t.Run(name, func(t *testing.T) {
			runs, err := run(t, ref)
			wantError(t, err, protocol.InvalidParams, "DOCUMENT_FILE", "line")
			if runs != 0 {
				t.Errorf("gmsh was started %d times for a refused input", runs)
			}
		})
	}
	t.Run("a plain file name", func(t *testing.T) {
		runs, err := run(t, "extpart1.stp")
		if runs == 0 {
			t.Errorf("a reference by plain name was refused: %v", err)
		}
	})
}
