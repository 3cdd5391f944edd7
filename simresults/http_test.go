package simresults_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters/calculix"
	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/internal/vec3"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/simresults"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/worker"
)

// The cantilever of issue 20: 200 x 20 x 5 mm aluminium 6061-T6
// (E = 68.9 GPa), clamped at x = 0, 50 N along -z spread over the end at
// x = 200. Euler-Bernoulli: tip deflection P L^3 / (3 E I) = 9.2888 mm
// with I = b h^3 / 12 = 208.33 mm^4.
const (
	beamP, beamL, beamB, beamH, beamE = 50.0, 200.0, 20.0, 5.0, 68900.0
)

// rig is the durable path (embedded Temporal, workers, MCP server) with
// gmsh and calculix over a workspace, a twin, and the routes under test.
type rig struct {
	t       *testing.T
	session *mcp.ClientSession
	store   twin.Store
	srv     *httptest.Server
	ws      *workspace.Workspace
	stack   *mcptest.Stack
}

func newRig(t *testing.T) *rig {
	t.Helper()
	if _, err := exec.LookPath("ccx"); err != nil {
		t.Fatalf("ccx is not installed (apt-get install calculix-ccx; deploy/test-deps.sh does it): %v", err)
	}
	fixtures, _ := filepath.Abs(filepath.Join("..", "adapters", "calculix", "testdata"))
	ws := workspace.New(t.TempDir(), fixtures)
	st := mcptest.StartWithDeps(t, worker.Deps{WorkspaceRoot: ws.Root, ReadRoots: ws.Extra}, gmsh.New(ws), calculix.New(ws))
	r := &rig{t: t, session: st.Connect(t, nil), store: twin.NewMemoryStore(), ws: ws, stack: st}
	mux := http.NewServeMux()
	simresults.New(worker.CallLookup{Client: st.Temporal.Client}, r.store, ws).Register(mux)
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	return r
}

// call runs a tool through MCP and returns its result and callId.
func (r *rig) call(tool string, args map[string]any, out any) string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		r.t.Fatalf("%s: %v", tool, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		r.t.Fatalf("%s: %s", tool, text)
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		r.t.Fatalf("%s: %v: %s", tool, err, text)
	}
	id, _ := res.Meta["callId"].(string)
	return id
}

// get fetches path and decodes a 200 answer into out; it returns the
// status and the error message of any other.
func (r *rig) get(path string, out any) (int, string) {
	r.t.Helper()
	resp, err := http.Get(r.srv.URL + path)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e.Error
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		r.t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, ""
}

type beamRun struct {
	mesh struct {
		MeshFile    string `json:"mesh_file"`
		SurfaceSets map[string]struct {
			Centroid []float64 `json:"centroid_mm"`
		} `json:"surface_sets"`
	}
	fixed, loaded string
	meshCall      string
	fea           struct {
		MaxVonMisesMPa    float64   `json:"max_von_mises_mpa"`
		MaxVonMisesAt     []float64 `json:"max_von_mises_at_mm"`
		MaxDisplacementMM float64   `json:"max_displacement_mm"`
		MaxDisplacementAt []float64 `json:"max_displacement_at_mm"`
		MeshNodes         int       `json:"mesh_nodes"`
	}
	feaCall string
}

// solveBeam meshes the cantilever (quadratic tetrahedra, 5 mm) and solves
// it, through MCP.
func (r *rig) solveBeam() *beamRun {
	r.t.Helper()
	b := &beamRun{}
	step := filepath.Join(r.ws.Extra[0], "beam.step")
	b.meshCall = r.call("gmsh.generate_mesh", map[string]any{"input_file": step, "element_order": 2, "mesh_size_mm": 5}, &b.mesh)
	lo, hi := math.Inf(1), math.Inf(-1)
	for name, s := range b.mesh.SurfaceSets {
		if s.Centroid[0] < lo {
			lo, b.fixed = s.Centroid[0], name
		}
		if s.Centroid[0] > hi {
			hi, b.loaded = s.Centroid[0], name
		}
	}
	b.feaCall = r.call("calculix.run_fea", map[string]any{"mesh_file": b.mesh.MeshFile, "material": "aluminum_6061_t6",
		"fixed_node_set": b.fixed, "load_node_set": b.loaded, "load_force_n": beamP, "load_direction": []float64{0, 0, -1}}, &b.fea)
	if len(b.feaCall) != 16 {
		r.t.Fatalf("run_fea's callId %q", b.feaCall)
	}
	return b
}

// field is the answer as the test reads it.
type field struct {
	CallID           string    `json:"call_id"`
	ToolID           string    `json:"tool_id"`
	Available        []string  `json:"available_fields"`
	ResultPeak       *float64  `json:"result_peak"`
	Field            string    `json:"field"`
	Unit             string    `json:"unit"`
	MeshNodes        int       `json:"mesh_nodes"`
	SurfaceTriangles int       `json:"surface_triangles"`
	Triangles        int       `json:"triangles"`
	TriangleCap      int       `json:"triangle_cap"`
	NodeIDs          []int     `json:"node_ids"`
	Positions        []float64 `json:"positions"`
	Indices          []int     `json:"indices"`
	Values           []float64 `json:"values"`
	Displacements    []float64 `json:"displacements"`
	Max              float64   `json:"max"`
	Min              float64   `json:"min"`
	Peak             struct {
		Value float64    `json:"value"`
		Node  int        `json:"node"`
		AtMM  [3]float64 `json:"at_mm"`
	} `json:"peak"`
	MaxDisplacement *struct {
		Value float64    `json:"value"`
		AtMM  [3]float64 `json:"at_mm"`
	} `json:"max_displacement"`
	Markers []struct {
		Name      string     `json:"name"`
		Role      string     `json:"role"`
		Centroid  [3]float64 `json:"centroid_mm"`
		Normal    [3]float64 `json:"normal"`
		Area      float64    `json:"area_mm2"`
		Points    []float64  `json:"points_mm"`
		Direction []float64  `json:"direction"`
		Magnitude *float64   `json:"magnitude"`
	} `json:"markers"`
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The cantilever's von Mises field over REST, from a real CalculiX run
// read back through its ToolCall workflow: the surface is the beam's
// (10 200 mm², every triangle facing out), each vertex carries its node's
// value, the peak is the one run_fea reported and where, the tip moves as
// Euler-Bernoulli says, the clamp and the load are where the call put
// them; a tighter cap draws fewer triangles with the same peak.
func TestCantileverField(t *testing.T) {
	r := newRig(t)
	b := r.solveBeam()
	var f field
	if code, msg := r.get("/v1/results/"+b.feaCall+"/field?name=von_mises", &f); code != http.StatusOK {
		t.Fatalf("von_mises: %d %s", code, msg)
	}
	t.Logf("%d mesh nodes, %d of %d surface triangles drawn, %d vertices; peak %.4g MPa at %v", f.MeshNodes, f.Triangles, f.SurfaceTriangles,
		len(f.NodeIDs), f.Max, f.Peak.AtMM)
	if f.CallID != b.feaCall || f.ToolID != calculix.ToolRunFEA || strings.Join(f.Available, ",") != "von_mises,displacement" ||
		f.Field != "von_mises" || f.Unit != "MPa" || f.MeshNodes != b.fea.MeshNodes {
		t.Errorf("answer's header: %s %s %v %s %s %d nodes", f.CallID, f.ToolID, f.Available, f.Field, f.Unit, f.MeshNodes)
	}
	if f.TriangleCap != 100_000 || f.Triangles != f.SurfaceTriangles || len(f.Indices) != 3*f.Triangles ||
		len(f.Positions) != 3*len(f.NodeIDs) || len(f.Values) != len(f.NodeIDs) || len(f.Displacements) != 3*len(f.NodeIDs) {
		t.Fatalf("array sizes: %d triangles (of %d, cap %d), %d indices, %d vertices, %d positions, %d values, %d displacements",
			f.Triangles, f.SurfaceTriangles, f.TriangleCap, len(f.Indices), len(f.NodeIDs), len(f.Positions), len(f.Values), len(f.Displacements))
	}
	area, centre := 0.0, vec3.V{beamL / 2, beamB / 2, beamH / 2}
	at := func(i int) vec3.V { return vec3.V{f.Positions[3*i], f.Positions[3*i+1], f.Positions[3*i+2]} }
	for i := 0; i < len(f.Indices); i += 3 {
		p, q, s := at(f.Indices[i]), at(f.Indices[i+1]), at(f.Indices[i+2])
		n := vec3.Cross(vec3.Sub(q, p), vec3.Sub(s, p))
		area += vec3.Norm(n) / 2
		if vec3.Dot(n, vec3.Sub(p, centre)) < 0 {
			t.Fatalf("triangle %d faces into the beam", i/3)
		}
	}
	if want := 2 * (beamL*beamB + beamL*beamH + beamB*beamH); !near(area, want, 1e-4*want) {
		t.Errorf("the surface drawn is %.3f mm², the beam's is %.0f", area, want)
	}
	if f.ResultPeak == nil || !near(f.Max, b.fea.MaxVonMisesMPa, 1e-9*b.fea.MaxVonMisesMPa) || *f.ResultPeak != b.fea.MaxVonMisesMPa ||
		f.Peak.AtMM[0] != b.fea.MaxVonMisesAt[0] || f.Peak.AtMM[1] != b.fea.MaxVonMisesAt[1] || f.Peak.AtMM[2] != b.fea.MaxVonMisesAt[2] {
		t.Errorf("peak %.6g MPa at %v; run_fea said %.6g at %v", f.Max, f.Peak.AtMM, b.fea.MaxVonMisesMPa, b.fea.MaxVonMisesAt)
	}
	if f.Min < 0 || f.Min >= f.Max {
		t.Errorf("min %g, max %g", f.Min, f.Max)
	}
	// The tip: x = 200 nodes go down by P L^3 / (3 E I) within 2% (the
	// 5 mm quadratic mesh), and the largest displacement is run_fea's.
	tip := beamP * beamL * beamL * beamL / (3 * beamE * beamB * beamH * beamH * beamH / 12)
	tipZ := 0.0
	for i := range f.NodeIDs {
		if f.Positions[3*i] == beamL {
			tipZ = math.Min(tipZ, f.Displacements[3*i+2])
		}
	}
	if !near(-tipZ, tip, 0.02*tip) {
		t.Errorf("the tip moves %.4f mm along z, Euler-Bernoulli says -%.4f", tipZ, tip)
	}
	if f.MaxDisplacement == nil || !near(f.MaxDisplacement.Value, b.fea.MaxDisplacementMM, 1e-9) || f.MaxDisplacement.AtMM[0] != beamL {
		t.Errorf("max displacement %+v; run_fea said %.6g at %v", f.MaxDisplacement, b.fea.MaxDisplacementMM, b.fea.MaxDisplacementAt)
	}
	if len(f.Markers) != 2 {
		t.Fatalf("markers %+v", f.Markers)
	}
	fx, ld := f.Markers[0], f.Markers[1]
	if fx.Role != "fixed" || fx.Name != b.fixed || fx.Normal != [3]float64{-1, 0, 0} || !near(fx.Area, beamB*beamH, 1e-6) || fx.Centroid[0] != 0 || len(fx.Points) == 0 {
		t.Errorf("fixture %+v", fx)
	}
	if ld.Role != "load" || ld.Name != b.loaded || ld.Normal != [3]float64{1, 0, 0} || ld.Centroid[0] != beamL || ld.Magnitude == nil || *ld.Magnitude != beamP ||
		len(ld.Direction) != 3 || ld.Direction[2] != -1 {
		t.Errorf("load %+v", ld)
	}

	// The displacement field: its peak is run_fea's max_displacement_mm.
	var d field
	if code, msg := r.get("/v1/simulation/results/"+b.feaCall+"/field?name=displacement", &d); code != http.StatusOK {
		t.Fatalf("displacement: %d %s", code, msg)
	}
	if d.Unit != "mm" || !near(d.Max, b.fea.MaxDisplacementMM, 1e-9) || d.Min < 0 {
		t.Errorf("displacement field: max %.6g %s (run_fea %.6g), min %g", d.Max, d.Unit, b.fea.MaxDisplacementMM, d.Min)
	}

	// Under a cap of 300 triangles: fewer drawn, the same peak.
	capped := httptest.NewServer(func() http.Handler {
		mux := http.NewServeMux()
		h := simresults.New(worker.CallLookup{Client: r.stack.Temporal.Client}, r.store, r.ws)
		h.TriangleCap = 300
		h.Register(mux)
		return mux
	}())
	defer capped.Close()
	resp, err := http.Get(capped.URL + "/v1/results/" + b.feaCall + "/field?name=von_mises")
	if err != nil {
		t.Fatal(err)
	}
	var c field
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if c.Triangles > 300 || c.Triangles < 30 || c.TriangleCap != 300 || c.SurfaceTriangles != f.SurfaceTriangles || c.Max != f.Max {
		t.Errorf("capped at 300: %d triangles of %d, max %g (uncapped %g)", c.Triangles, c.SurfaceTriangles, c.Max, f.Max)
	}
}

// What the route refuses, and what it says: a field the result lacks is
// "field not stored" (404), as is a call of a tool that writes none; an
// unknown call is 404 naming what to pass; bad parameters are 400.
func TestFieldRefusals(t *testing.T) {
	r := newRig(t)
	b := r.solveBeam()
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/v1/results/" + b.feaCall + "/field?name=temperature", http.StatusNotFound, "field not stored: call " + b.feaCall},
		{"/v1/results/" + b.meshCall + "/field?name=von_mises", http.StatusNotFound, "field not stored: call " + b.meshCall + " is a gmsh.generate_mesh call"},
		{"/v1/results/0123456789abcdef/field?name=von_mises", http.StatusNotFound, "no such call 0123456789abcdef"},
		{"/v1/results/" + b.feaCall + "/field?name=stress", http.StatusBadRequest, "name=von_mises, displacement or temperature"},
		{"/v1/results/" + b.feaCall + "/field?name=von_mises&lod=2", http.StatusBadRequest, "unknown parameter lod"},
		{"/v1/results/not-a-call/field?name=von_mises", http.StatusBadRequest, "16 hex characters"},
		{"/v1/simulation/results", http.StatusBadRequest, "?project=PROJECT_ID"},
		{"/v1/simulation/results?project=nope", http.StatusNotFound, "not found"},
		{"/v1/simulation/results?project=p&x=1", http.StatusBadRequest, "unknown parameter x"},
	} {
		if code, msg := r.get(c.path, &struct{}{}); code != c.code || !strings.Contains(msg, c.want) {
			t.Errorf("GET %s: %d %q, want %d saying %q", c.path, code, msg, c.code, c.want)
		}
	}
}

// The project's FEA results are the solver calls its evidence names:
// grouped by call, newest first, each with its metrics; simulation
// evidence naming no call is listed as without a field; an empty
// project says how to get one.
func TestProjectResults(t *testing.T) {
	r := newRig(t)
	b := r.solveBeam()
	ctx := context.Background()
	p, err := r.store.CreateProject(ctx, twin.Project{Name: "cantilever"}, "")
	if err != nil {
		t.Fatal(err)
	}
	var list simresults.Results
	if code, msg := r.get("/v1/simulation/results?project="+p.ID, &list); code != http.StatusOK || len(list.Results) != 0 || !strings.Contains(list.Note, "twin.record_evidence") {
		t.Fatalf("empty project: %d %s %+v", code, msg, list)
	}
	vm, tip := b.fea.MaxVonMisesMPa, b.fea.MaxDisplacementMM
	for _, w := range []twin.EvidenceWrite{
		{ProjectID: p.ID, Name: "tip load max_von_mises", Kind: "simulation", Metric: "max_von_mises", Value: &vm, Unit: "MPa",
			Data: map[string]any{"tool_id": calculix.ToolRunFEA, "call_id": b.feaCall}},
		{ProjectID: p.ID, Name: "tip load max_displacement", Kind: "simulation", Metric: "max_displacement", Value: &tip, Unit: "mm",
			Data: map[string]any{"tool_id": calculix.ToolRunFEA, "call_id": b.feaCall}},
		{ProjectID: p.ID, Name: "tier 2 deflection", Kind: "simulation", Metric: "tip_deflection", Value: &tip, Unit: "mm",
			Data: map[string]any{"solver_call_id": "00000000000000aa", "method": "calculix.run_fea (static)"}},
		{ProjectID: p.ID, Name: "hand-typed stress", Kind: "simulation", Metric: "max_von_mises", Value: &vm, Unit: "MPa"},
		{ProjectID: p.ID, Name: "a mesh", Kind: "analysis", Data: map[string]any{"tool_id": "gmsh.generate_mesh", "call_id": b.meshCall}},
	} {
		if _, _, _, err := twin.RecordEvidence(ctx, r.store, w); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // distinct creation times: the list is newest first
	}
	list = simresults.Results{}
	if code, msg := r.get("/v1/simulation/results?project="+p.ID, &list); code != http.StatusOK {
		t.Fatalf("%d %s", code, msg)
	}
	if len(list.Results) != 2 || list.Note != "" {
		t.Fatalf("results %+v", list)
	}
	tier2, fea := list.Results[0], list.Results[1]
	if tier2.CallID != "00000000000000aa" || tier2.ToolID != calculix.ToolRunFEA || len(tier2.Metrics) != 1 {
		t.Errorf("the tier 2 result: %+v", tier2)
	}
	if fea.CallID != b.feaCall || fea.ToolID != calculix.ToolRunFEA || fea.Name != "tip load max_von_mises" || len(fea.Metrics) != 2 ||
		*fea.Metrics[0].Value != vm || fea.Metrics[1].Metric != "max_displacement" || fea.Stale {
		t.Errorf("the run_fea result: %+v", fea)
	}
	if len(list.WithoutField) != 1 || list.WithoutField[0].Name != "hand-typed stress" {
		t.Errorf("without a field: %+v", list.WithoutField)
	}
}

// A steady thermal run's temperature field: its peak is run_thermal's,
// at the heated end; it has no displacements; the sink and the heat
// source are marked.
func TestThermalField(t *testing.T) {
	r := newRig(t)
	b := &beamRun{}
	step := filepath.Join(r.ws.Extra[0], "beam.step")
	r.call("gmsh.generate_mesh", map[string]any{"input_file": step, "element_order": 2, "mesh_size_mm": 5}, &b.mesh)
	lo, hi := math.Inf(1), math.Inf(-1)
	for name, s := range b.mesh.SurfaceSets {
		if s.Centroid[0] < lo {
			lo, b.fixed = s.Centroid[0], name
		}
		if s.Centroid[0] > hi {
			hi, b.loaded = s.Centroid[0], name
		}
	}
	var th struct {
		PeakC float64   `json:"peak_temperature_c"`
		At    []float64 `json:"peak_temperature_at_mm"`
	}
	id := r.call("calculix.run_thermal", map[string]any{"mesh_file": b.mesh.MeshFile, "material": "aluminum_6061_t6",
		"heat_source_node_set": b.loaded, "heat_load_w": 2, "sink_node_set": b.fixed, "sink_temperature_c": 20}, &th)
	var f field
	if code, msg := r.get("/v1/results/"+id+"/field?name=temperature", &f); code != http.StatusOK {
		t.Fatalf("temperature: %d %s", code, msg)
	}
	if f.ToolID != calculix.ToolRunThermal || strings.Join(f.Available, ",") != "temperature" || f.Unit != "°C" ||
		!near(f.Max, th.PeakC, 1e-9) || f.Peak.AtMM[0] != beamL || !near(f.Min, 20, 1e-6) || f.Displacements != nil || f.MaxDisplacement != nil {
		t.Errorf("temperature field: %s %v %s max %.6g at %v (run_thermal %.6g at %v), min %g, displacements %d",
			f.ToolID, f.Available, f.Unit, f.Max, f.Peak.AtMM, th.PeakC, th.At, f.Min, len(f.Displacements))
	}
	if len(f.Markers) != 2 || f.Markers[0].Role != "sink" || f.Markers[1].Role != "heat_source" || *f.Markers[1].Magnitude != 2 {
		t.Errorf("markers %+v", f.Markers)
	}
	if code, msg := r.get("/v1/results/"+id+"/field?name=von_mises", &struct{}{}); code != http.StatusNotFound || !strings.HasPrefix(msg, "field not stored") {
		t.Errorf("von_mises of a thermal run: %d %s", code, msg)
	}
}
