package calculix

import (
	"fmt"
	"math"
	"sort"

	"github.com/metaforge/metaforge/protocol"
)

// Mesh convergence by Richardson extrapolation, as Roache's grid
// convergence index (Celik et al., "Procedure for estimation and reporting
// of uncertainty due to discretization in CFD applications", J. Fluids
// Eng. 130, 2008): three meshes give the observed order of convergence p,
// the value extrapolated to zero element size, and the GCI, a 95% band on
// the finest mesh's value. Two meshes cannot tell a quantity that settles
// from one that creeps up without limit, such as the peak stress at a clamp.

// ConvergencePoint is one mesh's value of the quantity.
type ConvergencePoint struct {
	ElementSizeMM float64 `json:"element_size_mm"`
	// Value is the quantity on this mesh. MaxStressMPa is its earlier
	// name, for a peak stress; give one of the two.
	Value        *float64 `json:"value,omitempty" jsonschema:"The quantity on this mesh: a peak stress, a section_stress linearized_peak_mpa, a deflection."`
	MaxStressMPa *float64 `json:"max_stress_mpa,omitempty" jsonschema:"The peak stress on this mesh, MPa (the same as value)."`
	ElementCount *int     `json:"element_count,omitempty"`
	// AtSingularity is run_fea's judgement of this mesh's peak.
	AtSingularity bool `json:"at_singularity,omitempty" jsonschema:"True when run_fea flagged this peak as a likely singularity (max_von_mises_singularity is set)."`
}

// ConvergenceRequest is calculix.check_mesh_convergence's arguments.
type ConvergenceRequest struct {
	Points       []ConvergencePoint `json:"points" jsonschema:"The quantity on three or more meshes of the same part, any order; the three finest are used."`
	Quantity     string             `json:"quantity,omitempty" jsonschema:"What the values are, for the verdict (e.g. peak von Mises, section stress 20 mm from Face1)."`
	ThresholdPct *float64           `json:"threshold_pct,omitempty" jsonschema:"The largest grid convergence index, %, that counts as converged."`
}

// ConvergenceResult says whether the quantity has settled, and where to.
type ConvergenceResult struct {
	Quantity   string             `json:"quantity"`
	Points     []ConvergencePoint `json:"points"`
	ChangesPct []float64          `json:"changes_pct"`
	// RefinementRatios are coarse-to-medium and medium-to-fine sizes.
	RefinementRatios [2]float64 `json:"refinement_ratios"`
	// ObservedOrder is p in value = limit + C h^p; absent when the changes
	// do not shrink (or change sign), which no positive order explains.
	ObservedOrder *float64 `json:"observed_order,omitempty"`
	// Extrapolated is the value at zero element size, and GCIFinePct the
	// band (%) around the finest value that holds it; both absent when
	// there is no limit to extrapolate to.
	Extrapolated *float64 `json:"extrapolated_value,omitempty"`
	GCIFinePct   *float64 `json:"gci_fine_pct,omitempty"`
	ThresholdPct float64  `json:"threshold_pct"`
	// Status is converged, converging (not yet), oscillating or diverging.
	Status    string `json:"status"`
	Converged bool   `json:"converged"`
	Verdict   string `json:"verdict"`
}

// minObservedOrder is the least order at which a sequence counts as
// heading to a limit. Stresses converge as h^1 to h^2 on tetrahedra;
// changes that shrink more slowly than h^0.5 are a quantity that grows
// without bound (a singular stress rises as h^(lambda-1), lambda < 1) seen
// before its asymptote.
const minObservedOrder = 0.5

// noiseFraction of the threshold is a change small enough to count as
// the meshes' scatter rather than a trend.
const noiseFraction = 0.1

// gciSafetyFactor is Roache's for three meshes.
const gciSafetyFactor = 1.25

func checkConvergence(req ConvergenceRequest) (*ConvergenceResult, error) {
	if len(req.Points) < 3 {
		return nil, protocol.Invalid("points needs the quantity on at least three meshes (element_size_mm and value each), got %d: two cannot tell a value that settles from one that keeps rising; run one more mesh", len(req.Points))
	}
	th, err := tolerance(req.ThresholdPct, 5)
	if err != nil {
		return nil, protocol.Invalid("threshold_pct must be positive")
	}
	pts := append([]ConvergencePoint(nil), req.Points...)
	for i := range pts {
		p := &pts[i]
		switch {
		case p.Value != nil && p.MaxStressMPa != nil && *p.Value != *p.MaxStressMPa:
			return nil, protocol.Invalid("points[%d] gives value %g and max_stress_mpa %g: give one", i, *p.Value, *p.MaxStressMPa)
		case p.Value == nil && p.MaxStressMPa == nil:
			return nil, protocol.Invalid("points[%d] has no value: give the quantity on that mesh in value", i)
		case p.Value == nil:
			p.Value = p.MaxStressMPa
		}
		if !(p.ElementSizeMM > 0) || math.IsInf(p.ElementSizeMM, 0) || math.IsNaN(*p.Value) || math.IsInf(*p.Value, 0) {
			return nil, protocol.Invalid("points[%d]: element_size_mm must be positive and value a finite number", i)
		}
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].ElementSizeMM > pts[j].ElementSizeMM })
	for i := 1; i < len(pts); i++ {
		if pts[i].ElementSizeMM == pts[i-1].ElementSizeMM {
			return nil, protocol.Invalid("two points have element_size_mm %g: each mesh must be finer than the last", pts[i].ElementSizeMM)
		}
	}
	quantity := req.Quantity
	if quantity == "" {
		quantity = "the value"
	}
	out := &ConvergenceResult{Quantity: quantity, Points: pts, ThresholdPct: th}
	for i := 1; i < len(pts); i++ {
		prev := *pts[i-1].Value
		change := math.Inf(1)
		if prev != 0 {
			change = 100 * math.Abs(*pts[i].Value-prev) / math.Abs(prev)
		}
		out.ChangesPct = append(out.ChangesPct, change)
	}
	n := len(pts)
	coarse, medium, fine := pts[n-3], pts[n-2], pts[n-1]
	f1, f2, f3 := *fine.Value, *medium.Value, *coarse.Value
	r21, r32 := medium.ElementSizeMM/fine.ElementSizeMM, coarse.ElementSizeMM/medium.ElementSizeMM
	out.RefinementRatios = [2]float64{r32, r21}
	e21, e32 := f1-f2, f2-f3
	sizes := fmt.Sprintf("%.4g, %.4g and %.4g mm", coarse.ElementSizeMM, medium.ElementSizeMM, fine.ElementSizeMM)

	largest := 100 * math.Max(math.Abs(e21), math.Abs(e32)) / math.Abs(f1)
	monotone := e21*e32 > 0
	p, ordered := 0.0, false
	if monotone {
		if p, ordered = observedOrder(math.Abs(e32/e21), r21, r32); ordered {
			out.ObservedOrder = &p
		}
	}
	switch {
	case e21 == 0 && e32 == 0:
		zero := 0.0
		out.Extrapolated, out.GCIFinePct = &f1, &zero
		out.Status = "converged"
		out.Verdict = fmt.Sprintf("converged: %s is the same on the meshes of %s", quantity, sizes)
	case ordered && p >= minObservedOrder:
		rp := math.Pow(r21, p)
		ext := (rp*f1 - f2) / (rp - 1)
		gci := 100 * gciSafetyFactor * math.Abs(e21/f1) / (rp - 1)
		out.Extrapolated, out.GCIFinePct = &ext, &gci
		if gci <= th {
			out.Status = "converged"
			out.Verdict = fmt.Sprintf("converged: %s tends to %.5g (observed order %.2f on the meshes of %s); the finest mesh's %.5g is within %.3g%% of it (grid convergence index), inside %.4g%%", quantity, ext, p, sizes, f1, gci, th)
		} else {
			out.Status = "converging"
			out.Verdict = fmt.Sprintf("not converged yet: %s tends to %.5g (observed order %.2f), but the finest mesh's %.5g may be %.3g%% off (grid convergence index), over %.4g%%; run a finer mesh", quantity, ext, p, f1, gci, th)
		}
	case largest <= th*noiseFraction:
		// Changes this small settle the value whatever their pattern, which
		// at this level is the meshes' own scatter, not an order.
		out.Extrapolated, out.GCIFinePct = &f1, &largest
		out.Status = "converged"
		out.Verdict = fmt.Sprintf("converged: %s changed by at most %.3g%% over the meshes of %s, under a tenth of the %.4g%% threshold: settled to within that, whatever the changes' pattern", quantity, largest, sizes, th)
	case !monotone:
		// The value swings: no order describes it; the swing bounds it.
		out.GCIFinePct = &largest
		out.Status = "oscillating"
		if largest <= th {
			out.Status = "converged"
			out.Verdict = fmt.Sprintf("converged: %s swings by at most %.3g%% over the meshes of %s, within %.4g%%; no order describes a swing, so no value is extrapolated", quantity, largest, sizes, th)
		} else {
			out.Verdict = fmt.Sprintf("not converged: %s swings by %.3g%% over the meshes of %s (threshold %.4g%%); refine further until the swings settle", quantity, largest, sizes, th)
		}
	default:
		out.Status = "diverging"
		order := "no positive order explains changes that do not shrink"
		if ordered {
			order = fmt.Sprintf("observed order %.2f is below %.1f: the changes shrink too slowly to lead anywhere", p, minObservedOrder)
		}
		out.Verdict = fmt.Sprintf("diverging: %s went %.5g, %.5g, %.5g on the meshes of %s; %s, so it has no limit these meshes can find, as a stress at a clamp, a sharp re-entrant corner or a point load has none; read a quantity away from it (run_fea's section_stress)",
			quantity, f3, f2, f1, sizes, order)
	}
	if fine.AtSingularity && out.Status != "diverging" {
		out.Status = "diverging"
		out.Verdict = fmt.Sprintf("diverging: on the finest mesh %s sits at a likely singularity (run_fea's max_von_mises_singularity), where linear elasticity has no finite answer: it rises without limit as the mesh is refined, whatever three meshes suggest (%s); read the stress away from it (run_fea's section_stress)", quantity, out.Verdict)
		out.Extrapolated, out.GCIFinePct = nil, nil
	}
	out.Converged = out.Status == "converged"
	return out, nil
}

// observedOrder solves |e32/e21| = r21^p (r32^p - 1) / (r21^p - 1) for p,
// the order of value = limit + C h^p through three meshes. The right side
// grows with p from ln r32 / ln r21 at p = 0, so a ratio at or below that
// has no positive order: the changes are not shrinking.
func observedOrder(ratio, r21, r32 float64) (float64, bool) {
	g := func(p float64) float64 {
		a, b := math.Pow(r21, p), math.Pow(r32, p)
		return a * (b - 1) / (a - 1)
	}
	if !(ratio > math.Log(r32)/math.Log(r21)) {
		return 0, false
	}
	lo, hi := 1e-9, 1.0
	for g(hi) < ratio {
		hi *= 2
		if hi > 64 {
			return hi, true // faster than any element converges: settled
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if g(mid) < ratio {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, true
}
