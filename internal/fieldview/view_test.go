package fieldview

import (
	"math"
	"testing"

	"github.com/metaforge/metaforge/internal/vec3"
)

// boxMesh is an nx x ny x nz grid of cubes of side h, each cut into six
// tetrahedra around its main diagonal (a conforming cut: neighbours share
// their faces' triangles). quadratic adds a node at each edge's middle
// (C3D10). Node ids start at 1; the node at grid point (i, j, k) is
// gridID(i, j, k).
func boxMesh(nx, ny, nz int, h float64, quadratic bool) Mesh {
	m := Mesh{Nodes: map[int][3]float64{}, ElementType: "C3D4"}
	gridID := func(i, j, k int) int { return 1 + i + (nx+1)*(j+(ny+1)*k) }
	for k := 0; k <= nz; k++ {
		for j := 0; j <= ny; j++ {
			for i := 0; i <= nx; i++ {
				m.Nodes[gridID(i, j, k)] = [3]float64{float64(i) * h, float64(j) * h, float64(k) * h}
			}
		}
	}
	mids := map[[2]int]int{}
	mid := func(a, b int) int {
		if a > b {
			a, b = b, a
		}
		if id, ok := mids[[2]int{a, b}]; ok {
			return id
		}
		id := 1_000_000 + len(mids)
		pa, pb := m.Nodes[a], m.Nodes[b]
		m.Nodes[id] = vec3.Scale(vec3.Add(pa, pb), 0.5)
		mids[[2]int{a, b}] = id
		return id
	}
	perms := [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				for _, p := range perms {
					at := [3]int{i, j, k}
					tet := []int{gridID(at[0], at[1], at[2])}
					for _, axis := range p {
						at[axis]++
						tet = append(tet, gridID(at[0], at[1], at[2]))
					}
					if quadratic {
						a, b, c, d := tet[0], tet[1], tet[2], tet[3]
						tet = append(tet, mid(a, b), mid(b, c), mid(c, a), mid(a, d), mid(b, d), mid(c, d))
					}
					m.Elements = append(m.Elements, tet)
				}
			}
		}
	}
	if quadratic {
		m.ElementType = "C3D10"
	}
	return m
}

// A field growing along x: value = x, and a displacement of (0, 0, -x/10).
func alongX(m Mesh) Field {
	f := Field{Name: "von_mises", Quantity: "von Mises stress", Unit: "MPa", Values: map[int]float64{}, Displacements: map[int][3]float64{}}
	for id, p := range m.Nodes {
		f.Values[id] = p[0]
		f.Displacements[id] = [3]float64{0, 0, -p[0] / 10}
	}
	return f
}

// checkSurface says whether the view's triangles cover the box's surface
// exactly once, facing out: their areas add up to the box's and each
// normal points away from its centre.
func checkSurface(t *testing.T, v *View, size [3]float64) {
	t.Helper()
	want := 2 * (size[0]*size[1] + size[1]*size[2] + size[0]*size[2])
	centre := vec3.Scale(size, 0.5)
	area := 0.0
	at := func(i int32) vec3.V {
		return vec3.V{float64(v.Positions[3*i]), float64(v.Positions[3*i+1]), float64(v.Positions[3*i+2])}
	}
	for i := 0; i < len(v.Indices); i += 3 {
		a, b, c := at(v.Indices[i]), at(v.Indices[i+1]), at(v.Indices[i+2])
		n := vec3.Cross(vec3.Sub(b, a), vec3.Sub(c, a))
		area += vec3.Norm(n) / 2
		mid := vec3.Scale(vec3.Add(a, vec3.Add(b, c)), 1.0/3)
		if vec3.Dot(n, vec3.Sub(mid, centre)) <= 0 {
			t.Fatalf("triangle %d (%v %v %v) faces into the part", i/3, a, b, c)
		}
	}
	if math.Abs(area-want) > 1e-6*want {
		t.Errorf("the triangles cover %.6f mm², the box's surface is %.6f", area, want)
	}
}

// A 4 x 2 x 1 box of 10 mm linear tetrahedra: its outer surface is two
// triangles per boundary square (2 (8 + 4 + 2) squares), facing out, and
// covering 2 (40 x 20 + 20 x 10 + 40 x 10) = 2800 mm²; every grid node on
// the surface is drawn with its value and displacement.
func TestLinearBoxSurface(t *testing.T) {
	m := boxMesh(4, 2, 1, 10, false)
	v, err := Build(m, alongX(m), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Triangles != 2*2*(8+4+2) || v.SurfaceTriangles != v.Triangles || len(v.Indices) != 3*v.Triangles || v.TriangleCap != DefaultTriangleCap {
		t.Fatalf("%d triangles of %d (cap %d), %d indices; want 56", v.Triangles, v.SurfaceTriangles, v.TriangleCap, len(v.Indices))
	}
	checkSurface(t, v, [3]float64{40, 20, 10})
	if len(v.NodeIDs) != 5*3*2 { // every grid node of a one-cell-thick box is on its surface
		t.Errorf("%d vertices, want 30", len(v.NodeIDs))
	}
	for i, id := range v.NodeIDs {
		p := m.Nodes[id]
		if v.Values[i] != float32(p[0]) || v.Displacements[3*i+2] != float32(-p[0]/10) || v.Positions[3*i] != float32(p[0]) {
			t.Fatalf("vertex %d (node %d at %v): value %g, displacement z %g", i, id, p, v.Values[i], v.Displacements[3*i+2])
		}
	}
	if v.Max != 40 || v.Min != 0 || v.Peak.AtMM[0] != 40 || v.MaxDisplacement == nil || v.MaxDisplacement.Value != 4 {
		t.Errorf("peak %+v, min %g, max displacement %+v", v.Peak, v.Min, v.MaxDisplacement)
	}
	if v.BBoxMM.Max != [3]float64{40, 20, 10} || v.BBoxMM.Min != [3]float64{} {
		t.Errorf("bbox %+v", v.BBoxMM)
	}
}

// Quadratic tetrahedra: each outer face is drawn as four triangles through
// its mid-side nodes when they fit; under a tighter cap, by its corners;
// the surface stays whole and outward either way.
func TestQuadraticFacesSplitOrNot(t *testing.T) {
	m := boxMesh(4, 2, 1, 10, true)
	v, err := Build(m, alongX(m), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Triangles != 4*56 || v.Detail != "every node of the surface" {
		t.Fatalf("%d triangles (%s), want 224 through every node", v.Triangles, v.Detail)
	}
	checkSurface(t, v, [3]float64{40, 20, 10})
	v, err = Build(m, alongX(m), 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Triangles != 56 || v.SurfaceTriangles != 224 || v.TriangleCap != 100 {
		t.Fatalf("under a cap of 100: %d triangles of %d (%s), want the 56 corner triangles", v.Triangles, v.SurfaceTriangles, v.Detail)
	}
	checkSurface(t, v, [3]float64{40, 20, 10})
}

// A surface too fine for the cap is clustered under it; every vertex is
// a real node with its own value, and the peak node (the hottest corner)
// survives.
func TestClusteringKeepsUnderTheCapAndThePeak(t *testing.T) {
	m := boxMesh(40, 20, 10, 1, false) // 2 (800 + 200 + 400) squares, 5600 triangles
	f := alongX(m)
	v, err := Build(m, f, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.SurfaceTriangles != 5600 || v.Triangles > 1000 || v.Triangles < 200 {
		t.Fatalf("%d triangles of %d under a cap of 1000 (%s)", v.Triangles, v.SurfaceTriangles, v.Detail)
	}
	peakDrawn := false
	for i, id := range v.NodeIDs {
		if v.Values[i] != float32(f.Values[id]) {
			t.Fatalf("vertex %d is node %d with value %g, not its own %g", i, id, v.Values[i], f.Values[id])
		}
		peakDrawn = peakDrawn || id == v.Peak.Node
	}
	if !peakDrawn || v.Max != 40 {
		t.Errorf("the peak node %d (%g) is not among the drawn vertices", v.Peak.Node, v.Max)
	}
}

// The peak is the whole mesh's, inside nodes included: a field that peaks
// at an inner node reports that node, though no triangle shows it.
func TestPeakIsOverEveryNode(t *testing.T) {
	m := boxMesh(4, 4, 4, 10, false)
	f := alongX(m)
	inner := 1 + 2 + 5*(2+5*2) // grid node (2, 2, 2)
	f.Values[inner] = 1000
	v, err := Build(m, f, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Peak.Node != inner || v.Max != 1000 || v.Peak.AtMM != [3]float64{20, 20, 20} || v.Peak.DispMM == nil || v.Peak.DispMM[2] != -2 {
		t.Errorf("peak %+v, want node %d at (20, 20, 20) with 1000", v.Peak, inner)
	}
	for _, id := range v.NodeIDs {
		if id == inner {
			t.Error("an inner node is drawn on the surface")
		}
	}
}

// A fixture's marker is where its face is: centroid, outward normal,
// area, and its nodes; a load's keeps its direction and size.
func TestMarkers(t *testing.T) {
	m := boxMesh(4, 2, 1, 10, true)
	var fixed, loaded []int
	for id, p := range m.Nodes {
		switch p[0] {
		case 0:
			fixed = append(fixed, id)
		case 40:
			loaded = append(loaded, id)
		}
	}
	force := 50.0
	v, err := Build(m, alongX(m), 0, []Set{{Name: "Face1", Role: "fixed", Nodes: fixed},
		{Name: "Face2", Role: "load", Nodes: loaded, Direction: []float64{0, 0, -1}, Magnitude: &force, Unit: "N"}})
	if err != nil {
		t.Fatal(err)
	}
	fx, ld := v.Markers[0], v.Markers[1]
	if fx.Nodes != len(fixed) || fx.CentroidMM != [3]float64{0, 10, 5} || fx.Normal != [3]float64{-1, 0, 0} || math.Abs(fx.AreaMM2-200) > 1e-9 ||
		len(fx.Points) != 3*len(fixed) || len(fx.Displacements) != 3*len(fixed) {
		t.Errorf("fixed marker %+v", fx)
	}
	if ld.Normal != [3]float64{1, 0, 0} || ld.CentroidMM[0] != 40 || *ld.Magnitude != 50 || ld.Unit != "N" || ld.Direction[2] != -1 || ld.Role != "load" {
		t.Errorf("load marker %+v", ld)
	}
}

// A mesh the viewer cannot draw says why.
func TestRefusals(t *testing.T) {
	m := boxMesh(1, 1, 1, 1, false)
	m.ElementType = "S3"
	if _, err := Build(m, alongX(m), 0, nil); err == nil {
		t.Error("a shell mesh was drawn")
	}
	m = boxMesh(1, 1, 1, 1, false)
	if _, err := Build(m, Field{Name: "temperature"}, 0, nil); err == nil {
		t.Error("an empty field was drawn")
	}
	m.Elements[0][0] = 999
	if _, err := Build(m, alongX(m), 0, nil); err == nil {
		t.Error("an element naming a missing node was drawn")
	}
}
