package cadquery_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Bad arguments are refused before anything runs, so these need no
// CadQuery: the adapter's Python does not even exist.
func TestBadInputIsRefusedAndWritesNothing(t *testing.T) {
	ws := workspace.New(t.TempDir())
	if err := os.MkdirAll(ws.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	a := cadquery.New(ws, cadquery.Options{Python: "/nonexistent/python3"})
	defer a.Close()
	step := filepath.Join(ws.Root, "part.step")
	if err := os.WriteFile(step, []byte("ISO-10303-21;"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.step")
	if err := os.WriteFile(outside, []byte("ISO-10303-21;"), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		tool string
		args obj
		says []string
	}{
		{"missing input file", cadquery.ToolGetProperties, obj{"input_file": "nope.step"},
			[]string{"input_file", "nope.step", "does not exist"}},
		{"input outside the workspace", cadquery.ToolBooleanOperation, obj{"input_file_a": step, "input_file_b": outside, "operation": "union"},
			[]string{"input_file_b", "outside the allowed roots"}},
		{"not a CAD file", cadquery.ToolExportGeometry, obj{"input_file": writeFile(t, ws, "notes.txt"), "output_format": "stl"},
			[]string{"input_file", "not a STEP"}},
		{"output_path climbs out", cadquery.ToolCreateParametric, obj{"shape_type": "box", "output_path": "../escape.step"},
			[]string{"output_path", "plain file name"}},
		{"output_path with a folder", cadquery.ToolExecuteScript, obj{"script": "result = 1", "output_path": "sub/x.step"},
			[]string{"output_path", "plain file name"}},
		{"output_path of the wrong kind", cadquery.ToolExportGeometry, obj{"input_file": step, "output_format": "stl", "output_path": "mesh.obj"},
			[]string{"output_path", "must end in .stl"}},
		{"unknown material", cadquery.ToolCreateParametric, obj{"shape_type": "box", "material": "unobtainium"},
			[]string{"unobtainium", "steel", "aluminum_6061_t6"}},
		{"unknown shape_type", cadquery.ToolCreateParametric, obj{"shape_type": "sphere"},
			[]string{"shape_type", "sphere", "box, bracket, cylinder, enclosure, plate"}},
		{"negative dimension", cadquery.ToolCreateParametric, obj{"shape_type": "box", "parameters": obj{"length": -5}},
			[]string{"parameters.length", "greater than 0", "-5"}},
		{"unknown parameter", cadquery.ToolCreateParametric, obj{"shape_type": "cylinder", "parameters": obj{"length": 5}},
			[]string{"parameters length", "cylinder", "diameter, height, bore_diameter"}},
		{"dimensions that do not fit", cadquery.ToolCreateParametric, obj{"shape_type": "enclosure", "parameters": obj{"length": 10, "wall_thickness": 5}},
			[]string{"wall_thickness", "length"}},
		{"unknown operation", cadquery.ToolBooleanOperation, obj{"input_file_a": step, "input_file_b": step, "operation": "xor"},
			[]string{"operation", "union, subtract, intersect"}},
		{"unknown format", cadquery.ToolExportGeometry, obj{"input_file": step, "output_format": "dwg"},
			[]string{"output_format", "step, stl"}},
		{"tolerance on an exact format", cadquery.ToolExportGeometry, obj{"input_file": step, "output_format": "step", "tolerance": 0.1},
			[]string{"tolerance", "mesh formats"}},
		{"unknown argument", cadquery.ToolGetProperties, obj{"input_file": step, "density": 7.8},
			[]string{"unknown argument density", "input_file, material"}},
		{"argument of the wrong type", cadquery.ToolExecuteScript, obj{"script": "result = 1", "timeout_seconds": "long"},
			[]string{"timeout_seconds", "a number"}},
		{"script time limit too long", cadquery.ToolExecuteScript, obj{"script": "result = 1", "timeout_seconds": 601},
			[]string{"timeout_seconds", "1 to 600"}},
		{"duplicate part names", cadquery.ToolCreateAssembly, obj{"parts": []obj{{"name": "a", "file": step}, {"name": "a", "file": step}}},
			[]string{"parts[1].name", "twice"}},
		{"no parts", cadquery.ToolCreateAssembly, obj{"parts": []obj{}},
			[]string{"parts", "1 to 100"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			details := callErr(t, a, c.tool, c.args, protocol.InvalidParams)
			mustContain(t, "the error", details, c.says...)
			if n := callFolders(t, ws); n != 0 {
				t.Errorf("a refused call left %d call folders", n)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(ws.Root), "escape.step")); err == nil {
		t.Error("escape.step was written outside the workspace")
	}
}

func writeFile(t *testing.T, ws *workspace.Workspace, name string) string {
	t.Helper()
	path := filepath.Join(ws.Root, name)
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUnavailablePython(t *testing.T) {
	pythons := map[string][]string{
		"/nonexistent/python3": {"/nonexistent/python3 does not exist", "pip install cadquery==2.8.0"},
		"no-such-python-here":  {"no-such-python-here not found on PATH"},
	}
	if bare, err := exec.LookPath("/usr/bin/python3"); err == nil && exec.Command(bare, "-c", "import cadquery").Run() != nil {
		pythons[bare] = []string{"CadQuery is not installed for /usr/bin/python3",
			"ModuleNotFoundError: No module named 'cadquery'", "/usr/bin/python3 -m pip install cadquery==2.8.0"}
	} else {
		t.Log("no /usr/bin/python3 without CadQuery on this machine; that case is not checked")
	}
	for python, says := range pythons {
		t.Run(python, func(t *testing.T) {
			ws := workspace.New(t.TempDir())
			a := cadquery.New(ws, cadquery.Options{Python: python})
			defer a.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := a.Health(ctx)
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != protocol.ToolUnavailable {
				t.Fatalf("Health: want TOOL_UNAVAILABLE, got %v", err)
			}
			mustContain(t, "Health", pe.Details, says...)
			details := callErr(t, a, cadquery.ToolCreateParametric, obj{"shape_type": "box"}, protocol.ToolUnavailable)
			if details != pe.Details {
				t.Errorf("a call says %q, Health %q: they should agree", details, pe.Details)
			}
			if n := callFolders(t, ws); n != 0 {
				t.Errorf("an unavailable call left %d call folders", n)
			}
		})
	}
}

func TestEnvironmentPicksThePython(t *testing.T) {
	t.Setenv(cadquery.EnvPython, "/nonexistent/from-env")
	a := cadquery.New(workspace.New(t.TempDir()), cadquery.Options{})
	defer a.Close()
	_, err := a.Health(context.Background())
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/from-env") {
		t.Errorf("Health with %s set: %v", cadquery.EnvPython, err)
	}
}

func TestHealthy(t *testing.T) {
	a, _ := warm(t)
	st, err := a.Health(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != "healthy" || st.AdapterID != "cadquery" || !strings.Contains(st.Version, "CadQuery 2.8") || st.ToolsAvailable != len(a.Manifests()) {
		t.Errorf("Health = %+v", st)
	}
}

func TestManifestsRegisterAndValidate(t *testing.T) {
	a := cadquery.New(workspace.New(t.TempDir()), cadquery.Options{Python: "/nonexistent/python3"})
	defer a.Close()
	reg := adapters.NewRegistry()
	if err := reg.Register(a); err != nil {
		t.Fatalf("the manifests do not register: %v", err)
	}
	capability := map[string]string{
		cadquery.ToolCreateParametric: "cad_generation", cadquery.ToolBooleanOperation: "cad_operations",
		cadquery.ToolGetProperties: "cad_analysis", cadquery.ToolExportGeometry: "cad_export",
		cadquery.ToolExecuteScript: "cad_scripting", cadquery.ToolCreateAssembly: "cad_assembly",
		cadquery.ToolExportURDF: "robot_description", cadquery.ToolExportURDFAssembly: "robot_description",
		cadquery.ToolGenerateROS2Launch: "robot_launch", cadquery.ToolValidatePhysicsStability: "robot_simulation",
		cadquery.ToolExportUSD: "robot_description", cadquery.ToolExportUSDAssembly: "robot_description",
		cadquery.ToolExportSDF: "robot_description", cadquery.ToolExportSDFAssembly: "robot_description",
	}
	for _, m := range a.Manifests() {
		if capability[m.ToolID] != m.Capability {
			t.Errorf("%s: capability %q, want %q", m.ToolID, m.Capability, capability[m.ToolID])
		}
		if m.Idempotent != (m.ToolID != cadquery.ToolExecuteScript) {
			t.Errorf("%s: idempotent %v", m.ToolID, m.Idempotent)
		}
		if len(m.OutputSchema) == 0 || m.TimeoutSeconds == 0 {
			t.Errorf("%s: no output schema or timeout", m.ToolID)
		}
	}
	if len(a.Manifests()) != len(capability) {
		t.Errorf("%d tools, want %d", len(a.Manifests()), len(capability))
	}

	// The schema the registry checks says what Call says.
	for _, bad := range []string{
		`{"shape_type": "box", "parameters": {"diameter": 5}}`,
		`{"shape_type": "box", "parameters": {"length": -1}}`,
		`{"shape_type": "plate", "parameters": {"hole_diameter": -1}}`,
		`{"shape_type": "sphere"}`,
		`{"shape_type": "box", "output_path": "../x.step"}`,
		`{"parameters": {}}`,
	} {
		if err := reg.ValidateArguments(cadquery.ToolCreateParametric, []byte(bad)); err == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
	for _, good := range []string{
		`{"shape_type": "box"}`,
		`{"shape_type": "plate", "parameters": {"hole_diameter": 0, "corner_radius": 3}, "material": "steel", "output_path": "p.step"}`,
	} {
		if err := reg.ValidateArguments(cadquery.ToolCreateParametric, []byte(good)); err != nil {
			t.Errorf("the schema refuses %s: %v", good, err)
		}
	}
}
