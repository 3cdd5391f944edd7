package gmsh

import (
	"github.com/metaforge/metaforge/internal/vec3"
	"slices"
	"strings"
	"testing"
)

// oneTet is gmsh's layout: a heading whose data line is free text, a
// comment banner, surface triangles, a solid continued over two lines, and
// sets whose lines end with a comma.
const oneTet = `*Heading
 out.inp
*NODE
1, 0, 0, 0
2, 1, 0, 0
3, 0, 1, 0
4, 0, 0, 1
******* E L E M E N T S *************
*ELEMENT, type=CPS3, ELSET=Surface1
1, 1, 3, 2
*ELEMENT, type=T3D2, ELSET=Line1
2, 1, 2
*ELEMENT, type=C3D4, ELSET=Volume1
3, 1, 2,
 3, 4
*ELSET,ELSET=Face1
1, 
*NSET,NSET=Face1
1, 2, 3, 
`

func TestReadGmshINP(t *testing.T) {
	m, err := readGmshINP(strings.NewReader(oneTet))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.nodeIDs, []int{1, 2, 3, 4}) || m.at(4) != (vec3.V{0, 0, 1}) {
		t.Errorf("nodes %v, node 4 at %v", m.nodeIDs, m.at(4))
	}
	if m.tetType != "C3D4" || m.tetCount() != 1 || !slices.Equal(m.tet(0), []int32{1, 2, 3, 4}) {
		t.Errorf("solids %s %v", m.tetType, m.tets)
	}
	if len(m.tris) != 1 || !slices.Equal(m.tris[1], []int{1, 3, 2}) {
		t.Errorf("triangles %v", m.tris)
	}
	if !slices.Equal(m.elsets["Face1"], []int{1}) || !slices.Equal(m.nsets["Face1"], []int{1, 2, 3}) {
		t.Errorf("sets %v %v", m.elsets, m.nsets)
	}

	faces, err := buildFaces(m)
	if err != nil {
		t.Fatal(err)
	}
	f := faces[0]
	// The face z = 0 of the tetrahedron: outside is -z, area 1/2.
	if f.Name != "Face1" || f.AreaMM2 != 0.5 || f.Normal != (vec3.V{0, 0, -1}) || f.NodeCount != 3 {
		t.Errorf("face %+v", f.Face)
	}
	if want := (vec3.V{1.0 / 3, 1.0 / 3, 0}); vec3.Norm(vec3.Sub(f.CentroidMM, want)) > 1e-9 {
		t.Errorf("centroid %v, want %v", f.CentroidMM, want)
	}
}

func TestReadGmshINPRefusesBrokenFiles(t *testing.T) {
	for name, text := range map[string]string{
		"unknown node":         "*NODE\n1, 0, 0, 0\n*ELEMENT, type=C3D4\n1, 1, 2, 3, 4\n",
		"node twice":           "*NODE\n1, 0, 0, 0\n1, 1, 0, 0\n",
		"cut short":            "*NODE\n1, 0, 0, 0\n*ELEMENT, type=C3D4\n1, 1, 1, 1\n",
		"too many nodes":       "*NODE\n1, 0, 0, 0\n*ELEMENT, type=C3D4\n1, 1, 1, 1, 1, 1\n",
		"not an element":       "*ELEMENT, type=C3D8\n1, 1, 2, 3, 4, 5, 6, 7, 8\n",
		"mixed solids":         "*ELEMENT, type=C3D4\n*ELEMENT, type=C3D10\n",
		"bad coordinate":       "*NODE\n1, 0, x, 0\n",
		"no three coordinates": "*NODE\n1, 0, 0\n",
	} {
		if _, err := readGmshINP(strings.NewReader(text)); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
}

func TestParseReport(t *testing.T) {
	r, err := parseReport("noise\nmetaforge-bbox: -1e-07 0 0 100 10 10.0000001\nmetaforge-size: 3.3333333333333335\n")
	if err != nil || r.part.Min != (vec3.V{-1e-07, 0, 0}) || r.part.Max != (vec3.V{100, 10, 10.0000001}) || r.size != 3.3333333333333335 {
		t.Errorf("report %+v, %v", r, err)
	}
	for _, stdout := range []string{
		"metaforge-bbox: 1 2 3\nmetaforge-size: 1\n",
		"metaforge-bbox: 0 0 0 1 1 x\nmetaforge-size: 1\n",
		"metaforge-bbox: 0 0 0 1 1 1\n",
	} {
		if r, err := parseReport(stdout); err == nil {
			t.Errorf("report %+v read from %q", r, stdout)
		}
	}
}
