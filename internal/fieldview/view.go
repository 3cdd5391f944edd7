package fieldview

import (
	"fmt"
	"math"
	"sort"
)

// Field is one nodal result: a value at each node, and, when the result
// has them, each node's displacement (for the deformed shape).
type Field struct {
	Name     string
	Quantity string
	Unit     string
	Values   map[int]float64
	// Displacements are the nodes' displacement vectors in the mesh's
	// units; nil for a result without them (a thermal one).
	Displacements map[int][3]float64
}

// View is what the browser draws, in flat arrays: vertex i is node
// NodeIDs[i] at Positions[3i:3i+3] (undeformed), with Values[i] and
// Displacements[3i:3i+3]; Indices are the triangles, three vertices each,
// wound so their normals point out of the part. Numbers are float32: a
// screen cannot show more.
type View struct {
	Field    string `json:"field"`
	Quantity string `json:"quantity"`
	Unit     string `json:"unit"`
	// MeshNodes and MeshElements are the whole mesh's; SurfaceTriangles
	// the outer surface's at full detail; Triangles those drawn, at most
	// TriangleCap; Detail says what was kept.
	MeshNodes        int    `json:"mesh_nodes"`
	MeshElements     int    `json:"mesh_elements"`
	SurfaceTriangles int    `json:"surface_triangles"`
	Triangles        int    `json:"triangles"`
	TriangleCap      int    `json:"triangle_cap"`
	Detail           string `json:"detail"`

	NodeIDs       []int     `json:"node_ids"`
	Positions     []float32 `json:"positions"`
	Indices       []int32   `json:"indices"`
	Values        []float32 `json:"values"`
	Displacements []float32 `json:"displacements,omitempty"`

	// Min and Max are over every node of the mesh, inside ones included:
	// Max is the result's peak.
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Peak Extreme `json:"peak"`
	// MaxDisplacement is the largest displacement, for the deformed
	// shape's scale; nil without displacements.
	MaxDisplacement *Extreme `json:"max_displacement,omitempty"`
	BBoxMM          Box      `json:"bbox_mm"`
	// Markers are the result's fixtures and loads.
	Markers []Marker `json:"markers"`
}

// Extreme is a value and the node it is at.
type Extreme struct {
	Value  float64     `json:"value"`
	Node   int         `json:"node"`
	AtMM   [3]float64  `json:"at_mm"`
	DispMM *[3]float64 `json:"displacement_mm,omitempty"`
}

// Box is an axis-aligned box.
type Box struct {
	Min [3]float64 `json:"min"`
	Max [3]float64 `json:"max"`
}

// Build makes the view of field f on mesh m, at most limit triangles
// (DefaultTriangleCap when limit is 0), with a marker for each set.
func Build(m Mesh, f Field, limit int, sets []Set) (*View, error) {
	if limit <= 0 {
		limit = DefaultTriangleCap
	}
	if len(f.Values) == 0 {
		return nil, fmt.Errorf("the %s field has no values", f.Name)
	}
	faces, err := surface(m)
	if err != nil {
		return nil, err
	}
	if len(faces) == 0 {
		return nil, fmt.Errorf("the mesh has no outer surface")
	}
	tris, full, detail := triangles(faces, m.Nodes, f.Values, limit)
	v := &View{Field: f.Name, Quantity: f.Quantity, Unit: f.Unit, MeshNodes: len(m.Nodes), MeshElements: len(m.Elements),
		SurfaceTriangles: full, Triangles: len(tris), TriangleCap: limit, Detail: detail}
	index := map[int]int32{}
	for _, t := range tris {
		for _, id := range t {
			i, ok := index[id]
			if !ok {
				i = int32(len(v.NodeIDs))
				index[id] = i
				v.NodeIDs = append(v.NodeIDs, id)
			}
			v.Indices = append(v.Indices, i)
		}
	}
	v.Positions = make([]float32, 0, 3*len(v.NodeIDs))
	v.Values = make([]float32, 0, len(v.NodeIDs))
	for _, id := range v.NodeIDs {
		p := m.Nodes[id]
		v.Positions = append(v.Positions, float32(p[0]), float32(p[1]), float32(p[2]))
		v.Values = append(v.Values, float32(f.Values[id]))
	}
	if f.Displacements != nil {
		v.Displacements = make([]float32, 0, 3*len(v.NodeIDs))
		for _, id := range v.NodeIDs {
			u := f.Displacements[id]
			v.Displacements = append(v.Displacements, float32(u[0]), float32(u[1]), float32(u[2]))
		}
	}
	v.Peak, v.Min = extremes(f.Values, m, f.Displacements)
	v.Max = v.Peak.Value
	if f.Displacements != nil {
		mag := make(map[int]float64, len(f.Displacements))
		for id, u := range f.Displacements {
			mag[id] = math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
		}
		d, _ := extremes(mag, m, f.Displacements)
		v.MaxDisplacement = &d
	}
	v.BBoxMM = bbox(m.Nodes)
	v.Markers = make([]Marker, 0, len(sets))
	for _, s := range sets {
		v.Markers = append(v.Markers, s.marker(m, faces, f.Displacements))
	}
	return v, nil
}

// extremes are the field's peak (ties to the lowest node id, so the
// answer is the same on every call) and its minimum.
func extremes(values map[int]float64, m Mesh, disp map[int][3]float64) (Extreme, float64) {
	ids := make([]int, 0, len(values))
	for id := range values {
		if _, ok := m.Nodes[id]; ok {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	peak, low := Extreme{Value: math.Inf(-1)}, math.Inf(1)
	for _, id := range ids {
		x := values[id]
		if x > peak.Value {
			peak.Value, peak.Node = x, id
		}
		low = math.Min(low, x)
	}
	peak.AtMM = m.Nodes[peak.Node]
	if u, ok := disp[peak.Node]; ok {
		peak.DispMM = &u
	}
	return peak, low
}

func bbox(nodes map[int][3]float64) Box {
	b := Box{Min: [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, Max: [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	for _, p := range nodes {
		for k := range 3 {
			b.Min[k], b.Max[k] = math.Min(b.Min[k], p[k]), math.Max(b.Max[k], p[k])
		}
	}
	return b
}
