package calculix

import (
	"math"
	"strings"
	"testing"
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

func TestMeshConvergence(t *testing.T) {
	r, err := checkConvergence(ConvergenceRequest{Points: []ConvergencePoint{{ElementSizeMM: 2, MaxStressMPa: 610}, {ElementSizeMM: 8, MaxStressMPa: 500}, {ElementSizeMM: 4, MaxStressMPa: 590}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Points[0].ElementSizeMM != 8 || r.Points[2].ElementSizeMM != 2 {
		t.Errorf("points are sorted coarse to fine: %+v", r.Points)
	}
	want := 100 * 20.0 / 590
	if math.Abs(r.LastChangePct-want) > 1e-9 || !r.Converged {
		t.Errorf("last change %g%%, want %g%% and converged at 5%%", r.LastChangePct, want)
	}
	r, _ = checkConvergence(ConvergenceRequest{Points: []ConvergencePoint{{ElementSizeMM: 4, MaxStressMPa: 500}, {ElementSizeMM: 2, MaxStressMPa: 600}}})
	if r.Converged || !strings.Contains(r.Verdict, "not converged") {
		t.Errorf("20%% change is not converged: %+v", r)
	}
	if _, err := checkConvergence(ConvergenceRequest{Points: []ConvergencePoint{{ElementSizeMM: 4, MaxStressMPa: 500}}}); err == nil {
		t.Error("one point cannot show convergence")
	}
}
