//go:build unix

package e2e

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// mechanical is what mechanical_client.mjs saw.
type mechanical struct {
	MissingTools  []string         `json:"missingTools"`
	ReadOnlyHints map[string]*bool `json:"readOnlyHints"`
	Bar           struct {
		Volume float64  `json:"volume"`
		Mass   *float64 `json:"mass"`
		File   string   `json:"file"`
	} `json:"bar"`
	Mesh struct {
		Elements int    `json:"elements"`
		Type     string `json:"type"`
		Frame    string `json:"frame"`
		BBox     struct {
			Min [3]float64 `json:"min"`
			Max [3]float64 `json:"max"`
		} `json:"bbox"`
		Quality struct {
			MinAngle   float64 `json:"min_angle"`
			Degenerate int     `json:"degenerate_elements"`
		} `json:"quality"`
	} `json:"mesh"`
	Faces struct {
		Fixed       string     `json:"fixed"`
		Loaded      string     `json:"loaded"`
		FixedNormal [3]float64 `json:"fixedNormal"`
		LoadedArea  float64    `json:"loadedArea"`
	} `json:"faces"`
	Static struct {
		Deflection       float64  `json:"deflection"`
		VonMises         float64  `json:"vonMises"`
		Warnings         []string `json:"warnings"`
		CrossCheckPassed *bool    `json:"crossCheckPassed"`
	} `json:"static"`
	Modal struct {
		Frequencies []float64 `json:"frequencies"`
	} `json:"modal"`
	Thermal struct {
		Peak float64 `json:"peak"`
	} `json:"thermal"`
	Holed struct {
		Volume      float64 `json:"volume"`
		CubeHasMass bool    `json:"cubeHasMass"`
	} `json:"holed"`
	Assembly struct {
		Passed        bool `json:"passed"`
		Interferences []struct {
			PartA  string  `json:"part_a"`
			PartB  string  `json:"part_b"`
			Volume float64 `json:"volume_mm3"`
		} `json:"interferences"`
	} `json:"assembly"`
	Bad struct {
		MissingMesh    *rpcFailure `json:"missingMesh"`
		UnknownFace    *rpcFailure `json:"unknownFace"`
		NegativeLoad   *rpcFailure `json:"negativeLoad"`
		MissingStep    *rpcFailure `json:"missingStep"`
		LoopingScript  *rpcFailure `json:"loopingScript"`
		ReadingOutside *rpcFailure `json:"readingOutside"`
		ScriptAfter    float64     `json:"scriptAfter"`
		FEAAfter       float64     `json:"feaAfter"`
	} `json:"bad"`
}

type rpcFailure struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// The reference cases of issue 5 through MCP: CadQuery makes the part,
// gmsh meshes it, CalculiX solves it, each checked against its closed form
// with the tolerance the issue gives.
func TestMechanicalReferenceCasesThroughMCP(t *testing.T) {
	ports := freePorts(t, 3)
	serve(t, ports[0], ports[1], ports[2])
	mcpURL := fmt.Sprintf("http://127.0.0.1:%d/mcp", ports[2])

	began := time.Now()
	var o mechanical
	runClient(t, "node mechanical_client.mjs", command(t, 10*time.Minute, nodePath, "mechanical_client.mjs", mcpURL), 10*time.Minute, &o)
	t.Logf("the mechanical scenario took %s", time.Since(began).Round(time.Millisecond))

	if len(o.MissingTools) > 0 {
		t.Errorf("tools/list lacks %v", o.MissingTools)
	}
	for tool, ro := range o.ReadOnlyHints {
		if ro == nil || !*ro {
			t.Errorf("%s: readOnlyHint %v, want true (it writes only its own call folder)", tool, ro)
		}
	}

	// The part: 10000 mm^3, and steel's mass from the one materials table.
	near := func(what string, got, want, relTol float64) {
		t.Helper()
		if math.Abs(got-want) > relTol*math.Abs(want) {
			t.Errorf("%s = %.6g, want %.6g within %.3g%%", what, got, want, 100*relTol)
		} else {
			t.Logf("%s = %.6g (reference %.6g, tolerance %.3g%%)", what, got, want, 100*relTol)
		}
	}
	near("bar volume (mm^3)", o.Bar.Volume, 10000, 1e-9)
	if o.Bar.Mass == nil {
		t.Error("create_parametric with a material returned no mass_kg")
	} else {
		near("bar mass (kg)", *o.Bar.Mass, 10000*1e-9*7850, 1e-9)
	}
	if o.Mesh.Type != "C3D10" || o.Mesh.Frame != "twin" || o.Mesh.Quality.Degenerate != 0 || o.Mesh.Quality.MinAngle <= 5 {
		t.Errorf("mesh: %+v", o.Mesh)
	}
	near("mesh length along x (mm)", o.Mesh.BBox.Max[0]-o.Mesh.BBox.Min[0], 100, 1e-6)
	near("loaded face area (mm^2)", o.Faces.LoadedArea, 100, 1e-6)
	if o.Faces.FixedNormal != [3]float64{-1, 0, 0} {
		t.Errorf("the fixed face at the smallest x faces -x: %v", o.Faces.FixedNormal)
	}

	// Tip deflection F L^3 / (3 E I) = 1.905 mm within 3%.
	I := 10 * math.Pow(10, 3) / 12
	near("tip deflection (mm)", o.Static.Deflection, 1000*math.Pow(100, 3)/(3*210000*I), 0.03)
	if o.Static.CrossCheckPassed == nil || !*o.Static.CrossCheckPassed {
		t.Errorf("calculix.cross_check_cantilever_beam did not pass the FEA deflection: %v", o.Static.CrossCheckPassed)
	}
	// End faces are not whole-length faces, so the one warning is issue
	// 20's: the peak sits at the clamp, a singularity, not a design value.
	if len(o.Static.Warnings) != 1 || !strings.Contains(o.Static.Warnings[0], "singularity") {
		t.Errorf("want only the clamp-singularity warning: %v", o.Static.Warnings)
	}
	// First bending frequency within 3% of Euler-Bernoulli (about 835 Hz).
	f1 := 1.875104068711961 * 1.875104068711961 / (2 * math.Pi * 100 * 100) * math.Sqrt(210000*I/(7850e-12*100))
	if len(o.Modal.Frequencies) != 4 {
		t.Fatalf("modal: %v, want 4 modes", o.Modal.Frequencies)
	}
	near("first bending frequency (Hz)", o.Modal.Frequencies[0], f1, 0.03)
	// Peak temperature within 2% of T_sink + Q L / (k A).
	near("peak temperature (degC)", o.Thermal.Peak, 25+5*0.1/(167*1e-4), 0.02)
	// 20 mm cube minus a 10 mm through hole: 8000 - pi 5^2 20 within 0.1%.
	near("holed cube volume (mm^3)", o.Holed.Volume, 8000-math.Pi*25*20, 0.001)
	if o.Holed.CubeHasMass {
		t.Error("a part made without a material must carry no mass_kg (never defaulted)")
	}
	// Two 10 mm cubes 5 mm apart overlap by exactly 500 mm^3.
	if o.Assembly.Passed || len(o.Assembly.Interferences) != 1 {
		t.Fatalf("assembly: %+v, want one interference", o.Assembly)
	}
	near("assembly overlap (mm^3)", o.Assembly.Interferences[0].Volume, 500, 1e-9)

	// Bad input: clear errors naming what to fix, and the next call works.
	expect := func(what string, f *rpcFailure, code int, parts ...string) {
		t.Helper()
		if f == nil {
			t.Errorf("%s: no error", what)
			return
		}
		if code != 0 && f.Code != code {
			t.Errorf("%s: code %d, want %d (%s)", what, f.Code, code, f.Message)
		}
		for _, p := range parts {
			if !strings.Contains(f.Message, p) {
				t.Errorf("%s: %q does not mention %q", what, f.Message, p)
			}
		}
	}
	expect("missing mesh", o.Bad.MissingMesh, codeInvalidParams, "mesh_file", "does not exist")
	expect("unknown face", o.Bad.UnknownFace, codeInvalidParams, "Face99", o.Faces.Fixed, o.Faces.Loaded)
	expect("negative load", o.Bad.NegativeLoad, codeInvalidParams, "load_force_n")
	expect("missing STEP", o.Bad.MissingStep, codeInvalidParams, "input_file")
	expect("script that loops forever", o.Bad.LoopingScript, -32006, "2")
	expect("script reading outside its folder", o.Bad.ReadingOutside, 0, "/etc/passwd")
	near("script after the failures (mm^3)", o.Bad.ScriptAfter, 24, 1e-9)
	near("FEA after the failures (Hz)", o.Bad.FEAAfter, o.Modal.Frequencies[0], 1e-6)
}
