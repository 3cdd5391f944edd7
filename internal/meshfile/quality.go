package meshfile

import (
	"github.com/metaforge/metaforge/internal/vec3"
	"math"
)

// maxMeasured is the most elements quality is measured on; a larger mesh
// is measured on an even sample of this many.
const maxMeasured = 200_000

// degenerateVolume is the signed volume, relative to the cube of the
// longest edge, at or below which a tetrahedron counts as degenerate. A
// regular tetrahedron has 1/(6√2) ≈ 0.118; an inverted one is negative.
const degenerateVolume = 1e-6

// Quality is a mesh result's quality_metrics: the shape of the tetrahedra,
// measured from their corner nodes. Degenerate elements are counted and score
// 0 in AvgQuality; MinAngle and MaxAspectRatio are over the others.
type Quality struct {
	// MinAngle is the smallest dihedral angle, degrees (regular: 70.53).
	MinAngle float64 `json:"min_angle"`
	// MaxAspectRatio is the largest longest-over-shortest edge ratio.
	MaxAspectRatio float64 `json:"max_aspect_ratio"`
	// AvgQuality is the mean radius ratio 3·r_in/R_circ (regular: 1).
	AvgQuality         float64 `json:"avg_quality"`
	DegenerateElements int     `json:"degenerate_elements"`
	ElementsMeasured   int     `json:"elements_measured"`
	Sampled            bool    `json:"sampled"`
}

// tetShape is the quality of one tetrahedron.
type tetShape struct {
	minDihedral float64 // degrees
	aspect      float64
	radiusRatio float64
	degenerate  bool
}

// tetEdges are the corner pairs of a tetrahedron's six edges, each with
// the two corners off the edge.
var tetEdges = [6][4]int{{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 1, 2}, {1, 2, 0, 3}, {1, 3, 0, 2}, {2, 3, 0, 1}}

// measureTet measures one tetrahedron from its corners.
func measureTet(p [4]vec3.V) tetShape {
	var length [6]float64
	lmin, lmax := math.Inf(1), 0.0
	for e, ed := range tetEdges {
		length[e] = vec3.Norm(vec3.Sub(p[ed[1]], p[ed[0]]))
		lmin, lmax = math.Min(lmin, length[e]), math.Max(lmax, length[e])
	}
	volume := vec3.Dot(vec3.Cross(vec3.Sub(p[1], p[0]), vec3.Sub(p[2], p[0])), vec3.Sub(p[3], p[0])) / 6
	if lmin <= 0 || volume <= degenerateVolume*lmax*lmax*lmax {
		return tetShape{degenerate: true}
	}
	s := tetShape{minDihedral: 180, aspect: lmax / lmin}
	for _, ed := range tetEdges {
		// The dihedral angle at an edge is the angle between the two
		// off-edge corners projected onto the plane normal to the edge.
		e := vec3.Unit(vec3.Sub(p[ed[1]], p[ed[0]]))
		u, w := vec3.Sub(p[ed[2]], p[ed[0]]), vec3.Sub(p[ed[3]], p[ed[0]])
		u, w = vec3.Sub(u, vec3.Scale(e, vec3.Dot(u, e))), vec3.Sub(w, vec3.Scale(e, vec3.Dot(w, e)))
		angle := math.Atan2(vec3.Norm(vec3.Cross(u, w)), vec3.Dot(u, w)) * 180 / math.Pi
		s.minDihedral = math.Min(s.minDihedral, angle)
	}
	faceArea := 0.0
	for k := range 4 {
		a, b, c := p[(k+1)%4], p[(k+2)%4], p[(k+3)%4]
		faceArea += vec3.Norm(vec3.Cross(vec3.Sub(b, a), vec3.Sub(c, a))) / 2
	}
	inradius := 3 * volume / faceArea
	// Circumradius from the products of opposite edges' lengths:
	// R = √((aA+bB+cC)(aA+bB−cC)(aA−bB+cC)(−aA+bB+cC)) / 24V.
	x, y, z := length[0]*length[5], length[1]*length[4], length[2]*length[3]
	circumradius := math.Sqrt(math.Max(0, (x+y+z)*(x+y-z)*(x-y+z)*(-x+y+z))) / (24 * volume)
	if circumradius > 0 {
		s.radiusRatio = math.Min(1, 3*inradius/circumradius)
	}
	return s
}

// MeasureQuality measures n tetrahedra, corners(i) giving element i's corner
// coordinates: all of them up to maxMeasured, else an even sample of
// maxMeasured.
func MeasureQuality(n int, corners func(i int) [4]vec3.V) Quality {
	measured := min(n, maxMeasured)
	q := Quality{ElementsMeasured: measured, Sampled: measured < n}
	if measured == 0 {
		return q
	}
	q.MinAngle = 180
	sum, good := 0.0, 0
	for k := range measured {
		s := measureTet(corners(int(int64(k) * int64(n) / int64(measured))))
		if s.degenerate {
			q.DegenerateElements++
			continue
		}
		good++
		sum += s.radiusRatio
		q.MinAngle = math.Min(q.MinAngle, s.minDihedral)
		q.MaxAspectRatio = math.Max(q.MaxAspectRatio, s.aspect)
	}
	if good == 0 {
		q.MinAngle = 0
	}
	q.AvgQuality = sum / float64(measured)
	return q
}
