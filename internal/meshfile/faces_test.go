package meshfile

import (
	"math"
	"testing"
)

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
