package physics_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/metaforge/metaforge/adapters/physics"
)

const aluminium = 2700.0 // kg/m^3

// A compound pendulum: a 40 x 40 x 300 mm aluminium bar hanging from a
// horizontal pivot (Y) 120 mm above its centre, on a fixed support,
// released at 10 degrees. Its small-swing period is 2 pi sqrt(I / (m g d))
// with I about the pivot = m (a^2 + L^2) / 12 + m d^2 (the bar's own
// inertia about its centre, for the swing in the XZ plane, moved to the
// pivot); at 10 degrees the true period is longer by about theta^2/16 =
// 0.19%, well inside the 2% asked. PyBullet's default link damping is set
// to 0 by the tool, so the swing also keeps its amplitude.
func TestPendulumSwingsWithTheCompoundPendulumPeriod(t *testing.T) {
	const (
		a, L, d = 0.04, 0.3, 0.12 // bar section side (along X), length (Z), pivot to centre, m
		g       = 9.81
	)
	bar := box{size: [3]float64{a, a, L}, at: [3]float64{0, 0, -d}, density: aluminium}
	urdf := writeFile(t, "pendulum/pendulum.urdf", robotXML("pendulum",
		[]link{{name: "support", boxes: []box{{size: [3]float64{0.05, 0.05, 0.05}, density: aluminium}}},
			{name: "bar", boxes: []box{bar}}},
		[]joint{{name: "pivot", kind: "continuous", parent: "support", child: "bar", origin: [3]float64{0, 0, 1}, axis: [3]float64{0, 1, 0}}}))
	m := bar.mass()
	iPivot := m*(a*a+L*L)/12 + m*d*d
	period := 2 * math.Pi * math.Sqrt(iPivot/(m*g*d))

	args := map[string]any{"urdf_file": urdf, "duration_s": 3.0, "initial_positions": map[string]any{"pivot": 10.0}, "sample_rate_hz": 240.0}
	out := call(t, physics.ToolRunSimulation, args)
	times := floats(t, out["times_s"])
	pivot := jointNamed(t, out, "pivot")
	theta := floats(t, pivot["position"])
	if pivot["unit"] != "deg" || pivot["type"] != "continuous" || pivot["driven"] != false {
		t.Errorf("pivot: %v %v driven=%v; want a free continuous joint in deg", pivot["type"], pivot["unit"], pivot["driven"])
	}
	if len(times) != 721 || len(theta) != len(times) || theta[0] != 10 {
		t.Fatalf("want 721 samples from 10 deg (3 s at 240 Hz, t = 0 included), got %d times, %d positions, first %v", len(times), len(theta), theta[0])
	}
	// Zero crossings, each placed between its two samples by linear
	// interpolation; a period spans two.
	var crossings []float64
	for i := 1; i < len(theta); i++ {
		if (theta[i-1] > 0) != (theta[i] > 0) {
			crossings = append(crossings, times[i-1]+(times[i]-times[i-1])*theta[i-1]/(theta[i-1]-theta[i]))
		}
	}
	if len(crossings) < 5 {
		t.Fatalf("only %d zero crossings in 3 s: %v", len(crossings), crossings)
	}
	measured := 2 * (crossings[len(crossings)-1] - crossings[0]) / float64(len(crossings)-1)
	near(t, "pendulum period (s)", measured, period, 0.02)
	// No damping: the last second swings as wide as the release.
	peak := 0.0
	for i, th := range theta {
		if times[i] >= 2 {
			peak = math.Max(peak, math.Abs(th))
		}
	}
	near(t, "amplitude in the last second (deg)", peak, 10, 0.01)

	// Deterministic: the same call gives the same numbers, bit for bit.
	again := call(t, physics.ToolRunSimulation, args)
	if !reflect.DeepEqual(out, again) {
		t.Errorf("a second run of the same call differs")
	}
}
