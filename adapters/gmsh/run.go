package gmsh

import (
	"context"
	"encoding/json"
	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/vec3"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/internal/meshfile"
	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

// generateMesh serves gmsh.generate_mesh: gmsh meshes the STEP in a
// scratch folder; the adapter reads gmsh's deck, measures it and, only when
// all went well, writes the deck and its face table into the call's folder.
func (a *Adapter) generateMesh(ctx context.Context, args json.RawMessage) (*MeshResult, error) {
	var req MeshRequest
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return nil, err
	}
	j, err := a.prepare(req)
	if err != nil {
		return nil, err
	}
	run, err := a.mesh(ctx, j)
	if err != nil {
		return nil, err
	}
	m, name := run.mesh, filepath.Base(j.input)
	faces, err := buildFaces(m)
	if err != nil {
		return nil, protocol.Refusal("gmsh's mesh of %s has no usable faces: %v", name, err)
	}
	meshBox := bboxOf(m, m.nodeIDs)
	if err := checkFrame(meshBox, run.report.part, run.report.size); err != nil {
		return nil, protocol.Refusal("gmsh's mesh of %s: %v", name, err)
	}
	quality := meshfile.MeasureQuality(m.tetCount(), func(i int) [4]vec3.V {
		t := m.tet(i)
		return [4]vec3.V{m.at(int(t[0])), m.at(int(t[1])), m.at(int(t[2])), m.at(int(t[3]))}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return nil, err
	}
	meshPath, err := a.ws.ResolveWrite(dir, "output_name", j.outputName)
	if err != nil {
		return nil, err
	}
	// The face table is written beside the deck: a link in its place
	// must not carry it out of the roots either.
	if _, err := a.ws.ResolveWrite(dir, "output_name's face table", meshfile.TablePath(meshPath)); err != nil {
		return nil, err
	}
	table := meshfile.Table{
		Mesh: j.outputName, ElementType: m.tetType, Elements: m.tetCount(), Nodes: len(m.nodeIDs),
		MeshBBoxMM: meshBox, CoordinateFrame: CoordinateFrame,
	}
	sets := make(map[string]SurfaceSet, len(faces))
	for _, f := range faces {
		table.Faces = append(table.Faces, f.Face)
		sets[f.Name] = SurfaceSet{BBoxMM: f.BBoxMM, CentroidMM: f.CentroidMM, AreaMM2: f.AreaMM2, Normal: f.Normal}
	}
	if err := writeOutputs(meshPath, m, faces, table); err != nil {
		return nil, err
	}
	return &MeshResult{
		MeshFile: meshPath, FaceTableFile: meshfile.TablePath(meshPath),
		ElementType: m.tetType, Elements: table.Elements, Nodes: table.Nodes,
		ElementOrder: j.order, MeshSizeMM: run.report.size, SurfaceSets: sets,
		MeshBBoxMM: meshBox, CoordinateFrame: CoordinateFrame,
		QualityMetrics: quality, Warnings: run.warnings,
	}, nil
}

// gmshRun is what one gmsh run gave: the mesh, what the script reported
// about the part, and gmsh's warnings.
type gmshRun struct {
	mesh     *gmshMesh
	report   report
	warnings []string
}

// mesh runs gmsh on the job in a scratch folder it removes, and reads what
// gmsh wrote. A run that made no tetrahedra is refused with gmsh's own
// lines.
func (a *Adapter) mesh(ctx context.Context, j meshJob) (gmshRun, error) {
	name := filepath.Base(j.input)
	work, err := os.MkdirTemp("", "metaforge-gmsh-")
	if err != nil {
		return gmshRun{}, protocol.Transient("cannot make a working folder for gmsh: %v", err)
	}
	defer os.RemoveAll(work)
	if err := os.Symlink(j.input, filepath.Join(work, stepLink)); err != nil {
		return gmshRun{}, protocol.Transient("cannot link the input into gmsh's working folder: %v", err)
	}
	geo, raw := filepath.Join(work, "mesh.geo"), filepath.Join(work, "gmsh.inp")
	if err := os.WriteFile(geo, []byte(geoScript(j)), 0o600); err != nil {
		return gmshRun{}, protocol.Transient("cannot write gmsh's script: %v", err)
	}
	out, err := solver.Run(ctx, solver.Command{
		Binary: a.binary(),
		// -v 3: errors, warnings and the script's Printf lines only.
		Args:        []string{"-v", "3", "-3", "-format", "inp", "-o", raw, geo},
		Dir:         work,
		Env:         gmshEnv(work),
		Install:     install,
		TimeoutHint: "give a larger mesh_size_mm or element_order 1",
	})
	if err != nil {
		return gmshRun{}, err
	}
	if out.ExitCode != 0 {
		return gmshRun{}, failure(j.input, work, out)
	}
	f, err := os.Open(raw)
	if err != nil {
		return gmshRun{}, failure(j.input, work, out)
	}
	defer f.Close()
	run := gmshRun{warnings: gmshLines(out, warningLine)}
	if run.mesh, err = readGmshINP(f); err != nil {
		return gmshRun{}, protocol.Refusal("gmsh's mesh of %s could not be read: %v", name, err)
	}
	if run.mesh.tetCount() == 0 {
		said := "gmsh gave no warning"
		if len(run.warnings) > 0 {
			said = strings.Join(run.warnings, "; ")
		}
		return gmshRun{}, protocol.Refusal("gmsh made no tetrahedra from %s: %s", name, said)
	}
	if run.report, err = parseReport(out.Stdout); err != nil {
		return gmshRun{}, protocol.Refusal("meshing %s: %v", name, err)
	}
	return run, nil
}

// gmshEnv is the caller's environment with HOME set to the scratch folder,
// so no user's gmshrc changes the mesh and gmsh writes nothing in a home.
func gmshEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home)
}
