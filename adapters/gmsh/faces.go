package gmsh

import (
	"fmt"
	"github.com/metaforge/metaforge/internal/vec3"
	"math"
	"regexp"
	"slices"
	"strconv"

	"github.com/metaforge/metaforge/internal/meshfile"
)

// faceSetName matches the physical surfaces geoScript names.
var faceSetName = regexp.MustCompile(`^Face([0-9]+)$`)

// directionless is the length of a face's vector area, relative to its
// area, below which the face has no mean direction (a full cylinder, a
// sphere) and its normal is reported as zero rather than as noise.
const directionless = 0.01

// meshFace is one CAD face of the mesh: its face-table entry and the node
// set the deck names after it.
type meshFace struct {
	meshfile.Face
	nodes []int // ascending
}

// buildFaces makes one face per Face<tag> set gmsh wrote, in tag order. Its
// triangles are turned so that their corner order's right-hand normal
// points away from the solid; area, centroid and normal are integrated over
// the (for quadratic meshes, curved) triangles.
func buildFaces(m *gmshMesh) ([]meshFace, error) {
	type named struct {
		name string
		tag  int
	}
	var names []named
	for name := range m.elsets {
		if s := faceSetName.FindStringSubmatch(name); s != nil {
			tag, _ := strconv.Atoi(s[1])
			names = append(names, named{name, tag})
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("gmsh wrote no Face<tag> element sets")
	}
	slices.SortFunc(names, func(a, b named) int { return a.tag - b.tag })

	tris := make([][][]int, len(names))
	for i, n := range names {
		for _, id := range m.elsets[n.name] {
			t, ok := m.tris[id]
			if !ok {
				return nil, fmt.Errorf("set %s names element %d, which is not a surface triangle", n.name, id)
			}
			tris[i] = append(tris[i], t)
		}
	}
	apexes, err := ownerApexes(m, tris)
	if err != nil {
		return nil, err
	}

	faces := make([]meshFace, len(names))
	for i, n := range names {
		nodes := m.nsets[n.name]
		if len(nodes) == 0 {
			return nil, fmt.Errorf("gmsh wrote no node set for %s", n.name)
		}
		faces[i] = measureFace(m, n.name, tris[i], nodes, apexes)
	}
	return faces, nil
}

// measureFace turns a face's triangles outward and integrates its area,
// centroid and mean normal over them.
func measureFace(m *gmshMesh, name string, tris [][]int, nodes []int, apexes map[cornerKey]int32) meshFace {
	nodes = slices.Clone(nodes)
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	f := meshfile.Face{Name: name, NodeCount: len(nodes), BBoxMM: bboxOf(m, nodes)}
	var moment, normal vec3.V
	for _, t := range tris {
		t = outward(m, t, apexes[cornerKeyOf(t)])
		area, first, dir := integrate(m, t)
		f.AreaMM2 += area
		moment, normal = vec3.Add(moment, first), vec3.Add(normal, dir)
		f.Triangles = append(f.Triangles, t)
	}
	if f.AreaMM2 > 0 {
		f.CentroidMM = vec3.Scale(moment, 1/f.AreaMM2)
	}
	if vec3.Norm(normal) > directionless*f.AreaMM2 {
		f.Normal = vec3.Unit(normal)
	}
	return meshFace{Face: rounded(f), nodes: nodes}
}

// rounded drops the rounding noise of summing many triangles, so a face of
// a box reads area 1000, normal (0, 0, -1) and centroid 5 rather than
// 999.9999999999994, (3e-19, 0, -0.9999999999999999) and 5.000000000000001:
// areas to 12 significant digits, normals to 1e-12, centroids to 1e-9 mm.
func rounded(f meshfile.Face) meshfile.Face {
	f.AreaMM2, _ = strconv.ParseFloat(strconv.FormatFloat(f.AreaMM2, 'g', 12, 64), 64)
	// round keeps x to 1/perUnit; dividing by a whole power of ten gives
	// the nearest float to the decimal.
	round := func(x, perUnit float64) float64 {
		if r := math.Round(x*perUnit) / perUnit; r != 0 {
			return r
		}
		return 0 // not -0
	}
	for k := range 3 {
		f.Normal[k] = round(f.Normal[k], 1e12)
		f.CentroidMM[k] = round(f.CentroidMM[k], 1e9)
	}
	return f
}

// cornerKey names a triangle by its corner nodes, whatever their order.
type cornerKey [3]int32

func cornerKeyOf(t []int) cornerKey {
	k := cornerKey{int32(t[0]), int32(t[1]), int32(t[2])}
	slices.Sort(k[:])
	return k
}

// ownerApexes finds, for each surface triangle, the node of the tetrahedron
// that owns it (shares its three corners) opposite the triangle: the
// triangle's outside is the side away from that node.
func ownerApexes(m *gmshMesh, faces [][][]int) (map[cornerKey]int32, error) {
	apex := map[cornerKey]int32{}
	for _, f := range faces {
		for _, t := range f {
			apex[cornerKeyOf(t)] = 0
		}
	}
	for i := range m.tetCount() {
		c := m.tet(i)[:4]
		for k := range 4 {
			key := cornerKey{c[(k+1)%4], c[(k+2)%4], c[(k+3)%4]}
			slices.Sort(key[:])
			if v, ok := apex[key]; ok && v == 0 {
				apex[key] = c[k]
			}
		}
	}
	for key, v := range apex {
		if v == 0 {
			return nil, fmt.Errorf("surface triangle %v belongs to no tetrahedron: the mesh is not conforming", key)
		}
	}
	return apex, nil
}

// outward returns t ordered so its corners turn counter-clockwise seen from
// outside, apex being the owning tetrahedron's opposite node. Mid-side
// nodes follow their edges (1-2, 2-3, 3-1).
func outward(m *gmshMesh, t []int, apex int32) []int {
	a, b, c := m.at(t[0]), m.at(t[1]), m.at(t[2])
	if vec3.Dot(vec3.Cross(vec3.Sub(b, a), vec3.Sub(c, a)), vec3.Sub(m.at(int(apex)), a)) <= 0 {
		return t
	}
	if len(t) == 6 {
		return []int{t[0], t[2], t[1], t[5], t[4], t[3]}
	}
	return []int{t[0], t[2], t[1]}
}

// dunavant4 is the 6-point, degree-4 rule on the reference triangle (area
// 1/2): barycentric weights of corners 2 and 3, and weight.
var dunavant4 = func() [][3]float64 {
	const (
		a1, b1, w1 = 0.445948490915965, 0.108103018168070, 0.223381589678011
		a2, b2, w2 = 0.091576213509771, 0.816847572980459, 0.109951743655322
	)
	return [][3]float64{
		{a1, a1, w1 / 2}, {a1, b1, w1 / 2}, {b1, a1, w1 / 2},
		{a2, a2, w2 / 2}, {a2, b2, w2 / 2}, {b2, a2, w2 / 2},
	}
}()

// integrate returns a surface triangle's area, its first moment ∫x dA and
// its vector area ∫n dA (the right-hand normal of its node order). A
// quadratic triangle is integrated over its curved shape.
func integrate(m *gmshMesh, t []int) (float64, vec3.V, vec3.V) {
	a, b, c := m.at(t[0]), m.at(t[1]), m.at(t[2])
	if len(t) == 3 {
		n := vec3.Cross(vec3.Sub(b, a), vec3.Sub(c, a))
		area := vec3.Norm(n) / 2
		return area, vec3.Scale(vec3.Add(vec3.Add(a, b), c), area/3), vec3.Scale(n, 0.5)
	}
	var p [6]vec3.V
	for i := range p {
		p[i] = m.at(t[i])
	}
	var area float64
	var first, dir vec3.V
	for _, q := range dunavant4 {
		xi, eta, w := q[0], q[1], q[2]
		l1, l2, l3 := 1-xi-eta, xi, eta
		// Shape functions of the 6-node triangle and their ξ, η derivatives.
		shape := [6]float64{l1 * (2*l1 - 1), l2 * (2*l2 - 1), l3 * (2*l3 - 1), 4 * l1 * l2, 4 * l2 * l3, 4 * l3 * l1}
		dxi := [6]float64{1 - 4*l1, 4*l2 - 1, 0, 4 * (l1 - l2), 4 * l3, -4 * l3}
		deta := [6]float64{1 - 4*l1, 0, 4*l3 - 1, -4 * l2, 4 * l2, 4 * (l1 - l3)}
		var x, tx, ty vec3.V
		for i := range p {
			x = vec3.Add(x, vec3.Scale(p[i], shape[i]))
			tx = vec3.Add(tx, vec3.Scale(p[i], dxi[i]))
			ty = vec3.Add(ty, vec3.Scale(p[i], deta[i]))
		}
		j := vec3.Cross(tx, ty)
		da := vec3.Norm(j) * w
		area += da
		first = vec3.Add(first, vec3.Scale(x, da))
		dir = vec3.Add(dir, vec3.Scale(j, w))
	}
	return area, first, dir
}

// bboxOf is the box around the given nodes.
func bboxOf(m *gmshMesh, ids []int) meshfile.BBox {
	b := meshfile.BBox{Min: vec3.V{math.Inf(1), math.Inf(1), math.Inf(1)}, Max: vec3.V{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	for _, id := range ids {
		p := m.at(id)
		for k := range 3 {
			b.Min[k], b.Max[k] = math.Min(b.Min[k], p[k]), math.Max(b.Max[k], p[k])
		}
	}
	return b
}
