package freecad

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/protocol"
)

// The mesh tools: FreeCAD bakes the part's placements into a STEP, and
// the mesher (the gmsh adapter, in process) meshes it, so the answer has
// gmsh.generate_mesh's shape. list_named_faces reads the face table gmsh
// wrote.
const (
	ToolGenerateMesh   = "freecad.generate_mesh"
	ToolListNamedFaces = "freecad.list_named_faces"
)

// mesherManifest is the mesher's manifest of toolID: its schemas are the
// ones these tools take and answer with.
func (a *Adapter) mesherManifest(toolID string) adapters.Manifest {
	for _, m := range a.mesher.Manifests() {
		if m.ToolID == toolID {
			return m
		}
	}
	panic("freecad: the mesher has no tool " + toolID)
}

func (a *Adapter) meshTool() tool {
	g := a.mesherManifest(gmsh.ToolGenerateMesh)
	t := adapters.Declare(adapters.Manifest{
		ToolID:    ToolGenerateMesh,
		AdapterID: AdapterID,
		Name:      "Generate tetrahedral mesh (FreeCAD)",
		Description: "Mesh a STEP or BREP part or a FreeCAD document into tetrahedra: FreeCAD first writes the part with every placement " +
			"baked into its geometry (a placement a mesher would drop, such as a FreeCAD part's), so the mesh is in the twin's frame, then " +
			"gmsh.generate_mesh meshes it with these same arguments. The result is gmsh.generate_mesh's (C3D4 or C3D10 deck with one node " +
			"set per face, surface_sets, mesh_bbox_mm, measured quality_metrics), with placement_baked true, baked_step_file (the STEP " +
			"meshed) and kernel \"freecad\". " + g.Description,
		Capability:     "mesh_generation",
		OutputSchema:   meshOutputSchema(g.OutputSchema),
		ResourceLimits: g.ResourceLimits,
		Idempotent:     true,
		TimeoutSeconds: g.TimeoutSeconds + 60,
	}, method((*Adapter).generateMesh))
	t.Manifest.InputSchema = g.InputSchema
	return t
}

// meshOutputSchema is gmsh.generate_mesh's result schema with what this
// tool adds: kernel, baked_step_file, and placement_baked always true.
func meshOutputSchema(gmshSchema json.RawMessage) json.RawMessage {
	var s map[string]any
	if err := json.Unmarshal(withKernel(gmshSchema), &s); err != nil {
		panic("freecad: gmsh's output schema does not decode: " + err.Error())
	}
	props := s["properties"].(map[string]any)
	props["placement_baked"] = map[string]any{"const": true,
		"description": "Always true: FreeCAD wrote the part with its placements baked into the geometry before meshing."}
	props["baked_step_file"] = map[string]any{"type": "string", "description": "Absolute path of the STEP FreeCAD wrote and gmsh meshed."}
	s["required"] = append(s["required"].([]any), "baked_step_file")
	out, _ := json.Marshal(s)
	return out
}

type meshResult map[string]any

func (r meshResult) written() []string {
	var files []string
	for _, k := range []string{"mesh_file", "face_table_file", "baked_step_file"} {
		if f, ok := r[k].(string); ok {
			files = append(files, f)
		}
	}
	return files
}

type bakeRequest struct {
	File       string `json:"file"`
	OutputFile string `json:"output_file"`
}

func (a *Adapter) generateMesh(ctx context.Context, in gmsh.MeshRequest) (any, error) {
	file, err := a.input("input_file", in.InputFile, ".step", ".brep", ".fcstd")
	if err != nil {
		return nil, err
	}
	var baked struct {
		OutputFile string `json:"output_file"`
	}
	bakedFile, err := a.produce(ctx, "bake_step", "input_file", stem(file)+"_baked.step", func(f string) any {
		return bakeRequest{File: file, OutputFile: f}
	}, &baked)
	if err != nil {
		return nil, err
	}
	in.InputFile = bakedFile
	args, err := json.Marshal(in)
	if err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the mesher's arguments cannot be encoded: " + err.Error()}
	}
	res, err := a.mesher.Call(ctx, gmsh.ToolGenerateMesh, args)
	if err != nil {
		_ = os.Remove(bakedFile)
		_ = os.Remove(filepath.Dir(bakedFile)) // only if nothing else is in it
		return nil, err
	}
	out := meshResult{}
	if err := json.Unmarshal(res.Data, &out); err != nil {
		_ = os.Remove(bakedFile)
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the mesher's answer does not decode: " + err.Error()}
	}
	out["placement_baked"], out["baked_step_file"], out["kernel"] = true, bakedFile, AdapterID
	return out, nil
}

func (a *Adapter) facesTool() tool {
	g := a.mesherManifest(gmsh.ToolListNamedFaces)
	t := adapters.Declare(adapters.Manifest{
		ToolID:         ToolListNamedFaces,
		AdapterID:      AdapterID,
		Name:           "List a mesh's named faces (FreeCAD)",
		Description:    g.Description + " The answer is gmsh.list_named_faces's, with kernel \"freecad\".",
		Capability:     "mesh_generation",
		OutputSchema:   withKernel(g.OutputSchema),
		Idempotent:     true,
		TimeoutSeconds: g.TimeoutSeconds,
	}, method((*Adapter).listNamedFaces))
	t.Manifest.InputSchema = g.InputSchema
	return t
}

func (a *Adapter) listNamedFaces(ctx context.Context, in gmsh.ListRequest) (any, error) {
	args, err := json.Marshal(in)
	if err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the mesher's arguments cannot be encoded: " + err.Error()}
	}
	res, err := a.mesher.Call(ctx, gmsh.ToolListNamedFaces, args)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if err := json.Unmarshal(res.Data, &out); err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the mesher's answer does not decode: " + err.Error()}
	}
	out["kernel"] = AdapterID
	return out, nil
}
