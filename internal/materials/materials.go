// Package materials is the one table of engineering materials every adapter
// reads: CAD mass from density, FEA stiffness and mass, thermal
// conductivity. Values are room-temperature handbook figures (MatWeb and
// ASM datasheets for the named grades); a tool that needs a value a
// material does not have says so rather than guessing one.
package materials

import (
	"sort"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// Material is one row of the table, in SI-style engineering units.
type Material struct {
	Name string `json:"name"`
	// DensityKgM3 is the mass density, kg/m^3.
	DensityKgM3 float64 `json:"density_kg_m3"`
	// YoungsModulusGPa is the elastic modulus, GPa.
	YoungsModulusGPa float64 `json:"youngs_modulus_gpa"`
	PoissonRatio     float64 `json:"poisson_ratio"`
	// YieldStrengthMPa is the tensile yield (0.2% offset) strength, MPa.
	YieldStrengthMPa float64 `json:"yield_strength_mpa"`
	// ConductivityWMK is the thermal conductivity, W/(m K).
	ConductivityWMK float64 `json:"thermal_conductivity_w_mk"`
}

// table holds the materials by canonical name.
var table = map[string]Material{
	"steel":              {Name: "steel", DensityKgM3: 7850, YoungsModulusGPa: 210, PoissonRatio: 0.30, YieldStrengthMPa: 250, ConductivityWMK: 50},
	"stainless_304":      {Name: "stainless_304", DensityKgM3: 8000, YoungsModulusGPa: 193, PoissonRatio: 0.29, YieldStrengthMPa: 215, ConductivityWMK: 16.2},
	"aluminum_6061_t6":   {Name: "aluminum_6061_t6", DensityKgM3: 2700, YoungsModulusGPa: 68.9, PoissonRatio: 0.33, YieldStrengthMPa: 276, ConductivityWMK: 167},
	"titanium_ti6al4v":   {Name: "titanium_ti6al4v", DensityKgM3: 4430, YoungsModulusGPa: 113.8, PoissonRatio: 0.342, YieldStrengthMPa: 880, ConductivityWMK: 6.7},
	"copper_c110":        {Name: "copper_c110", DensityKgM3: 8890, YoungsModulusGPa: 115, PoissonRatio: 0.31, YieldStrengthMPa: 69, ConductivityWMK: 388},
	"brass_c360":         {Name: "brass_c360", DensityKgM3: 8500, YoungsModulusGPa: 97, PoissonRatio: 0.31, YieldStrengthMPa: 124, ConductivityWMK: 115},
	"abs":                {Name: "abs", DensityKgM3: 1040, YoungsModulusGPa: 2.3, PoissonRatio: 0.35, YieldStrengthMPa: 40, ConductivityWMK: 0.17},
	"pla":                {Name: "pla", DensityKgM3: 1240, YoungsModulusGPa: 3.5, PoissonRatio: 0.36, YieldStrengthMPa: 60, ConductivityWMK: 0.13},
	"petg":               {Name: "petg", DensityKgM3: 1270, YoungsModulusGPa: 2.1, PoissonRatio: 0.38, YieldStrengthMPa: 50, ConductivityWMK: 0.20},
	"nylon_pa12":         {Name: "nylon_pa12", DensityKgM3: 1010, YoungsModulusGPa: 1.7, PoissonRatio: 0.39, YieldStrengthMPa: 48, ConductivityWMK: 0.25},
	"fr4":                {Name: "fr4", DensityKgM3: 1850, YoungsModulusGPa: 24, PoissonRatio: 0.12, YieldStrengthMPa: 310, ConductivityWMK: 0.3},
	"carbon_fiber_quasi": {Name: "carbon_fiber_quasi", DensityKgM3: 1600, YoungsModulusGPa: 70, PoissonRatio: 0.10, YieldStrengthMPa: 600, ConductivityWMK: 5},
}

// aliases are other names people use for a row.
var aliases = map[string]string{
	"structural_steel": "steel", "mild_steel": "steel", "steel_1018": "steel", "s235": "steel",
	"stainless": "stainless_304", "stainless_steel": "stainless_304", "ss304": "stainless_304", "304": "stainless_304",
	"aluminum": "aluminum_6061_t6", "aluminium": "aluminum_6061_t6", "al6061": "aluminum_6061_t6", "6061": "aluminum_6061_t6",
	"aluminum_6061": "aluminum_6061_t6", "aluminium_6061": "aluminum_6061_t6", "6061_t6": "aluminum_6061_t6",
	"titanium": "titanium_ti6al4v", "ti6al4v": "titanium_ti6al4v", "ti_6al_4v": "titanium_ti6al4v",
	"copper": "copper_c110", "brass": "brass_c360",
	"nylon": "nylon_pa12", "pa12": "nylon_pa12",
	"carbon_fiber": "carbon_fiber_quasi", "cfrp": "carbon_fiber_quasi",
}

func normalise(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	return strings.NewReplacer(" ", "_", "-", "_", "/", "_").Replace(n)
}

// Lookup finds a material by name or alias, case and separators ignored.
// An unknown name is INVALID_PARAMS listing the names there are.
func Lookup(name string) (Material, error) {
	n := normalise(name)
	if canon, ok := aliases[n]; ok {
		n = canon
	}
	if m, ok := table[n]; ok {
		return m, nil
	}
	return Material{}, protocol.Invalid("material %q is not in the materials table; use one of: %s", name, strings.Join(Names(), ", "))
}

// Names lists the canonical names, sorted.
func Names() []string {
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// All returns every row, sorted by name.
func All() []Material {
	out := make([]Material, 0, len(table))
	for _, n := range Names() {
		out = append(out, table[n])
	}
	return out
}

// MassKg is the mass of volumeMM3 cubic millimetres of m.
func (m Material) MassKg(volumeMM3 float64) float64 { return volumeMM3 * 1e-9 * m.DensityKgM3 }
