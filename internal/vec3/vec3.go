// Package vec3 is the little 3-vector arithmetic the mesh and FEA adapters
// and the twin's geometry values share: points and directions in
// millimetres as [3]float64.
package vec3

import "math"

// V is a point or direction.
type V = [3]float64

// Sub is a - b.
func Sub(a, b V) V { return V{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Add is a + b.
func Add(a, b V) V { return V{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Scale is a times s.
func Scale(a V, s float64) V { return V{a[0] * s, a[1] * s, a[2] * s} }

// Dot is the scalar product.
func Dot(a, b V) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Norm is the length.
func Norm(a V) float64 { return math.Sqrt(Dot(a, a)) }

// Cross is the vector product.
func Cross(a, b V) V {
	return V{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Unit is a scaled to length 1, or zero when a has no length.
func Unit(a V) V {
	if n := Norm(a); n > 0 {
		return Scale(a, 1/n)
	}
	return V{}
}
