// Package gmsh is the in-process adapter "gmsh": it meshes a STEP part into
// linear or quadratic tetrahedra with gmsh (OpenCASCADE kernel) and writes
// the mesher's half of the meshfile contract: a CalculiX deck of nodes,
// solid elements and one node set per CAD face, and beside it the face
// table the FEA adapter picks fixed and load faces from. It does the
// meshing and face listing a FreeCAD adapter would (tetrahedra of order 1
// or 2, faces picked by position), since FreeCAD is not on these machines.
package gmsh

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Identity of the adapter and its tools.
const (
	AdapterID          = "gmsh"
	ToolGenerateMesh   = "gmsh.generate_mesh"
	ToolListNamedFaces = "gmsh.list_named_faces"
	version            = "0.1.0"
)

// install is what TOOL_UNAVAILABLE tells an operator to do.
const install = "apt-get install gmsh"

// Adapter serves gmsh.generate_mesh and gmsh.list_named_faces. Use New.
type Adapter struct {
	// Binary is the gmsh executable; default "gmsh" on PATH.
	Binary string

	ws    *workspace.Workspace
	calls *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the gmsh adapter. Input files are confined to ws's roots and
// each call writes its mesh into its own folder of ws.
func New(ws *workspace.Workspace) *Adapter {
	return &Adapter{ws: ws, calls: adapters.NewInvocations()}
}

// ID is "gmsh".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version.
func (a *Adapter) Version() string { return version }

func (a *Adapter) binary() string {
	if a.Binary == "" {
		return "gmsh"
	}
	return a.Binary
}

// Manifests declares both tools. Both are reads (they write only the call's
// own folder) and idempotent (gmsh meshes the same file the same way).
func (a *Adapter) Manifests() []adapters.Manifest {
	return []adapters.Manifest{{
		ToolID:         ToolGenerateMesh,
		AdapterID:      AdapterID,
		Name:           "Generate tetrahedral mesh",
		Description:    generateDescription,
		Capability:     "mesh_generation",
		InputSchema:    generateInputSchema,
		OutputSchema:   json.RawMessage(generateOutputSchema),
		ResourceLimits: adapters.ResourceLimits{MaxMemoryMB: 4096, MaxCPUSeconds: 300, MaxDiskMB: 1024},
		Idempotent:     true,
		TimeoutSeconds: 300,
	}, {
		ToolID:         ToolListNamedFaces,
		AdapterID:      AdapterID,
		Name:           "List a mesh's named faces",
		Description:    listDescription,
		Capability:     "mesh_generation",
		InputSchema:    listInputSchema,
		OutputSchema:   json.RawMessage(listOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 30,
	}}
}

// Call runs a tool. Bad input is INVALID_PARAMS and writes nothing; a file
// gmsh cannot mesh is a refusal carrying gmsh's own error lines; a missing
// gmsh is TOOL_UNAVAILABLE.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	var (
		out   any
		files []string
		err   error
	)
	switch toolID {
	case ToolGenerateMesh:
		var res *MeshResult
		if res, err = a.generateMesh(ctx, args); err == nil {
			out, files = res, []string{res.MeshFile, res.FaceTableFile}
		}
	case ToolListNamedFaces:
		out, err = a.listNamedFaces(args)
	default:
		err = protocol.Invalid("adapter gmsh has no tool %q: call %s or %s", toolID, ToolGenerateMesh, ToolListNamedFaces)
	}
	if err != nil {
		return nil, adapters.WithToolID(err, toolID)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, adapters.WithToolID(protocol.Refusal("could not encode the result: %v", err), toolID)
	}
	return &adapters.Result{Data: data, OutputFiles: files}, nil
}

// Health runs `gmsh --version`: healthy with gmsh's version, or
// TOOL_UNAVAILABLE when gmsh is not installed or does not answer.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := solver.Run(hctx, solver.Command{Binary: a.binary(), Args: []string{"--version"}, Install: install})
	var pe *protocol.Error
	switch {
	case err == nil:
	case ctx.Err() != nil, errors.As(err, &pe) && pe.Code == protocol.ToolUnavailable:
		return adapters.HealthStatus{}, err
	default: // it hung or could not start: not there to ask either way
		return adapters.HealthStatus{}, protocol.Unavailable("`%s --version` did not answer: %v", a.binary(), err)
	}
	// gmsh prints its version on stderr.
	v := strings.TrimSpace(res.Stderr + " " + res.Stdout)
	if res.ExitCode != 0 || v == "" {
		return adapters.HealthStatus{}, protocol.Unavailable("`%s --version` failed (exit status %d): %s", a.binary(), res.ExitCode, v)
	}
	return a.calls.Healthy(AdapterID, version+" (gmsh "+strings.Fields(v)[0]+")", len(a.Manifests())), nil
}
