package beam

import (
	"math"
	"testing"
)

// cubicRoots is every real root of A x^3 + B x^2 + C x + D = 0, by
// Cardano's formula (one real root) or the trigonometric form (three).
func cubicRoots(A, B, C, D float64) []float64 {
	a, b, c := B/A, C/A, D/A
	p := b - a*a/3
	q := 2*a*a*a/27 - a*b/3 + c
	shift := -a / 3
	disc := q*q/4 + p*p*p/27
	if disc > 0 {
		r := math.Sqrt(disc)
		return []float64{math.Cbrt(-q/2+r) + math.Cbrt(-q/2-r) + shift}
	}
	m := 2 * math.Sqrt(-p/3)
	theta := math.Acos(3*q/(2*p)*math.Sqrt(-3/p)) / 3
	return []float64{m*math.Cos(theta) + shift, m*math.Cos(theta-2*math.Pi/3) + shift, m*math.Cos(theta-4*math.Pi/3) + shift}
}

// heightFor is the closed-form height of a tube of width b and wall t at
// which 12 I(h) - k h - 12 I0 = 0: with I(h) = (b h^3 - c (h - 2t)^3) / 12
// and c = b - 2t, that is the cubic
//
//	2t h^3 + 6ct h^2 - (12ct^2 + k) h + 8ct^3 - 12 I0 = 0,
//
// and the root wanted is the one that leaves a hollow (h > 2t); there is
// one, since I and I/h both grow with h there. The deflection limit is
// k = 0 with I0 = F L^3 / (3 E delta); the stress limit is I0 = 0 with
// k = 6 S, S = F L SF / yield the section modulus 2I/h it needs.
func heightFor(t *testing.T, b, wall, k, I0 float64) float64 {
	t.Helper()
	c := b - 2*wall
	var found []float64
	for _, h := range cubicRoots(2*wall, 6*c*wall, -(12*c*wall*wall + k), 8*c*wall*wall*wall-12*I0) {
		if h > 2*wall {
			found = append(found, h)
		}
	}
	if len(found) != 1 {
		t.Fatalf("the cubic has %d roots leaving a hollow (%v), want exactly one", len(found), found)
	}
	h := found[0]
	I := HollowRect{b, h, wall}.SecondMoment()
	if res := 12*I - k*h - 12*I0; math.Abs(res) > 1e-9*math.Max(12*I, 1) {
		t.Fatalf("closed-form height %g leaves a residual %g", h, res)
	}
	return h
}

// The height search against the closed form: the lightest height is the
// larger of the one the deflection limit needs and the one the stress limit
// needs, each a root of a cubic in h. One problem is bound by deflection
// (long and lightly loaded), one by stress (short and heavily loaded).
func TestMinimumHeightMatchesClosedForm(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     TubeSearch
		bound string
	}{
		{"deflection-bound", TubeSearch{Parameter: ParamHeight, WidthMM: 40, WallMM: 2, LengthMM: 1000, LoadN: 500,
			YoungsModulusMPa: 68900, YieldMPa: 276, DeflectionLimitMM: 5, SafetyFactor: 1.5, DensityKgM3: 2700,
			MinMM: 10, MaxMM: 150, ToleranceMM: 0.001}, "deflection"},
		{"stress-bound", TubeSearch{Parameter: ParamHeight, WidthMM: 40, WallMM: 2, LengthMM: 200, LoadN: 5000,
			YoungsModulusMPa: 68900, YieldMPa: 276, DeflectionLimitMM: 5, SafetyFactor: 2, DensityKgM3: 2700,
			MinMM: 10, MaxMM: 150, ToleranceMM: 0.001}, "stress"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			hDeflection := heightFor(t, s.WidthMM, s.WallMM, 0, s.LoadN*math.Pow(s.LengthMM, 3)/(3*s.YoungsModulusMPa*s.DeflectionLimitMM))
			hStress := heightFor(t, s.WidthMM, s.WallMM, 6*s.LoadN*s.LengthMM*s.SafetyFactor/s.YieldMPa, 0)
			want := math.Max(hDeflection, hStress)
			if got := map[bool]string{true: "deflection", false: "stress"}[hDeflection > hStress]; got != tc.bound {
				t.Fatalf("the problem is bound by %s (deflection needs %g, stress %g), want %s", got, hDeflection, hStress, tc.bound)
			}

			r, err := MinimumTube(s)
			if err != nil || r.Value == nil {
				t.Fatalf("%+v %v", r, err)
			}
			limit := IterationsFor(s.MaxMM-s.MinMM, s.ToleranceMM)
			t.Logf("optimum %.6f mm (deflection needs %.6f, stress %.6f); bisection %.6f mm in %d iterations (limit %d)",
				want, hDeflection, hStress, *r.Value, r.Iterations, limit)
			if r.Status != Converged || r.Parameter != ParamHeight || r.WallMM != nil {
				t.Errorf("status %s, parameter %s, wall %v: want converged on height_mm with no wall answer", r.Status, r.Parameter, r.WallMM)
			}
			if math.Abs(*r.Value-want) > s.ToleranceMM || *r.Value < want-1e-9 {
				t.Errorf("height %v, want %.6f within %g and not below it", *r.Value, want, s.ToleranceMM)
			}
			if r.Iterations > limit {
				t.Errorf("%d iterations, more than ceil(log2(range/tolerance)) = %d", r.Iterations, limit)
			}
			win, ok := r.Winner()
			if !ok || !win.Feasible || win.HeightMM != *r.Value || win.WallMM != s.WallMM {
				t.Errorf("winner %+v (%v): the answer must be a feasible candidate at the fixed wall", win, ok)
			}
			if below := s.Evaluate(want - 2*s.ToleranceMM); below.Feasible {
				t.Errorf("a height below the optimum passes: %+v", below)
			}
			wantMass := (s.WidthMM*win.HeightMM - (s.WidthMM-2*s.WallMM)*(win.HeightMM-2*s.WallMM)) * s.LengthMM * 1e-9 * s.DensityKgM3
			if math.Abs(win.MassKg-wantMass) > 1e-12 {
				t.Errorf("winner's mass %g, want %g", win.MassKg, wantMass)
			}
			for _, c := range r.Candidates {
				if c.Feasible && c.MassKg < win.MassKg {
					t.Errorf("a lighter feasible candidate than the winner: %+v", c)
				}
			}
		})
	}
}

// A wall search through MinimumTube is MinimumWall's answer, trail and all,
// and candidates carry their mass when a density is given.
func TestTubeSearchOfTheWallIsMinimumWall(t *testing.T) {
	ws := WallSearch{WidthMM: 30, HeightMM: 60, LengthMM: 500, LoadN: 800, YoungsModulusMPa: 68900, YieldMPa: 276,
		DeflectionLimitMM: 2, SafetyFactor: 2, MinWallMM: 0.5, MaxWallMM: 12, ToleranceMM: 0.001}
	a, err := MinimumWall(ws)
	if err != nil {
		t.Fatal(err)
	}
	ts := ws.Tube()
	ts.DensityKgM3 = 2700
	b, err := MinimumTube(ts)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != Converged || a.WallMM == nil || b.WallMM == nil {
		t.Fatalf("MinimumWall %+v, MinimumTube %+v: want both converged", a, b)
	}
	if a.Status != b.Status || *a.WallMM != *b.WallMM || *a.Value != *a.WallMM || a.Iterations != b.Iterations || len(a.Candidates) != len(b.Candidates) {
		t.Fatalf("MinimumWall %+v, MinimumTube %+v", a, b)
	}
	for i, c := range b.Candidates {
		if c.Value != a.Candidates[i].WallMM || c.WallMM != c.Value || c.HeightMM != ws.HeightMM || a.Candidates[i].MassKg != 0 {
			t.Errorf("candidate %d: %+v against %+v", i, c, a.Candidates[i])
		}
		if want := (HollowRect{30, 60, c.WallMM}).Area() * 500 * 1e-9 * 2700; math.Abs(c.MassKg-want) > 1e-12 {
			t.Errorf("candidate %d mass %g, want %g", i, c.MassKg, want)
		}
	}
}

func TestTubeSearchRefusesWhatIsNoTube(t *testing.T) {
	base := TubeSearch{Parameter: ParamHeight, WidthMM: 40, WallMM: 2, LengthMM: 1000, LoadN: 500,
		YoungsModulusMPa: 68900, YieldMPa: 276, DeflectionLimitMM: 5, SafetyFactor: 1.5, MinMM: 4, MaxMM: 150, ToleranceMM: 0.01}
	if _, err := MinimumTube(base); err == nil {
		t.Error("a 4 mm section with 2 mm walls has no hollow: refused")
	}
	base.MinMM, base.WallMM = 10, 0
	if _, err := MinimumTube(base); err == nil {
		t.Error("a height search needs the fixed wall")
	}
	base.WallMM, base.Parameter = 2, "length_mm"
	if _, err := MinimumTube(base); err == nil {
		t.Error("an unknown parameter is refused")
	}
	if c := (TubeSearch{WidthMM: 10, HeightMM: 10, LengthMM: 100, LoadN: 1, YoungsModulusMPa: 1, YieldMPa: 1}).Evaluate(5); c.Feasible || c.DeflectionMM != 0 {
		t.Errorf("a wall of half the section is no tube: %+v", c)
	}
}
