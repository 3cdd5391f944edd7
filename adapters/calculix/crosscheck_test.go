package calculix

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/protocol"
)

func ptr(f float64) *float64 { return &f }

// The cantilever reference of issue 5: 100 x 10 x 10 mm steel, 1000 N at
// the tip. delta = F L^3 / (3 E I) = 1.905 mm, sigma = 6 F L / (b h^2) =
// 600 MPa.
func TestCrossCheckBeamClosedForm(t *testing.T) {
	r, err := crossCheckBeam(BeamRequest{LengthMM: 100, WidthMM: 10, HeightMM: 10, LoadN: 1000, Material: "steel",
		FEATipDeflectionMM: ptr(1.93), TolerancePct: ptr(3)})
	if err != nil {
		t.Fatal(err)
	}
	stress, defl := r.Comparisons[0], r.Comparisons[1]
	if math.Abs(stress.HandCalc-600) > 1e-9 {
		t.Errorf("bending stress %g, want 600 MPa exactly", stress.HandCalc)
	}
	want := 1000.0 * 1e6 / (3 * 210000 * 10000.0 / 12) // 1.9048 mm
	if math.Abs(defl.HandCalc-want) > 1e-12 || math.Abs(defl.HandCalc-1.905) > 5e-4 {
		t.Errorf("tip deflection %g, want %g (1.905 mm)", defl.HandCalc, want)
	}
	if r.Passed == nil || !*r.Passed || stress.FEA != nil {
		t.Errorf("1.93 mm against 1.905 mm within 3%% must pass, with stress not compared: %+v", r)
	}
	r, _ = crossCheckBeam(BeamRequest{LengthMM: 100, WidthMM: 10, HeightMM: 10, LoadN: 1000, Material: "steel", FEATipDeflectionMM: ptr(2.1), TolerancePct: ptr(3)})
	if r.Passed == nil || *r.Passed {
		t.Errorf("2.1 mm is 10%% off and must fail: %+v", r)
	}
	// No FEA value: nothing is compared, and that is not a pass.
	r, _ = crossCheckBeam(BeamRequest{LengthMM: 100, WidthMM: 10, HeightMM: 10, LoadN: 1000, Material: "steel"})
	if r.Passed != nil || r.Note == "" {
		t.Errorf("with no FEA value passed must be absent and a note say why: %+v", r)
	}
}

// f1 = 1.8751^2 / (2 pi L^2) sqrt(E I / (rho A)): about 835 Hz for the
// steel beam of the issue.
func TestCrossCheckFrequencyClosedForm(t *testing.T) {
	r, err := crossCheckFrequency(FrequencyRequest{LengthMM: 100, WidthMM: 10, HeightMM: 10, Material: "steel", FEAFrequencyHz: ptr(833.35)})
	if err != nil {
		t.Fatal(err)
	}
	f1 := r.Comparisons[0].HandCalc
	E, I, rho, A, L := 210e9, 0.01*math.Pow(0.01, 3)/12, 7850.0, 1e-4, 0.1
	want := 1.875104068711961 * 1.875104068711961 / (2 * math.Pi * L * L) * math.Sqrt(E*I/(rho*A))
	if math.Abs(f1-want)/want > 1e-9 || math.Abs(f1-835) > 1 {
		t.Errorf("f1 %g Hz, want %g (about 835 Hz)", f1, want)
	}
	if !*r.Passed {
		t.Errorf("833.35 Hz is within 5%%: %+v", r)
	}
}

// T_peak = T_sink + Q L / (k A): 10 W through 100 mm of 10 x 10 mm steel
// (k 50 W/m K) rises 200 K.
func TestCrossCheckThermalClosedForm(t *testing.T) {
	r, err := crossCheckThermal(ThermalCheckRequest{HeatLoadW: 10, LengthMM: 100, AreaMM2: 100, Material: "steel", FEAPeakC: ptr(221)})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Comparisons[0]
	if math.Abs(c.HandCalc-220) > 1e-9 {
		t.Errorf("peak %g, want 220 degC", c.HandCalc)
	}
	if math.Abs(*c.ErrorPct-0.5) > 1e-9 || !*r.Passed {
		t.Errorf("221 against 220 is 0.5%% of the 200 K rise and passes at 2%%: %+v", c)
	}
}

func TestCrossChecksRefuseBadInput(t *testing.T) {
	if _, err := crossCheckBeam(BeamRequest{LengthMM: -1, WidthMM: 10, HeightMM: 10, LoadN: 1, Material: "steel"}); err == nil || !strings.Contains(err.Error(), "length_mm") {
		t.Errorf("negative length: %v", err)
	}
	if _, err := crossCheckBeam(BeamRequest{LengthMM: 1, WidthMM: 10, HeightMM: 10, LoadN: 1, Material: "unobtainium"}); err == nil || !strings.Contains(err.Error(), "steel") {
		t.Errorf("unknown material must list the table: %v", err)
	}
	if _, err := crossCheckThermal(ThermalCheckRequest{HeatLoadW: 1, LengthMM: 1, AreaMM2: 1, Material: "x", MaterialProperties: &MaterialOverride{}}); err == nil || !strings.Contains(err.Error(), "thermal_conductivity_w_mk") {
		t.Errorf("a custom material without conductivity: %v", err)
	}
	r, err := crossCheckThermal(ThermalCheckRequest{HeatLoadW: 1, LengthMM: 1000, AreaMM2: 1000, Material: "custom", MaterialProperties: &MaterialOverride{ConductivityWMK: ptr(1)}})
	if err != nil || math.Abs(r.Comparisons[0].HandCalc-(20+1000)) > 1e-9 {
		t.Errorf("a custom material: %v %+v", err, r)
	}
}

func points(hv ...float64) []ConvergencePoint {
	var out []ConvergencePoint
	for i := 0; i+1 < len(hv); i += 2 {
		out = append(out, ConvergencePoint{ElementSizeMM: hv[i], Value: ptr(hv[i+1])})
	}
	return out
}

// Richardson extrapolation on sequences whose limit and order are known
// because they are made from value = limit + C h^p.
func TestMeshConvergenceRichardson(t *testing.T) {
	seq := func(limit, c, p float64, hs ...float64) []ConvergencePoint {
		var hv []float64
		for _, h := range hs {
			hv = append(hv, h, limit+c*math.Pow(h, p))
		}
		return points(hv...)
	}
	// 100 + 0.5 h^2 at h = 4, 2, 1 (given out of order): p = 2 and the
	// limit 100 exactly; GCI = 1.25 |e21/f1| / (2^2 - 1) = 1.25 (1.5/100.5) / 3 = 0.622%.
	r, err := checkConvergence(ConvergenceRequest{Points: seq(100, 0.5, 2, 2, 4, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Points[0].ElementSizeMM != 4 || r.Points[2].ElementSizeMM != 1 {
		t.Errorf("points are sorted coarse to fine: %+v", r.Points)
	}
	if r.Status != "converged" || !r.Converged || math.Abs(*r.ObservedOrder-2) > 1e-6 || math.Abs(*r.Extrapolated-100) > 1e-9 ||
		math.Abs(*r.GCIFinePct-1.25*1.5/100.5/3*100) > 1e-6 {
		t.Errorf("100 + 0.5 h^2: %+v (p %v, limit %v, gci %v)", r, *r.ObservedOrder, *r.Extrapolated, *r.GCIFinePct)
	}
	// The same order with a large constant: GCI 1.25 (150/150) / 3 = 41.7%, not yet converged.
	r, _ = checkConvergence(ConvergenceRequest{Points: seq(100, 50, 2, 4, 2, 1)})
	if r.Status != "converging" || r.Converged || math.Abs(*r.Extrapolated-100) > 1e-9 {
		t.Errorf("100 + 50 h^2: %+v", r)
	}
	// Unequal refinement ratios (5 -> 2 -> 1.25 mm) recover p = 1.5.
	r, _ = checkConvergence(ConvergenceRequest{Points: seq(200, -1, 1.5, 5, 2, 1.25)})
	if math.Abs(*r.ObservedOrder-1.5) > 1e-6 || math.Abs(*r.Extrapolated-200) > 1e-9 {
		t.Errorf("200 - h^1.5 on 5, 2, 1.25 mm: p %v, limit %v", *r.ObservedOrder, *r.Extrapolated)
	}
	// A singular value, 100 h^-0.3, grows without limit: no positive order.
	r, _ = checkConvergence(ConvergenceRequest{Points: seq(0, 100, -0.3, 5, 2, 1.25)})
	if r.Status != "diverging" || r.Converged || r.ObservedOrder != nil || r.Extrapolated != nil {
		t.Errorf("100 h^-0.3: %+v", r)
	}
	// Issue 20's clamp peaks (116.8, 125.6, 129.5 MPa at 5, 2, 1.25 mm):
	// the last change is 3.1%, under 5%, but the observed order is 0.21.
	r, _ = checkConvergence(ConvergenceRequest{Points: points(5, 116.8, 2, 125.6, 1.25, 129.5)})
	if r.Status != "diverging" || math.Abs(*r.ObservedOrder-0.209) > 0.005 || !strings.Contains(r.Verdict, "observed order 0.21") {
		t.Errorf("issue 20's clamp peaks: %+v", r)
	}
	// A peak run_fea flagged as a singularity is diverging whatever the order.
	pts := points(5, 234.8, 2, 252.8, 1.25, 256.1)
	pts[2].AtSingularity = true
	r, _ = checkConvergence(ConvergenceRequest{Points: pts, Quantity: "peak von Mises"})
	if r.Status != "diverging" || r.Extrapolated != nil || !strings.Contains(r.Verdict, "singularity") {
		t.Errorf("a flagged peak: %+v", r)
	}
	// Swings: 100, 104, 101 is within 5%; 100, 120, 95 is not.
	if r, _ = checkConvergence(ConvergenceRequest{Points: points(4, 100, 2, 104, 1, 101)}); r.Status != "converged" || r.ObservedOrder != nil {
		t.Errorf("a small swing: %+v", r)
	}
	if r, _ = checkConvergence(ConvergenceRequest{Points: points(4, 100, 2, 120, 1, 95)}); r.Status != "oscillating" || r.Converged {
		t.Errorf("a large swing: %+v", r)
	}
	// Scatter under a tenth of the threshold is settled, whatever its pattern.
	if r, _ = checkConvergence(ConvergenceRequest{Points: points(5, 108.00, 2, 108.01, 1.25, 108.03)}); r.Status != "converged" {
		t.Errorf("scatter of 0.02%%: %+v", r)
	}
	// The earlier name of the value still works.
	old := []ConvergencePoint{{ElementSizeMM: 4, MaxStressMPa: ptr(108.0)}, {ElementSizeMM: 2, MaxStressMPa: ptr(102.0)}, {ElementSizeMM: 1, MaxStressMPa: ptr(100.5)}}
	if r, err = checkConvergence(ConvergenceRequest{Points: old}); err != nil || math.Abs(*r.Extrapolated-100) > 1e-9 {
		t.Errorf("max_stress_mpa: %v %+v", err, r)
	}
}

func TestMeshConvergenceBadInput(t *testing.T) {
	for name, c := range map[string]struct {
		pts  []ConvergencePoint
		want string
	}{
		"two meshes":    {points(4, 500, 2, 600), "at least three meshes"},
		"no value":      {append(points(4, 500, 2, 600), ConvergencePoint{ElementSizeMM: 1}), "points[2] has no value"},
		"same size":     {points(4, 500, 2, 600, 2, 610), "each mesh must be finer"},
		"both names":    {append(points(4, 500, 2, 600), ConvergencePoint{ElementSizeMM: 1, Value: ptr(1.0), MaxStressMPa: ptr(2.0)}), "give one"},
		"negative size": {points(4, 500, 2, 600, -1, 610), "element_size_mm must be positive"},
	} {
		_, err := checkConvergence(ConvergenceRequest{Points: c.pts})
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want INVALID_PARAMS mentioning %q, got %v", name, c.want, err)
		}
	}
}
