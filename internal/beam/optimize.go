package beam

import "math"

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

// Candidate is one value of the searched parameter tried: a wall
// thickness (WallSearch, or a TubeSearch of the wall) or a section height
// (a TubeSearch of the height).
type Candidate struct {
	// Value is the searched parameter's value, mm: the wall for a wall
	// search, the height for a height search.
	Value        float64 `json:"value"`
	WallMM       float64 `json:"wall_thickness_mm"`
	HeightMM     float64 `json:"height_mm"`
	DeflectionMM float64 `json:"tip_deflection_mm"`
	StressMPa    float64 `json:"max_bending_stress_mpa"`
	SafetyFactor float64 `json:"safety_factor"`
	// MassKg is the beam's mass; only when the search has a density.
	MassKg   float64 `json:"mass_kg,omitempty"`
	Feasible bool    `json:"feasible"`
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
	// Parameter is what was searched: ParamWall or ParamHeight.
	Parameter string `json:"parameter,omitempty"`
	// Value is the smallest feasible value of the parameter found (the
	// interval's upper end); absent unless one is feasible.
	Value *float64 `json:"value,omitempty"`
	// WallMM is the thinnest feasible wall found (the interval's upper
	// end); absent unless one is feasible, and for a height search.
	WallMM *float64 `json:"wall_thickness_mm,omitempty"`
	// Iterations counts the halvings; Candidates also holds the two
	// bounds tried first.
	Iterations int         `json:"iterations"`
	Budget     int         `json:"max_iterations"`
	Candidates []Candidate `json:"candidates"`
	Reason     string      `json:"reason,omitempty"`
}

// Evaluate is one candidate wall's deflection, stress and feasibility.
func (s WallSearch) Evaluate(wall float64) Candidate { return s.Tube().Evaluate(wall) }

// Tube is the same problem as a TubeSearch of the wall thickness.
func (s WallSearch) Tube() TubeSearch {
	return TubeSearch{Parameter: ParamWall, WidthMM: s.WidthMM, HeightMM: s.HeightMM, LengthMM: s.LengthMM, LoadN: s.LoadN,
		YoungsModulusMPa: s.YoungsModulusMPa, YieldMPa: s.YieldMPa, DeflectionLimitMM: s.DeflectionLimitMM,
		SafetyFactor: s.SafetyFactor, MinMM: s.MinWallMM, MaxMM: s.MaxWallMM, ToleranceMM: s.ToleranceMM,
		MaxIterations: s.MaxIterations}
}

// IterationsFor is how many halvings bring the range within the tolerance:
// ceil(log2(range / tolerance)).
func IterationsFor(rangeMM, toleranceMM float64) int {
	return int(math.Ceil(math.Log2(rangeMM / toleranceMM)))
}

// MinimumWall bisects for the thinnest feasible wall. The thickest wall is
// tried first: if it fails, no wall in the range can pass (the constraints
// only loosen as the wall grows), and that is proven, not guessed. It is
// MinimumTube of the wall thickness.
func MinimumWall(s WallSearch) (WallResult, error) { return MinimumTube(s.Tube()) }
