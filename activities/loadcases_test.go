package activities_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/activities"
	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/gmsh"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// A recorded load case planned on the part's current revision, its mesh
// found again once made (named by the STEP's content hash), and its faces
// picked on that mesh by geometry. The bar is gmsh's box.step fixture,
// 100 x 10 x 10 mm, x from 0 to 100: the wall face is at x = 0 (normal
// -x), the top at z = 10 (normal +z, area 100 x 10 = 1000 mm^2).
func TestLoadCasePlannedMeshedOnceAndItsFacesPicked(t *testing.T) {
	ctx := context.Background()
	ws := workspace.New(t.TempDir())
	mem := twin.NewMemoryStore()
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	backend := &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs, Files: ws}
	reg := adapters.NewRegistry()
	if err := reg.Register(gmsh.New(ws)); err != nil {
		t.Fatal(err)
	}
	d := &activities.DesignFlows{Registry: reg, LoadCases: backend, WorkspaceRoot: ws.Root}

	p, err := mem.CreateProject(ctx, twin.Project{Name: "bar"}, "")
	if err != nil {
		t.Fatal(err)
	}
	step, err := os.ReadFile(filepath.Join("..", "adapters", "gmsh", "testdata", "box.step"))
	if err != nil {
		t.Fatal(err)
	}
	blob, err := blobs.Put(step)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := mem.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "bar", ItemKey: "BAR",
		Properties: map[string]any{"step_blob": blob.Key, "step_sha256": blob.SHA256, "material": "steel"}}); err != nil {
		t.Fatal(err)
	}
	record := func(c twin.LoadCase) {
		t.Helper()
		if _, _, err := twin.RecordLoadCase(ctx, mem, twin.LoadCaseWrite{Project: p, Case: c}); err != nil {
			t.Fatal(err)
		}
	}
	size := 5.0
	record(twin.LoadCase{Name: "press", Part: "BAR", Fixture: &twin.FaceSelector{Normal: [3]float64{-1, 0, 0}},
		LoadFace: &twin.FaceSelector{Normal: [3]float64{0, 0, 1}}, PressureMPa: ptr(0.5), MeshSizeMM: &size,
		Source: twin.LoadSource{Kind: "standard", Ref: "EN 1991-1-1 table 6.2"}})
	record(twin.LoadCase{Name: "later", ForceN: ptr(10), Status: twin.LoadCaseDraft, Source: twin.LoadSource{Kind: "intent"}})

	plans, err := d.PlanLoadCases(ctx, workflows.PlanLoadCasesRequest{ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(plans.Plans) != 1 || len(plans.Skipped) != 1 || !strings.Contains(plans.Skipped[0], "draft") {
		t.Fatalf("plans %+v, want one plan and the draft skipped", plans)
	}
	plan := plans.Plans[0]
	if plan.PartRef != "BAR@1" || plan.Mesh.ToolID != "gmsh.generate_mesh" || plan.MeshFile != "" {
		t.Fatalf("plan %+v", plan)
	}
	// Mesh it as the workflow's child call would: in the call's folder.
	_, mesher, _ := reg.Tool(plan.Mesh.ToolID)
	res, err := mesher.Call(adapters.WithCallInfo(ctx, adapters.CallInfo{CallID: plan.Mesh.CallID}), plan.Mesh.ToolID, plan.Mesh.Arguments)
	if err != nil {
		t.Fatal(err)
	}
	again, err := d.PlanLoadCases(ctx, workflows.PlanLoadCasesRequest{ProjectID: p.ID})
	if err != nil || again.Plans[0].Mesh.CallID != plan.Mesh.CallID || again.Plans[0].MeshFile == "" {
		t.Fatalf("planned again: %+v %v, want the same mesh call, found meshed", again, err)
	}

	built, err := d.BuildLoadCaseStep(ctx, workflows.BuildLoadCaseStepRequest{Plan: plan, Mesh: res.Data})
	if err != nil {
		t.Fatal(err)
	}
	var args struct {
		Mesh      string     `json:"mesh_file"`
		Material  string     `json:"material"`
		Fixed     string     `json:"fixed_node_set"`
		Loaded    string     `json:"load_node_set"`
		Force     float64    `json:"load_force_n"`
		Direction [3]float64 `json:"load_direction"`
	}
	if err := json.Unmarshal(built.Case.Arguments, &args); err != nil {
		t.Fatal(err)
	}
	var mesh gmsh.MeshResult
	_ = json.Unmarshal(res.Data, &mesh)
	wall, top := mesh.SurfaceSets[args.Fixed], mesh.SurfaceSets[args.Loaded]
	// 0.5 MPa on the 1000 mm^2 top face is 500 N, pressing down.
	if wall.CentroidMM[0] != 0 || top.CentroidMM[2] != 10 || math.Abs(args.Force-500) > 1e-6 || args.Direction != [3]float64{0, 0, -1} ||
		args.Material != "steel" || args.Mesh != mesh.MeshFile {
		t.Errorf("run_fea arguments %+v (wall %+v, top %+v)", args, wall, top)
	}
	if len(built.Case.ValidAgainst) != 2 || built.Case.ValidAgainst[0] != "BAR@1" || built.Case.ValidAgainst[1] != plan.LoadCase {
		t.Errorf("valid against %v, want BAR@1 and %s", built.Case.ValidAgainst, plan.LoadCase)
	}
	if built.Evidence["fixed_face"] != args.Fixed || built.Evidence["part"] != "BAR@1" || !strings.Contains(built.Evidence["load_basis"].(string), "pressure_mpa 0.5") {
		t.Errorf("evidence data %+v", built.Evidence)
	}

	// A load face no face matches is final, and says which faces there are.
	record(twin.LoadCase{Name: "press", Part: "BAR", Fixture: &twin.FaceSelector{Normal: [3]float64{-1, 0, 0}},
		LoadFace: &twin.FaceSelector{Normal: [3]float64{1, 1, 0}}, ForceN: ptr(1), MeshSizeMM: &size, Source: twin.LoadSource{Kind: "hand_estimate"}})
	plans, _ = d.PlanLoadCases(ctx, workflows.PlanLoadCasesRequest{ProjectID: p.ID})
	_, err = d.BuildLoadCaseStep(ctx, workflows.BuildLoadCaseStepRequest{Plan: plans.Plans[0]})
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || !appErr.NonRetryable() || !strings.Contains(err.Error(), "load_face: no face") {
		t.Errorf("no matching face: %v", err)
	}
}

func ptr(v float64) *float64 { return &v }
