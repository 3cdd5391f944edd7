package cadquery

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
)

// ToolCreateParametric builds one of a few parametric parts.
const ToolCreateParametric = "cadquery.create_parametric"

var parametricTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolCreateParametric,
		AdapterID: AdapterID,
		Name:      "Create parametric part",
		Description: "Build a parametric part with CadQuery and write it as STEP in the call's own folder. " +
			"shape_type picks the part, parameters give its dimensions in mm (any left out take the default shown); " +
			"every part is centred so its bounding box is symmetric about the origin. Shapes: " + shapeSummaries() + ". " +
			"Returns cad_file (absolute path of the STEP), volume_mm3, surface_area_mm2, bounding_box ({min, max, size}, mm), " +
			"parameters_used (all of them, defaults filled in), and, only when a material is given, material and mass_kg " +
			"(volume x the material's density; never defaulted).",
		Capability:     "cad_generation",
		InputSchema:    parametricInputSchema(),
		OutputSchema:   json.RawMessage(parametricOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 120,
	},
	call: (*Adapter).createParametric,
}

type parametricArgs struct {
	ShapeType  string             `json:"shape_type" jsonschema:"The part to build."`
	Parameters map[string]float64 `json:"parameters,omitempty"`
	Material   string             `json:"material,omitempty"`
	OutputPath string             `json:"output_path,omitempty"`
}

// parametricRequest is what the kernel gets: every dimension, checked.
type parametricRequest struct {
	ShapeType  string             `json:"shape_type"`
	Parameters map[string]float64 `json:"parameters"`
	CadFile    string             `json:"cad_file"`
}

type parametricResult struct {
	CadFile        string             `json:"cad_file"`
	ShapeType      string             `json:"shape_type"`
	VolumeMM3      float64            `json:"volume_mm3"`
	SurfaceAreaMM2 float64            `json:"surface_area_mm2"`
	BoundingBox    BoundingBox        `json:"bounding_box"`
	ParametersUsed map[string]float64 `json:"parameters_used"`
	Material       string             `json:"material,omitempty"`
	MassKg         *float64           `json:"mass_kg,omitempty"`
}

func (a *Adapter) createParametric(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in parametricArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	s, err := findShape(in.ShapeType)
	if err != nil {
		return nil, err
	}
	params, err := s.complete(in.Parameters)
	if err != nil {
		return nil, err
	}
	mat, err := optionalMaterial(in.Material)
	if err != nil {
		return nil, err
	}
	name, err := outputName("output_path", in.OutputPath, s.name+".step", stepExts...)
	if err != nil {
		return nil, err
	}
	out := parametricResult{ShapeType: s.name, ParametersUsed: params, Material: materialName(mat)}
	files, err := a.produce(ctx, ToolCreateParametric, name, func(_, file string) any {
		return parametricRequest{ShapeType: s.name, Parameters: params, CadFile: file}
	}, &out)
	if err != nil {
		return nil, err
	}
	out.MassKg = massOf(mat, out.VolumeMM3)
	return result(out, files)
}

func shapeSummaries() string {
	parts := make([]string, len(shapes))
	for i, s := range shapes {
		parts[i] = s.summary()
	}
	return strings.Join(parts, "; ")
}

// parametricInputSchema is generated from parametricArgs and the shapes
// table: each shape_type accepts only its own parameters, each with its
// default and lower bound.
func parametricInputSchema() json.RawMessage {
	var byShape []string
	var perShape []adapters.SchemaEdit
	anyShape := map[string]*jsonschema.Schema{}
	for _, s := range shapes {
		props := map[string]*jsonschema.Schema{}
		for _, d := range s.dims {
			p := &jsonschema.Schema{Type: "number", Description: "mm, " + d.doc}
			adapters.Default(d.def)(p)
			if d.zeroOK {
				adapters.Minimum(0)(p)
			} else {
				adapters.ExclusiveMinimum(0)(p)
			}
			props[d.name] = p
			anyShape[d.name] = &jsonschema.Schema{Type: "number"}
			adapters.Minimum(0)(anyShape[d.name])
		}
		perShape = append(perShape, adapters.Then("shape_type", s.name, &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{
			"parameters": {Properties: props, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
		}}))
		byShape = append(byShape, s.name+": "+s.paramList())
	}
	return adapters.SchemaFor[parametricArgs](
		adapters.At("shape_type", adapters.Enum(shapeNames()...)),
		adapters.At("parameters", func(p *jsonschema.Schema) {
			p.Properties, p.AdditionalProperties = anyShape, &jsonschema.Schema{Not: &jsonschema.Schema{}}
		}, adapters.Describe("Dimensions in mm; those left out take their defaults (see the tool description). "+
			"Each shape takes only its own: "+strings.Join(byShape, "; ")+".")),
		material,
		outputPath("<shape_type>.step", ".step or .stp"),
		adapters.At("", perShape...),
	)
}

const parametricOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["cad_file", "shape_type", "volume_mm3", "surface_area_mm2", "bounding_box", "parameters_used"],
  "properties": {
    "cad_file": {"type": "string", "description": "Absolute path of the STEP file written."},
    "shape_type": {"type": "string"},
    "volume_mm3": {"type": "number", "description": "Volume, mm^3."},
    "surface_area_mm2": {"type": "number", "description": "Surface area, mm^2."},
    "bounding_box": ` + bboxSchema + `,
    "parameters_used": {"type": "object", "additionalProperties": {"type": "number"}, "description": "Every parameter of the shape, mm, defaults filled in."},
    "material": {"type": "string", "description": "The material's name in the table; present only when a material was given."},
    "mass_kg": ` + massSchema + `
  }
}`
