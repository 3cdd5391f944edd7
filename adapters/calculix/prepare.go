package calculix

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/internal/vec3"

	"github.com/metaforge/metaforge/internal/meshfile"
	"github.com/metaforge/metaforge/protocol"
)

// model is a mesh ready for a deck: the parsed mesh, its face table when
// the mesher wrote one, and where it is.
type model struct {
	path  string
	mesh  *Mesh
	table *meshfile.Table
	bbox  meshfile.BBox
}

// loadModel reads the mesh named by mesh_file (already confined).
func loadModel(path string) (*model, error) {
	m, err := ReadMesh(path)
	if err != nil {
		return nil, protocol.Invalid("mesh_file %s is not a usable CalculiX mesh: %v", path, err)
	}
	md := &model{path: path, mesh: m, bbox: m.BBox(nil)}
	t, err := meshfile.Read(path)
	switch {
	case err == nil:
		md.table = &t
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, protocol.Invalid("mesh_file %s: %v", path, err)
	}
	if len(m.ElementSets) == 0 {
		return nil, protocol.Invalid("mesh_file %s: its *ELEMENT lines name no ELSET, so no material can be assigned; mesh it with gmsh.generate_mesh", path)
	}
	return md, nil
}

// faceSet checks that a surface set the caller named exists, and lists the
// ones that do when it does not.
func (md *model) faceSet(arg, name string) ([]int, error) {
	if strings.TrimSpace(name) == "" {
		return nil, protocol.Invalid("%s is empty; name one of the mesh's surface sets: %s", arg, strings.Join(md.setNames(), ", "))
	}
	ids, ok := md.mesh.NodeSet(name)
	if !ok || len(ids) == 0 {
		return nil, protocol.Invalid("%s %q is not a surface set of %s; the mesh has: %s (gmsh.list_named_faces shows where each one is)",
			arg, name, filepath.Base(md.path), strings.Join(md.setNames(), ", "))
	}
	for _, id := range ids {
		if _, ok := md.mesh.Nodes[id]; !ok {
			return nil, protocol.Invalid("%s %q names node %d, which the mesh does not have", arg, name, id)
		}
	}
	return ids, nil
}

func (md *model) setNames() []string {
	if md.table != nil {
		return md.table.Names()
	}
	return md.mesh.SetNames()
}

// spanWarning is the wrong-face check: a fixed, load, source or sink
// face that runs the whole length of the part is almost never meant (it
// collapses the load path), so the result says so.
func (md *model) spanWarning(arg, name string, ids []int) string {
	size := md.bbox.Size()
	long := 0
	for k := 1; k < 3; k++ {
		if size[k] > size[long] {
			long = k
		}
	}
	if size[long] <= 0 {
		return ""
	}
	fb := md.mesh.BBox(ids)
	span := (fb.Max[long] - fb.Min[long]) / size[long]
	if span < 0.9 {
		return ""
	}
	return fmt.Sprintf("%s %q spans %.0f%% of the part's length along %s (its longest axis, %.4g mm): a fixed or loaded face usually sits at one end; check that this is the face you meant",
		arg, name, span*100, "xyz"[long:long+1], size[long])
}

// unit normalises a direction vector.
func unit(v []float64, arg string) ([3]float64, error) {
	if len(v) != 3 {
		return [3]float64{}, protocol.Invalid("%s must have three components [x, y, z]", arg)
	}
	u := [3]float64{v[0], v[1], v[2]}
	n := vec3.Norm(u)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return [3]float64{}, protocol.Invalid("%s %v has no direction; give a non-zero vector such as [0, 0, -1]", arg, v)
	}
	return [3]float64{u[0] / n, u[1] / n, u[2] / n}, nil
}

// linkMesh makes the mesh visible in the call folder under a short name:
// CalculiX reads input lines of at most 132 characters, which a long
// absolute path in *INCLUDE would pass.
func linkMesh(dir, meshPath string) (string, error) {
	name := "mesh.inp"
	dst := filepath.Join(dir, name)
	if real, err := filepath.EvalSymlinks(dst); err == nil && real == meshPath {
		return name, nil
	}
	_ = os.Remove(dst)
	if err := os.Symlink(meshPath, dst); err != nil {
		return "", protocol.Transient("cannot link the mesh into the call folder: %v", err)
	}
	return name, nil
}
