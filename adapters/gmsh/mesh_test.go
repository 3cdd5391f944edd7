package gmsh

import (
	"context"
	"encoding/json"
	"github.com/metaforge/metaforge/internal/vec3"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/meshfile"
	"github.com/metaforge/metaforge/internal/workspace"
)

// Tolerances. Planar faces of a box are meshed exactly, so their figures
// hold to rounding; a curved face's area is that of its quadratic
// triangles, within 1% of the true one.
const (
	exact      = 1e-9 // mm, on coordinates of planar geometry
	areaRel    = 1e-6 // relative, planar faces
	curvedRel  = 0.01 // relative, curved faces
	normalTol  = 1e-9 // on unit normals of planar faces
	curvedNorm = 1e-3 // on the mean normal of a curved face
)

func needGmsh(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("gmsh"); err != nil {
		t.Skip("gmsh is not installed: apt-get install gmsh")
	}
}

// newAdapter returns an adapter whose workspace is a fresh folder and may
// read the fixtures.
func newAdapter(t *testing.T) *Adapter {
	t.Helper()
	fixtures, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return New(workspace.New(t.TempDir(), fixtures))
}

func fixture(name string) string {
	p, _ := filepath.Abs(filepath.Join("testdata", name))
	return p
}

func callTool(a *Adapter, toolID string, args map[string]any) (*adapters.Result, error) {
	raw, _ := json.Marshal(args)
	return a.Call(context.Background(), toolID, raw)
}

// generate meshes and checks the result against the output schema.
func generate(t *testing.T, a *Adapter, args map[string]any) (MeshResult, *adapters.Result) {
	t.Helper()
	res, err := callTool(a, ToolGenerateMesh, args)
	if err != nil {
		t.Fatalf("generate_mesh(%v): %v", args, err)
	}
	validate(t, generateOutputSchema, res.Data)
	var out MeshResult
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	return out, res
}

func validate(t *testing.T, schema string, data []byte) {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var instance any
	if err := json.Unmarshal(data, &instance); err != nil {
		t.Fatal(err)
	}
	if err := resolved.Validate(instance); err != nil {
		t.Fatalf("result does not match the output schema: %v\n%s", err, data)
	}
}

// readDeck parses the deck the adapter wrote, and its face table.
func readDeck(t *testing.T, out MeshResult) (*gmshMesh, meshfile.Table) {
	t.Helper()
	f, err := os.Open(out.MeshFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := readGmshINP(f)
	if err != nil {
		t.Fatalf("the deck does not read back: %v", err)
	}
	table, err := meshfile.Read(out.MeshFile)
	if err != nil {
		t.Fatal(err)
	}
	return m, table
}

func near(a, b vec3.V, tol float64) bool { return vec3.Norm(vec3.Sub(a, b)) <= tol }

// faceAt is the face whose normal is n (planar faces).
func faceAt(t *testing.T, table meshfile.Table, n vec3.V) meshfile.Face {
	t.Helper()
	for _, f := range table.Faces {
		if near(f.Normal, n, normalTol) {
			return f
		}
	}
	t.Fatalf("no face has normal %v", n)
	return meshfile.Face{}
}

var axes = []vec3.V{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}

func TestManifests(t *testing.T) {
	r := adapters.NewRegistry()
	a := New(workspace.New(t.TempDir()))
	if err := r.Register(a); err != nil {
		t.Fatalf("Register: %v", err)
	}
	for _, m := range a.Manifests() {
		got, _, ok := r.Tool(m.ToolID)
		if !ok || !got.Idempotent || got.Retries != adapters.DefaultRetries {
			t.Errorf("%s registered as %+v", m.ToolID, got)
		}
		if ann, ok := adapters.AnnotationsFor(m.ToolID); !ok || !ann.ReadOnly || !ann.Idempotent {
			t.Errorf("%s is not classified read-only and idempotent: %+v", m.ToolID, ann)
		}
		var out jsonschema.Schema
		if err := json.Unmarshal(m.OutputSchema, &out); err != nil {
			t.Fatal(err)
		}
		if _, err := out.Resolve(nil); err != nil {
			t.Errorf("%s: output schema does not resolve: %v", m.ToolID, err)
		}
	}
}

// The 100 x 10 x 10 box, quadratic: six faces of the right areas and
// normals, the deck holding only nodes, C3D10 elements and face node sets.
func TestBoxQuadratic(t *testing.T) {
	needGmsh(t)
	a := newAdapter(t)
	out, res := generate(t, a, map[string]any{"input_file": fixture("box.step")})
	m, table := readDeck(t, out)

	if out.ElementType != "C3D10" || m.tetType != "C3D10" || out.ElementOrder != 2 || out.Elements != m.tetCount() || out.Nodes != len(m.nodeIDs) {
		t.Errorf("result %s order %d, %d elements %d nodes; deck %s %d elements %d nodes",
			out.ElementType, out.ElementOrder, out.Elements, out.Nodes, m.tetType, m.tetCount(), len(m.nodeIDs))
	}
	// gmsh's bounding box is the part's, widened by 1e-7 mm.
	if want := 10.0 / 3; math.Abs(out.MeshSizeMM-want) > 1e-6 {
		t.Errorf("default mesh_size_mm %g, want the smallest extent / 3 = %g", out.MeshSizeMM, want)
	}
	if !slices.Equal(res.OutputFiles, []string{out.MeshFile, out.FaceTableFile}) || filepath.Base(out.MeshFile) != "mesh.inp" ||
		filepath.Base(out.FaceTableFile) != "mesh.faces.json" || !filepath.IsAbs(out.MeshFile) {
		t.Errorf("output files %v, mesh_file %s", res.OutputFiles, out.MeshFile)
	}
	checkBox(t, out, table, meshfile.BBox{Max: vec3.V{100, 10, 10}})

	x0 := faceAt(t, table, vec3.V{-1, 0, 0})
	if !near(x0.CentroidMM, vec3.V{0, 5, 5}, exact) || x0.BBoxMM.Min[0] != 0 || x0.BBoxMM.Max[0] != 0 {
		t.Errorf("face at x = 0: centroid %v, bbox %v", x0.CentroidMM, x0.BBoxMM)
	}

	deckKeywords(t, out.MeshFile, "C3D10")
	checkNodeSets(t, m, table)
	checkQuadraticOrdering(t, m, table)
	checkQuality(t, out.QualityMetrics, m.tetCount())

	// list_named_faces reads back the same figures.
	lres, err := callTool(a, ToolListNamedFaces, map[string]any{"mesh_file": out.MeshFile})
	if err != nil {
		t.Fatal(err)
	}
	validate(t, listOutputSchema, lres.Data)
	var listed FacesResult
	if err := json.Unmarshal(lres.Data, &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Faces) != 6 || listed.ElementType != "C3D10" || listed.CoordinateFrame != "twin" {
		t.Fatalf("listed %+v", listed)
	}
	for _, f := range listed.Faces {
		s := out.SurfaceSets[f.Name]
		if f.AreaMM2 != s.AreaMM2 || f.Normal != s.Normal || f.CentroidMM != s.CentroidMM || f.BBoxMM != s.BBoxMM || f.NodeCount == 0 {
			t.Errorf("listed %+v, generated %+v", f, s)
		}
	}
}

func TestBoxLinear(t *testing.T) {
	needGmsh(t)
	out, _ := generate(t, newAdapter(t), map[string]any{
		"input_file": fixture("box.step"), "element_order": 1, "mesh_size_mm": 4, "output_name": "linear",
	})
	m, table := readDeck(t, out)
	if out.ElementType != "C3D4" || m.tetType != "C3D4" || out.ElementOrder != 1 || out.MeshSizeMM != 4 {
		t.Errorf("result %s order %d size %g; deck %s", out.ElementType, out.ElementOrder, out.MeshSizeMM, m.tetType)
	}
	if filepath.Base(out.MeshFile) != "linear.inp" || filepath.Base(out.FaceTableFile) != "linear.faces.json" {
		t.Errorf("files %s %s", out.MeshFile, out.FaceTableFile)
	}
	checkBox(t, out, table, meshfile.BBox{Max: vec3.V{100, 10, 10}})
	deckKeywords(t, out.MeshFile, "C3D4")
	checkNodeSets(t, m, table)
	checkQuality(t, out.QualityMetrics, m.tetCount())
	for _, f := range table.Faces {
		for _, tri := range f.Triangles {
			if len(tri) != 3 {
				t.Fatalf("%s: a linear mesh's triangle has %d nodes", f.Name, len(tri))
			}
		}
	}
}

// A part away from the origin keeps its coordinates.
func TestOffsetPartKeepsItsFrame(t *testing.T) {
	needGmsh(t)
	out, _ := generate(t, newAdapter(t), map[string]any{"input_file": fixture("offset_cube.step"), "element_order": 1})
	_, table := readDeck(t, out)
	checkBox(t, out, table, meshfile.BBox{Min: vec3.V{50, 20, -5}, Max: vec3.V{60, 30, 5}})
	if f := faceAt(t, table, vec3.V{-1, 0, 0}); !near(f.CentroidMM, vec3.V{50, 25, 0}, exact) {
		t.Errorf("face at x = 50: centroid %v", f.CentroidMM)
	}
	if out.CoordinateFrame != "twin" || out.PlacementBaked {
		t.Errorf("frame %q, placement_baked %v", out.CoordinateFrame, out.PlacementBaked)
	}
}

// A through hole of diameter 10 in a 10 mm plate: the cylindrical face has
// area π·10·10 and, being a full circle, no mean direction.
func TestHoledPlate(t *testing.T) {
	needGmsh(t)
	out, _ := generate(t, newAdapter(t), map[string]any{"input_file": fixture("holed_plate.step")})
	m, table := readDeck(t, out)
	if len(table.Faces) != 7 {
		t.Fatalf("%d faces, want 6 planar and 1 cylindrical", len(table.Faces))
	}
	var hole *meshfile.Face
	for i, f := range table.Faces {
		if !slices.ContainsFunc(axes, func(n vec3.V) bool { return near(f.Normal, n, normalTol) }) {
			hole = &table.Faces[i]
		}
	}
	if hole == nil {
		t.Fatal("no face has a non-axis normal")
	}
	if want := math.Pi * 10 * 10; math.Abs(hole.AreaMM2-want) > curvedRel*want {
		t.Errorf("hole area %.4f, want π·d·h = %.4f within 1%%", hole.AreaMM2, want)
	}
	if hole.Normal != (vec3.V{}) {
		t.Errorf("a full cylinder's normal is %v, want none (zero)", hole.Normal)
	}
	if !near(hole.CentroidMM, vec3.V{20, 20, 5}, 0.05) || math.Abs(hole.BBoxMM.Min[0]-15) > 0.05 || math.Abs(hole.BBoxMM.Max[0]-25) > 0.05 {
		t.Errorf("hole centroid %v, bbox %v", hole.CentroidMM, hole.BBoxMM)
	}
	if top := faceAt(t, table, vec3.V{0, 0, 1}); math.Abs(top.AreaMM2-(1600-25*math.Pi)) > curvedRel*top.AreaMM2 {
		t.Errorf("top face area %.4f, want 1600 - 25π", top.AreaMM2)
	}
	checkBox(t, out, table, meshfile.BBox{Max: vec3.V{40, 40, 10}})
	checkQuality(t, out.QualityMetrics, m.tetCount())
}

// A quarter cylinder's curved face points, on average, along (1, 1, 0)/√2.
func TestCurvedFaceNormal(t *testing.T) {
	needGmsh(t)
	out, _ := generate(t, newAdapter(t), map[string]any{"input_file": fixture("quarter_cylinder.step")})
	_, table := readDeck(t, out)
	want := vec3.Unit(vec3.V{1, 1, 0})
	for _, f := range table.Faces {
		if !near(f.Normal, want, curvedNorm) {
			continue
		}
		if a := math.Pi / 2 * 10 * 10; math.Abs(f.AreaMM2-a) > curvedRel*a {
			t.Errorf("curved face area %.4f, want %.4f", f.AreaMM2, a)
		}
		// The mean of x over a quarter circle of radius 10 is 20/π.
		if c := 20 / math.Pi; math.Abs(f.CentroidMM[0]-c) > 0.05 || math.Abs(f.CentroidMM[1]-c) > 0.05 || math.Abs(f.CentroidMM[2]-5) > 1e-6 {
			t.Errorf("curved face centroid %v, want (%.4f, %.4f, 5)", f.CentroidMM, c, c)
		}
		return
	}
	t.Fatalf("no face has normal (1, 1, 0)/√2: %+v", out.SurfaceSets)
}

// checkBox checks the box's mesh: bounding box, six planar faces with
// axis normals and the areas their extents give.
func checkBox(t *testing.T, out MeshResult, table meshfile.Table, box meshfile.BBox) {
	t.Helper()
	if !near(out.MeshBBoxMM.Min, box.Min, exact) || !near(out.MeshBBoxMM.Max, box.Max, exact) || table.MeshBBoxMM != out.MeshBBoxMM {
		t.Errorf("mesh_bbox_mm %v, table %v, want %v", out.MeshBBoxMM, table.MeshBBoxMM, box)
	}
	if out.CoordinateFrame != "twin" || table.CoordinateFrame != "twin" || out.PlacementBaked {
		t.Errorf("frame %q / %q, placement_baked %v", out.CoordinateFrame, table.CoordinateFrame, out.PlacementBaked)
	}
	if len(out.SurfaceSets) != len(table.Faces) {
		t.Errorf("%d surface sets, %d faces in the table", len(out.SurfaceSets), len(table.Faces))
	}
	if len(table.Faces) != 6 {
		return
	}
	size := box.Size()
	for _, n := range axes {
		f := faceAt(t, table, n)
		k := slices.IndexFunc(n[:], func(c float64) bool { return c != 0 })
		want := size[(k+1)%3] * size[(k+2)%3]
		if math.Abs(f.AreaMM2-want) > areaRel*want {
			t.Errorf("%s (normal %v): area %.9g, want %g", f.Name, n, f.AreaMM2, want)
		}
		plane := box.Min[k]
		if n[k] > 0 {
			plane = box.Max[k]
		}
		if math.Abs(f.BBoxMM.Min[k]-plane) > exact || math.Abs(f.BBoxMM.Max[k]-plane) > exact {
			t.Errorf("%s (normal %v): bbox %v, not on the plane %c = %g", f.Name, n, f.BBoxMM, "xyz"[k], plane)
		}
		if s := out.SurfaceSets[f.Name]; s.AreaMM2 != f.AreaMM2 || s.Normal != f.Normal {
			t.Errorf("surface set %s %+v differs from the table's %+v", f.Name, s, f)
		}
	}
	areas := make([]float64, 0, 6)
	for _, f := range table.Faces {
		areas = append(areas, f.AreaMM2)
	}
	sort.Float64s(areas)
	t.Logf("face areas %v", areas)
}

// deckKeywords checks the deck holds only *NODE, one *ELEMENT block of the
// given type in SOLID, and *NSET blocks.
func deckKeywords(t *testing.T, path, elType string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var keywords []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "*") && !strings.HasPrefix(l, "*NSET, NSET=Face") {
			keywords = append(keywords, l)
		}
	}
	want := []string{"*NODE", "*ELEMENT, TYPE=" + elType + ", ELSET=SOLID"}
	if !slices.Equal(keywords, want) {
		t.Errorf("deck keywords %q, want %q and face node sets", keywords, want)
	}
}

// checkNodeSets checks each face's node set is its triangles' nodes and
// lies on the face's plane.
func checkNodeSets(t *testing.T, m *gmshMesh, table meshfile.Table) {
	t.Helper()
	for _, f := range table.Faces {
		set := m.nsets[f.Name]
		var fromTris []int
		for _, tri := range f.Triangles {
			fromTris = append(fromTris, tri...)
		}
		slices.Sort(fromTris)
		fromTris = slices.Compact(fromTris)
		if !slices.Equal(set, fromTris) || len(set) != f.NodeCount {
			t.Errorf("%s: NSET has %d nodes, its triangles %d, node_count %d", f.Name, len(set), len(fromTris), f.NodeCount)
		}
		for _, id := range set {
			if d := vec3.Dot(vec3.Sub(m.at(id), f.CentroidMM), f.Normal); math.Abs(d) > exact {
				t.Fatalf("%s: node %d at %v is %g mm off the face's plane", f.Name, id, m.at(id), d)
			}
		}
	}
}

// checkQuadraticOrdering checks the Abaqus node order on the box, whose
// faces are flat so every mid-side node is at its edge's midpoint: C3D10
// nodes 5..10 on edges 1-2, 2-3, 3-1, 1-4, 2-4, 3-4 with corners 1-2-3
// counter-clockwise seen from 4; face triangles' nodes 4..6 on edges 1-2,
// 2-3, 3-1 with corners counter-clockwise seen from outside.
func checkQuadraticOrdering(t *testing.T, m *gmshMesh, table meshfile.Table) {
	t.Helper()
	c3d10 := [6][2]int{{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}}
	for i := range m.tetCount() {
		n := m.tet(i)
		p := func(k int) vec3.V { return m.at(int(n[k])) }
		if v := vec3.Dot(vec3.Cross(vec3.Sub(p(1), p(0)), vec3.Sub(p(2), p(0))), vec3.Sub(p(3), p(0))); v <= 0 {
			t.Fatalf("element %d is not positively oriented (6V = %g)", i+1, v)
		}
		for k, e := range c3d10 {
			if mid := vec3.Scale(vec3.Add(p(e[0]), p(e[1])), 0.5); !near(p(4+k), mid, exact) {
				t.Fatalf("element %d: node %d at %v, not at the midpoint %v of nodes %d-%d", i+1, 5+k, p(4+k), mid, e[0]+1, e[1]+1)
			}
		}
	}
	tri6 := [3][2]int{{0, 1}, {1, 2}, {2, 0}}
	for _, f := range table.Faces {
		for _, tri := range f.Triangles {
			p := func(k int) vec3.V { return m.at(tri[k]) }
			if len(tri) != 6 {
				t.Fatalf("%s: a quadratic triangle has %d nodes", f.Name, len(tri))
			}
			for k, e := range tri6 {
				if mid := vec3.Scale(vec3.Add(p(e[0]), p(e[1])), 0.5); !near(p(3+k), mid, exact) {
					t.Fatalf("%s: triangle %v node %d not at the midpoint of nodes %d-%d", f.Name, tri, 4+k, e[0]+1, e[1]+1)
				}
			}
			if vec3.Dot(vec3.Cross(vec3.Sub(p(1), p(0)), vec3.Sub(p(2), p(0))), f.Normal) <= 0 {
				t.Fatalf("%s: triangle %v does not turn counter-clockwise seen from outside", f.Name, tri)
			}
		}
	}
}

func checkQuality(t *testing.T, q meshfile.Quality, elements int) {
	t.Helper()
	if q.MinAngle <= 5 || q.MinAngle > 70.53 || q.AvgQuality <= 0.5 || q.AvgQuality > 1 || q.MaxAspectRatio < 1 || q.MaxAspectRatio > 10 ||
		q.DegenerateElements != 0 || q.ElementsMeasured != elements || q.Sampled {
		t.Errorf("quality %+v for %d elements", q, elements)
	}
}
