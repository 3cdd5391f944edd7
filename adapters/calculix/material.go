package calculix

import (
	"github.com/metaforge/metaforge/internal/materials"
	"github.com/metaforge/metaforge/protocol"
)

// MaterialOverride sets or replaces properties of the named material; with
// a name the table lacks it defines a material of its own.
type MaterialOverride struct {
	YoungsModulusGPa *float64 `json:"youngs_modulus_gpa,omitempty"`
	PoissonRatio     *float64 `json:"poisson_ratio,omitempty"`
	DensityKgM3      *float64 `json:"density_kg_m3,omitempty"`
	YieldStrengthMPa *float64 `json:"yield_strength_mpa,omitempty"`
	ConductivityWMK  *float64 `json:"thermal_conductivity_w_mk,omitempty"`
}

// resolveMaterial finds name in the shared table and applies the override.
// An unknown name needs the override to say every property the analysis
// uses (need lists them by JSON name).
func resolveMaterial(name string, o *MaterialOverride, need ...string) (materials.Material, error) {
	m, err := materials.Lookup(name)
	if err != nil {
		if o == nil {
			return materials.Material{}, err
		}
		m = materials.Material{Name: name}
	}
	if o != nil {
		set := func(dst *float64, v *float64) {
			if v != nil {
				*dst = *v
			}
		}
		set(&m.YoungsModulusGPa, o.YoungsModulusGPa)
		set(&m.PoissonRatio, o.PoissonRatio)
		set(&m.DensityKgM3, o.DensityKgM3)
		set(&m.YieldStrengthMPa, o.YieldStrengthMPa)
		set(&m.ConductivityWMK, o.ConductivityWMK)
	}
	for _, n := range need {
		var v float64
		switch n {
		case "youngs_modulus_gpa":
			v = m.YoungsModulusGPa
		case "poisson_ratio":
			v = m.PoissonRatio
			if v <= -1 || v >= 0.5 {
				return m, protocol.Invalid("material %q: poisson_ratio %g must lie in (-1, 0.5)", name, v)
			}
			continue
		case "density_kg_m3":
			v = m.DensityKgM3
		case "thermal_conductivity_w_mk":
			v = m.ConductivityWMK
		}
		if v <= 0 {
			return m, protocol.Invalid("material %q has no %s; give it in material_properties or use a material from the table", name, n)
		}
	}
	return m, nil
}
