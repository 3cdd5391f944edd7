package freecad

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/protocol"
)

// ToolMeasure measures a file, one of its parts, or the gap between two.
const ToolMeasure = "freecad.measure"

type measureArgs struct {
	InputFile string `json:"input_file"`
	Part      string `json:"part,omitempty" jsonschema:"Label of one part to measure (as freecad.describe_step_file lists them); the whole file when left out."`
	ToPart    string `json:"to_part,omitempty" jsonschema:"Label of a second part: the result adds the minimum distance between part and it. Needs part."`
}

type measureRequest struct {
	File   string  `json:"file"`
	Part   *string `json:"part"`
	ToPart *string `json:"to_part"`
}

type measureResult struct {
	InputFile      string                `json:"input_file"`
	Part           *string               `json:"part"`
	VolumeMM3      float64               `json:"volume_mm3"`
	SurfaceAreaMM2 float64               `json:"surface_area_mm2"`
	CenterOfMass   *[3]float64           `json:"center_of_mass"`
	BoundingBox    *cadquery.BoundingBox `json:"bounding_box"`
	SolidCount     int                   `json:"solid_count"`
	ToPart         *string               `json:"to_part,omitempty"`
	DistanceMM     *float64              `json:"distance_mm,omitempty"`
	ClosestPoints  *[2][3]float64        `json:"closest_points,omitempty"`
	kernel
}

var measureTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolMeasure,
	AdapterID: AdapterID,
	Name:      "Measure a part",
	Description: "Measure a STEP or BREP file or a FreeCAD document with FreeCAD, whole or one part by its label, in the global frame " +
		"(every placement applied): volume_mm3, surface_area_mm2, center_of_mass ([x, y, z] mm; null without solids or faces), " +
		"bounding_box ({min, max, size}, mm) and solid_count. With to_part (and part), also distance_mm, the minimum distance between " +
		"the two parts (0 when they touch or overlap), and closest_points, a point on each. Writes nothing.",
	Capability: "cad_inspection",
	OutputSchema: schema(`{"type": "object", "additionalProperties": false,
  "required": ["input_file", "part", "volume_mm3", "surface_area_mm2", "center_of_mass", "bounding_box", "solid_count", "kernel"],
  "properties": {
    "input_file": {"type": "string"},
    "part": {"type": ["string", "null"], "description": "The part measured; null for the whole file."},
    "volume_mm3": {"type": "number"},
    "surface_area_mm2": {"type": "number"},
    "center_of_mass": {"anyOf": [` + cadquery.Vec3Schema + `, {"type": "null"}]},
    "bounding_box": ` + cadquery.NullableBBoxSchema + `,
    "solid_count": {"type": "integer", "minimum": 0},
    "to_part": {"type": "string"},
    "distance_mm": {"type": "number", "minimum": 0, "description": "Minimum distance between part and to_part, mm."},
    "closest_points": {"type": "array", "minItems": 2, "maxItems": 2, "items": ` + cadquery.Vec3Schema + `, "description": "The nearest point of part, then of to_part."},
    "kernel": {"const": "freecad"}
  }}`),
	Idempotent:     true,
	TimeoutSeconds: 120,
}, method((*Adapter).measure),
	inputRule("input_file", "a STEP (.step, .stp) or BREP (.brep, .brp) file or a FreeCAD document (.FCStd)"),
	adapters.At("part", adapters.MinLength(1)),
	adapters.At("to_part", adapters.MinLength(1)),
)

func (a *Adapter) measure(ctx context.Context, in measureArgs) (any, error) {
	if in.ToPart != "" && in.Part == "" {
		return nil, protocol.Invalid("to_part %q needs part: name the part to measure the distance from", in.ToPart)
	}
	file, err := a.input("input_file", in.InputFile, ".step", ".brep", ".fcstd")
	if err != nil {
		return nil, err
	}
	req := measureRequest{File: file, Part: optional(in.Part), ToPart: optional(in.ToPart)}
	out := measureResult{kernel: freecadKernel}
	if err := a.run(ctx, "measure", req, "", &out); err != nil {
		return nil, err
	}
	out.InputFile = file
	return out, nil
}

// optional is s, or nil when s is empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
