package calculix

import (
	"fmt"
	"math"
	"sort"

	"github.com/metaforge/metaforge/internal/beam"
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
		r.Note = "no FEA value was given, so nothing was compared: the hand calculation alone is not a pass"
	}
}

// BeamRequest is calculix.cross_check_cantilever_beam's arguments.
type BeamRequest struct {
	LengthMM           float64           `json:"length_mm"`
	WidthMM            float64           `json:"width_mm"`
	HeightMM           float64           `json:"height_mm" jsonschema:"Section depth in the load direction."`
	LoadN              float64           `json:"load_n" jsonschema:"Tip load, N."`
	Material           string            `json:"material"`
	MaterialProperties *MaterialOverride `json:"material_properties,omitempty"`
	FEAMaxStressMPa    *float64          `json:"fea_max_stress_mpa,omitempty"`
	FEATipDeflectionMM *float64          `json:"fea_tip_deflection_mm,omitempty"`
	TolerancePct       *float64          `json:"tolerance_pct,omitempty"`
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
		Formula:      "sigma = M c / I = 6 F L / (b h^2); delta = F L^3 / (3 E I), I = b h^3 / 12",
		TolerancePct: tol,
	}
	r.compare("max_bending_stress", "MPa", c.MaxBendingStress(req.LoadN), req.FEAMaxStressMPa)
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

// ConvergencePoint is one mesh's result.
type ConvergencePoint struct {
	ElementSizeMM float64 `json:"element_size_mm"`
	MaxStressMPa  float64 `json:"max_stress_mpa"`
	ElementCount  *int    `json:"element_count,omitempty"`
}

// ConvergenceRequest is calculix.check_mesh_convergence's arguments.
type ConvergenceRequest struct {
	Points       []ConvergencePoint `json:"points"`
	ThresholdPct *float64           `json:"threshold_pct,omitempty"`
}

// ConvergenceResult says whether the peak stress has settled.
type ConvergenceResult struct {
	Points        []ConvergencePoint `json:"points"`
	ChangesPct    []float64          `json:"changes_pct"`
	LastChangePct float64            `json:"last_change_pct"`
	ThresholdPct  float64            `json:"threshold_pct"`
	Converged     bool               `json:"converged"`
	Verdict       string             `json:"verdict"`
}

func checkConvergence(req ConvergenceRequest) (*ConvergenceResult, error) {
	if len(req.Points) < 2 {
		return nil, protocol.Invalid("points needs at least two mesh results (element_size_mm, max_stress_mpa) to compare; got %d", len(req.Points))
	}
	th, err := tolerance(req.ThresholdPct, 5)
	if err != nil {
		return nil, protocol.Invalid("threshold_pct must be positive")
	}
	pts := append([]ConvergencePoint(nil), req.Points...)
	for i, p := range pts {
		if !(p.ElementSizeMM > 0) || !(p.MaxStressMPa > 0) {
			return nil, protocol.Invalid("points[%d]: element_size_mm and max_stress_mpa must be positive", i)
		}
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].ElementSizeMM > pts[j].ElementSizeMM })
	out := &ConvergenceResult{Points: pts, ThresholdPct: th}
	for i := 1; i < len(pts); i++ {
		out.ChangesPct = append(out.ChangesPct, 100*math.Abs(pts[i].MaxStressMPa-pts[i-1].MaxStressMPa)/pts[i-1].MaxStressMPa)
	}
	out.LastChangePct = out.ChangesPct[len(out.ChangesPct)-1]
	out.Converged = out.LastChangePct <= th
	if out.Converged {
		out.Verdict = fmt.Sprintf("converged: refining from %.4g to %.4g mm changed the peak stress by %.2f%%, within %.4g%%", pts[len(pts)-2].ElementSizeMM, pts[len(pts)-1].ElementSizeMM, out.LastChangePct, th)
	} else {
		out.Verdict = fmt.Sprintf("not converged: the last refinement changed the peak stress by %.2f%% (threshold %.4g%%); run a finer mesh, or read stress away from a singularity if it keeps rising", out.LastChangePct, th)
	}
	return out, nil
}
