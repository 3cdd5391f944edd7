package beam

import (
	"math"
	"testing"
)

// The steel cantilever, 100 x 10 x 10 mm, 1000 N: 1.905 mm,
// 600 MPa, about 835 Hz.
func TestSolidCantilever(t *testing.T) {
	c := Cantilever{Section: Rect{10, 10}, LengthMM: 100, YoungsModulusMPa: 210000}
	if d := c.TipDeflection(1000); math.Abs(d-1e9/(3*210000*10000.0/12)) > 1e-12 || math.Abs(d-1.905) > 5e-4 {
		t.Errorf("tip deflection %g, want 1.905 mm", d)
	}
	if s := c.MaxBendingStress(1000); math.Abs(s-600) > 1e-9 {
		t.Errorf("stress %g, want 6 F L / (b h^2) = 600 MPa", s)
	}
	if m := c.MassKg(7850); math.Abs(m-0.0785) > 1e-12 {
		t.Errorf("mass %g, want 0.0785 kg", m)
	}
	if f := c.FirstFrequencyHz(7850); math.Abs(f-835.5) > 0.1 {
		t.Errorf("f1 %g, want about 835.5 Hz", f)
	}
}

func TestHollowSection(t *testing.T) {
	h := HollowRect{40, 40, 2}
	if got, want := h.SecondMoment(), (math.Pow(40, 4)-math.Pow(36, 4))/12; math.Abs(got-want) > 1e-9 {
		t.Errorf("I %g, want %g", got, want)
	}
	if got := h.Area(); math.Abs(got-(1600-1296)) > 1e-12 {
		t.Errorf("area %g, want 304", got)
	}
	if (HollowRect{40, 40, 20}).Check() == nil || (HollowRect{40, 40, 0}).Check() == nil || h.Check() != nil {
		t.Error("a wall of half the width leaves no hollow; a zero wall is no tube")
	}
}

// For a square tube the optimum is closed-form: I(t) = (b^4 - (b - 2t)^4)
// / 12, so the deflection limit needs t_d = (b - (b^4 - 12 I_d)^(1/4)) / 2
// with I_d = F L^3 / (3 E delta), and the safety factor needs the same
// form with I_s = F L (b / 2) SF / yield. The optimum is the larger.
func TestMinimumWallMatchesClosedForm(t *testing.T) {
	s := WallSearch{WidthMM: 50, HeightMM: 50, LengthMM: 500, LoadN: 800, YoungsModulusMPa: 68900, YieldMPa: 276,
		DeflectionLimitMM: 2, SafetyFactor: 2, MinWallMM: 0.5, MaxWallMM: 12, ToleranceMM: 0.001}
	b := s.WidthMM
	wallFor := func(I float64) float64 { return (b - math.Pow(math.Pow(b, 4)-12*I, 0.25)) / 2 }
	tDeflection := wallFor(s.LoadN * math.Pow(s.LengthMM, 3) / (3 * s.YoungsModulusMPa * s.DeflectionLimitMM))
	tStress := wallFor(s.LoadN * s.LengthMM * (b / 2) * s.SafetyFactor / s.YieldMPa)
	want := math.Max(tDeflection, tStress)

	r, err := MinimumWall(s)
	if err != nil || r.WallMM == nil {
		t.Fatalf("%+v %v", r, err)
	}
	limit := IterationsFor(s.MaxWallMM-s.MinWallMM, s.ToleranceMM)
	t.Logf("optimum %.5f mm (deflection needs %.5f, stress %.5f); bisection %.5f mm in %d iterations (limit %d)",
		want, tDeflection, tStress, *r.WallMM, r.Iterations, limit)
	if r.Status != Converged || math.Abs(*r.WallMM-want) > s.ToleranceMM || *r.WallMM < want {
		t.Errorf("wall %v (%s), want %.5f within %g and not below it", *r.WallMM, r.Status, want, s.ToleranceMM)
	}
	if r.Iterations > limit {
		t.Errorf("%d iterations, more than ceil(log2(range/tolerance)) = %d", r.Iterations, limit)
	}
	if !s.Evaluate(*r.WallMM).Feasible {
		t.Error("the answer must itself be feasible")
	}
}

func TestMinimumWallInfeasibleAndBudget(t *testing.T) {
	s := WallSearch{WidthMM: 10, HeightMM: 10, LengthMM: 1000, LoadN: 1000, YoungsModulusMPa: 2300, YieldMPa: 40,
		DeflectionLimitMM: 0.1, SafetyFactor: 2, MinWallMM: 0.5, MaxWallMM: 4.9, ToleranceMM: 0.01}
	r, err := MinimumWall(s)
	if err != nil || r.Status != Infeasible || r.WallMM != nil || r.Reason == "" {
		t.Errorf("an ABS rod cannot hold this: %+v %v", r, err)
	}
	s = WallSearch{WidthMM: 50, HeightMM: 50, LengthMM: 500, LoadN: 800, YoungsModulusMPa: 68900, YieldMPa: 276,
		DeflectionLimitMM: 2, SafetyFactor: 2, MinWallMM: 0.5, MaxWallMM: 12, ToleranceMM: 1e-6, MaxIterations: 3}
	r, _ = MinimumWall(s)
	if r.Status != OutOfBudget || r.Iterations != 3 || r.Budget != 3 || r.WallMM == nil || !s.Evaluate(*r.WallMM).Feasible {
		t.Errorf("a budget of 3: %+v", r)
	}
	if _, err := MinimumWall(WallSearch{WidthMM: 10, HeightMM: 10}); err == nil {
		t.Error("a problem with no load is refused")
	}
}
