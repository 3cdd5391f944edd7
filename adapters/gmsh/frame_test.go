package gmsh

import (
	"github.com/metaforge/metaforge/internal/vec3"
	"testing"

	"github.com/metaforge/metaforge/internal/meshfile"
)

func TestCheckFrame(t *testing.T) {
	part := meshfile.BBox{Min: vec3.V{-1e-7, -1e-7, -1e-7}, Max: vec3.V{100 + 1e-7, 10 + 1e-7, 10 + 1e-7}}
	const size = 2.0
	for name, tc := range map[string]struct {
		mesh meshfile.BBox
		ok   bool
	}{
		"same box":                 {meshfile.BBox{Max: vec3.V{100, 10, 10}}, true},
		"curved extreme short":     {meshfile.BBox{Max: vec3.V{100, 10, 10 - 0.1}}, true},
		"translated":               {meshfile.BBox{Min: vec3.V{50, 0, 0}, Max: vec3.V{150, 10, 10}}, false},
		"a node outside the part":  {meshfile.BBox{Max: vec3.V{100.01, 10, 10}}, false},
		"scaled to metres":         {meshfile.BBox{Max: vec3.V{0.1, 0.01, 0.01}}, false},
		"short by half an element": {meshfile.BBox{Max: vec3.V{99, 10, 10}}, false},
	} {
		if err := checkFrame(tc.mesh, part, size); (err == nil) != tc.ok {
			t.Errorf("%s: checkFrame = %v, want ok %v", name, err, tc.ok)
		}
	}
}
