package gmsh

import (
	"regexp"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// DefaultOutputName is the deck's file name when the call names none.
const DefaultOutputName = "mesh.inp"

// MeshRequest is the input of gmsh.generate_mesh.
type MeshRequest struct {
	InputFile     string   `json:"input_file" jsonschema:"Path of the STEP file (absolute, or relative to the workspace), inside the server's allowed roots. Its coordinates are taken as millimetres in the twin's frame."`
	ElementOrder  *int     `json:"element_order,omitempty" jsonschema:"1: linear tetrahedra (C3D4); 2: quadratic tetrahedra (C3D10)."`
	MeshSizeMM    *float64 `json:"mesh_size_mm,omitempty" jsonschema:"Largest element size, mm. Default: the part's smallest bounding-box extent / 3, but no finer than its largest extent / 100, and not below mesh_size_min_mm. Curved faces are refined to 12 elements per full circle whatever the size."`
	MeshSizeMinMM *float64 `json:"mesh_size_min_mm,omitempty" jsonschema:"Smallest element size, mm (not above mesh_size_mm). Default: gmsh's own."`
	OutputName    string   `json:"output_name,omitempty" jsonschema:"File name of the deck in the call's folder; .inp is added when missing. The face table is written beside it as <name>.faces.json."`
}

// ListRequest is the input of gmsh.list_named_faces.
type ListRequest struct {
	MeshFile string `json:"mesh_file" jsonschema:"Path of the .inp deck gmsh.generate_mesh returned as mesh_file."`
}

// meshJob is a validated MeshRequest: what to mesh and how.
type meshJob struct {
	input string // resolved STEP path
	order int
	// size is the largest element size in mm; 0 lets the .geo derive it
	// from the part.
	size       float64
	sizeMin    float64 // 0: gmsh's own
	outputName string
}

// plainName is a file name with no directory part that does not start
// with a dot.
var plainName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)

// prepare validates a request and resolves its input. It runs nothing and
// writes nothing.
func (a *Adapter) prepare(req MeshRequest) (meshJob, error) {
	j := meshJob{order: 2, outputName: DefaultOutputName}
	if req.ElementOrder != nil {
		if o := *req.ElementOrder; o != 1 && o != 2 {
			return j, protocol.Invalid("element_order %d is not 1 (linear C3D4) or 2 (quadratic C3D10)", o)
		}
		j.order = *req.ElementOrder
	}
	if req.MeshSizeMM != nil {
		if *req.MeshSizeMM <= 0 {
			return j, protocol.Invalid("mesh_size_mm %g must be greater than 0 (the largest element edge, in mm)", *req.MeshSizeMM)
		}
		j.size = *req.MeshSizeMM
	}
	if req.MeshSizeMinMM != nil {
		if *req.MeshSizeMinMM <= 0 {
			return j, protocol.Invalid("mesh_size_min_mm %g must be greater than 0", *req.MeshSizeMinMM)
		}
		if j.size > 0 && *req.MeshSizeMinMM > j.size {
			return j, protocol.Invalid("mesh_size_min_mm %g is larger than mesh_size_mm %g", *req.MeshSizeMinMM, j.size)
		}
		j.sizeMin = *req.MeshSizeMinMM
	}
	if req.OutputName != "" {
		// The suffix is lower case so meshfile.TablePath finds the table.
		name := req.OutputName
		if strings.HasSuffix(strings.ToLower(name), ".inp") {
			name = name[:len(name)-len(".inp")]
		}
		name += ".inp"
		if !plainName.MatchString(name) {
			return j, protocol.Invalid("output_name %q must be a plain file name (letters, digits, . _ -; no folders), such as mesh.inp", req.OutputName)
		}
		j.outputName = name
	}
	input, err := a.ws.ResolveRead("input_file", req.InputFile)
	if err != nil {
		return j, err
	}
	if err := checkStepRefs(input); err != nil {
		return j, err
	}
	j.input = input
	return j, nil
}
