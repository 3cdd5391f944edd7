package tube

import (
	"fmt"
	"math"
	"strings"

	"github.com/metaforge/metaforge/internal/beam"
)

// Decision is a converged wall search as a design decision: what was
// decided, why, and every other candidate with why it lost.
type Decision struct {
	Name, Decision, Rationale string
	Alternatives              []Alternative
}

// Alternative is a candidate the search rejected.
type Alternative struct{ Option, Reason string }

// WallDecision is the converged winner win of search s (result r) on the
// tube at itemRef (KEY@n) as a decision; evidenceID is the evidence the
// search was recorded as.
func WallDecision(itemRef string, t Tube, s beam.TubeSearch, r beam.WallResult, win beam.Candidate, evidenceID string) Decision {
	mm := MMFormat(s.ToleranceMM)
	var alts []Alternative
	for _, c := range r.Candidates {
		if c.Value == win.Value {
			continue
		}
		var why []string
		if c.DeflectionMM > s.DeflectionLimitMM {
			why = append(why, fmt.Sprintf("tip deflection %.4g mm > limit %g mm", c.DeflectionMM, s.DeflectionLimitMM))
		}
		if c.SafetyFactor < s.SafetyFactor {
			why = append(why, fmt.Sprintf("safety factor %.3g < sf_limit %g", c.SafetyFactor, s.SafetyFactor))
		}
		if len(why) == 0 {
			why = append(why, fmt.Sprintf("heavier: mass %.4g kg > winner's %.4g kg", c.MassKg, win.MassKg))
		}
		alts = append(alts, Alternative{Option: "wall " + mm(c.Value) + " mm", Reason: strings.Join(why, "; ")})
	}
	rationale := fmt.Sprintf("The lightest wall of %s (a %g mm long, %g x %g mm %s tube cantilever: E = %g GPa, yield = %g MPa) that keeps "+
		"the tip deflection within %g mm and the safety factor against yield at least %g under a %g N tip load, by closed-form hand "+
		"calculation (delta = F L^3 / (3 E I), sigma = F L (h / 2) / I). Both constraints loosen as the wall thickens and the mass "+
		"grows with it, so the thinnest feasible wall is the minimum-mass one: bisection over [%s, %s] mm to %g mm converged in %d "+
		"iterations. At %s mm the tip deflection is %.4g mm, the safety factor %.3g and the mass %.4g kg. The search is evidence %s.",
		itemRef, t.LengthMM, t.WidthMM, t.HeightMM, t.Mat.Name, t.Mat.YoungsModulusGPa, t.Mat.YieldStrengthMPa,
		s.DeflectionLimitMM, s.SafetyFactor, s.LoadN, mm(s.MinMM), mm(s.MaxMM), s.ToleranceMM, r.Iterations,
		mm(win.Value), win.DeflectionMM, win.SafetyFactor, win.MassKg, evidenceID)
	key, _, _ := strings.Cut(itemRef, "@")
	return Decision{Name: "wall thickness of " + key, Decision: fmt.Sprintf("%s = %s mm", beam.ParamWall, mm(win.Value)),
		Rationale: rationale, Alternatives: alts}
}

// MMFormat writes lengths to one digit finer than the tolerance.
func MMFormat(tol float64) func(float64) string {
	digits := 1
	if tol > 0 && tol < 1 {
		digits = int(math.Ceil(-math.Log10(tol))) + 1
	}
	return func(v float64) string { return fmt.Sprintf("%.*f", digits, v) }
}
