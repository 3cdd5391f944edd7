package calculix

import (
	"fmt"
	"math"

	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/internal/materials"
	"github.com/metaforge/metaforge/protocol"
)

// The hand calculations FEA results are checked against: each one
// textbook case, compared within a tolerance.

// Comparison is one quantity, by hand and by FEA.
type Comparison struct {
	Quantity  string   `json:"quantity"`
	Unit      string   `json:"unit"`
	HandCalc  float64  `json:"hand_calc"`
	FEA       *float64 `json:"fea,omitempty"`
	ErrorPct  *float64 `json:"error_pct,omitempty"`
	WithinTol *bool    `json:"within_tolerance,omitempty"`
	// Note says why a value given was not compared.
	Note string `json:"note,omitempty"`
}

// CrossCheckResult is what every cross check returns.
type CrossCheckResult struct {
	Method       string       `json:"method"`
	Formula      string       `json:"formula"`
	TolerancePct float64      `json:"tolerance_pct"`
	Comparisons  []Comparison `json:"comparisons"`
	// Passed is true when every compared quantity is within tolerance,
	// false when one is not, and absent when nothing was compared: no
	// data is not a pass.
	Passed *bool  `json:"passed,omitempty"`
	Note   string `json:"note,omitempty"`
	// Material is the figures the closed form used: the same table, and
	// the same overrides, run_fea uses.
	Material materials.Material `json:"material"`
}

func (r *CrossCheckResult) compare(q, unit string, hand float64, fea *float64) {
	c := Comparison{Quantity: q, Unit: unit, HandCalc: hand}
	if fea != nil {
		e := 100 * (*fea - hand) / hand
		ok := math.Abs(e) <= r.TolerancePct
		c.FEA, c.ErrorPct, c.WithinTol = fea, &e, &ok
		pass := ok && (r.Passed == nil || *r.Passed)
		r.Passed = &pass
	}
	r.Comparisons = append(r.Comparisons, c)
}

func (r *CrossCheckResult) finish() {
	if r.Passed == nil {
		r.Note = "no FEA value that can be compared was given, so nothing was compared: the hand calculation alone is not a pass"
	}
}

// BeamRequest is calculix.cross_check_cantilever_beam's arguments.
type BeamRequest struct {
	LengthMM            float64           `json:"length_mm"`
	WidthMM             float64           `json:"width_mm"`
	HeightMM            float64           `json:"height_mm" jsonschema:"Section depth in the load direction."`
	LoadN               float64           `json:"load_n" jsonschema:"Tip load, N."`
	Material            string            `json:"material"`
	MaterialProperties  *MaterialOverride `json:"material_properties,omitempty"`
	FEAMaxStressMPa     *float64          `json:"fea_max_stress_mpa,omitempty" jsonschema:"run_fea's peak von Mises: reported beside 6FL/(bh^2) but not compared, since a cantilever's peak sits at the clamp, a singularity."`
	FEASectionStressMPa *float64          `json:"fea_section_stress_mpa,omitempty" jsonschema:"run_fea's section_stress linearized_peak_mpa: compared with F (L - x) c / I at section_distance_mm."`
	SectionDistanceMM   *float64          `json:"section_distance_mm,omitempty" jsonschema:"Distance x of that section from the fixed end (section_stress distance_from_support_mm), mm."`
	FEATipDeflectionMM  *float64          `json:"fea_tip_deflection_mm,omitempty"`
	TolerancePct        *float64          `json:"tolerance_pct,omitempty"`
}

func positive(pairs ...any) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if v := pairs[i+1].(float64); !(v > 0) || math.IsInf(v, 0) {
			return protocol.Invalid("%s must be a positive number, got %g", pairs[i], v)
		}
	}
	return nil
}

func tolerance(t *float64, def float64) (float64, error) {
	if t == nil {
		return def, nil
	}
	if !(*t > 0) {
		return 0, protocol.Invalid("tolerance_pct must be positive, got %g", *t)
	}
	return *t, nil
}

func crossCheckBeam(req BeamRequest) (*CrossCheckResult, error) {
	if err := positive("length_mm", req.LengthMM, "width_mm", req.WidthMM, "height_mm", req.HeightMM, "load_n", req.LoadN); err != nil {
		return nil, err
	}
	tol, err := tolerance(req.TolerancePct, 5)
	if err != nil {
		return nil, err
	}
	mat, err := resolveMaterial(req.Material, req.MaterialProperties, "youngs_modulus_gpa")
	if err != nil {
		return nil, err
	}
	c := beam.Cantilever{Section: beam.Rect{Width: req.WidthMM, Height: req.HeightMM}, LengthMM: req.LengthMM,
		YoungsModulusMPa: mat.YoungsModulusGPa * gpaToMPa}
	r := &CrossCheckResult{
		Method:       "Euler-Bernoulli cantilever, tip load, rectangular section (height in the load direction)",
		Formula:      "sigma(x) = M c / I = 6 F (L - x) / (b h^2) at distance x from the clamp; delta = F L^3 / (3 E I), I = b h^3 / 12",
		TolerancePct: tol,
		Material:     mat,
	}
	if req.FEASectionStressMPa != nil {
		if req.SectionDistanceMM == nil {
			return nil, protocol.Invalid("fea_section_stress_mpa needs section_distance_mm: the section's distance from the fixed end (run_fea's section_stress distance_from_support_mm)")
		}
		if x := *req.SectionDistanceMM; !(x >= 0) || x >= req.LengthMM {
			return nil, protocol.Invalid("section_distance_mm %g must lie between 0 and length_mm %g", x, req.LengthMM)
		}
		r.compare(fmt.Sprintf("bending_stress_at_%gmm", *req.SectionDistanceMM), "MPa", c.BendingStressAt(req.LoadN, *req.SectionDistanceMM), req.FEASectionStressMPa)
	} else if req.SectionDistanceMM != nil {
		return nil, protocol.Invalid("section_distance_mm is given without fea_section_stress_mpa: give the section's linearized_peak_mpa too, or leave both out")
	}
	if req.FEAMaxStressMPa != nil {
		hand := c.MaxBendingStress(req.LoadN)
		e := 100 * (*req.FEAMaxStressMPa - hand) / hand
		r.Comparisons = append(r.Comparisons, Comparison{Quantity: "max_bending_stress_at_clamp", Unit: "MPa", HandCalc: hand, FEA: req.FEAMaxStressMPa, ErrorPct: &e,
			Note: "not compared: the FEA peak of a cantilever sits at the clamp, a stress singularity that rises as the mesh is refined (the finer the mesh, the worse it would compare); give run_fea's section_stress linearized_peak_mpa as fea_section_stress_mpa with its distance_from_support_mm as section_distance_mm"})
	} else {
		r.Comparisons = append(r.Comparisons, Comparison{Quantity: "max_bending_stress_at_clamp", Unit: "MPa", HandCalc: c.MaxBendingStress(req.LoadN)})
	}
	r.compare("tip_deflection", "mm", c.TipDeflection(req.LoadN), req.FEATipDeflectionMM)
	r.finish()
	return r, nil
}

// FrequencyRequest is calculix.cross_check_cantilever_frequency's arguments.
type FrequencyRequest struct {
	LengthMM           float64           `json:"length_mm"`
	WidthMM            float64           `json:"width_mm"`
	HeightMM           float64           `json:"height_mm" jsonschema:"Section depth in the bending direction."`
	Material           string            `json:"material"`
	MaterialProperties *MaterialOverride `json:"material_properties,omitempty"`
	FEAFrequencyHz     *float64          `json:"fea_frequency_hz,omitempty" jsonschema:"The first bending mode from a modal run_fea."`
	TolerancePct       *float64          `json:"tolerance_pct,omitempty"`
}

func crossCheckFrequency(req FrequencyRequest) (*CrossCheckResult, error) {
	if err := positive("length_mm", req.LengthMM, "width_mm", req.WidthMM, "height_mm", req.HeightMM); err != nil {
		return nil, err
	}
	tol, err := tolerance(req.TolerancePct, 5)
	if err != nil {
		return nil, err
	}
	mat, err := resolveMaterial(req.Material, req.MaterialProperties, "youngs_modulus_gpa", "density_kg_m3")
	if err != nil {
		return nil, err
	}
	c := beam.Cantilever{Section: beam.Rect{Width: req.WidthMM, Height: req.HeightMM}, LengthMM: req.LengthMM,
		YoungsModulusMPa: mat.YoungsModulusGPa * gpaToMPa}
	f1 := c.FirstFrequencyHz(mat.DensityKgM3)
	r := &CrossCheckResult{
		Method:       "Euler-Bernoulli clamped-free beam, first bending mode (height in the bending direction)",
		Formula:      "f1 = (beta1 L)^2 / (2 pi L^2) sqrt(E I / (rho A)), beta1 L = 1.8751",
		TolerancePct: tol,
		Material:     mat,
	}
	r.compare("first_bending_frequency", "Hz", f1, req.FEAFrequencyHz)
	r.finish()
	return r, nil
}

// ThermalCheckRequest is calculix.cross_check_thermal_steady_state's
// arguments.
type ThermalCheckRequest struct {
	HeatLoadW          float64           `json:"heat_load_w"`
	LengthMM           float64           `json:"length_mm" jsonschema:"Conduction path length from source face to sink face."`
	AreaMM2            float64           `json:"area_mm2" jsonschema:"Cross-section of the bar."`
	SinkTemperatureC   *float64          `json:"sink_temperature_c,omitempty"`
	Material           string            `json:"material"`
	MaterialProperties *MaterialOverride `json:"material_properties,omitempty"`
	FEAPeakC           *float64          `json:"fea_peak_temperature_c,omitempty"`
	TolerancePct       *float64          `json:"tolerance_pct,omitempty"`
}

func crossCheckThermal(req ThermalCheckRequest) (*CrossCheckResult, error) {
	if err := positive("heat_load_w", req.HeatLoadW, "length_mm", req.LengthMM, "area_mm2", req.AreaMM2); err != nil {
		return nil, err
	}
	tol, err := tolerance(req.TolerancePct, 2)
	if err != nil {
		return nil, err
	}
	mat, err := resolveMaterial(req.Material, req.MaterialProperties, "thermal_conductivity_w_mk")
	if err != nil {
		return nil, err
	}
	sink := 20.0
	if req.SinkTemperatureC != nil {
		sink = *req.SinkTemperatureC
	}
	// Q L / (k A) with L in m and A in m^2.
	rise := req.HeatLoadW * (req.LengthMM * 1e-3) / (mat.ConductivityWMK * req.AreaMM2 * 1e-6)
	r := &CrossCheckResult{
		Method:       "1D steady conduction through a uniform bar to a fixed-temperature sink",
		Formula:      "T_peak = T_sink + Q L / (k A)",
		TolerancePct: tol,
		Material:     mat,
	}
	// The error is taken on the temperature rise: a percentage of an
	// absolute temperature would shrink with the sink's offset.
	c := Comparison{Quantity: "peak_temperature", Unit: "degC", HandCalc: sink + rise}
	if req.FEAPeakC != nil {
		e := 100 * ((*req.FEAPeakC - sink) - rise) / rise
		ok := math.Abs(e) <= tol
		c.FEA, c.ErrorPct, c.WithinTol = req.FEAPeakC, &e, &ok
		r.Passed = &ok
		r.Note = fmt.Sprintf("error_pct is of the temperature rise above the sink (%.4g K by hand)", rise)
	}
	r.Comparisons = append(r.Comparisons, c)
	r.finish()
	return r, nil
}
