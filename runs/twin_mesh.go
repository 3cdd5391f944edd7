package runs

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// GET /v1/twin/mesh?project=&node= is a cad_model's triangles for the
// browser, as STL (binary, or ASCII as it was committed): an STL part's
// own file, or its STEP tessellated by cadquery.export_geometry (0.1 mm
// chordal, 0.2 rad angular tolerance). A conversion stages the STEP from
// the blob store (twin.stage_work_product_file) and exports it, both as
// ToolCall workflows, then keeps the STL in MeshCache under the STEP's
// SHA-256, so the same geometry is converted once whatever node names it.
// X-Mesh-Source says which of these the bytes are.

// Browser mesh fineness: fine enough that a fillet reads round, coarse
// enough that a part stays a few MB.
const (
	meshTolerance        = 0.1 // mm
	meshAngularTolerance = 0.2 // rad
)

// meshLocks serialise conversions of the same STEP, so two viewers
// opening a part at once convert it once.
var meshLocks sync.Map // sha256 -> *sync.Mutex

func (h TwinViews) mesh(w http.ResponseWriter, r *http.Request) {
	q, ok := twinQuery(w, r, "pass project=PROJECT_ID and node=NODE (a cad_model's node id, KEY or KEY@n)", "project", "node")
	if !ok {
		return
	}
	ctx := r.Context()
	n, err := twin.ResolveRef(ctx, h.Twin, q["project"], q["node"])
	if err != nil {
		httpjson.Error(w, twinViewStatus(err), fmt.Sprintf("node %s in project %s: %v", q["node"], q["project"], err))
		return
	}
	f, err := twin.GeometryOf(n)
	if err != nil {
		httpjson.Error(w, twinViewStatus(err), err.Error())
		return
	}
	if h.Blobs == nil {
		httpjson.Error(w, http.StatusServiceUnavailable, "this server has no blob store to read geometry from: run metaforge serve with a data dir")
		return
	}
	var data []byte
	var source string
	switch f.Format {
	case twin.FormatSTL:
		if data, err = h.Blobs.Get(f.Blob.Key); err != nil {
			httpjson.Error(w, twinViewStatus(err), err.Error())
			return
		}
		source = "stl " + f.Blob.Key
	default:
		var status int
		if data, source, status, err = h.stepMesh(ctx, n, f); err != nil {
			httpjson.Error(w, status, err.Error())
			return
		}
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Header().Set("X-Mesh-Source", source)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}

// stepMesh is the cached tessellation of a STEP part, converting it when
// there is none yet.
func (h TwinViews) stepMesh(ctx context.Context, n twin.Node, f twin.GeometryFile) ([]byte, string, int, error) {
	cached := ""
	if h.MeshCache != "" {
		cached = filepath.Join(h.MeshCache, f.Blob.SHA256+".stl")
	}
	lock, _ := meshLocks.LoadOrStore(f.Blob.SHA256, &sync.Mutex{})
	mu := lock.(*sync.Mutex)
	mu.Lock()
	defer mu.Unlock()
	if cached != "" {
		if data, err := os.ReadFile(cached); err == nil && binarySTL(data) {
			return data, "cached tessellation of " + f.Blob.Key, http.StatusOK, nil
		}
	}
	if h.Runs == nil {
		return nil, "", http.StatusServiceUnavailable, fmt.Errorf("%s is a STEP and this server has no Temporal to convert it with; "+
			"commit an STL of it (twin.commit_geometry) to view it", n.Ref())
	}
	stage, err := h.Runs.ReadCall(ctx, "twin.stage_work_product_file", map[string]any{"project_id": n.ProjectID, "work_product_id": n.ID},
		n.ProjectID, "stage "+n.Ref()+" for the browser's 3D view")
	if err != nil {
		return nil, "", http.StatusServiceUnavailable, err
	}
	var staged struct {
		FilePath string `json:"file_path"`
	}
	if err := callData(stage, &staged); err != nil {
		return nil, "", http.StatusBadGateway, fmt.Errorf("stage %s: %w", n.Ref(), err)
	}
	export, err := h.Runs.ReadCall(ctx, "cadquery.export_geometry", map[string]any{"input_file": staged.FilePath, "output_format": "stl",
		"tolerance": meshTolerance, "angular_tolerance": meshAngularTolerance}, n.ProjectID, "tessellate "+n.Ref()+" for the browser's 3D view")
	if err != nil {
		return nil, "", http.StatusServiceUnavailable, err
	}
	var exported struct {
		OutputFile string `json:"output_file"`
	}
	if err := callData(export, &exported); err != nil {
		return nil, "", http.StatusBadGateway, fmt.Errorf("tessellate %s with cadquery.export_geometry: %w", n.Ref(), err)
	}
	data, err := os.ReadFile(exported.OutputFile)
	if err != nil || !binarySTL(data) {
		return nil, "", http.StatusBadGateway, fmt.Errorf("cadquery.export_geometry (call %s) wrote %s, which is not a binary STL here: %v",
			export.CallID, exported.OutputFile, err)
	}
	if cached != "" {
		// A cache that cannot be written costs a conversion next time,
		// not this answer.
		_ = writeMeshCache(cached, data)
	}
	return data, fmt.Sprintf("tessellation of %s by cadquery.export_geometry (call %s)", f.Blob.Key, export.CallID), http.StatusOK, nil
}

// callData decodes a tool call's data, or says why it has none.
func callData(res workflows.ToolCallResult, into any) error {
	if res.Status != workflows.StatusSuccess {
		if res.Error != nil {
			return fmt.Errorf("call %s: %s", res.CallID, res.Error.Details)
		}
		return fmt.Errorf("call %s ended %s", res.CallID, res.Status)
	}
	return json.Unmarshal(res.Data, into)
}

// binarySTL says whether data is a whole binary STL: an 80-byte header, a
// triangle count, and 50 bytes per triangle.
func binarySTL(data []byte) bool {
	if len(data) < 84 {
		return false
	}
	n := binary.LittleEndian.Uint32(data[80:84])
	return n > 0 && uint64(len(data)) == 84+50*uint64(n)
}

// writeMeshCache writes a converted mesh aside and renames it into place,
// so a reader never sees half of one.
func writeMeshCache(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mesh-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
