package cadquery

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
)

// ToolGetProperties measures a part.
const ToolGetProperties = "cadquery.get_properties"

var propertiesTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolGetProperties,
		AdapterID: AdapterID,
		Name:      "Get geometric properties",
		Description: "Measure a solid in a STEP or BREP file, or a closed (watertight) STL mesh: volume (mm^3), area (mm^2), center_of_mass ([x, y, z], mm), " +
			"bounding_box ({min, max, size}, mm), solid_count, and inertia: the 3x3 inertia tensor about the centre of mass " +
			"for unit density, in mm^5 (I = integral of (|r|^2 E - r r^T) dV, so off-diagonal entries are the negated products of inertia). " +
			"With a material, also mass_kg (volume x density) and inertia_kg_mm2 (the same tensor for that density, kg mm^2). " +
			"A file with no closed solid has no mass properties and is refused, and so is an open STL. An STL's figures are its " +
			"triangles' (a curved face measures as its facets).",
		Capability:     "cad_analysis",
		InputSchema:    propertiesInputSchema,
		OutputSchema:   json.RawMessage(propertiesOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 120,
	},
	call: (*Adapter).getProperties,
}

type propertiesArgs struct {
	InputFile string `json:"input_file"`
	Material  string `json:"material,omitempty"`
}

type propertiesRequest struct {
	File string `json:"file"`
}

type propertiesResult struct {
	InputFile    string         `json:"input_file"`
	Volume       float64        `json:"volume"`
	Area         float64        `json:"area"`
	CenterOfMass [3]float64     `json:"center_of_mass"`
	BoundingBox  BoundingBox    `json:"bounding_box"`
	Inertia      [3][3]float64  `json:"inertia"`
	SolidCount   int            `json:"solid_count"`
	Material     string         `json:"material,omitempty"`
	MassKg       *float64       `json:"mass_kg,omitempty"`
	InertiaKgMM2 *[3][3]float64 `json:"inertia_kg_mm2,omitempty"`
}

func (a *Adapter) getProperties(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in propertiesArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	file, err := a.measuredFile("input_file", in.InputFile)
	if err != nil {
		return nil, err
	}
	mat, err := optionalMaterial(in.Material)
	if err != nil {
		return nil, err
	}
	out := propertiesResult{InputFile: file, Material: materialName(mat)}
	if _, err := a.run(ctx, ToolGetProperties, propertiesRequest{File: file}, &out); err != nil {
		return nil, err
	}
	if mat != nil {
		out.MassKg = massOf(mat, out.Volume)
		// Unit-density inertia (mm^5) times density in kg/mm^3.
		kgPerMM3 := mat.MassKg(1)
		var scaled [3][3]float64
		for i := range scaled {
			for j := range scaled[i] {
				scaled[i][j] = out.Inertia[i][j] * kgPerMM3
			}
		}
		out.InertiaKgMM2 = &scaled
	}
	return result(out, nil)
}

var propertiesInputSchema = adapters.SchemaFor[propertiesArgs](adapters.At("input_file", adapters.MinLength(1),
	adapters.Describe("Path of a STEP (.step, .stp) or BREP (.brep, .brp) file, or a closed STL (.stl) mesh, inside the workspace, e.g. a "+
		"cad_file or output_file an earlier call returned; a relative path is taken from the workspace root.")), material)

const propertiesOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["input_file", "volume", "area", "center_of_mass", "bounding_box", "inertia", "solid_count"],
  "properties": {
    "input_file": {"type": "string", "description": "Absolute path of the file measured."},
    "volume": {"type": "number", "description": "Volume, mm^3."},
    "area": {"type": "number", "description": "Surface area, mm^2."},
    "center_of_mass": ` + vec3Schema + `,
    "bounding_box": ` + bboxSchema + `,
    "inertia": ` + matrix3Schema + `,
    "solid_count": {"type": "integer", "minimum": 0},
    "material": {"type": "string", "description": "The material's name in the table; present only when a material was given."},
    "mass_kg": ` + massSchema + `,
    "inertia_kg_mm2": ` + matrix3Schema + `
  }
}`
