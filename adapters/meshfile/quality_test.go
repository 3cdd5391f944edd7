package meshfile

import (
	"math"
	"testing"
)

// A regular tetrahedron: every dihedral angle is arccos(1/3) = 70.5288
// degrees, the radius ratio and the edge aspect ratio are 1.
func TestQualityOfRegularTetrahedron(t *testing.T) {
	reg := [4][3]float64{{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}}
	if got, want := MinDihedralDeg(reg), math.Acos(1.0/3)*180/math.Pi; math.Abs(got-want) > 1e-9 {
		t.Errorf("min dihedral %g, want %g", got, want)
	}
	if got := RadiusRatio(reg); math.Abs(got-1) > 1e-12 {
		t.Errorf("radius ratio %g, want 1", got)
	}
	if got := EdgeAspectRatio(reg); math.Abs(got-1) > 1e-12 {
		t.Errorf("aspect ratio %g, want 1", got)
	}
	// The corner tetrahedron of a unit cube: dihedral angles 90 and
	// arccos(1/sqrt 3) = 54.7356; aspect sqrt 2.
	corner := [4][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	if got, want := MinDihedralDeg(corner), math.Acos(1/math.Sqrt(3))*180/math.Pi; math.Abs(got-want) > 1e-9 {
		t.Errorf("corner tet min dihedral %g, want %g", got, want)
	}
	if got := EdgeAspectRatio(corner); math.Abs(got-math.Sqrt2) > 1e-12 {
		t.Errorf("corner tet aspect %g, want sqrt 2", got)
	}
}

func TestQualityCountsFlatElementsAsDegenerate(t *testing.T) {
	flat := [4][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}
	reg := [4][3]float64{{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}}
	q := MeasureQuality([][4][3]float64{reg, flat})
	if q.DegenerateElements != 1 || q.ElementsMeasured != 2 || q.MinAngle != 0 {
		t.Errorf("one flat element of two: %+v", q)
	}
	if math.Abs(q.AvgQuality-0.5) > 1e-12 {
		t.Errorf("mean radius ratio %g, want (1 + 0) / 2", q.AvgQuality)
	}
}

// Above MaxMeasured elements an even sample is measured.
func TestQualitySamplesLargeMeshes(t *testing.T) {
	reg := [4][3]float64{{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}}
	tets := make([][4][3]float64, MaxMeasured*2+1)
	for i := range tets {
		tets[i] = reg
	}
	q := MeasureQuality(tets)
	if !q.Sampled || q.ElementsMeasured > MaxMeasured || q.ElementsMeasured < MaxMeasured/2 {
		t.Errorf("sample: %+v", q)
	}
}

// Consistent weights: a quadratic triangle's corners carry nothing and
// its mid-sides a third each; a linear one's corners a third each.
func TestConsistentWeights(t *testing.T) {
	area := func(a, b, c int) float64 { return 2 }
	f := Face{Name: "F", Triangles: [][]int{{1, 2, 3, 4, 5, 6}}}
	w, err := f.ConsistentWeights(area)
	if err != nil {
		t.Fatal(err)
	}
	if w[1] != 0 || math.Abs(w[4]-1.0/3) > 1e-15 || len(w) != 3 {
		t.Errorf("quadratic weights %v", w)
	}
	f = Face{Name: "F", Triangles: [][]int{{1, 2, 3}, {2, 3, 4}}}
	w, _ = f.ConsistentWeights(area)
	if math.Abs(w[2]-1.0/3) > 1e-15 || math.Abs(w[1]-1.0/6) > 1e-15 {
		t.Errorf("linear weights %v", w)
	}
	if _, err := (Face{Name: "F", Triangles: [][]int{{1, 2}}}).ConsistentWeights(area); err == nil {
		t.Error("a two-node surface element is refused")
	}
}
