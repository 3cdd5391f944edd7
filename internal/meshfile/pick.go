package meshfile

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// PickAngleDeg is how far a face's normal may lean from the one asked for
// and still be picked: loose enough for a face meshed from a slightly
// drafted or filleted part, tight enough to tell a face from its neighbour
// around a right-angled edge.
const PickAngleDeg = 10

// Pick finds a face by geometry, as a load case names it: among the faces
// whose outward normal is within PickAngleDeg of normal, the one nearest
// point (the distance from the point to the face's bounding box), or, with
// no point, the one furthest out along normal. Face names (Face<n>) change
// whenever the part's topology does; its geometry is what stays.
func (t Table) Pick(normal [3]float64, point *[3]float64) (Face, error) {
	n, ok := unitVector(normal)
	if !ok {
		return Face{}, fmt.Errorf("normal %v has no direction", normal)
	}
	cosMax := math.Cos(PickAngleDeg * math.Pi / 180)
	type candidate struct {
		face  Face
		score float64 // smaller is better
	}
	var cands []candidate
	for _, f := range t.Faces {
		fn, ok := unitVector(f.Normal)
		if !ok || dot(fn, n) < cosMax {
			continue
		}
		score := -dot(f.CentroidMM, n)
		if point != nil {
			score = boxDistance(f.BBoxMM, *point)
		}
		cands = append(cands, candidate{f, score})
	}
	if len(cands) == 0 {
		var seen []string
		for _, f := range t.Faces {
			seen = append(seen, fmt.Sprintf("%s normal %s", f.Name, vector(f.Normal)))
		}
		return Face{}, fmt.Errorf("no face has an outward normal within %d degrees of %s; the faces are: %s", PickAngleDeg, vector(normal), strings.Join(seen, "; "))
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score < cands[j].score
		}
		return cands[i].face.AreaMM2 > cands[j].face.AreaMM2
	})
	return cands[0].face, nil
}

func unitVector(v [3]float64) ([3]float64, bool) {
	m := math.Sqrt(dot(v, v))
	if m < 1e-12 || math.IsNaN(m) {
		return v, false
	}
	return [3]float64{v[0] / m, v[1] / m, v[2] / m}, true
}

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// boxDistance is how far p lies outside box (0 inside it).
func boxDistance(b BBox, p [3]float64) float64 {
	var s float64
	for k := range 3 {
		d := math.Max(b.Min[k]-p[k], math.Max(0, p[k]-b.Max[k]))
		s += d * d
	}
	return math.Sqrt(s)
}

func vector(v [3]float64) string {
	return fmt.Sprintf("[%.3g, %.3g, %.3g]", v[0], v[1], v[2])
}
