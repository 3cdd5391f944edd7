package calculix

import (
	"fmt"
	"slices"
)

// Singularity says that a stress peak sits where linear elasticity has no
// finite answer: on, or one element from, a face that is held fixed or
// loaded. A clamp meeting a free edge, or a load's edge, makes the stress
// there rise without limit as the mesh is refined, so the peak measures
// the mesh, not the part.
type Singularity struct {
	Face string `json:"face"`
	// Role is "fixed" or "load".
	Role string `json:"face_role"`
	// Placement is "on the face" or "one element from the face".
	Placement   string `json:"placement"`
	Explanation string `json:"explanation"`
}

// singularityAt says whether node lies on or next to one of the faces.
func (md *model) singularityAt(node int, faces []boundaryFace) *Singularity {
	for _, f := range faces {
		if slices.Contains(f.nodes, node) {
			return newSingularity(f, "on the face")
		}
	}
	on := map[int]string{}
	for i, f := range faces {
		for _, n := range f.nodes {
			if _, ok := on[n]; !ok {
				on[n] = faces[i].name
			}
		}
	}
	for _, el := range md.mesh.Elements {
		if !slices.Contains(el, node) {
			continue
		}
		for _, n := range el {
			if name, ok := on[n]; ok {
				for _, f := range faces {
					if f.name == name {
						return newSingularity(f, "one element from the face")
					}
				}
			}
		}
	}
	return nil
}

func newSingularity(f boundaryFace, placement string) *Singularity {
	what := "a constrained face, where the clamp meets the part's free surface"
	if f.role == "load" {
		what = "a loaded face, where the load's edge meets the part"
	}
	return &Singularity{Face: f.name, Role: f.role, Placement: placement,
		Explanation: fmt.Sprintf("the peak is %s %s (%s): a likely stress singularity, which rises without limit as the mesh is refined, so it is not a design value", placement, f.name, what)}
}
