package flows

import (
	"math"
	"strings"
	"testing"
)

// A mass a part holds, carries or supports is its weight, m x g_n
// (g_n = 9.80665 m/s^2): 20 kg is 196.133 N. A stated force or pressure is
// kept as stated. Each load gives a draft load case in N or MPa.
func TestIntentLoadsInEngineeringUnits(t *testing.T) {
	for _, c := range []struct {
		goal          string
		magnitude     float64
		unit, stated  string
		forceN, presM float64
	}{
		{"A wall bracket that holds a 20 kg shelf", 196.133, "N", "20 kg", 196.133, 0},
		{"A hook that carries 500 g", 4.903325, "N", "500 g", 4.903325, 0},
		{"A bracket that supports a 10 lb lamp", 10 * 0.45359237 * 9.80665, "N", "10 lb", 10 * 0.45359237 * 9.80665, 0},
		{"A mount that must take a 500 N side load", 500, "N", "", 500, 0},
		{"A lid that bears 2 kN", 2, "kN", "", 2000, 0},
		{"A panel loaded by 0.2 MPa pressure", 0.2, "MPa", "", 0, 0.2},
	} {
		it := CompileIntent(c.goal, "")
		if len(it.Loads) != 1 {
			t.Errorf("%q: loads %+v, want one", c.goal, it.Loads)
			continue
		}
		l := it.Loads[0]
		if math.Abs(l.Magnitude-c.magnitude) > 1e-6 || l.Unit != c.unit || l.Stated != c.stated {
			t.Errorf("%q: load %+v, want %g %s (stated %q)", c.goal, l, c.magnitude, c.unit, c.stated)
		}
		if c.stated != "" && !strings.Contains(l.Conversion, "9.80665 m/s^2") {
			t.Errorf("%q: the conversion is not shown: %q", c.goal, l.Conversion)
		}
		if len(it.LoadCaseDrafts) != 1 {
			t.Errorf("%q: drafts %+v, want one", c.goal, it.LoadCaseDrafts)
			continue
		}
		d := it.LoadCaseDrafts[0]
		switch {
		case c.forceN > 0 && (d.ForceN == nil || math.Abs(*d.ForceN-c.forceN) > 1e-6 || d.PressureMPa != nil):
			t.Errorf("%q: draft %+v, want force_n %g", c.goal, d, c.forceN)
		case c.presM > 0 && (d.PressureMPa == nil || math.Abs(*d.PressureMPa-c.presM) > 1e-9 || d.ForceN != nil):
			t.Errorf("%q: draft %+v, want pressure_mpa %g", c.goal, d, c.presM)
		}
		for _, k := range it.Constraints {
			if k.Metric == "load" && (k.Unit != c.unit || math.Abs(*k.Limit-c.magnitude) > 1e-6) {
				t.Errorf("%q: the load constraint %+v disagrees with the load", c.goal, k)
			}
		}
	}
	// Issue 30's shelf: 196.1 N to the tenth.
	if it := CompileIntent("holds a 20 kg shelf", ""); len(it.Loads) != 1 || math.Round(it.Loads[0].Magnitude*10)/10 != 196.1 {
		t.Errorf("holds a 20 kg shelf: %+v", it.Loads)
	}
}
