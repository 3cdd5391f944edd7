package runs_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/metaforge/metaforge/adapters/cadquery"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
)

// The /twin page's routes on the whole server path (MCP client, embedded
// Temporal, workers, the twin and CadQuery adapters over one workspace):
// a stand of a base plate and two columns with their masses measured by
// CadQuery and their costs from BOM items. GET /v1/twin/hierarchy rolls
// them up to the hand sums, names each position's owner and the
// interfaces the system architecture gives it; GET /v1/twin/model places
// the parts; GET /v1/twin/mesh tessellates a STEP through
// cadquery.export_geometry once (a ToolCall), then serves it from its
// cache, and serves an STL part's own bytes.
func TestTwinViewRoutes(t *testing.T) {
	mem := twin.NewMemoryStore()
	dir := t.TempDir()
	ws := workspace.New(dir)
	blobs, err := twin.NewBlobStore(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	backend := &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs, Files: ws}
	cq := cadquery.New(ws, cadquery.Options{})
	t.Cleanup(func() { _ = cq.Close() })
	svc := &runs.Service{}
	cache := filepath.Join(dir, "browser-meshes")
	st := mcptest.StartWithTwinConfigured(t, backend, func(o *mcpserver.Options) {
		o.Routes = []mcpserver.Routes{runs.TwinViews{Twin: mem, Blobs: blobs, Runs: svc, MeshCache: cache}}
	}, append(twinadapter.New(backend), cq)...)
	svc.Client, svc.Registry = st.Temporal.Client, st.Registry
	r := &armRig{t: t, st: st, cs: st.ConnectHTTP(t, nil)}
	r.project = r.call("project.create", map[string]any{"name": "stand-" + newID()})["project_id"].(string)

	// Masses by hand: plate 100 x 60 x 10 aluminium = 60000 mm^3 x
	// 2.7e-6 = 0.162 kg; column 20 x 20 x 80 steel = 32000 x 7.85e-6 =
	// 0.2512 kg, two of them: 0.6644 kg. Costs: 45.00 + 2 x 12.50 = 70 USD.
	plateKg, columnKg := 100*60*10*aluminium, 20*20*80*steel
	standKg, standUSD := plateKg+2*columnKg, 45.0+2*12.5
	plate := r.model("Base plate", 100, 60, 10, "aluminum_6061_t6")
	column := r.model("Column", 20, 20, 80, "steel")
	plateBOM := r.call("twin.record_component_selection", map[string]any{"name": "Plate stock", "mpn": "AL-100x60",
		"manufacturer": "Metals4U", "specs": map[string]any{"unit_cost": "$45.00"}})["item_ref"].(string)
	columnBOM := r.call("twin.record_component_selection", map[string]any{"name": "Column stock", "mpn": "ST-20x20",
		"manufacturer": "Metals4U", "specs": map[string]any{"unit_cost": "12.50 USD"}})["item_ref"].(string)
	r.call("twin.record_hierarchy_node", map[string]any{"name": "Stand", "level": "product"})
	r.call("twin.record_hierarchy_node", map[string]any{"name": "Base plate", "level": "part", "parent": "HN-STAND",
		"realized_by": plate, "instance_of": plateBOM})
	r.call("twin.record_hierarchy_node", map[string]any{"name": "Column", "level": "part", "parent": "HN-STAND", "quantity": 2,
		"realized_by": column, "instance_of": columnBOM, "placement": map[string]any{"x_mm": 30, "z_mm": 10, "rz_deg": 90}})
	r.call("twin.commit_system_architecture", map[string]any{
		"subsystems": []map[string]any{{"name": "stand", "hierarchy_node": "HN-STAND"}, {"name": "column", "hierarchy_node": "HN-COLUMN"},
			{"name": "lamp"}},
		"interfaces": []map[string]any{{"name": "column mount", "from": "column", "to": "stand", "kind": "mechanical"},
			{"name": "lamp power", "from": "stand", "to": "lamp", "kind": "electrical"}}})

	get := func(path string) (int, http.Header, []byte) {
		t.Helper()
		res, err := http.Get(st.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, b
	}
	getJSON := func(path string, into any) int {
		t.Helper()
		code, _, b := get(path)
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatalf("GET %s: %d %v: %s", path, code, err, b)
		}
		return code
	}
	q := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v.Encode()
	}

	// The structure: figures equal to the hand sums, owners, interfaces.
	var sv runs.StructureView
	if code := getJSON("/v1/twin/hierarchy?"+q("project", r.project), &sv); code != http.StatusOK || len(sv.Roots) != 1 {
		t.Fatalf("hierarchy: %d %+v", code, sv)
	}
	stand := sv.Roots[0]
	const tolKg, tolUSD = 1e-6, 1e-9
	if stand.Name != "Stand" || stand.MassKg.Value == nil || math.Abs(*stand.MassKg.Value-standKg) > tolKg ||
		stand.CostUSD.Value == nil || math.Abs(*stand.CostUSD.Value-standUSD) > tolUSD {
		t.Fatalf("stand: %s mass %+v cost %+v, want %g kg %g USD", stand.Name, stand.MassKg, stand.CostUSD, standKg, standUSD)
	}
	if len(stand.Children) != 2 {
		t.Fatalf("stand's children: %+v", stand.Children)
	}
	pl, col := stand.Children[0], stand.Children[1]
	if pl.Name != "Base plate" || math.Abs(*pl.MassKg.Value-plateKg) > tolKg || col.Name != "Column" || col.Quantity != 2 ||
		math.Abs(*col.MassKg.Value-columnKg) > tolKg || math.Abs(*col.CostUSD.Value-12.5) > tolUSD {
		t.Errorf("children: %s %+v; %s x%d %+v %+v", pl.Name, pl.MassKg, col.Name, col.Quantity, col.MassKg, col.CostUSD)
	}
	if stand.Owner != "agent:mcptest" || stand.ItemKey != "HN-STAND" || stand.Model != nil || !strings.Contains(stand.ModelNote, "twin.realize_hierarchy_node") {
		t.Errorf("stand: owner %q key %q model %+v note %q", stand.Owner, stand.ItemKey, stand.Model, stand.ModelNote)
	}
	if col.Model == nil || col.Model.Ref != column || col.Model.Format != "step" {
		t.Errorf("column's model %+v, want %s step", col.Model, column)
	}
	if fmt.Sprint(stand.Interfaces) != "[{column mount mechanical column in} {lamp power electrical lamp out}]" ||
		fmt.Sprint(col.Interfaces) != "[{column mount mechanical stand out}]" || len(pl.Interfaces) != 0 {
		t.Errorf("interfaces: stand %v, column %v, plate %v", stand.Interfaces, col.Interfaces, pl.Interfaces)
	}
	if !strings.HasPrefix(sv.Architecture, "ARCH-") || !strings.Contains(sv.InterfacesNote, "subsystems lamp of") {
		t.Errorf("architecture %q, note %q", sv.Architecture, sv.InterfacesNote)
	}

	// The model of the stand: its two parts, placed.
	var mv runs.ModelView
	if code := getJSON("/v1/twin/model?"+q("project", r.project, "node", "HN-STAND"), &mv); code != http.StatusOK || len(mv.Parts) != 2 {
		t.Fatalf("model: %d %+v", code, mv)
	}
	cp := mv.Parts[1]
	if cp.Ref != column || cp.Quantity != 2 || len(cp.Placements) != 1 || cp.Placements[0].XMM != 30 || cp.Placements[0].RZDeg != 90 ||
		!strings.HasPrefix(cp.Mesh, "/v1/twin/mesh?") {
		t.Errorf("column part %+v", cp)
	}
	var part runs.ModelView
	if code := getJSON("/v1/twin/model?"+q("project", r.project, "node", plate), &part); code != http.StatusOK || len(part.Parts) != 1 ||
		part.Parts[0].Ref != plate || len(part.Parts[0].Placements) != 0 || part.Node.Type != "cad_model" {
		t.Errorf("model of a cad_model: %d %+v", code, part)
	}
	var other runs.ModelView
	if code := getJSON("/v1/twin/model?"+q("project", r.project, "node", plateBOM), &other); code != http.StatusOK || len(other.Parts) != 0 ||
		!strings.Contains(other.Note, "is a component_selection: it has no shape to draw") {
		t.Errorf("model of a BOM item: %d %+v", code, other)
	}

	// The plate's mesh: tessellated by CadQuery in a ToolCall, the box's
	// extent exactly; then from the cache, with no new call.
	meshPath := "/v1/twin/mesh?" + q("project", r.project, "node", pl.Model.NodeID)
	code, hdr, stl := get(meshPath)
	if code != http.StatusOK || !strings.Contains(hdr.Get("X-Mesh-Source"), "by cadquery.export_geometry (call rest-") {
		t.Fatalf("mesh: %d %q %s", code, hdr.Get("X-Mesh-Source"), stl[:min(len(stl), 300)])
	}
	lo, hi, tris := stlExtent(t, stl)
	if ext := [3]float64{hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}; math.Abs(ext[0]-100) > 1e-3 || math.Abs(ext[1]-60) > 1e-3 || math.Abs(ext[2]-10) > 1e-3 || tris < 12 {
		t.Errorf("the plate's mesh spans %v with %d triangles, want 100 x 60 x 10", ext, tris)
	}
	calls := 0
	for deadline := time.Now().Add(10 * time.Second); calls == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		calls = exportCalls(t, st) // visibility lags the start a little
	}
	code, hdr, again := get(meshPath)
	if code != http.StatusOK || !strings.HasPrefix(hdr.Get("X-Mesh-Source"), "cached tessellation of sha256:") || string(again) != string(stl) {
		t.Errorf("second read: %d %q, same bytes %v", code, hdr.Get("X-Mesh-Source"), string(again) == string(stl))
	}
	if n := exportCalls(t, st); n != calls || calls != 1 {
		t.Errorf("cadquery.export_geometry ran %d times before the second read, %d after; want 1 and 1", calls, n)
	}

	// An STL part is served as committed.
	stlNode, _, _, err := twin.CommitGeometry(context.Background(), mem, blobs, twin.GeometryWrite{ProjectID: r.project, Name: "Plate mesh",
		Format: twin.FormatSTL, Data: stl, Info: twin.WriteInfo{Author: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	code, hdr, body := get("/v1/twin/mesh?" + q("project", r.project, "node", stlNode.ID))
	if code != http.StatusOK || !strings.HasPrefix(hdr.Get("X-Mesh-Source"), "stl sha256:") || string(body) != string(stl) {
		t.Errorf("STL part: %d %q", code, hdr.Get("X-Mesh-Source"))
	}

	var e struct{ Error string }
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/v1/twin/hierarchy", http.StatusBadRequest, "project is missing: pass project=PROJECT_ID"},
		{"/v1/twin/hierarchy?" + q("project", r.project, "tab", "x"), http.StatusBadRequest, "unknown parameter tab: pass project=PROJECT_ID"},
		{"/v1/twin/hierarchy?" + q("project", "nope"), http.StatusNotFound, "project nope"},
		{"/v1/twin/model?" + q("project", r.project), http.StatusBadRequest, "node is missing"},
		{"/v1/twin/model?" + q("project", r.project, "node", "HN-NOPE"), http.StatusNotFound, "HN-NOPE"},
		{"/v1/twin/mesh?" + q("project", r.project, "node", "HN-STAND"), http.StatusUnprocessableEntity, "has no geometry file"},
	} {
		e.Error = ""
		if code := getJSON(c.path, &e); code != c.code || !strings.Contains(e.Error, c.want) {
			t.Errorf("GET %s: %d %q; want %d saying %q", c.path, code, e.Error, c.code, c.want)
		}
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 1 {
		t.Errorf("the mesh cache holds %d files, want 1", len(entries))
	}
}

// stlExtent reads a binary STL's bounding box and triangle count.
func stlExtent(t *testing.T, data []byte) (lo, hi [3]float64, n int) {
	t.Helper()
	if len(data) < 84 {
		t.Fatalf("not a binary STL: %d bytes", len(data))
	}
	n = int(binary.LittleEndian.Uint32(data[80:84]))
	if len(data) != 84+50*n {
		t.Fatalf("binary STL of %d triangles has %d bytes", n, len(data))
	}
	lo, hi = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := 0; i < n; i++ {
		for v := 0; v < 3; v++ {
			for a := 0; a < 3; a++ {
				off := 84 + 50*i + 12 + 12*v + 4*a
				x := float64(math.Float32frombits(binary.LittleEndian.Uint32(data[off:])))
				lo[a], hi[a] = math.Min(lo[a], x), math.Max(hi[a], x)
			}
		}
	}
	return lo, hi, n
}

// exportCalls counts the cadquery.export_geometry ToolCalls the dashboard
// started.
func exportCalls(t *testing.T, st *mcptest.Stack) int {
	t.Helper()
	resp, err := st.Temporal.Client.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Query: "MfTool = 'cadquery.export_geometry' AND MfCaller = 'dashboard'"})
	if err != nil {
		t.Fatal(err)
	}
	return len(resp.GetExecutions())
}
