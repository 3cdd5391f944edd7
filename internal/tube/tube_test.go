package tube

import (
	"math"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/internal/materials"
)

func mustMaterial(t *testing.T, name string) materials.Material {
	t.Helper()
	m, err := materials.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func second(b, h, t float64) float64 { return (b*h*h*h - (b-2*t)*math.Pow(h-2*t, 3)) / 12 }

// For a long thin tube the tip deflection's margin moves more with the
// length (delta ~ L^3) than with the wall; the central differences match
// the derivatives of the closed form.
func TestSensitivityRanksByTheClosedForm(t *testing.T) {
	al := mustMaterial(t, "aluminum_6061_t6")
	const F, L, b, h, wall, limit = 10.0, 1000.0, 20.0, 20.0, 1.0, 15.0
	sm := Sensitivity{Tube: Tube{LengthMM: L, WidthMM: b, HeightMM: h, WallMM: wall, Material: "6061", Mat: al},
		Metric: "tip_deflection", LoadN: F, Limit: limit}
	E := al.YoungsModulusGPa * 1000
	I := second(b, h, wall)
	delta := F * L * L * L / (3 * E * I)
	if v := sm.Value(wall, L, al); math.Abs(v-delta) > 1e-9 {
		t.Fatalf("value %v, want %v", v, delta)
	}
	rows := sm.Rank(1, nil)
	if len(rows) != 2 || rows[0].Parameter != "length_mm" || rows[1].Parameter != beam.ParamWall || rows[0].Rank != 1 {
		t.Fatalf("ranking %+v, want length then wall", rows)
	}
	dIdt := (2*math.Pow(h-2*wall, 3) + 6*(b-2*wall)*math.Pow(h-2*wall, 2)) / 12
	for _, c := range []struct {
		row  SensitivityRow
		want float64
	}{{rows[0], -3 * delta / L}, {rows[1], delta * dIdt / I}} {
		if c.row.Derivative == nil || math.Abs(*c.row.Derivative-c.want) > 1e-3*math.Abs(c.want) {
			t.Errorf("%s: derivative %v, want %v", c.row.Parameter, c.row.Derivative, c.want)
		}
	}

	// A wall that leaves no hollow one step up is stepped down.
	thick := Sensitivity{Tube: Tube{LengthMM: L, WidthMM: b, HeightMM: h, WallMM: 9.95, Mat: al}, Metric: "mass", Limit: 1}
	rows = thick.Rank(1, []materials.Material{mustMaterial(t, "steel"), al})
	var wallRow SensitivityRow
	for _, r := range rows {
		if r.Parameter == beam.ParamWall {
			wallRow = r
		}
	}
	if wallRow.StepMM == nil || *wallRow.StepMM >= 0 || !strings.Contains(wallRow.Note, "step is down") {
		t.Errorf("a near-solid wall's row = %+v", wallRow)
	}
	if last := rows[len(rows)-1]; last.Candidate != al.Name || last.DeltaMargin != 0 || last.Note != "the current material" {
		t.Errorf("the current material's row = %+v", last)
	}
}

func TestWallSearchFillsDefaults(t *testing.T) {
	tb := Tube{LengthMM: 300, WidthMM: 40, HeightMM: 20, WallMM: 2, Mat: mustMaterial(t, "steel")}
	sf := 2.0
	s, err := tb.WallSearch(WallLimits{LoadN: 100, DeflectionLimitMM: 2, SafetyFactor: &sf})
	if err != nil || s.SafetyFactor != 2 || s.MinMM != 0.5 || s.MaxMM != 9.99 || s.ToleranceMM != 0.01 || s.YoungsModulusMPa != 210000 {
		t.Fatalf("search = %+v %v", s, err)
	}
	r, err := beam.MinimumTube(s)
	win, ok := r.Winner()
	if err != nil || r.Status != beam.Converged || !ok {
		t.Fatalf("search ran %+v %v", r, err)
	}
	d := WallDecision("CAD-ARM@3", tb, s, r, win, "n-ev")
	if d.Name != "wall thickness of CAD-ARM" || !strings.HasPrefix(d.Decision, "wall_thickness_mm = ") ||
		!strings.Contains(d.Rationale, "The search is evidence n-ev.") || len(d.Alternatives) != len(r.Candidates)-1 {
		t.Errorf("decision = %+v", d)
	}
	if _, err := (Tube{WidthMM: 40, HeightMM: 20, Mat: materials.Material{Name: "mystery"}}).WallSearch(WallLimits{LoadN: 1, DeflectionLimitMM: 1}); err == nil ||
		!strings.Contains(err.Error(), "material mystery has no yield strength") {
		t.Errorf("a material without figures = %v", err)
	}
	if got := MMFormat(0.001)(1.23456); got != "1.2346" {
		t.Errorf("MMFormat(0.001) = %s", got)
	}
}
