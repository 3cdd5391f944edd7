package beam

import (
	"fmt"
	"math"
)

// WallSearch is the minimum-mass wall thickness problem of a tube
// cantilever: the thinnest wall (mass grows with it) whose tip deflection
// stays within DeflectionLimitMM and whose safety factor against yield is
// at least SafetyFactor. Both constraints tighten as the wall thins, so the
// feasible walls are one interval and bisection finds its lower end.
type WallSearch struct {
	WidthMM, HeightMM, LengthMM float64
	LoadN                       float64
	YoungsModulusMPa            float64
	YieldMPa                    float64
	DeflectionLimitMM           float64
	SafetyFactor                float64
	// MinWallMM and MaxWallMM bound the search; MaxWallMM must leave a
	// hollow.
	MinWallMM, MaxWallMM float64
	// ToleranceMM is the width of the final interval.
	ToleranceMM float64
	// MaxIterations is the budget; 0 means enough for the tolerance.
	MaxIterations int
}

// Candidate is one wall thickness tried.
type Candidate struct {
	WallMM       float64 `json:"wall_thickness_mm"`
	DeflectionMM float64 `json:"tip_deflection_mm"`
	StressMPa    float64 `json:"max_bending_stress_mpa"`
	SafetyFactor float64 `json:"safety_factor"`
	Feasible     bool    `json:"feasible"`
}

// Outcome of a search.
const (
	Converged   = "converged"
	Infeasible  = "infeasible"
	OutOfBudget = "out_of_budget"
)

// WallResult is a search's answer and its trail.
type WallResult struct {
	Status string `json:"status"`
	// WallMM is the thinnest feasible wall found (the interval's upper
	// end); absent unless one is feasible.
	WallMM *float64 `json:"wall_thickness_mm,omitempty"`
	// Iterations counts the halvings; Candidates also holds the two
	// bounds tried first.
	Iterations int         `json:"iterations"`
	Budget     int         `json:"max_iterations"`
	Candidates []Candidate `json:"candidates"`
	Reason     string      `json:"reason,omitempty"`
}

// Evaluate is one candidate wall's deflection, stress and feasibility.
func (s WallSearch) Evaluate(wall float64) Candidate {
	c := Cantilever{Section: HollowRect{s.WidthMM, s.HeightMM, wall}, LengthMM: s.LengthMM, YoungsModulusMPa: s.YoungsModulusMPa}
	cand := Candidate{WallMM: wall, DeflectionMM: c.TipDeflection(s.LoadN), StressMPa: c.MaxBendingStress(s.LoadN)}
	cand.SafetyFactor = s.YieldMPa / cand.StressMPa
	cand.Feasible = cand.DeflectionMM <= s.DeflectionLimitMM && cand.SafetyFactor >= s.SafetyFactor
	return cand
}

// check says what is wrong with the problem as stated.
func (s WallSearch) check() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"width_mm", s.WidthMM}, {"height_mm", s.HeightMM}, {"length_mm", s.LengthMM}, {"load_n", s.LoadN},
		{"youngs_modulus", s.YoungsModulusMPa}, {"yield strength", s.YieldMPa}, {"deflection_limit_mm", s.DeflectionLimitMM},
		{"sf_limit", s.SafetyFactor}, {"tolerance_mm", s.ToleranceMM}, {"min wall", s.MinWallMM}} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s must be a positive number, got %g", f.name, f.v)
		}
	}
	if !(s.MaxWallMM > s.MinWallMM) {
		return fmt.Errorf("the wall range [%g, %g] mm is empty", s.MinWallMM, s.MaxWallMM)
	}
	return HollowRect{s.WidthMM, s.HeightMM, s.MaxWallMM}.Check()
}

// IterationsFor is how many halvings bring the range within the tolerance:
// ceil(log2(range / tolerance)).
func IterationsFor(rangeMM, toleranceMM float64) int {
	return int(math.Ceil(math.Log2(rangeMM / toleranceMM)))
}

// MinimumWall bisects for the thinnest feasible wall. The thickest wall is
// tried first: if it fails, no wall in the range can pass (the constraints
// only loosen as the wall grows), and that is proven, not guessed.
func MinimumWall(s WallSearch) (WallResult, error) {
	if err := s.check(); err != nil {
		return WallResult{}, err
	}
	budget := s.MaxIterations
	if budget == 0 {
		budget = IterationsFor(s.MaxWallMM-s.MinWallMM, s.ToleranceMM)
	}
	res := WallResult{Budget: budget, Candidates: []Candidate{}}
	try := func(w float64) Candidate {
		c := s.Evaluate(w)
		res.Candidates = append(res.Candidates, c)
		return c
	}
	if hi := try(s.MaxWallMM); !hi.Feasible {
		res.Status = Infeasible
		res.Reason = fmt.Sprintf("even the thickest wall, %g mm, fails (tip deflection %.4g mm against %g, safety factor %.3g against %g); thicker walls leave no hollow",
			s.MaxWallMM, hi.DeflectionMM, s.DeflectionLimitMM, hi.SafetyFactor, s.SafetyFactor)
		return res, nil
	}
	lo, hi := s.MinWallMM, s.MaxWallMM
	if c := try(lo); c.Feasible {
		res.Status, res.WallMM = Converged, &lo
		res.Reason = "the thinnest wall allowed already passes"
		return res, nil
	}
	for hi-lo > s.ToleranceMM {
		if res.Iterations >= budget {
			res.Status = OutOfBudget
			res.WallMM = &hi
			res.Reason = fmt.Sprintf("the budget of %d evaluations ran out with the optimum between %g and %g mm", budget, lo, hi)
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
	res.Status, res.WallMM = Converged, &hi
	return res, nil
}
