package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/internal/meshfile"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// LoadCaseTwin reads the project's recorded load cases, resolved against
// their parts' current revisions.
type LoadCaseTwin interface {
	LoadCaseTargets(ctx context.Context, projectID string) ([]twin.LoadCaseTarget, []string, error)
}

// meshTool meshes a load case's part.
const meshTool = "gmsh.generate_mesh"

// PlanLoadCases resolves the project's ready load cases against their
// parts' current revisions, each with the mesh call for that revision. The
// mesh call is named by the geometry's content hash and the mesh settings,
// so a revision meshed before (by an earlier run, or a rework that did not
// change the part) is found in its call folder and not meshed again.
func (d *DesignFlows) PlanLoadCases(ctx context.Context, req workflows.PlanLoadCasesRequest) (workflows.LoadCasePlans, error) {
	if d.LoadCases == nil {
		return workflows.LoadCasePlans{}, temporal.NewNonRetryableApplicationError("this worker has no twin to read load cases from", "NO_TWIN", nil)
	}
	targets, skipped, err := d.LoadCases.LoadCaseTargets(ctx, req.ProjectID)
	if err != nil {
		return workflows.LoadCasePlans{}, err
	}
	out := workflows.LoadCasePlans{Skipped: skipped}
	for _, t := range targets {
		order := t.Case.ElementOrder
		if order == 0 {
			order = 2
		}
		args := map[string]any{"input_file": t.StepFile, "element_order": order}
		settings := fmt.Sprintf("%s/order=%d", t.StepSHA256, order)
		if t.Case.MeshSizeMM != nil {
			args["mesh_size_mm"] = *t.Case.MeshSizeMM
			settings += fmt.Sprintf("/size=%g", *t.Case.MeshSizeMM)
		}
		raw, err := json.Marshal(args)
		if err != nil {
			return out, err
		}
		sum := sha256.Sum256([]byte("mesh/" + settings))
		call, err := d.PrepareStepCall(ctx, workflows.PrepareStepCallRequest{CallID: hex.EncodeToString(sum[:8]), ToolID: meshTool,
			Arguments: raw, ProjectID: req.ProjectID})
		if err != nil {
			return out, err
		}
		target, err := json.Marshal(t)
		if err != nil {
			return out, err
		}
		plan := workflows.LoadCasePlan{Name: t.Case.Name, LoadCase: t.Case.Ref, PartRef: t.PartRef, Mesh: call, Target: target}
		if mesh := filepath.Join(d.WorkspaceRoot, "calls", call.CallID, "mesh.inp"); d.WorkspaceRoot != "" && meshed(mesh) {
			plan.MeshFile = mesh
		}
		out.Plans = append(out.Plans, plan)
	}
	return out, nil
}

// meshed says whether a mesh and its face table are both there.
func meshed(mesh string) bool {
	_, err1 := os.Stat(mesh)
	_, err2 := os.Stat(meshfile.TablePath(mesh))
	return err1 == nil && err2 == nil
}

// BuildLoadCaseStep picks a planned load case's faces on its mesh by the
// recorded geometry and gives the calculix.run_fea step that solves it,
// valid against the part's revision and the load case's. A face that is
// not there, or a part with no material, is final: the phase reports it.
func (d *DesignFlows) BuildLoadCaseStep(ctx context.Context, req workflows.BuildLoadCaseStepRequest) (workflows.LoadCaseStep, error) {
	var t twin.LoadCaseTarget
	if err := json.Unmarshal(req.Plan.Target, &t); err != nil {
		return workflows.LoadCaseStep{}, err
	}
	final := func(format string, args ...any) error {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("load case %s on %s: ", t.Case.Name, t.PartRef)+fmt.Sprintf(format, args...),
			protocol.InvalidParams.Name(), nil)
	}
	meshFile := req.Plan.MeshFile
	if meshFile == "" {
		var m struct {
			MeshFile string `json:"mesh_file"`
		}
		if err := json.Unmarshal(req.Mesh, &m); err != nil || m.MeshFile == "" {
			return workflows.LoadCaseStep{}, final("the mesh call returned no mesh_file")
		}
		meshFile = m.MeshFile
	}
	table, err := meshfile.Read(meshFile)
	if err != nil {
		return workflows.LoadCaseStep{}, final("its mesh has no face table: %v", err)
	}
	if t.Case.Fixture == nil || t.Case.LoadFace == nil {
		return workflows.LoadCaseStep{}, final("it names no fixture or load face")
	}
	fixed, err := table.Pick(t.Case.Fixture.Normal, t.Case.Fixture.PointMM)
	if err != nil {
		return workflows.LoadCaseStep{}, final("fixture: %v", err)
	}
	loaded, err := table.Pick(t.Case.LoadFace.Normal, t.Case.LoadFace.PointMM)
	if err != nil {
		return workflows.LoadCaseStep{}, final("load_face: %v", err)
	}
	if fixed.Name == loaded.Name {
		return workflows.LoadCaseStep{}, final("the fixture and the load face are the same face (%s): give them different normals or points", fixed.Name)
	}
	if t.Material == "" {
		return workflows.LoadCaseStep{}, final("no material: give the load case a material, or commit the part's geometry with one")
	}
	force, basis := 0.0, ""
	switch {
	case t.Case.ForceN != nil:
		force, basis = *t.Case.ForceN, "force_n"
	case t.Case.PressureMPa != nil:
		force = *t.Case.PressureMPa * loaded.AreaMM2
		basis = fmt.Sprintf("pressure_mpa %g x %s's area %.6g mm^2", *t.Case.PressureMPa, loaded.Name, loaded.AreaMM2)
	}
	direction := [3]float64{-loaded.Normal[0], -loaded.Normal[1], -loaded.Normal[2]}
	if t.Case.Direction != nil {
		direction = *t.Case.Direction
	}
	args, err := json.Marshal(map[string]any{"mesh_file": meshFile, "material": t.Material, "fixed_node_set": fixed.Name,
		"load_node_set": loaded.Name, "load_force_n": force, "load_direction": direction})
	if err != nil {
		return workflows.LoadCaseStep{}, err
	}
	return workflows.LoadCaseStep{
		Case: flows.StepCase{Name: t.Case.Name, Arguments: args, ValidAgainst: []string{t.PartRef, t.Case.Ref}},
		Evidence: map[string]any{
			"load_case": t.Case.Ref, "part": t.PartRef, "mesh_file": meshFile, "mesh_call_id": req.Plan.Mesh.CallID,
			"step_sha256": t.StepSHA256, "fixed_face": fixed.Name, "fixed_face_normal": fixed.Normal, "load_face": loaded.Name,
			"load_face_normal": loaded.Normal, "load_force_n": force, "load_basis": basis, "load_direction": direction,
			"load_source": t.Case.Source, "verifies": t.Case.Verifies, "material": t.Material,
		},
	}, nil
}
