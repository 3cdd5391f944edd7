package gmsh

import (
	"encoding/json"
	"errors"
	"github.com/metaforge/metaforge/adapters"
	"io/fs"
	"path/filepath"

	"github.com/metaforge/metaforge/internal/meshfile"
	"github.com/metaforge/metaforge/protocol"
)

// listNamedFaces serves gmsh.list_named_faces: the face table written
// beside a mesh, without its triangles, and without running gmsh.
func (a *Adapter) listNamedFaces(args json.RawMessage) (*FacesResult, error) {
	var req ListRequest
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return nil, err
	}
	meshPath, err := a.ws.ResolveRead("mesh_file", req.MeshFile)
	if err != nil {
		return nil, err
	}
	table, err := meshfile.Read(meshPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, protocol.Invalid("mesh_file %s has no face table (%s): generate the mesh with %s",
			filepath.Base(meshPath), filepath.Base(meshfile.TablePath(meshPath)), ToolGenerateMesh)
	}
	if err != nil {
		return nil, protocol.Refusal("cannot read the face table of %s: %v", filepath.Base(meshPath), err)
	}
	out := &FacesResult{
		MeshFile: meshPath, FaceTableFile: meshfile.TablePath(meshPath),
		ElementType: table.ElementType, MeshBBoxMM: table.MeshBBoxMM, CoordinateFrame: table.CoordinateFrame,
		Faces: make([]FaceSummary, 0, len(table.Faces)),
	}
	for _, f := range table.Faces {
		out.Faces = append(out.Faces, FaceSummary{
			Name: f.Name, BBoxMM: f.BBoxMM, CentroidMM: f.CentroidMM,
			AreaMM2: f.AreaMM2, Normal: f.Normal, NodeCount: f.NodeCount,
		})
	}
	return out, nil
}
