// Package meshfile is the contract between the mesher and the solvers: a
// CalculiX .inp deck of nodes, solid elements and one node set per face,
// and beside it a face table (<mesh>.faces.json) with each face's geometry
// and surface triangles. The mesher writes both; the FEA adapter picks
// fixed and load faces by name and spreads a load over a face with the
// triangles' consistent nodal weights. Mesh quality (quality.go) is
// measured from the deck's tetrahedra.
package meshfile

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

// BBox is an axis-aligned box in millimetres.
type BBox struct {
	Min [3]float64 `json:"min"`
	Max [3]float64 `json:"max"`
}

// Size is the box's extent along each axis.
func (b BBox) Size() [3]float64 {
	return [3]float64{b.Max[0] - b.Min[0], b.Max[1] - b.Min[1], b.Max[2] - b.Min[2]}
}

// Face is one named surface of the meshed part.
type Face struct {
	Name       string     `json:"name"`
	BBoxMM     BBox       `json:"bbox_mm"`
	CentroidMM [3]float64 `json:"centroid_mm"`
	AreaMM2    float64    `json:"area_mm2"`
	// Normal is the area-weighted mean unit normal of the face's triangles,
	// oriented away from the solid.
	Normal    [3]float64 `json:"normal"`
	NodeCount int        `json:"node_count"`
	// Triangles are the surface elements of the face by node id: three
	// corners, then for quadratic meshes the mid-side nodes of edges 1-2,
	// 2-3 and 3-1.
	Triangles [][]int `json:"triangles"`
}

// Table is the face table of one mesh.
type Table struct {
	// Mesh is the .inp file the table describes (base name).
	Mesh            string `json:"mesh"`
	ElementType     string `json:"element_type"`
	Elements        int    `json:"elements"`
	Nodes           int    `json:"nodes"`
	MeshBBoxMM      BBox   `json:"mesh_bbox_mm"`
	CoordinateFrame string `json:"coordinate_frame"`
	Faces           []Face `json:"faces"`
}

// TablePath is where the face table of a mesh lives.
func TablePath(meshPath string) string {
	return strings.TrimSuffix(meshPath, ".inp") + ".faces.json"
}

// Write stores t beside meshPath.
func Write(meshPath string, t Table) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return os.WriteFile(TablePath(meshPath), b, 0o644)
}

// Read loads the face table of meshPath.
func Read(meshPath string) (Table, error) {
	b, err := os.ReadFile(TablePath(meshPath))
	if err != nil {
		return Table{}, err
	}
	var t Table
	if err := json.Unmarshal(b, &t); err != nil {
		return Table{}, fmt.Errorf("face table %s is not valid: %w", TablePath(meshPath), err)
	}
	return t, nil
}

// Find returns the face named name (case ignored, as CalculiX ignores it).
func (t Table) Find(name string) (Face, bool) {
	for _, f := range t.Faces {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return Face{}, false
}

// Names lists the faces' names in table order.
func (t Table) Names() []string {
	out := make([]string, len(t.Faces))
	for i, f := range t.Faces {
		out[i] = f.Name
	}
	return out
}

// ConsistentWeights are the fractions of a uniform traction (or flux) on
// the face that each node carries, summing to 1: the exact nodal
// equivalent for linear and quadratic triangles (corners A/3 on a linear
// triangle; corners 0 and mid-sides A/3 on a quadratic one). area gives
// each triangle's area from its corner nodes.
func (f Face) ConsistentWeights(area func(a, b, c int) float64) (map[int]float64, error) {
	w := map[int]float64{}
	total := 0.0
	for _, tri := range f.Triangles {
		if len(tri) != 3 && len(tri) != 6 {
			return nil, fmt.Errorf("face %s has a surface element with %d nodes; want 3 or 6", f.Name, len(tri))
		}
		a := area(tri[0], tri[1], tri[2])
		if math.IsNaN(a) || a < 0 {
			return nil, fmt.Errorf("face %s has a surface element with unknown nodes", f.Name)
		}
		total += a
		if len(tri) == 3 {
			for _, n := range tri {
				w[n] += a / 3
			}
			continue
		}
		for _, n := range tri[3:] {
			w[n] += a / 3
		}
	}
	if total <= 0 {
		return nil, fmt.Errorf("face %s has no area", f.Name)
	}
	for n := range w {
		w[n] /= total
	}
	return w, nil
}

// SortedNodes lists the keys of a weight map in ascending order, so decks
// are written the same way every time.
func SortedNodes(w map[int]float64) []int {
	out := make([]int, 0, len(w))
	for n := range w {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}
