// Package beam holds the closed-form cantilever models in one place: a
// solid or hollow rectangular section with a tip load, the hand
// calculations FEA results are checked against and design loops search
// over. Units: mm, N, MPa (N/mm^2), kg/m^3.
package beam

import (
	"fmt"
	"math"
)

// Section is a beam's cross-section. Height is the depth in the load
// direction.
type Section interface {
	// SecondMoment is I about the bending axis, mm^4.
	SecondMoment() float64
	// Area is the cross-section's area, mm^2.
	Area() float64
	// Depth is the section's depth in the load direction, mm.
	Depth() float64
}

// Rect is a solid rectangle.
type Rect struct{ Width, Height float64 }

// SecondMoment is b h^3 / 12.
func (r Rect) SecondMoment() float64 { return r.Width * r.Height * r.Height * r.Height / 12 }

// Area is b h.
func (r Rect) Area() float64 { return r.Width * r.Height }

// Depth is h.
func (r Rect) Depth() float64 { return r.Height }

// HollowRect is a rectangular tube of uniform wall thickness.
type HollowRect struct{ Width, Height, Wall float64 }

// Check says what is wrong with a tube's dimensions: a wall must be
// positive and leave a hollow.
func (h HollowRect) Check() error {
	switch {
	case !(h.Width > 0) || !(h.Height > 0):
		return fmt.Errorf("width %g and height %g must be positive", h.Width, h.Height)
	case !(h.Wall > 0):
		return fmt.Errorf("wall thickness %g must be positive", h.Wall)
	case 2*h.Wall >= math.Min(h.Width, h.Height):
		return fmt.Errorf("wall thickness %g leaves no hollow in a %g x %g tube (it must be under %g)", h.Wall, h.Width, h.Height, math.Min(h.Width, h.Height)/2)
	}
	return nil
}

func (h HollowRect) inner() Rect { return Rect{h.Width - 2*h.Wall, h.Height - 2*h.Wall} }

// SecondMoment is the outer rectangle's less the hollow's.
func (h HollowRect) SecondMoment() float64 {
	return Rect{h.Width, h.Height}.SecondMoment() - h.inner().SecondMoment()
}

// Area is the outer rectangle's less the hollow's.
func (h HollowRect) Area() float64 { return Rect{h.Width, h.Height}.Area() - h.inner().Area() }

// Depth is the outer height.
func (h HollowRect) Depth() float64 { return h.Height }

// Cantilever is a beam of one section fixed at one end, loaded at the
// other.
type Cantilever struct {
	Section Section
	// LengthMM is the span from the fixed end to the load.
	LengthMM float64
	// YoungsModulusMPa is E in N/mm^2.
	YoungsModulusMPa float64
}

// TipDeflection is F L^3 / (3 E I), mm, for a tip load F in N.
func (c Cantilever) TipDeflection(F float64) float64 {
	return F * c.LengthMM * c.LengthMM * c.LengthMM / (3 * c.YoungsModulusMPa * c.Section.SecondMoment())
}

// MaxBendingStress is M c / I at the fixed end, MPa: F L (depth / 2) / I.
func (c Cantilever) MaxBendingStress(F float64) float64 {
	return F * c.LengthMM * (c.Section.Depth() / 2) / c.Section.SecondMoment()
}

// BendingStressAt is M c / I at distance x (mm) from the fixed end, MPa:
// F (L - x) (depth / 2) / I. It is what the FEA's section stress there
// must match, where the clamp's singular peak need not.
func (c Cantilever) BendingStressAt(F, x float64) float64 {
	return F * (c.LengthMM - x) * (c.Section.Depth() / 2) / c.Section.SecondMoment()
}

// MassKg is the beam's mass for a density in kg/m^3.
func (c Cantilever) MassKg(densityKgM3 float64) float64 {
	return c.Section.Area() * c.LengthMM * 1e-9 * densityKgM3
}

// beta1L is the first root of cos(x) cosh(x) = -1: the clamped-free beam's
// first bending mode.
const beta1L = 1.8751040687119611

// FirstFrequencyHz is the first bending mode, (beta1 L)^2 / (2 pi L^2)
// sqrt(E I / (rho A)), for a density in kg/m^3.
func (c Cantilever) FirstFrequencyHz(densityKgM3 float64) float64 {
	EI := c.YoungsModulusMPa * c.Section.SecondMoment()
	rhoA := densityKgM3 * 1e-12 * c.Section.Area() // tonne/mm^3 * mm^2
	return beta1L * beta1L / (2 * math.Pi * c.LengthMM * c.LengthMM) * math.Sqrt(EI/rhoA)
}
