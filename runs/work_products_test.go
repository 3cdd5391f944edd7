package runs_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/twin/neo4jtest"
	"github.com/metaforge/metaforge/workflows"
)

// partsDesk is the whole durable path over one twin store: a real MCP
// client, the MCP server, the embedded Temporal server and MetaForge's
// workers, CadQuery and gmsh over a workspace confined to a read root
// (where a person's files are) and a write root.
type partsDesk struct {
	t                   *testing.T
	ctx                 context.Context
	stack               *mcptest.Stack
	cs                  *mcp.ClientSession
	be                  *twinadapter.Backend
	ws                  *workspace.Workspace
	readRoot, writeRoot string
	project             string
}

func newPartsDesk(t *testing.T, store twin.Store, sessions twin.SessionBindings) *partsDesk {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	dir := t.TempDir()
	d := &partsDesk{t: t, ctx: ctx, ws: workspace.New(dir), readRoot: filepath.Join(dir, "parts"), writeRoot: filepath.Join(dir, "out")}
	for _, root := range []string{d.readRoot, d.writeRoot} {
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d.ws.Confine([]string{d.readRoot}, []string{d.writeRoot})
	blobs, err := twin.NewBlobStore(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	d.be = &twinadapter.Backend{Store: store, Sessions: sessions, Blobs: blobs, Files: d.ws, Imports: runs.WorkProducts{}, Overhangs: runs.Metrics{}}
	d.stack = mcptest.StartWithTwin(t, d.be, append(twinadapter.New(d.be), solversIn(t, d.ws)...)...)
	d.cs = d.stack.Connect(t, nil)
	d.project = d.call("project.create", map[string]any{"name": "parts-" + newID()})["project_id"].(string)
	return d
}

// try calls a tool as an MCP client does and returns its data, or the
// text of its refusal (a tool error or a protocol error).
func (d *partsDesk) try(tool string, args map[string]any) (map[string]any, string) {
	d.t.Helper()
	res, err := d.cs.CallTool(d.ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err.Error()
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		return nil, text
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		d.t.Fatalf("%s: %v: %s", tool, err, text)
	}
	return out, ""
}

func (d *partsDesk) call(tool string, args map[string]any) map[string]any {
	d.t.Helper()
	out, refusal := d.try(tool, args)
	if out == nil {
		d.t.Fatalf("%s: %s", tool, refusal)
	}
	return out
}

// refused checks a call is refused saying want, and returns the refusal.
func (d *partsDesk) refused(tool string, args map[string]any, want string) string {
	d.t.Helper()
	out, refusal := d.try(tool, args)
	if out != nil || !strings.Contains(refusal, want) {
		d.t.Fatalf("%s %v: want a refusal saying %q, got %v %q", tool, args, want, out, refusal)
	}
	d.t.Logf("%s refused: %s", tool, refusal)
	return refusal
}

// written is what the project holds and the blob store keeps: the count
// of items, of evidence, of blobs.
func (d *partsDesk) written() [3]int {
	d.t.Helper()
	items, err := d.be.Store.Items(d.ctx, d.project)
	if err != nil {
		d.t.Fatal(err)
	}
	evidence, err := d.be.Store.NodesByType(d.ctx, d.project, "evidence")
	if err != nil {
		d.t.Fatal(err)
	}
	blobs := 0
	_ = filepath.WalkDir(d.be.Blobs.Dir(), func(_ string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			blobs++
		}
		return nil
	})
	return [3]int{len(items), len(evidence), blobs}
}

// putInReadRoot copies a file a tool made into the read root, as a
// person's own file.
func (d *partsDesk) putInReadRoot(from, name string) string {
	d.t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		d.t.Fatal(err)
	}
	to := filepath.Join(d.readRoot, name)
	if err := os.WriteFile(to, data, 0o644); err != nil {
		d.t.Fatal(err)
	}
	return to
}

func sha256Of(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// near checks a figure against a hand computation, relative tolerance tol.
func near(t *testing.T, what string, got any, want, tol float64) {
	t.Helper()
	g, ok := got.(float64)
	if !ok || math.Abs(g-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %g (relative tolerance %g)", what, got, want, tol)
	}
}

// onBothTwins runs a test of the whole path on the in-memory twin and on
// Neo4j (its own project on the test server: nothing is wiped).
func onBothTwins(t *testing.T, test func(t *testing.T, d *partsDesk)) {
	t.Run("memory", func(t *testing.T) {
		mem := twin.NewMemoryStore()
		test(t, newPartsDesk(t, mem, mem))
	})
	t.Run("neo4j", func(t *testing.T) {
		uri, user, password := neo4jtest.URI(t, neo4jtest.PortE2E)
		store, err := twin.OpenNeo4j(context.Background(), uri, user, password)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close(context.Background()) })
		test(t, newPartsDesk(t, store, store))
	})
}

// A 40 x 20 x 10 mm box made by CadQuery, saved as a person's STEP and
// STL, imported, staged back, meshed and checked for overhangs.
//
// By hand: volume 40 x 20 x 10 = 8000 mm3; area 2 (40x20 + 40x10 + 20x10)
// = 2800 mm2; aluminium 6061 at 2700 kg/m3 = 2.7e-6 kg/mm3, so 0.0216 kg.
// A box's faces are planes whose corners are whole millimetres, so the
// kernel's figures are exact to rounding: relative tolerance 1e-9.
func TestImportStageAndMeshAWorkProduct(t *testing.T) {
	onBothTwins(t, func(t *testing.T, d *partsDesk) {
		const tol = 1e-9
		made := d.call("cadquery.create_parametric", map[string]any{"shape_type": "box", "parameters": map[string]any{"length": 40, "width": 20, "height": 10}})
		stepFile := d.putInReadRoot(made["cad_file"].(string), "box.step")
		stl := d.call("cadquery.export_geometry", map[string]any{"input_file": made["cad_file"], "output_format": "stl"})
		stlFile := d.putInReadRoot(stl["output_file"].(string), "box.stl")

		box := d.call("twin.import_work_product", map[string]any{"project_id": d.project, "name": "Box", "file_path": stepFile, "material": "aluminium_6061"})
		if box["item_ref"] != "CAD-BOX@1" || box["format"] != "step" || box["measure_call_id"] == "" {
			t.Fatalf("import = %v", box)
		}
		props := box["properties"].(map[string]any)
		near(t, "volume_mm3", props["volume_mm3"], 8000, tol)
		near(t, "surface_area_mm2", props["surface_area_mm2"], 2800, tol)
		near(t, "mass_kg", props["mass_kg"], 8000*2.7e-6, tol)
		for i, want := range []float64{40, 20, 10} {
			near(t, "bounding_box.size", props["bounding_box"].(map[string]any)["size"].([]any)[i], want, tol)
		}
		// Read back from the store, the revision is what commit_geometry
		// would have written, plus what was measured.
		n, err := d.be.Store.GetNode(d.ctx, box["node_id"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if n.Type != "cad_model" || n.Properties["material"] != "aluminum_6061_t6" || n.Properties["step_sha256"] != sha256Of(t, stepFile) ||
			n.Properties["measured_by"] != "cadquery.get_properties" || n.Properties["imported_from"] != stepFile {
			t.Errorf("the stored revision = %v", n.Properties)
		}
		if mass, ok, _ := twin.CadModelValue(n, "mass"); !ok || math.Abs(mass.Value-0.0216) > 1e-12 || mass.From != "properties.mass_kg" {
			t.Errorf("the revision's mass as the twin reads it = %+v %v", mass, ok)
		}
		mesh := d.call("twin.import_work_product", map[string]any{"project_id": d.project, "name": "Box mesh", "file_path": stlFile})
		mprops := mesh["properties"].(map[string]any)
		if mesh["format"] != "stl" || mprops["geometry_format"] != "stl" || mprops["mass_kg"] != nil {
			t.Errorf("STL import = %v", mesh)
		}
		near(t, "the STL's volume_mm3", mprops["volume_mm3"], 8000, tol)
		near(t, "the STL's surface_area_mm2", mprops["surface_area_mm2"], 2800, tol)

		// Staged back: the bytes are the committed blob's, in the call's
		// own folder by default; again, the same file.
		staged := d.call("twin.stage_work_product_file", map[string]any{"project_id": d.project, "work_product_id": "CAD-BOX@1"})
		path := staged["file_path"].(string)
		if filepath.Base(path) != "CAD-BOX-r1.step" || !strings.HasPrefix(path, d.ws.Root) || staged["sha256"] != n.Properties["step_sha256"] ||
			sha256Of(t, path) != staged["sha256"] || staged["already_staged"] != false {
			t.Fatalf("staged = %v (file hashes to %s)", staged, sha256Of(t, path))
		}
		near(t, "bytes", staged["bytes"], float64(len(mustRead(t, stepFile))), 0)
		for _, tool := range []string{"cadquery.get_properties", "gmsh.generate_mesh"} {
			if !strings.Contains(staged["next_step"].(string), tool) {
				t.Errorf("next_step names no %s: %s", tool, staged["next_step"])
			}
		}
		again := d.call("twin.stage_work_product_file", map[string]any{"project_id": d.project, "work_product_id": "CAD-BOX"})
		if filepath.Base(again["file_path"].(string)) != "CAD-BOX-r1.step" || again["sha256"] != staged["sha256"] {
			t.Errorf("staged again = %v", again)
		}
		out := filepath.Join(d.writeRoot, "box-for-fea.step")
		first := d.call("twin.stage_work_product_file", map[string]any{"project_id": d.project, "work_product_id": box["node_id"], "output_path": out})
		second := d.call("twin.stage_work_product_file", map[string]any{"project_id": d.project, "work_product_id": box["node_id"], "output_path": out})
		if first["file_path"] != out || second["file_path"] != out || first["already_staged"] != false || second["already_staged"] != true ||
			sha256Of(t, out) != staged["sha256"] {
			t.Errorf("staged twice into the write root: %v, then %v", first, second)
		}
		stlStaged := d.call("twin.stage_work_product_file", map[string]any{"project_id": d.project, "work_product_id": "CAD-BOX-MESH@1"})
		if filepath.Ext(stlStaged["file_path"].(string)) != ".stl" || sha256Of(t, stlStaged["file_path"].(string)) != sha256Of(t, stlFile) {
			t.Errorf("the STL staged = %v", stlStaged)
		}

		// The staged file is a part the solvers load: gmsh meshes it into
		// the box's six faces, the kernel measures the same box.
		meshed := d.call("gmsh.generate_mesh", map[string]any{"input_file": out, "mesh_size_mm": 5})
		if sets := meshed["surface_sets"].(map[string]any); len(sets) != 6 {
			t.Errorf("the staged box meshed into %d faces, want 6: %v", len(sets), sets)
		}
		again = d.call("cadquery.get_properties", map[string]any{"input_file": path})
		near(t, "the staged file's volume", again["volume"], 8000, tol)
	})
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Every bad input is refused saying what to pass, and nothing is written:
// no item, no evidence, no blob.
func TestWorkProductFilesRefuseBadInputs(t *testing.T) {
	onBothTwins(t, func(t *testing.T, d *partsDesk) {
		made := d.call("cadquery.create_parametric", map[string]any{"shape_type": "box", "parameters": map[string]any{"length": 10, "width": 10, "height": 10}})
		cube := d.call("twin.import_work_product", map[string]any{"project_id": d.project, "name": "Cube", "file_path": made["cad_file"]})
		meshed := d.call("gmsh.generate_mesh", map[string]any{"input_file": made["cad_file"], "mesh_size_mm": 5})
		bare, _, err := d.be.Store.CommitRevision(d.ctx, twin.RevisionWrite{ProjectID: d.project, ItemType: "cad_model", Name: "Sketch",
			Properties: map[string]any{"volume_mm3": 1.0}})
		if err != nil {
			t.Fatal(err)
		}
		risk := d.call("twin.record_engineering_entity", map[string]any{"project_id": d.project, "entity_type": "risk", "name": "a risk"})
		before := d.written()

		elsewhere := filepath.Join(t.TempDir(), "secret.step")
		for path, content := range map[string]string{
			elsewhere:                               string(mustRead(t, made["cad_file"].(string))),
			filepath.Join(d.readRoot, "notes.txt"):  "ISO-10303-21;",
			filepath.Join(d.readRoot, "fake.step"):  "solid cube\nendsolid",
			filepath.Join(d.readRoot, "nomesh.inp"): "*NODE\n1, 0, 0, 0\n",
		} {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// One triangle: an STL that encloses nothing.
		open := make([]byte, 84+50)
		binary.LittleEndian.PutUint32(open[80:], 1)
		for i, v := range []float32{0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 10, 0} {
			binary.LittleEndian.PutUint32(open[84+4*i:], math.Float32bits(v))
		}
		if err := os.WriteFile(filepath.Join(d.readRoot, "open.stl"), open, 0o644); err != nil {
			t.Fatal(err)
		}
		imp := func(path string) map[string]any {
			return map[string]any{"project_id": d.project, "name": "Imported", "file_path": path}
		}
		d.refused("twin.import_work_product", imp(elsewhere), "is outside the allowed roots for reading")
		d.refused("twin.import_work_product", imp(filepath.Join(d.readRoot, "missing.step")), "does not exist")
		d.refused("twin.import_work_product", imp(filepath.Join(d.readRoot, "notes.txt")), "is not a STEP (.step, .stp) or STL (.stl) file: export the part as STEP")
		d.refused("twin.import_work_product", imp(filepath.Join(d.readRoot, "fake.step")), "not a STEP file: it does not start with ISO-10303-21")
		d.refused("twin.import_work_product", imp(filepath.Join(d.readRoot, "open.stl")), "could not measure")
		if execs := d.runsOf("ImportWorkProduct"); len(execs) == 2 {
			d.record(execs[1].GetExecution().GetWorkflowId(), "importworkproduct", "measure_refused.json")
		} else {
			t.Errorf("ImportWorkProduct runs: %d, want the cube's and the open mesh's", len(execs))
		}
		d.refused("twin.import_work_product", map[string]any{"project_id": d.project, "name": "Cube", "file_path": made["cad_file"], "material": "unobtainium"},
			`material "unobtainium" is not in the materials table`)
		d.refused("twin.import_work_product", map[string]any{"project_id": d.project, "name": "Cube", "file_path": made["cad_file"], "item_key": "CAD-CUBE@7"},
			"CAD-CUBE")

		stage := func(wp any, out string) map[string]any {
			a := map[string]any{"project_id": d.project, "work_product_id": wp}
			if out != "" {
				a["output_path"] = out
			}
			return a
		}
		d.refused("twin.stage_work_product_file", stage(bare.Ref(), ""), "CAD-SKETCH@1 has no geometry file (no step_blob or stl_blob)")
		d.refused("twin.stage_work_product_file", stage(risk["node_id"], ""), "not a cad_model")
		d.refused("twin.stage_work_product_file", stage("CAD-CUBE", filepath.Join(t.TempDir(), "x.step")), "is outside the allowed roots for writing")
		d.refused("twin.stage_work_product_file", stage("CAD-CUBE", "cube.stl"), `output_path "cube.stl" must end in .step`)
		taken := filepath.Join(d.writeRoot, "taken.step")
		if err := os.WriteFile(taken, []byte("a person's own file"), 0o644); err != nil {
			t.Fatal(err)
		}
		d.refused("twin.stage_work_product_file", stage("CAD-CUBE", taken), "staging never replaces a file")
		if string(mustRead(t, taken)) != "a person's own file" {
			t.Error("a refused stage replaced the file")
		}

		over := func(extra map[string]any) map[string]any {
			a := map[string]any{"project_id": d.project, "work_product_id": cube["item_ref"], "mesh_file": meshed["mesh_file"]}
			for k, v := range extra {
				a[k] = v
			}
			return a
		}
		d.refused("twin.evaluate_overhang_metric", over(map[string]any{"mesh_file": elsewhere}), "is outside the allowed roots for reading")
		d.refused("twin.evaluate_overhang_metric", over(map[string]any{"mesh_file": filepath.Join(d.readRoot, "nomesh.inp")}), "has no face table")
		d.refused("twin.evaluate_overhang_metric", over(map[string]any{"work_product_id": "CAD-NONE"}), "CAD-NONE")
		d.refused("twin.evaluate_overhang_metric", over(map[string]any{"work_product_id": risk["node_id"]}), "not a cad_model")
		d.refused("twin.evaluate_overhang_metric", over(map[string]any{"build_axis": []float64{0, 0, 0}}), "build_axis [0 0 0] has no direction")
		d.refused("twin.evaluate_overhang_metric", over(map[string]any{"threshold_deg": 90}), "threshold_deg")

		if after := d.written(); after != before {
			t.Errorf("refused calls wrote: items, evidence, blobs %v before, %v after", before, after)
		}
	})
}

// The overhang check on meshes of known shapes, against the geometry by
// hand. The 40 x 20 x 10 box: top and bottom lie flat (90° from the
// vertical), flagged at 45° (2 x 40 x 20 = 1600 of 2800 mm2); the sides
// stand (0°). Built along +X, the 20 x 10 ends lie flat instead: 400 mm2.
// A wedge, a right triangle 40 mm long rising at 30° (40 tan 30° = 23.094
// mm high) extruded 20 mm: its slope's normal is 30° from the axis, so the
// slope leans 60° from the vertical (area 20 x 40 / cos 30° = 923.76 mm2),
// flagged at 45° and 55° but not at 65°; its bottom (800 mm2) is flagged
// at every threshold; its back and ends stand.
func TestOverhangsOfKnownShapes(t *testing.T) {
	onBothTwins(t, func(t *testing.T, d *partsDesk) {
		const tol = 1e-6 // degrees, and relative for areas: planar faces of a mesh are exact to rounding
		made := d.call("cadquery.create_parametric", map[string]any{"shape_type": "box", "parameters": map[string]any{"length": 40, "width": 20, "height": 10}})
		box := d.call("twin.import_work_product", map[string]any{"project_id": d.project, "name": "Box", "file_path": made["cad_file"]})
		boxMesh := d.call("gmsh.generate_mesh", map[string]any{"input_file": made["cad_file"], "mesh_size_mm": 5})

		o := d.call("twin.evaluate_overhang_metric", map[string]any{"project_id": d.project, "work_product_id": box["item_ref"], "mesh_file": boxMesh["mesh_file"]})
		near(t, "the box's overhang_area_mm2", o["overhang_area_mm2"], 1600, tol)
		near(t, "the box's total_area_mm2", o["total_area_mm2"], 2800, tol)
		if got := tilts(t, o); !sameTilts(got, map[float64]int{90: 2, 0: 4}, tol) || len(o["flagged_faces"].([]any)) != 2 ||
			o["undirected"] != true || !strings.Contains(o["summary"].(string), "Undirected") {
			t.Errorf("the box at 45°: tilts %v, answer %v", got, o)
		}
		ev, err := d.be.Store.GetNode(d.ctx, o["evidence_id"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if ev.Properties["metric"] != "overhang_area" || ev.Properties["unit"] != "mm2" || ev.Properties["kind"] != "analysis" {
			t.Errorf("the evidence = %v", ev.Properties)
		}
		near(t, "the evidence's value", ev.Properties["value"], 1600, tol)
		pins, err := d.be.Store.Neighbors(d.ctx, ev.ID, twin.Outgoing, twin.EdgeValidAgainst)
		if err != nil || len(pins) != 1 || pins[0].Node.ID != box["node_id"] {
			t.Errorf("the evidence is pinned to %v (%v), want %s", pins, err, box["item_ref"])
		}

		alongX := d.call("twin.evaluate_overhang_metric", map[string]any{"project_id": d.project, "work_product_id": box["item_ref"],
			"mesh_file": boxMesh["mesh_file"], "build_axis": []float64{1, 0, 0}})
		near(t, "the box built along +X", alongX["overhang_area_mm2"], 400, tol)

		h := 40 * math.Tan(math.Pi/6)
		script := "import math\nresult = cq.Workplane('XZ').polyline([(0, 0), (40, 0), (0, 40 * math.tan(math.radians(30)))]).close().extrude(20)\n"
		wedgeCAD := d.call("cadquery.execute_script", map[string]any{"script": script, "output_path": "wedge.step"})
		wedge := d.call("twin.import_work_product", map[string]any{"project_id": d.project, "name": "Wedge", "file_path": wedgeCAD["cad_file"]})
		near(t, "the wedge's volume", wedge["properties"].(map[string]any)["volume_mm3"], 0.5*40*h*20, 1e-9)
		wedgeMesh := d.call("gmsh.generate_mesh", map[string]any{"input_file": wedgeCAD["cad_file"], "mesh_size_mm": 5})
		slope := 20 * 40 / math.Cos(math.Pi/6)
		for _, c := range []struct {
			threshold float64
			flagged   float64
		}{{45, 800 + slope}, {55, 800 + slope}, {65, 800}} {
			o := d.call("twin.evaluate_overhang_metric", map[string]any{"project_id": d.project, "work_product_id": wedge["item_ref"],
				"mesh_file": wedgeMesh["mesh_file"], "threshold_deg": c.threshold})
			near(t, "the wedge's overhang_area_mm2 at the threshold", o["overhang_area_mm2"], c.flagged, tol)
			t.Logf("the wedge at %g°: %s", c.threshold, o["summary"])
			if got := tilts(t, o); !sameTilts(got, map[float64]int{90: 1, 60: 1, 0: 3}, tol) {
				t.Errorf("the wedge's tilts at %g°: %v", c.threshold, got)
			}
		}

		// Each check ran as the call's child, found by its project. Their
		// histories, and their calls', are the replay test's (-record).
		for _, c := range []struct {
			kind, dir, tool, prefix string
			want                    int
		}{
			{"ImportWorkProduct", "importworkproduct", "twin.import_work_product", workflows.ImportWorkProductWorkflowID(""), 2},
			{"EvaluateOverhang", "evaluateoverhang", "twin.evaluate_overhang_metric", workflows.EvaluateOverhangWorkflowID(""), 5},
		} {
			execs := d.runsOf(c.kind)
			if len(execs) != c.want {
				t.Errorf("%s runs in the project: %d, want %d", c.kind, len(execs), c.want)
				continue
			}
			id := execs[0].GetExecution().GetWorkflowId()
			d.record(id, c.dir, "recorded.json")
			d.record(workflows.CallWorkflowID(strings.TrimPrefix(id, c.prefix)), "toolcall_process", c.tool+".json")
		}
	})
}

// runsOf lists the project's runs of a workflow type, oldest first.
func (d *partsDesk) runsOf(kind string) []*workflowpb.WorkflowExecutionInfo {
	d.t.Helper()
	resp, err := d.stack.Temporal.Client.ListWorkflow(d.ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: d.stack.Temporal.Namespace,
		Query: "WorkflowType = '" + kind + "' AND MfProject = '" + d.project + "'"})
	if err != nil {
		d.t.Fatal(err)
	}
	execs := resp.GetExecutions()
	sort.Slice(execs, func(i, j int) bool { return execs[i].GetStartTime().AsTime().Before(execs[j].GetStartTime().AsTime()) })
	return execs
}

// record writes a workflow's history for the replay test, with -record.
func (d *partsDesk) record(workflowID, dir, file string) {
	d.t.Helper()
	(&harness{t: d.t, ctx: d.ctx, temporal: d.stack.Temporal}).recordWorkflow(workflowID, dir, file)
}

// tilts are the faces' tilts from the vertical, rounded to 1e-6 degree.
func tilts(t *testing.T, o map[string]any) []float64 {
	t.Helper()
	var out []float64
	for _, f := range o["faces"].([]any) {
		out = append(out, f.(map[string]any)["tilt_deg"].(float64))
	}
	sort.Float64s(out)
	return out
}

// sameTilts says whether got holds each wanted tilt as often as wanted,
// within tol, and nothing else.
func sameTilts(got []float64, want map[float64]int, tol float64) bool {
	n := 0
	for tilt, count := range want {
		for _, g := range got {
			if math.Abs(g-tilt) <= tol {
				count--
				n++
			}
		}
		if count != 0 {
			return false
		}
	}
	return n == len(got)
}
