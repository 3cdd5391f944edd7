package fieldview

import (
	"math"
	"slices"

	"github.com/metaforge/metaforge/internal/vec3"
)

// MaxMarkerPoints is how many of a set's nodes a marker carries: enough to
// show which face it covers, few enough to stay small on a fine mesh.
const MaxMarkerPoints = 400

// Set is a node set the result's boundary conditions name: a fixture (the
// fixed face, a heat sink) or a load (the loaded face, a heat source).
type Set struct {
	Name string
	// Role is fixed, load, heat_source or sink.
	Role  string
	Nodes []int
	// Direction is a load's unit direction; Magnitude and Unit its size
	// (50 N, 10 W); absent for a fixture.
	Direction []float64
	Magnitude *float64
	Unit      string
}

// Marker is where a set is drawn: its centroid, the outward normal and
// area of the surface it covers, and some of its nodes.
type Marker struct {
	Name       string     `json:"name"`
	Role       string     `json:"role"`
	Nodes      int        `json:"nodes"`
	CentroidMM [3]float64 `json:"centroid_mm"`
	// Normal is the area-weighted outward unit normal of the outer faces
	// whose corners all lie in the set; zero when none do.
	Normal  [3]float64 `json:"normal"`
	AreaMM2 float64    `json:"area_mm2"`
	// Points are up to MaxMarkerPoints of its nodes (x, y, z each), with
	// their Displacements when the result has them.
	Points        []float32 `json:"points_mm"`
	Displacements []float32 `json:"displacements_mm,omitempty"`
	Direction     []float64 `json:"direction,omitempty"`
	Magnitude     *float64  `json:"magnitude,omitempty"`
	Unit          string    `json:"unit,omitempty"`
}

func (s Set) marker(m Mesh, faces []outerFace, disp map[int][3]float64) Marker {
	ids := slices.Clone(s.Nodes)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := Marker{Name: s.Name, Role: s.Role, Direction: s.Direction, Magnitude: s.Magnitude, Unit: s.Unit}
	in := make(map[int]bool, len(ids))
	var sum vec3.V
	for _, id := range ids {
		if p, ok := m.Nodes[id]; ok {
			in[id] = true
			sum = vec3.Add(sum, p)
			out.Nodes++
		}
	}
	if out.Nodes > 0 {
		out.CentroidMM = vec3.Scale(sum, 1/float64(out.Nodes))
	}
	var normal vec3.V
	for _, f := range faces {
		all := true
		for _, c := range f.corners[:f.n] {
			all = all && in[c]
		}
		if !all {
			continue
		}
		for _, t := range f.coarse() {
			a, b, c := m.Nodes[t[0]], m.Nodes[t[1]], m.Nodes[t[2]]
			n := vec3.Cross(vec3.Sub(b, a), vec3.Sub(c, a))
			normal = vec3.Add(normal, n)
			out.AreaMM2 += vec3.Norm(n) / 2
		}
	}
	if l := vec3.Norm(normal); l > 0 {
		out.Normal = vec3.Scale(normal, 1/l)
	}
	step := int(math.Ceil(float64(out.Nodes) / MaxMarkerPoints))
	for i, id := range ids {
		if !in[id] || i%max(step, 1) != 0 {
			continue
		}
		p := m.Nodes[id]
		out.Points = append(out.Points, float32(p[0]), float32(p[1]), float32(p[2]))
		if disp != nil {
			u := disp[id]
			out.Displacements = append(out.Displacements, float32(u[0]), float32(u[1]), float32(u[2]))
		}
	}
	return out
}
