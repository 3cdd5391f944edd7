package beam

import (
	"fmt"
	"math"
)

// The parameters a TubeSearch can search.
const (
	// ParamWall searches the wall thickness at a fixed outer section.
	ParamWall = "wall_thickness_mm"
	// ParamHeight searches the section's height (its depth in the load
	// direction) at a fixed wall and width.
	ParamHeight = "height_mm"
)

// TubeSearch is the minimum-mass problem of a rectangular tube cantilever
// over one parameter, the wall thickness or the section height, the other
// held fixed: the smallest value whose tip deflection stays within
// DeflectionLimitMM and whose safety factor against yield is at least
// SafetyFactor. Both constraints loosen as either parameter grows (I and
// the section modulus 2I/h both grow with the wall and with the height), and
// the mass grows with both, so the feasible values are one interval and
// bisection finds its lower end: the lightest feasible tube.
type TubeSearch struct {
	// Parameter is ParamWall (the default when empty) or ParamHeight.
	Parameter string
	// WidthMM is the section's width. HeightMM is its height, fixed when
	// the wall is searched (ignored when the height is); WallMM is the
	// wall, fixed when the height is searched (ignored when the wall is).
	WidthMM, HeightMM, WallMM float64
	LengthMM                  float64
	LoadN                     float64
	YoungsModulusMPa          float64
	YieldMPa                  float64
	DeflectionLimitMM         float64
	SafetyFactor              float64
	// DensityKgM3 gives each candidate its mass; 0 leaves mass out.
	DensityKgM3 float64
	// MinMM and MaxMM bound the searched parameter. A wall range must
	// leave a hollow at MaxMM; a height range must keep 2*WallMM < MinMM.
	MinMM, MaxMM float64
	// ToleranceMM is the width of the final interval.
	ToleranceMM float64
	// MaxIterations is the budget of halvings; 0 means enough for the
	// tolerance (IterationsFor).
	MaxIterations int
}

// param is the searched parameter, the default filled in.
func (s TubeSearch) param() string {
	if s.Parameter == "" {
		return ParamWall
	}
	return s.Parameter
}

// Section is the tube with the searched parameter at value.
func (s TubeSearch) Section(value float64) HollowRect {
	if s.param() == ParamHeight {
		return HollowRect{Width: s.WidthMM, Height: value, Wall: s.WallMM}
	}
	return HollowRect{Width: s.WidthMM, Height: s.HeightMM, Wall: value}
}

// Evaluate is one candidate value's deflection, stress, safety factor,
// mass (with a density) and feasibility. A value that makes no tube (a
// wall that leaves no hollow) is infeasible and carries only its
// dimensions.
func (s TubeSearch) Evaluate(value float64) Candidate {
	sec := s.Section(value)
	cand := Candidate{Value: value, WallMM: sec.Wall, HeightMM: sec.Height}
	if sec.Check() != nil {
		return cand
	}
	c := Cantilever{Section: sec, LengthMM: s.LengthMM, YoungsModulusMPa: s.YoungsModulusMPa}
	cand.DeflectionMM, cand.StressMPa = c.TipDeflection(s.LoadN), c.MaxBendingStress(s.LoadN)
	cand.SafetyFactor = s.YieldMPa / cand.StressMPa
	if s.DensityKgM3 > 0 {
		cand.MassKg = c.MassKg(s.DensityKgM3)
	}
	cand.Feasible = cand.DeflectionMM <= s.DeflectionLimitMM && cand.SafetyFactor >= s.SafetyFactor
	return cand
}

// names of the searched parameter in messages: the parameter, its
// smallest and largest values.
func (s TubeSearch) words() (what, least, most, beyond string) {
	if s.param() == ParamHeight {
		return "height", "the shortest section", "the tallest section", "taller sections are outside the range searched"
	}
	return "wall", "the thinnest wall", "the thickest wall", "thicker walls leave no hollow"
}

// check says what is wrong with the problem as stated.
func (s TubeSearch) check() error {
	p := s.param()
	if p != ParamWall && p != ParamHeight {
		return fmt.Errorf("parameter %q is not one a tube search knows: use %s or %s", s.Parameter, ParamWall, ParamHeight)
	}
	what, _, _, _ := s.words()
	fixed := struct {
		name string
		v    float64
	}{"height_mm", s.HeightMM}
	if p == ParamHeight {
		fixed.name, fixed.v = "wall_thickness_mm", s.WallMM
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"width_mm", s.WidthMM}, fixed, {"length_mm", s.LengthMM}, {"load_n", s.LoadN},
		{"youngs_modulus", s.YoungsModulusMPa}, {"yield strength", s.YieldMPa}, {"deflection_limit_mm", s.DeflectionLimitMM},
		{"sf_limit", s.SafetyFactor}, {"tolerance_mm", s.ToleranceMM}, {"min " + what, s.MinMM}} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s must be a positive number, got %g", f.name, f.v)
		}
	}
	if s.DensityKgM3 < 0 || math.IsInf(s.DensityKgM3, 0) || math.IsNaN(s.DensityKgM3) {
		return fmt.Errorf("density must be a positive number (or 0 to leave mass out), got %g", s.DensityKgM3)
	}
	if !(s.MaxMM > s.MinMM) || math.IsInf(s.MaxMM, 0) {
		return fmt.Errorf("the %s range [%g, %g] mm is empty", what, s.MinMM, s.MaxMM)
	}
	if s.MaxIterations < 0 {
		return fmt.Errorf("max_iterations must not be negative, got %d", s.MaxIterations)
	}
	if p == ParamHeight {
		// The shortest section must still be a tube; taller ones then are.
		if err := s.Section(s.MinMM).Check(); err != nil {
			return fmt.Errorf("at the least height of the range: %w", err)
		}
		return nil
	}
	return s.Section(s.MaxMM).Check()
}

// Winner is the candidate the result chose: the one tried at Value. ok
// is false when none was feasible.
func (r WallResult) Winner() (c Candidate, ok bool) {
	if r.Value == nil {
		return Candidate{}, false
	}
	for _, c := range r.Candidates {
		if c.Value == *r.Value {
			return c, true
		}
	}
	return Candidate{}, false
}

// MinimumTube bisects for the smallest feasible value of the parameter.
// The largest value is tried first: if it fails, no value in the range can
// pass (the constraints only loosen as the parameter grows), and that is
// proven, not guessed. Then the smallest: if it passes, it is the answer.
// Otherwise each halving keeps an infeasible lower and a feasible upper
// end, until they are within ToleranceMM (Converged) or the budget runs
// out (OutOfBudget, with the feasible upper end as the best found).
func MinimumTube(s TubeSearch) (WallResult, error) {
	if err := s.check(); err != nil {
		return WallResult{}, err
	}
	budget := s.MaxIterations
	if budget == 0 {
		budget = IterationsFor(s.MaxMM-s.MinMM, s.ToleranceMM)
	}
	p := s.param()
	what, least, most, beyond := s.words()
	res := WallResult{Parameter: p, Budget: budget, Candidates: []Candidate{}}
	try := func(v float64) Candidate {
		c := s.Evaluate(v)
		res.Candidates = append(res.Candidates, c)
		return c
	}
	answer := func(status string, v float64) {
		res.Status, res.Value = status, &v
		if p == ParamWall {
			w := v
			res.WallMM = &w
		}
	}
	if hi := try(s.MaxMM); !hi.Feasible {
		res.Status = Infeasible
		res.Reason = fmt.Sprintf("even %s, %g mm, fails (tip deflection %.4g mm against %g, safety factor %.3g against %g); %s",
			most, s.MaxMM, hi.DeflectionMM, s.DeflectionLimitMM, hi.SafetyFactor, s.SafetyFactor, beyond)
		return res, nil
	}
	lo, hi := s.MinMM, s.MaxMM
	if c := try(lo); c.Feasible {
		answer(Converged, lo)
		res.Reason = least + " allowed already passes"
		return res, nil
	}
	for hi-lo > s.ToleranceMM {
		if res.Iterations >= budget {
			answer(OutOfBudget, hi)
			res.Reason = fmt.Sprintf("the budget of %d evaluations ran out with the optimum %s between %g and %g mm", budget, what, lo, hi)
			return res, nil
		}
		mid := (lo + hi) / 2
		res.Iterations++
		if try(mid).Feasible {
			hi = mid
		} else {
			lo = mid
		}
	}
	answer(Converged, hi)
	return res, nil
}
