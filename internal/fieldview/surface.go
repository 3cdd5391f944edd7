// Package fieldview turns a nodal result field on a solid mesh (von Mises
// stress, displacement, temperature) into what a browser draws: the mesh's
// outer surface as triangles, each vertex carrying its node's value and
// displacement, decimated to at most a screen's worth of triangles, with
// the field's peak and where it is. It is plain geometry: it knows no
// solver, file format or transport.
package fieldview

import (
	"fmt"
	"slices"
	"sort"

	"github.com/metaforge/metaforge/internal/vec3"
)

// A face of a solid element: its corner nodes (3 or 4, by position in the
// element's node list) and, for a quadratic triangle, its mid-side nodes
// (edges corner 0-1, 1-2, 2-0).
type faceDef struct {
	corners []int
	mids    []int
}

// elementFaces are the faces of each solid element type in CalculiX's
// (Abaqus's) node numbering, zero-based. Quadratic hexahedra and wedges
// are drawn by their corners: their mid-side nodes lie on straight edges
// in every mesh gmsh writes, so the corners give the same surface.
var elementFaces = map[string][]faceDef{
	"C3D4": {{corners: []int{0, 1, 2}}, {corners: []int{0, 3, 1}}, {corners: []int{1, 3, 2}}, {corners: []int{2, 3, 0}}},
	"C3D10": {
		{corners: []int{0, 1, 2}, mids: []int{4, 5, 6}},
		{corners: []int{0, 3, 1}, mids: []int{7, 8, 4}},
		{corners: []int{1, 3, 2}, mids: []int{8, 9, 5}},
		{corners: []int{2, 3, 0}, mids: []int{9, 7, 6}},
	},
	"C3D8":  hexFaces,
	"C3D20": hexFaces,
	"C3D6":  wedgeFaces,
	"C3D15": wedgeFaces,
}

var (
	hexFaces = []faceDef{{corners: []int{0, 1, 2, 3}}, {corners: []int{4, 7, 6, 5}}, {corners: []int{0, 4, 5, 1}},
		{corners: []int{1, 5, 6, 2}}, {corners: []int{2, 6, 7, 3}}, {corners: []int{3, 7, 4, 0}}}
	wedgeFaces = []faceDef{{corners: []int{0, 1, 2}}, {corners: []int{3, 5, 4}}, {corners: []int{0, 3, 4, 1}},
		{corners: []int{1, 4, 5, 2}}, {corners: []int{2, 5, 3, 0}}}
)

// Mesh is a solid mesh: node coordinates by id and its elements' node ids.
type Mesh struct {
	Nodes       map[int][3]float64
	Elements    [][]int
	ElementType string
}

// outerFace is one face of the surface: its corners (node ids; n of
// them, 3 or 4) oriented with the normal pointing out of the solid, and,
// for a quadratic triangle (quadratic set), its mid-side nodes in the
// same order. Fixed-size arrays: a mesh has millions of faces.
type outerFace struct {
	corners   [4]int
	n         int
	mids      [3]int
	quadratic bool
}

// surface finds the mesh's outer faces: those that belong to exactly one
// element (an inner face is shared by two). Each is oriented away from its
// element's centroid, so the triangles face outwards whatever the
// element's own node order.
func surface(m Mesh) ([]outerFace, error) {
	defs, ok := elementFaces[m.ElementType]
	if !ok {
		return nil, fmt.Errorf("element type %q is not a solid element this viewer draws (C3D4, C3D10, C3D8, C3D20, C3D6, C3D15)", m.ElementType)
	}
	need := 0
	for _, d := range defs {
		need = max(need, slices.Max(d.corners)+1)
		if len(d.mids) > 0 {
			need = max(need, slices.Max(d.mids)+1)
		}
	}
	// seen maps a face (its sorted corners) to its index in faces, or -1
	// once a second element has it.
	seen := make(map[[4]int]int, 2*len(m.Elements))
	var faces []outerFace
	for ei, el := range m.Elements {
		if len(el) < need {
			return nil, fmt.Errorf("element %d has %d nodes, too few for a %s", ei+1, len(el), m.ElementType)
		}
		var centroid vec3.V
		for _, id := range el {
			p, ok := m.Nodes[id]
			if !ok {
				return nil, fmt.Errorf("element %d names node %d, which the mesh lacks", ei+1, id)
			}
			centroid = vec3.Add(centroid, p)
		}
		centroid = vec3.Scale(centroid, 1/float64(len(el)))
		for _, d := range defs {
			f := outerFace{n: len(d.corners), quadratic: len(d.mids) == 3}
			k := [4]int{-1, -1, -1, -1}
			for i, j := range d.corners {
				f.corners[i], k[i] = el[j], el[j]
			}
			if f.quadratic {
				for i, j := range d.mids {
					f.mids[i] = el[j]
				}
			}
			sort.Ints(k[:f.n])
			if at, ok := seen[k]; ok {
				if at >= 0 {
					faces[at].n = 0 // shared by two elements: inside
					seen[k] = -1
				}
				continue
			}
			if outward(m.Nodes, f.corners, centroid) < 0 {
				f.flip()
			}
			seen[k] = len(faces)
			faces = append(faces, f)
		}
	}
	out := faces[:0]
	for _, f := range faces {
		if f.n > 0 {
			out = append(out, f)
		}
	}
	return out, nil
}

// outward is positive when the face's normal (right-hand rule over its
// first three corners) points away from the element's centroid.
func outward(nodes map[int][3]float64, corners [4]int, centroid vec3.V) float64 {
	a, b, c := nodes[corners[0]], nodes[corners[1]], nodes[corners[2]]
	n := vec3.Cross(vec3.Sub(b, a), vec3.Sub(c, a))
	return vec3.Dot(n, vec3.Sub(a, centroid))
}

// flip reverses the face's winding, keeping each mid-side node on its
// edge: corners (0,1,2) with mids (01,12,20) become (0,2,1) with mids
// (02,21,10).
func (f *outerFace) flip() {
	c := f.corners[:f.n]
	for i, j := 1, len(c)-1; i < j; i, j = i+1, j-1 {
		c[i], c[j] = c[j], c[i]
	}
	if f.quadratic {
		f.mids[0], f.mids[2] = f.mids[2], f.mids[0]
	}
}

// fine are the face's triangles using its mid-side nodes: a quadratic
// triangle in four, so the field is drawn at every node.
func (f outerFace) fine() [][3]int {
	if !f.quadratic {
		return f.coarse()
	}
	c, m := f.corners, f.mids
	return [][3]int{{c[0], m[0], m[2]}, {m[0], c[1], m[1]}, {m[2], m[1], c[2]}, {m[0], m[1], m[2]}}
}

// coarse are the face's triangles by its corners only (a quadrilateral in
// two).
func (f outerFace) coarse() [][3]int {
	c := f.corners
	if f.n == 4 {
		return [][3]int{{c[0], c[1], c[2]}, {c[0], c[2], c[3]}}
	}
	return [][3]int{{c[0], c[1], c[2]}}
}
