package gmsh

import (
	"fmt"
	"github.com/metaforge/metaforge/internal/vec3"
	"math"

	"github.com/metaforge/metaforge/internal/meshfile"
)

// CoordinateFrame is the frame every mesh is in: the twin's, which is the
// STEP file's own (gmsh applies no placement of its own).
const CoordinateFrame = "twin"

// checkFrame makes sure the mesh lies where the part does: its node box
// must match the box gmsh computed for the STEP geometry. Nodes lie on the
// geometry, so none may stand outside the part's box by more than a
// modelling tolerance; a curved extreme may fall short of the box by the
// chord's sagitta, which curvature sizing keeps under a tenth of an
// element, so the inward tolerance adds that.
func checkFrame(mesh, part meshfile.BBox, size float64) error {
	diag := vec3.Norm(vec3.Sub(part.Max, part.Min))
	outside := math.Max(1e-3, 1e-5*diag)
	inside := outside + 0.1*size
	axes := "xyz"
	for k := range 3 {
		lo, hi := mesh.Min[k]-part.Min[k], part.Max[k]-mesh.Max[k]
		if lo < -outside || hi < -outside || lo > inside || hi > inside {
			return fmt.Errorf("the mesh spans %c %.6g..%.6g mm but the STEP part spans %.6g..%.6g mm: "+
				"the mesh is not in the part's frame", axes[k], mesh.Min[k], mesh.Max[k], part.Min[k], part.Max[k])
		}
	}
	return nil
}
