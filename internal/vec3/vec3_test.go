package vec3

import (
	"math"
	"testing"
)

func TestArithmetic(t *testing.T) {
	x, y := V{1, 0, 0}, V{0, 1, 0}
	if Cross(x, y) != (V{0, 0, 1}) || Dot(x, y) != 0 || Add(x, y) != (V{1, 1, 0}) || Sub(x, y) != (V{1, -1, 0}) {
		t.Error("the basis vectors do not combine as they should")
	}
	if n := Norm(V{3, 4, 12}); n != 13 {
		t.Errorf("|(3,4,12)| = %g, want 13", n)
	}
	u := Unit(V{0, 0, -5})
	if u != (V{0, 0, -1}) || Unit(V{}) != (V{}) {
		t.Errorf("unit: %v; the zero vector stays zero", u)
	}
	if s := Scale(V{1, 2, 3}, 0.5); math.Abs(s[2]-1.5) > 0 {
		t.Errorf("scale: %v", s)
	}
}
