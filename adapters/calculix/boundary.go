package calculix

import "github.com/metaforge/metaforge/internal/vec3"

// boundaryFace is a face the analysis holds or loads, and its nodes.
type boundaryFace struct {
	name, role string
	nodes      []int
}

// loadResultant is where a uniform traction on the load face acts (the
// face's centroid) and the face's node positions.
func (md *model) loadResultant(faces []boundaryFace) (vec3.V, []vec3.V, bool) {
	for _, f := range faces {
		if f.role != "load" || md.table == nil {
			continue
		}
		face, ok := md.table.Find(f.name)
		if !ok {
			return vec3.V{}, nil, false
		}
		nodes := make([]vec3.V, 0, len(f.nodes))
		for _, id := range f.nodes {
			nodes = append(nodes, md.mesh.Nodes[id])
		}
		return face.CentroidMM, nodes, true
	}
	return vec3.V{}, nil, false
}
