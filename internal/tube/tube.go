// Package tube is a rectangular tube cantilever as the twin's tube tools
// and design loops compute on it: fixed at one end, loaded at the other,
// with its span, section, uniform wall and material. It holds the closed
// forms they quote, the minimum-mass wall search they run (internal/beam's
// bisection, its defaults filled in), the decision a converged search
// makes, and the one-at-a-time sensitivity of a margin to each parameter.
// It knows nothing of the twin, MCP or Temporal.
package tube

import (
	"fmt"
	"math"

	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/internal/materials"
)

// Tube is a rectangular tube cantilever: x the length, y the width, z the
// height (its depth in the load direction).
type Tube struct {
	LengthMM, WidthMM, HeightMM, WallMM float64
	// Material is the material as the design names it; Mat is its row in
	// the materials table.
	Material string
	Mat      materials.Material
}

// YoungsMPa is the material's Young's modulus in N/mm^2.
func (t Tube) YoungsMPa() float64 { return t.Mat.YoungsModulusGPa * 1000 }

// Cantilever is the tube as a beam, with its wall, length and material
// as given.
func (t Tube) Cantilever(wallMM, lengthMM float64, m materials.Material) beam.Cantilever {
	return beam.Cantilever{Section: beam.HollowRect{Width: t.WidthMM, Height: t.HeightMM, Wall: wallMM}, LengthMM: lengthMM,
		YoungsModulusMPa: m.YoungsModulusGPa * 1000}
}

// Formulas are the closed forms the tube tools compute with: b the width,
// h the height, t the wall, L the length, F the tip load.
var Formulas = map[string]string{
	"second_moment_mm4":      "I = (b h^3 - (b - 2t)(h - 2t)^3) / 12",
	"tip_deflection_mm":      "delta = F L^3 / (3 E I)",
	"max_bending_stress_mpa": "sigma = F L (h / 2) / I",
	"safety_factor":          "SF = yield / sigma",
	"mass_kg":                "m = rho (b h - (b - 2t)(h - 2t)) L",
}

// WallLimits are what a minimum-mass wall search must keep, and where it
// looks; a nil bound takes its default.
type WallLimits struct {
	LoadN, DeflectionLimitMM float64
	// SafetyFactor defaults to 1.5; MinMM to 0.5; MaxMM to just under
	// half the smaller of width and height; ToleranceMM to 0.01.
	SafetyFactor, MinMM, MaxMM, ToleranceMM *float64
	// MaxIterations 0 is enough for the tolerance.
	MaxIterations int
}

// WallSearch is the bisection for the tube's minimum-mass wall under l.
// It fails when the material has no figure the search needs.
func (t Tube) WallSearch(l WallLimits) (beam.TubeSearch, error) {
	s := beam.TubeSearch{Parameter: beam.ParamWall, WidthMM: t.WidthMM, HeightMM: t.HeightMM, LengthMM: t.LengthMM,
		LoadN: l.LoadN, YoungsModulusMPa: t.YoungsMPa(), YieldMPa: t.Mat.YieldStrengthMPa, DeflectionLimitMM: l.DeflectionLimitMM,
		SafetyFactor: 1.5, DensityKgM3: t.Mat.DensityKgM3, MinMM: 0.5, MaxMM: math.Min(t.WidthMM, t.HeightMM)/2 - 0.01,
		ToleranceMM: 0.01, MaxIterations: l.MaxIterations}
	for _, o := range []struct {
		from *float64
		into *float64
	}{{l.SafetyFactor, &s.SafetyFactor}, {l.MinMM, &s.MinMM}, {l.MaxMM, &s.MaxMM}, {l.ToleranceMM, &s.ToleranceMM}} {
		if o.from != nil {
			*o.into = *o.from
		}
	}
	if !(s.YieldMPa > 0) || !(s.YoungsModulusMPa > 0) || !(s.DensityKgM3 > 0) {
		return beam.TubeSearch{}, fmt.Errorf("material %s has no yield strength, Young's modulus or density in the materials table", t.Mat.Name)
	}
	return s, nil
}
