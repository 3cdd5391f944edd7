package calculix

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// The reference cases of issue 5 at the adapter level, on a real gmsh mesh
// of the 100 x 10 x 10 mm bar (x from 0 to 100; Face1 is x = 0, Face2 is
// x = 100). The same cases run through MCP in e2e/mechanical_test.go.

var (
	meshOnce sync.Once
	meshWS   *workspace.Workspace
	meshPath string
	meshErr  error
)

// barMesh meshes gmsh's box.step fixture once, quadratic, 2.5 mm.
func barMesh(t *testing.T) (*workspace.Workspace, string) {
	t.Helper()
	if _, err := exec.LookPath("ccx"); err != nil {
		t.Fatalf("ccx is not installed (apt-get install calculix-ccx; deploy/test-deps.sh does it): %v", err)
	}
	meshOnce.Do(func() {
		dir, err := os.MkdirTemp("", "metaforge-calculix-test-")
		if err != nil {
			meshErr = err
			return
		}
		meshWS = workspace.New(dir, filepath.Join("..", "gmsh", "testdata"))
		step, _ := filepath.Abs(filepath.Join("..", "gmsh", "testdata", "box.step"))
		r, err := gmsh.New(meshWS).Call(context.Background(), "gmsh.generate_mesh",
			json.RawMessage(`{"input_file":"`+step+`","element_order":2,"mesh_size_mm":2.5}`))
		if err != nil {
			meshErr = err
			return
		}
		var out struct {
			MeshFile string `json:"mesh_file"`
		}
		meshErr = json.Unmarshal(r.Data, &out)
		meshPath = out.MeshFile
	})
	if meshErr != nil {
		t.Fatalf("mesh the bar: %v", meshErr)
	}
	return meshWS, meshPath
}

func call(t testing.TB, a *Adapter, tool string, args any, out any) error {
	t.Helper()
	b, _ := json.Marshal(args)
	r, err := a.Call(context.Background(), tool, b)
	if err != nil {
		return err
	}
	if out != nil {
		if err := json.Unmarshal(r.Data, out); err != nil {
			t.Fatal(err)
		}
	}
	return nil
}

// Tip deflection F L^3 / (3 E I) = 1.905 mm within 3%.
func TestReferenceCantileverStatic(t *testing.T) {
	ws, mesh := barMesh(t)
	a := New(ws)
	var r FEAResult
	err := call(t, a, ToolRunFEA, map[string]any{
		"mesh_file": mesh, "material": "steel", "fixed_node_set": "Face1", "load_node_set": "Face2",
		"load_force_n": 1000, "load_direction": []float64{0, 0, -1},
	}, &r)
	if err != nil {
		t.Fatal(err)
	}
	want := 1000.0 * math.Pow(100, 3) / (3 * 210000 * 10 * math.Pow(10, 3) / 12)
	got := *r.MaxDeflectionMM
	t.Logf("tip deflection %.4f mm (closed form %.4f), peak von Mises %.1f MPa, %d C3D10 elements, ccx %.2f s",
		got, want, *r.MaxVonMisesMPa, r.MeshElements, r.SolverTime)
	if math.Abs(got-want)/want > 0.03 {
		t.Errorf("tip deflection %.4f mm, want %.4f within 3%%", got, want)
	}
	if r.ElementType != "C3D10" || r.MaxVonMises["SOLID"] != *r.MaxVonMisesMPa || r.SafetyFactor == nil {
		t.Errorf("result: %+v", r)
	}
	if !strings.Contains(r.LoadDistribution, "consistent") {
		t.Errorf("the gmsh mesh has a face table, so the load is consistent: %q", r.LoadDistribution)
	}
	for _, f := range []string{"deck", "frd"} {
		if st, err := os.Stat(r.Files[f]); err != nil || st.Size() == 0 || !strings.HasPrefix(r.Files[f], ws.Root) {
			t.Errorf("output %s %q: %v (must be in the workspace %s)", f, r.Files[f], err, ws.Root)
		}
	}
	// extract_results reads the same .frd back.
	var x ExtractResult
	if err := call(t, a, ToolExtractResults, map[string]any{"results_file": r.Files["frd"]}, &x); err != nil {
		t.Fatal(err)
	}
	if math.Abs(*x.MaxDisplacementMM-*r.MaxDisplacementMM) > 1e-9 || math.Abs(*x.MaxVonMisesMPa-*r.MaxVonMisesMPa) > 1e-9 {
		t.Errorf("extract_results %+v disagrees with run_fea", x)
	}
	// And the hand-calculation tool agrees.
	var cc CrossCheckResult
	if err := call(t, a, ToolCrossCheckBeam, map[string]any{"length_mm": 100, "width_mm": 10, "height_mm": 10, "load_n": 1000,
		"material": "steel", "fea_tip_deflection_mm": got, "tolerance_pct": 3}, &cc); err != nil || cc.Passed == nil || !*cc.Passed {
		t.Errorf("cross check: %v %+v", err, cc)
	}
}

// First bending frequency within 3% of Euler-Bernoulli (about 835 Hz).
func TestReferenceCantileverModal(t *testing.T) {
	ws, mesh := barMesh(t)
	var r FEAResult
	if err := call(t, New(ws), ToolRunFEA, map[string]any{
		"mesh_file": mesh, "analysis_type": "modal", "material": "steel", "fixed_node_set": "Face1", "num_modes": 4,
	}, &r); err != nil {
		t.Fatal(err)
	}
	EI := 210000 * 10 * math.Pow(10, 3) / 12
	rhoA := 7850e-12 * 100
	const beta1L = 1.8751040687119611 // first root of cos(x) cosh(x) = -1
	want := beta1L * beta1L / (2 * math.Pi * 100 * 100) * math.Sqrt(EI/rhoA)
	t.Logf("f1 %.2f Hz (Euler-Bernoulli %.2f Hz), modes %v", r.FrequenciesHz[0], want, r.FrequenciesHz)
	if len(r.FrequenciesHz) != 4 || math.Abs(r.FrequenciesHz[0]-want)/want > 0.03 {
		t.Errorf("frequencies %v, want 4 modes and f1 %.1f Hz within 3%%", r.FrequenciesHz, want)
	}
	// A square section bends alike both ways: modes 1 and 2 coincide.
	if math.Abs(r.FrequenciesHz[1]-r.FrequenciesHz[0])/r.FrequenciesHz[0] > 0.01 {
		t.Errorf("modes 1 and 2 of a square bar should coincide: %v", r.FrequenciesHz)
	}
}

// Peak temperature within 2% of T_sink + Q L / (k A).
func TestReferenceThermalBar(t *testing.T) {
	ws, mesh := barMesh(t)
	var r ThermalResult
	if err := call(t, New(ws), ToolRunThermal, map[string]any{
		"mesh_file": mesh, "material": "aluminum_6061_t6", "heat_source_node_set": "Face2", "heat_load_w": 5,
		"sink_node_set": "Face1", "sink_temperature_c": 25,
	}, &r); err != nil {
		t.Fatal(err)
	}
	want := 25 + 5*0.1/(167*1e-4)
	t.Logf("peak %.3f degC (closed form %.3f)", r.PeakTemperatureC, want)
	if math.Abs(r.PeakTemperatureC-want)/want > 0.02 || math.Abs(r.MinTemperatureC-25) > 1e-6 {
		t.Errorf("peak %.3f degC, want %.3f within 2%%; min %.3f, want the sink's 25", r.PeakTemperatureC, want, r.MinTemperatureC)
	}
	if r.PeakTemperatureAt[0] < 99.999 {
		t.Errorf("the peak is at the heated end x = 100, not %v", r.PeakTemperatureAt)
	}
}

// Bad input: each a clear error naming what to fix, then the next call works.
func TestRunFEABadInput(t *testing.T) {
	ws, mesh := barMesh(t)
	a := New(ws)
	good := map[string]any{"mesh_file": mesh, "material": "steel", "fixed_node_set": "Face1", "load_node_set": "Face2", "load_force_n": 10}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range good {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for _, c := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"missing mesh", with("mesh_file", filepath.Join(ws.Root, "nope.inp")), []string{"mesh_file", "does not exist"}},
		{"mesh outside the roots", with("mesh_file", "/etc/hostname"), []string{"outside the allowed roots"}},
		{"unknown face", with("fixed_node_set", "Face99"), []string{"Face99", "Face1", "Face6"}},
		{"negative load", with("load_force_n", -5), []string{"load_force_n", "positive"}},
		{"zero direction", with("load_direction", []float64{0, 0, 0}), []string{"load_direction"}},
		{"unknown material", with("material", "unobtainium"), []string{"unobtainium", "steel"}},
		{"unknown argument", with("fixed_face", "Face1"), []string{"fixed_face"}},
		{"no load set", with("load_node_set", nil), []string{"load_node_set"}},
	} {
		err := call(t, a, ToolRunFEA, c.args, nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams {
			t.Errorf("%s: want INVALID_PARAMS, got %v", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
	// A face spanning the whole bar is accepted, with the wrong-face warning.
	var r FEAResult
	if err := call(t, a, ToolRunFEA, with("load_node_set", "Face6"), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "spans 100%") {
		t.Errorf("a load face along the whole length must be warned about: %v", r.Warnings)
	}
	if r.MaxDeflectionMM == nil || *r.MaxDeflectionMM <= 0 {
		t.Errorf("the next call works: %+v", r)
	}
}

// Without ccx the tools answer TOOL_UNAVAILABLE with the install hint, and
// the adapter reports itself unhealthy with the reason.
func TestMissingSolverIsUnavailable(t *testing.T) {
	ws, mesh := barMesh(t)
	a := New(ws)
	a.Binary = "/nonexistent/ccx"
	_, herr := a.Health(context.Background())
	err := call(t, a, ToolRunFEA, map[string]any{"mesh_file": mesh, "material": "steel", "fixed_node_set": "Face1", "analysis_type": "modal"}, nil)
	for _, e := range []error{herr, err} {
		var pe *protocol.Error
		if !errors.As(e, &pe) || pe.Code != protocol.ToolUnavailable || !strings.Contains(e.Error(), "apt-get install calculix-ccx") {
			t.Errorf("want TOOL_UNAVAILABLE naming the package, got %v", e)
		}
	}
	// The hand calculations need no solver.
	if err := call(t, a, ToolCrossCheckBeam, map[string]any{"length_mm": 1, "width_mm": 1, "height_mm": 1, "load_n": 1, "material": "steel"}, nil); err != nil {
		t.Errorf("cross check without ccx: %v", err)
	}
}

// Cancelling the call kills ccx's whole process group promptly.
func TestCancelKillsTheSolver(t *testing.T) {
	ws, mesh := barMesh(t)
	ctx, cancel := context.WithCancel(context.Background())
	ctx = adapters.WithCallInfo(ctx, adapters.CallInfo{CallID: "cancel-test"})
	done := make(chan error, 1)
	go func() {
		_, err := New(ws).Call(ctx, ToolRunFEA, json.RawMessage(`{"mesh_file":"`+mesh+`","analysis_type":"modal","material":"steel","fixed_node_set":"Face1","num_modes":40}`))
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !ccxRunning(t) {
		if time.Now().After(deadline) {
			t.Fatal("ccx never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled call returns context.Canceled, got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not return within 5 s of being cancelled")
	}
	time.Sleep(100 * time.Millisecond)
	if ccxRunning(t) {
		t.Error("ccx is still running after the call was cancelled")
	}
}

// ccxRunning looks for a ccx process of this test's (the cancel-test folder).
func ccxRunning(t *testing.T) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if strings.HasPrefix(string(cmd), "ccx") || strings.Contains(string(cmd), "/ccx\x00") {
			if strings.HasSuffix(cwd, "cancel-test") {
				return true
			}
		}
	}
	return false
}

// validate_mesh passes gmsh's mesh and names what is wrong with a broken
// one: an element naming a node the mesh lacks, and an inverted element.
func TestValidateMesh(t *testing.T) {
	ws, mesh := barMesh(t)
	a := New(ws)
	var r ValidateResult
	if err := call(t, a, ToolValidateMesh, map[string]any{"mesh_file": mesh}, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Valid || r.Quality == nil || r.Quality.MinAngle <= 5 || r.Quality.AvgQuality < 0.5 || len(r.SurfaceSets) != 6 || !r.HasFaceTable {
		t.Errorf("gmsh's bar mesh: %+v (quality %+v)", r, r.Quality)
	}
	broken := filepath.Join(ws.Root, "broken.inp")
	deck := "*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n3, 0, 1, 0\n4, 0, 0, 1\n" +
		"*ELEMENT, TYPE=C3D4, ELSET=SOLID\n1, 1, 2, 3, 4\n2, 1, 3, 2, 4\n3, 1, 2, 3, 9\n*NSET, NSET=BASE\n1, 2, 3\n"
	if err := os.WriteFile(broken, []byte(deck), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := call(t, a, ToolValidateMesh, map[string]any{"mesh_file": broken}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Valid || r.MissingNodes != 1 || r.Inverted != 1 || len(r.Issues) < 2 {
		t.Errorf("broken mesh: %+v", r)
	}
}

// A solve past the call's deadline is TOOL_TIMEOUT, with ccx killed.
func TestDeadlineIsToolTimeout(t *testing.T) {
	ws, mesh := barMesh(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := New(ws).Call(ctx, ToolRunFEA, json.RawMessage(`{"mesh_file":"`+mesh+`","analysis_type":"modal","material":"steel","fixed_node_set":"Face1","num_modes":40}`))
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.ToolTimeout || !strings.Contains(pe.Details, "coarser mesh") {
		t.Fatalf("want TOOL_TIMEOUT saying what to change, got %v", err)
	}
}

// Reading only the blocks a solve needs gives the same values as reading
// everything (extract_results does).
func TestReadFRDFieldsFilter(t *testing.T) {
	ws, mesh := barMesh(t)
	var r FEAResult
	if err := call(t, New(ws), ToolRunFEA, map[string]any{"mesh_file": mesh, "material": "steel", "fixed_node_set": "Face1",
		"load_node_set": "Face2", "load_force_n": 100}, &r); err != nil {
		t.Fatal(err)
	}
	allNodes, all, err := ReadFRD(r.Files["frd"])
	if err != nil {
		t.Fatal(err)
	}
	noNodes, some, err := ReadFRD(r.Files["frd"], "STRESS")
	if err != nil {
		t.Fatal(err)
	}
	if len(allNodes) == 0 || len(noNodes) != 0 || len(some) != 1 || some[0].Name != "STRESS" || len(all) < 2 {
		t.Fatalf("all: %d nodes %d blocks; filtered: %d nodes %d blocks", len(allNodes), len(all), len(noNodes), len(some))
	}
	full := Find(all, "STRESS")
	if len(full.Values) != len(some[0].Values) || maxOf(full.VonMises()) != maxOf(some[0].VonMises()) {
		t.Error("the filtered STRESS block differs from the full read")
	}
}
