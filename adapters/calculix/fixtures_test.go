package calculix

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/internal/workspace"
)

// meshed is a gmsh mesh of a fixture, with its end faces found by
// position: fixed is the face at the smallest x, loaded the one at the
// largest.
type meshed struct {
	path          string
	nodes         int
	fixed, loaded string
}

var (
	fixtureWSOnce sync.Once
	fixtureWS     *workspace.Workspace
	fixtureMeshes sync.Map // key -> *fixtureOnce
)

type fixtureOnce struct {
	once sync.Once
	m    meshed
	err  error
}

// fixtureMesh meshes testdata/<step> once per element order and size for
// the whole test binary: several tests read the same meshes.
func fixtureMesh(t testing.TB, step string, order int, sizeMM float64) (*workspace.Workspace, meshed) {
	t.Helper()
	fixtureWSOnce.Do(func() {
		dir, err := os.MkdirTemp("", "metaforge-calculix-fixtures-")
		if err != nil {
			t.Fatal(err)
		}
		fixtureWS = workspace.New(dir, "testdata")
	})
	v, _ := fixtureMeshes.LoadOrStore(fmt.Sprintf("%s/%d/%g", step, order, sizeMM), &fixtureOnce{})
	mo := v.(*fixtureOnce)
	mo.once.Do(func() {
		abs, _ := filepath.Abs(filepath.Join("testdata", step))
		r, err := gmsh.New(fixtureWS).Call(context.Background(), gmsh.ToolGenerateMesh, json.RawMessage(fmt.Sprintf(
			`{"input_file":%q,"element_order":%d,"mesh_size_mm":%g}`, abs, order, sizeMM)))
		if err != nil {
			mo.err = err
			return
		}
		var out gmsh.MeshResult
		if mo.err = json.Unmarshal(r.Data, &out); mo.err != nil {
			return
		}
		mo.m = meshed{path: out.MeshFile, nodes: out.Nodes}
		lo, hi := 0.0, 0.0
		for name, s := range out.SurfaceSets {
			if mo.m.fixed == "" || s.CentroidMM[0] < lo {
				mo.m.fixed, lo = name, s.CentroidMM[0]
			}
			if mo.m.loaded == "" || s.CentroidMM[0] > hi {
				mo.m.loaded, hi = name, s.CentroidMM[0]
			}
		}
	})
	if mo.err != nil {
		t.Fatalf("mesh %s (order %d, %g mm): %v", step, order, sizeMM, mo.err)
	}
	return fixtureWS, mo.m
}
