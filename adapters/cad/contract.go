package cad

import (
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/freecad"
	"github.com/metaforge/metaforge/adapters/gmsh"
)

// The CAD kernel capability contract (spec 003, "CAD kernel capability
// contract"), as data: for each capability tag, the tool every kernel
// serves it with and the fields both kernels guarantee. The router reads
// it to forward a cad.* call, and a test runs every registered kernel's
// member tool against it, so a kernel that drifts from the contract fails
// there rather than in a caller.

// Kernel ids, which are also their adapters' ids.
const (
	KernelCadQuery = "cadquery"
	KernelFreeCAD  = "freecad"
)

// Kernels are the kernels in the order a call without a kernel prefers
// them: CadQuery first, since it is warm after its first call, where
// FreeCAD starts a process per call.
var Kernels = []string{KernelCadQuery, KernelFreeCAD}

// Capability is one row of the contract.
type Capability struct {
	// Tag is the manifests' Capability field: every member and the cad.*
	// tool declare it, so a caller can pick a tool by tag.
	Tag string
	// Tool is the cad.* tool that serves the tag on whichever kernel.
	Tool string
	// Members are the kernels' tools for the tag, by kernel id. A
	// kernel's member may live in another adapter (CadQuery meshes with
	// gmsh.generate_mesh).
	Members map[string]string
	// Inputs are the arguments every member takes; the cad.* tool takes
	// these (and kernel).
	Inputs []string
	// Outputs are the fields every member answers with; a kernel may add
	// its own beside them.
	Outputs []string
}

// Contract is the table: the four rows of spec 003 and the mesh row of
// issue 23.
var Contract = []Capability{
	{
		Tag:     "cad_generation",
		Tool:    ToolCreateParametric,
		Members: map[string]string{KernelCadQuery: cadquery.ToolCreateParametric, KernelFreeCAD: freecad.ToolCreateParametric},
		Inputs:  []string{"shape_type", "parameters", "material", "output_path"},
		Outputs: []string{"cad_file", "volume_mm3", "surface_area_mm2", "bounding_box", "parameters_used"},
	},
	{
		Tag:     "cad_operations",
		Tool:    ToolBooleanOperation,
		Members: map[string]string{KernelCadQuery: cadquery.ToolBooleanOperation, KernelFreeCAD: freecad.ToolBooleanOperation},
		Inputs:  []string{"input_file_a", "input_file_b", "operation", "output_path"},
		Outputs: []string{"output_file", "result_volume", "result_area"},
	},
	{
		Tag:     "cad_analysis",
		Tool:    ToolGetProperties,
		Members: map[string]string{KernelCadQuery: cadquery.ToolGetProperties, KernelFreeCAD: freecad.ToolGetProperties},
		Inputs:  []string{"input_file"},
		Outputs: []string{"volume", "area", "center_of_mass", "bounding_box"},
	},
	{
		Tag:     "cad_export",
		Tool:    ToolExportGeometry,
		Members: map[string]string{KernelCadQuery: cadquery.ToolExportGeometry, KernelFreeCAD: freecad.ToolExportGeometry},
		Inputs:  []string{"input_file", "output_format", "output_path"},
		Outputs: []string{"output_file", "file_size_bytes", "format"},
	},
	{
		Tag:     "mesh_generation",
		Tool:    ToolGenerateMesh,
		Members: map[string]string{KernelCadQuery: gmsh.ToolGenerateMesh, KernelFreeCAD: freecad.ToolGenerateMesh},
		Inputs:  []string{"input_file", "element_order", "mesh_size_mm", "mesh_size_min_mm", "output_name"},
		Outputs: []string{"mesh_file", "face_table_file", "element_type", "elements", "nodes", "element_order", "mesh_size_mm",
			"surface_sets", "mesh_bbox_mm", "coordinate_frame", "placement_baked", "quality_metrics"},
	},
}

// ExportFormats are the output formats every kernel writes (FreeCAD has
// no amf, svg or glb): cad.export_geometry offers these; a kernel's own
// formats are its own tool's.
var ExportFormats = []string{"step", "stl", "obj", "brep"}

// CapabilityOf is the contract's row for a cad.* tool.
func CapabilityOf(tool string) (Capability, bool) {
	for _, c := range Contract {
		if c.Tool == tool {
			return c, true
		}
	}
	return Capability{}, false
}
