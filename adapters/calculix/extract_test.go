package calculix

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CalculiX's stress error estimator (*EL FILE ERR writes an ERROR block)
// is reported as an error field with its peak and where it is, not passed
// over as "not summarised".
func TestExtractResultsReportsTheErrorEstimate(t *testing.T) {
	ws, mesh := barMesh(t)
	var r FEAResult
	if err := call(t, New(ws), ToolRunFEA, map[string]any{"mesh_file": mesh, "material": "steel", "fixed_node_set": "Face1",
		"load_node_set": "Face2", "load_force_n": 100}, &r); err != nil {
		t.Fatal(err)
	}
	// The same deck with the error estimator asked for, run by ccx itself.
	dir := filepath.Join(ws.Root, "err-estimate")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	deck, err := os.ReadFile(r.Files["deck"])
	if err != nil {
		t.Fatal(err)
	}
	withErr := strings.Replace(string(deck), "*EL FILE\nS\n", "*EL FILE\nS, ERR\n", 1)
	if withErr == string(deck) {
		t.Fatalf("run_fea's deck has no *EL FILE S card to extend:\n%s", deck)
	}
	if err := os.WriteFile(filepath.Join(dir, "err.inp"), []byte(withErr), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mesh, filepath.Join(dir, "mesh.inp")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ccx", "-i", "err")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ccx: %v\n%s", err, out)
	}
	var x ExtractResult
	if err := call(t, New(ws), ToolExtractResults, map[string]any{"results_file": filepath.Join(dir, "err.frd")}, &x); err != nil {
		t.Fatal(err)
	}
	var found *FieldSummary
	for i, f := range x.Fields {
		if strings.Contains(f.Quantity, "not summarised") {
			t.Errorf("field %s is not summarised", f.Field)
		}
		if f.Field == "ERROR" {
			found = &x.Fields[i]
		}
	}
	if found == nil || found.Unit != "%" || !strings.HasPrefix(found.Quantity, "stress error estimate") || found.Max == nil || len(found.MaxAt) != 3 ||
		x.MaxStressErrorPct == nil || *x.MaxStressErrorPct != *found.Max || *found.Max <= 0 {
		t.Fatalf("error field: %+v (overall %v)", found, x.MaxStressErrorPct)
	}
	t.Logf("stress error estimate peaks at %.2f%% at %v (%s)", *found.Max, found.MaxAt, found.Quantity)
}
