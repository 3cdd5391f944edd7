package meshfile

import (
	"github.com/metaforge/metaforge/internal/vec3"
	"math"
	"testing"
)

// regular is a regular tetrahedron of edge 2√2 (alternate corners of a
// cube), positively oriented.
var regular = [4]vec3.V{{1, 1, 1}, {-1, 1, -1}, {1, -1, -1}, {-1, -1, 1}}

func TestRegularTetrahedron(t *testing.T) {
	if v := vec3.Dot(vec3.Cross(vec3.Sub(regular[1], regular[0]), vec3.Sub(regular[2], regular[0])), vec3.Sub(regular[3], regular[0])); v <= 0 {
		t.Fatalf("fixture is not positively oriented (6V = %g)", v)
	}
	s := measureTet(regular)
	want := math.Acos(1.0/3) * 180 / math.Pi // 70.5288°
	if s.degenerate || math.Abs(s.minDihedral-want) > 1e-9 || math.Abs(want-70.5288) > 1e-4 {
		t.Errorf("min dihedral %.10g°, want arccos(1/3) = %.10g°", s.minDihedral, want)
	}
	if math.Abs(s.radiusRatio-1) > 1e-12 {
		t.Errorf("radius ratio %.15g, want 1", s.radiusRatio)
	}
	if math.Abs(s.aspect-1) > 1e-12 {
		t.Errorf("aspect ratio %.15g, want 1", s.aspect)
	}
}

// The corner tetrahedron (0,0,0),(1,0,0),(0,1,0),(0,0,1): three right
// dihedral angles at the origin and arccos(1/√3) = 54.7356° at the others;
// edges 1 and √2; r_in = 1/(3+√3), R_circ = √3/2.
func TestCornerTetrahedron(t *testing.T) {
	s := measureTet([4]vec3.V{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
	if want := math.Acos(1/math.Sqrt(3)) * 180 / math.Pi; math.Abs(s.minDihedral-want) > 1e-9 {
		t.Errorf("min dihedral %.10g°, want %.10g°", s.minDihedral, want)
	}
	if math.Abs(s.aspect-math.Sqrt2) > 1e-12 {
		t.Errorf("aspect ratio %.15g, want √2", s.aspect)
	}
	if want := 3 * (1 / (3 + math.Sqrt(3))) / (math.Sqrt(3) / 2); math.Abs(s.radiusRatio-want) > 1e-12 {
		t.Errorf("radius ratio %.15g, want %.15g", s.radiusRatio, want)
	}
}

func TestDegenerateTetrahedra(t *testing.T) {
	for name, p := range map[string][4]vec3.V{
		"flat":        {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}},
		"nearly flat": {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 1e-7}},
		"inverted":    {regular[0], regular[2], regular[1], regular[3]},
		"collapsed":   {{0, 0, 0}, {0, 0, 0}, {0, 1, 0}, {0, 0, 1}},
	} {
		if s := measureTet(p); !s.degenerate {
			t.Errorf("%s tetrahedron is not degenerate: %+v", name, s)
		}
	}
}

func TestMeasureMesh(t *testing.T) {
	flat := [4]vec3.V{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}
	q := MeasureQuality(4, func(i int) [4]vec3.V {
		if i == 3 {
			return flat
		}
		return regular
	})
	if q.ElementsMeasured != 4 || q.Sampled || q.DegenerateElements != 1 {
		t.Errorf("measured %+v, want 4 elements, 1 degenerate, no sample", q)
	}
	if math.Abs(q.AvgQuality-0.75) > 1e-12 || math.Abs(q.MaxAspectRatio-1) > 1e-12 || math.Abs(q.MinAngle-70.5288) > 1e-4 {
		t.Errorf("measured %+v, want avg 0.75 (the flat one scores 0), aspect 1, angle 70.5288", q)
	}

	// Above maxMeasured an even sample is taken: every 5th of 1,000,000.
	n := 5 * maxMeasured
	seen := 0
	q = MeasureQuality(n, func(i int) [4]vec3.V {
		if i%5 != 0 {
			t.Fatalf("element %d measured: not an even sample", i)
		}
		seen++
		return regular
	})
	if !q.Sampled || q.ElementsMeasured != maxMeasured || seen != maxMeasured {
		t.Errorf("sample %+v after %d calls, want %d measured and sampled", q, seen, maxMeasured)
	}
}
