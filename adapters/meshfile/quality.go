package meshfile

import (
	"math"
)

// Quality is element quality measured from the tetrahedra themselves
// (their corner nodes), as spec 003 asks of a mesh: a mesher's own word
// that it succeeded says nothing of how well the elements are shaped.
type Quality struct {
	// MinAngle is the smallest dihedral angle of any element, degrees
	// (70.53 for a regular tetrahedron).
	MinAngle float64 `json:"min_angle"`
	// MaxAspectRatio is the largest longest-over-shortest edge ratio.
	MaxAspectRatio float64 `json:"max_aspect_ratio"`
	// AvgQuality is the mean radius ratio 3 r_in / R_circ (1 regular, 0
	// flat).
	AvgQuality float64 `json:"avg_quality"`
	// DegenerateElements counts elements whose radius ratio is below
	// DegenerateRadiusRatio (flat or inverted slivers).
	DegenerateElements int  `json:"degenerate_elements"`
	ElementsMeasured   int  `json:"elements_measured"`
	Sampled            bool `json:"sampled"`
}

// Limits of the measurement.
const (
	// DegenerateRadiusRatio is the radius ratio below which an element
	// counts as degenerate.
	DegenerateRadiusRatio = 1e-3
	// MaxMeasured is how many elements are measured at most; above it an
	// even sample is taken.
	MaxMeasured = 200000
)

// MeasureQuality measures the tetrahedra (corner coordinates), an even
// sample of them above MaxMeasured.
func MeasureQuality(tets [][4][3]float64) Quality {
	q := Quality{MinAngle: math.Inf(1)}
	step := 1
	if len(tets) > MaxMeasured {
		step = (len(tets) + MaxMeasured - 1) / MaxMeasured
		q.Sampled = true
	}
	sum := 0.0
	for i := 0; i < len(tets); i += step {
		t := tets[i]
		rr := RadiusRatio(t)
		q.ElementsMeasured++
		sum += rr
		if rr < DegenerateRadiusRatio {
			q.DegenerateElements++
		}
		q.MinAngle = math.Min(q.MinAngle, MinDihedralDeg(t))
		if ar := EdgeAspectRatio(t); !math.IsInf(ar, 1) { // coincident corners: counted as degenerate
			q.MaxAspectRatio = math.Max(q.MaxAspectRatio, ar)
		}
	}
	if q.ElementsMeasured > 0 {
		q.AvgQuality = sum / float64(q.ElementsMeasured)
	}
	if math.IsInf(q.MinAngle, 1) {
		q.MinAngle = 0
	}
	return q
}

func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func length(a [3]float64) float64 { return math.Sqrt(dot(a, a)) }

// faces of a tetrahedron by corner index; faceOpposite[i] is the face
// without corner i.
var faceOpposite = [4][3]int{{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}}

// MinDihedralDeg is the smallest of the six dihedral angles, in degrees;
// 0 for a flat element.
func MinDihedralDeg(t [4][3]float64) float64 {
	var n [4][3]float64
	for i, f := range faceOpposite {
		n[i] = cross(sub(t[f[1]], t[f[0]]), sub(t[f[2]], t[f[0]]))
		l := length(n[i])
		if l == 0 {
			return 0
		}
		// Point every normal outward: away from the opposite corner.
		if dot(n[i], sub(t[i], t[f[0]])) > 0 {
			l = -l
		}
		n[i] = [3]float64{n[i][0] / l, n[i][1] / l, n[i][2] / l}
	}
	best := math.Inf(1)
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			c := math.Max(-1, math.Min(1, -dot(n[i], n[j])))
			best = math.Min(best, math.Acos(c)*180/math.Pi)
		}
	}
	return best
}

// EdgeAspectRatio is the longest edge over the shortest; +Inf when two
// corners coincide.
func EdgeAspectRatio(t [4][3]float64) float64 {
	lo, hi := math.Inf(1), 0.0
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			l := length(sub(t[i], t[j]))
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		}
	}
	if lo == 0 {
		return math.Inf(1)
	}
	return hi / lo
}

// RadiusRatio is 3 r_in / R_circ: 1 for a regular tetrahedron, 0 for a
// flat one.
func RadiusRatio(t [4][3]float64) float64 {
	a, b, c := sub(t[1], t[0]), sub(t[2], t[0]), sub(t[3], t[0])
	vol6 := math.Abs(dot(a, cross(b, c)))
	if vol6 == 0 {
		return 0
	}
	area := 0.0
	for _, f := range faceOpposite {
		area += length(cross(sub(t[f[1]], t[f[0]]), sub(t[f[2]], t[f[0]]))) / 2
	}
	rIn := (vol6 / 2) / area // 3V / A
	// Circumradius: |a^2 (b x c) + b^2 (c x a) + c^2 (a x b)| / (2 * 6V).
	aa, bb, cc := dot(a, a), dot(b, b), dot(c, c)
	bc, ca, ab := cross(b, c), cross(c, a), cross(a, b)
	num := [3]float64{
		aa*bc[0] + bb*ca[0] + cc*ab[0],
		aa*bc[1] + bb*ca[1] + cc*ab[1],
		aa*bc[2] + bb*ca[2] + cc*ab[2],
	}
	rCirc := length(num) / (2 * vol6)
	if rCirc == 0 {
		return 0
	}
	return 3 * rIn / rCirc
}
