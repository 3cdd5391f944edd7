package freecad

import (
	"context"
	"math"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/protocol"
)

// ToolTransformObject moves and turns a part and writes it, placement
// baked into its geometry.
const ToolTransformObject = "freecad.transform_object"

type rotation struct {
	Axis     [3]float64  `json:"axis" jsonschema:"Axis direction [x, y, z]; need not be a unit vector, must not be zero."`
	AngleDeg float64     `json:"angle_deg" jsonschema:"Angle in degrees, counterclockwise looking down the axis (right-hand rule)."`
	Center   *[3]float64 `json:"center,omitempty" jsonschema:"A point on the axis, mm. Default the origin."`
}

type transformArgs struct {
	InputFile  string      `json:"input_file"`
	Part       string      `json:"part,omitempty" jsonschema:"Label of one part to transform and write alone; the whole file when left out."`
	Rotate     *rotation   `json:"rotate,omitempty" jsonschema:"A rotation, applied first."`
	Translate  *[3]float64 `json:"translate,omitempty" jsonschema:"A translation [x, y, z], mm, applied after the rotation."`
	OutputPath string      `json:"output_path,omitempty"`
}

type transformRequest struct {
	File       string      `json:"file"`
	Part       *string     `json:"part"`
	Rotate     *rotation   `json:"rotate,omitempty"`
	Translate  *[3]float64 `json:"translate,omitempty"`
	OutputFile string      `json:"output_file"`
}

type placement struct {
	Position [3]float64 `json:"position"`
	Rotation struct {
		Axis     [3]float64 `json:"axis"`
		AngleDeg float64    `json:"angle_deg"`
	} `json:"rotation"`
	Matrix [4][4]float64 `json:"matrix"`
}

type transformResult struct {
	InputFile      string                `json:"input_file"`
	Part           *string               `json:"part"`
	OutputFile     string                `json:"output_file"`
	Placement      placement             `json:"placement"`
	VolumeMM3      float64               `json:"volume_mm3"`
	SurfaceAreaMM2 float64               `json:"surface_area_mm2"`
	BoundingBox    *cadquery.BoundingBox `json:"bounding_box"`
	kernel
}

func (r transformResult) written() []string { return []string{r.OutputFile} }

var transformTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolTransformObject,
	AdapterID: AdapterID,
	Name:      "Transform a part",
	Description: "Rotate (about an axis through a centre, default the origin) and then translate a STEP or BREP file's shape, or one part " +
		"of it by label, with FreeCAD, and write the result with the placement baked into its geometry (STEP, or BREP by output_path's " +
		"extension) in the call's own folder. The written file is read back and checked: its bounding box must be where the transform puts " +
		"the part and its volume unchanged, or the call fails and writes nothing. Returns output_file, placement (position, rotation " +
		"{axis, angle_deg}, the 4x4 matrix), and the result's volume_mm3, surface_area_mm2 and bounding_box as measured from the file.",
	Capability: "cad_transform",
	OutputSchema: schema(`{"type": "object", "additionalProperties": false,
  "required": ["input_file", "part", "output_file", "placement", "volume_mm3", "surface_area_mm2", "bounding_box", "kernel"],
  "properties": {
    "input_file": {"type": "string"},
    "part": {"type": ["string", "null"]},
    "output_file": {"type": "string", "description": "Absolute path of the file written."},
    "placement": {"type": "object", "additionalProperties": false, "required": ["position", "rotation", "matrix"], "properties": {
      "position": ` + cadquery.Vec3Schema + `,
      "rotation": {"type": "object", "additionalProperties": false, "required": ["axis", "angle_deg"], "properties": {
        "axis": ` + cadquery.Vec3Schema + `, "angle_deg": {"type": "number"}}},
      "matrix": {"type": "array", "minItems": 4, "maxItems": 4, "items": {"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4}}}},
    "volume_mm3": {"type": "number"},
    "surface_area_mm2": {"type": "number"},
    "bounding_box": ` + cadquery.NullableBBoxSchema + `,
    "kernel": {"const": "freecad"}
  }}`),
	Idempotent:     true,
	TimeoutSeconds: 120,
}, method((*Adapter).transformObject),
	inputRule("input_file", "a STEP (.step, .stp) or BREP (.brep, .brp) file or a FreeCAD document (.FCStd)"),
	adapters.At("part", adapters.MinLength(1)),
	outputRule("<input file's name>_transformed.step", ".step, .stp, .brep or .brp"),
)

func (a *Adapter) transformObject(ctx context.Context, in transformArgs) (any, error) {
	if in.Rotate == nil && in.Translate == nil {
		return nil, protocol.Invalid("give rotate, translate or both: there is nothing to transform")
	}
	if r := in.Rotate; r != nil {
		if math.Hypot(math.Hypot(r.Axis[0], r.Axis[1]), r.Axis[2]) < 1e-12 {
			return nil, protocol.Invalid("rotate.axis %v is the zero vector: give the axis direction, such as [0, 0, 1] for Z", r.Axis)
		}
		if math.IsNaN(r.AngleDeg) || math.IsInf(r.AngleDeg, 0) {
			return nil, protocol.Invalid("rotate.angle_deg must be a finite number of degrees")
		}
	}
	file, err := a.input("input_file", in.InputFile, ".step", ".brep", ".fcstd")
	if err != nil {
		return nil, err
	}
	name, err := cadquery.OutputName("output_path", in.OutputPath, stem(file)+"_transformed.step", append(stepExts, brepExts...)...)
	if err != nil {
		return nil, err
	}
	out := transformResult{kernel: freecadKernel}
	if _, err := a.produce(ctx, "transform_object", "output_path", name, func(f string) any {
		return transformRequest{File: file, Part: optional(in.Part), Rotate: in.Rotate, Translate: in.Translate, OutputFile: f}
	}, &out); err != nil {
		return nil, err
	}
	out.InputFile = file
	return out, nil
}
