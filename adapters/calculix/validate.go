package calculix

import (
	"fmt"
	"math"

	"github.com/metaforge/metaforge/internal/vec3"

	"github.com/metaforge/metaforge/internal/meshfile"
	"github.com/metaforge/metaforge/protocol"
)

// ValidateRequest is calculix.validate_mesh's arguments.
type ValidateRequest struct {
	MeshFile string `json:"mesh_file"`
}

// ValidateResult says whether a mesh can be solved, and why not.
type ValidateResult struct {
	MeshFile     string            `json:"mesh_file"`
	Valid        bool              `json:"valid"`
	ElementType  string            `json:"element_type"`
	Elements     int               `json:"elements"`
	Nodes        int               `json:"nodes"`
	ElementSets  []string          `json:"element_sets"`
	SurfaceSets  []string          `json:"surface_sets"`
	MissingNodes int               `json:"elements_with_missing_nodes"`
	UnusedNodes  int               `json:"unused_nodes"`
	Inverted     int               `json:"inverted_elements"`
	Quality      *meshfile.Quality `json:"quality_metrics,omitempty"`
	MeshBBoxMM   meshfile.BBox     `json:"mesh_bbox_mm"`
	HasFaceTable bool              `json:"has_face_table"`
	Issues       []string          `json:"issues"`
}

// nodesPerElement is how many nodes each solid type has.
var nodesPerElement = map[string]int{"C3D4": 4, "C3D10": 10, "C3D8": 8, "C3D20": 20, "C3D6": 6, "C3D15": 15}

func (a *Adapter) validateMesh(req ValidateRequest) (*ValidateResult, error) {
	path, err := a.ws.ResolveRead("mesh_file", req.MeshFile)
	if err != nil {
		return nil, err
	}
	m, err := ReadMesh(path)
	if err != nil {
		return nil, protocol.Invalid("mesh_file %s cannot be read as a CalculiX mesh: %v", path, err)
	}
	out := &ValidateResult{MeshFile: path, ElementType: m.ElementType, Elements: len(m.Elements), Nodes: len(m.Nodes),
		ElementSets: m.ElementSets, SurfaceSets: m.SetNames(), MeshBBoxMM: m.BBox(nil), Issues: []string{}}
	if _, err := meshfile.Read(path); err == nil {
		out.HasFaceTable = true
	}
	used := map[int]bool{}
	want := nodesPerElement[m.ElementType]
	wrongCount := 0
	var tets [][4][3]float64 // the corners of every well-formed element
	for _, el := range m.Elements {
		if len(el) != want {
			wrongCount++
			continue
		}
		missing := false
		for _, n := range el {
			used[n] = true
			if _, ok := m.Nodes[n]; !ok {
				missing = true
			}
		}
		if missing {
			out.MissingNodes++
			continue
		}
		if m.ElementType == "C3D4" || m.ElementType == "C3D10" {
			t := [4][3]float64{m.Nodes[el[0]], m.Nodes[el[1]], m.Nodes[el[2]], m.Nodes[el[3]]}
			if signedVolume(t) <= 0 {
				out.Inverted++
			}
			tets = append(tets, t)
		}
	}
	for id := range m.Nodes {
		if !used[id] {
			out.UnusedNodes++
		}
	}
	if len(tets) > 0 {
		q := meshfile.MeasureQuality(len(tets), func(i int) [4][3]float64 { return tets[i] })
		out.Quality = &q
	}
	if wrongCount > 0 {
		out.Issues = append(out.Issues, fmt.Sprintf("%d elements do not have the %d nodes a %s has", wrongCount, want, m.ElementType))
	}
	if out.MissingNodes > 0 {
		out.Issues = append(out.Issues, fmt.Sprintf("%d elements name nodes the mesh does not define", out.MissingNodes))
	}
	if out.Inverted > 0 {
		out.Issues = append(out.Issues, fmt.Sprintf("%d elements are inverted (non-positive volume): CalculiX will fail on them", out.Inverted))
	}
	if out.Quality != nil && out.Quality.DegenerateElements > 0 {
		out.Issues = append(out.Issues, fmt.Sprintf("%d elements are degenerate (near-zero volume)", out.Quality.DegenerateElements))
	}
	if len(m.ElementSets) == 0 {
		out.Issues = append(out.Issues, "the elements belong to no ELSET, so no material can be assigned")
	}
	if len(out.SurfaceSets) == 0 {
		out.Issues = append(out.Issues, "the mesh has no node sets, so no face can be fixed or loaded")
	}
	if out.UnusedNodes > 0 {
		// Harmless to CalculiX, but a sign the mesh was edited by hand.
		out.Issues = append(out.Issues, fmt.Sprintf("%d nodes belong to no element (harmless, but unusual)", out.UnusedNodes))
	}
	out.Valid = wrongCount == 0 && out.MissingNodes == 0 && out.Inverted == 0 && len(m.ElementSets) > 0 && len(out.SurfaceSets) > 0 &&
		(out.Quality == nil || out.Quality.DegenerateElements == 0)
	return out, nil
}

// signedVolume is the volume of a tetrahedron, positive
// when the first three corners turn counter-clockwise seen from the fourth
// (the Abaqus and CalculiX convention).
func signedVolume(t [4][3]float64) float64 {
	v := vec3.Dot(vec3.Cross(vec3.Sub(t[1], t[0]), vec3.Sub(t[2], t[0])), vec3.Sub(t[3], t[0])) / 6
	if math.IsNaN(v) {
		return 0
	}
	return v
}
