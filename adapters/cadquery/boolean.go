package cadquery

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ToolBooleanOperation unites, subtracts or intersects two parts.
const ToolBooleanOperation = "cadquery.boolean_operation"

var booleanOperations = []string{"union", "subtract", "intersect"}

var booleanTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolBooleanOperation,
		AdapterID: AdapterID,
		Name:      "Boolean operation",
		Description: "Combine two parts with CadQuery: union (A + B), subtract (A - B) or intersect (the volume A and B share), " +
			"and write the result as STEP in the call's own folder. Inputs are STEP or BREP files in the workspace, " +
			"such as the cad_file of create_parametric. Returns output_file (absolute path), operation, result_volume (mm^3), " +
			"result_area (mm^2), bounding_box ({min, max, size}, mm; null when the result is empty) and solid_count. " +
			"Parts that do not meet intersect to an empty result with volume 0, not an error.",
		Capability:     "cad_operations",
		InputSchema:    booleanInputSchema,
		OutputSchema:   json.RawMessage(booleanOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 120,
	},
	call: (*Adapter).booleanOperation,
}

type booleanArgs struct {
	InputFileA string `json:"input_file_a"`
	InputFileB string `json:"input_file_b"`
	Operation  string `json:"operation" jsonschema:"union: A + B; subtract: A - B; intersect: what A and B share."`
	OutputPath string `json:"output_path,omitempty"`
}

type booleanRequest struct {
	FileA      string `json:"file_a"`
	FileB      string `json:"file_b"`
	Operation  string `json:"operation"`
	OutputFile string `json:"output_file"`
}

type booleanResult struct {
	OutputFile   string       `json:"output_file"`
	Operation    string       `json:"operation"`
	ResultVolume float64      `json:"result_volume"`
	ResultArea   float64      `json:"result_area"`
	BoundingBox  *BoundingBox `json:"bounding_box"`
	SolidCount   int          `json:"solid_count"`
}

func (a *Adapter) booleanOperation(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in booleanArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	if !slices.Contains(booleanOperations, in.Operation) {
		return nil, protocol.Invalid("operation %q is not one of union, subtract, intersect", in.Operation)
	}
	fileA, err := a.inputFile("input_file_a", in.InputFileA)
	if err != nil {
		return nil, err
	}
	fileB, err := a.inputFile("input_file_b", in.InputFileB)
	if err != nil {
		return nil, err
	}
	name, err := outputName("output_path", in.OutputPath, in.Operation+".step", stepExts...)
	if err != nil {
		return nil, err
	}
	var out booleanResult
	files, err := a.produce(ctx, ToolBooleanOperation, name, func(_, file string) any {
		return booleanRequest{FileA: fileA, FileB: fileB, Operation: in.Operation, OutputFile: file}
	}, &out)
	if err != nil {
		return nil, err
	}
	return result(out, files)
}

var booleanInputSchema = adapters.SchemaFor[booleanArgs](
	inputFile("input_file_a"), inputFile("input_file_b"),
	adapters.At("operation", adapters.Enum("union", "subtract", "intersect")),
	outputPath("<operation>.step", ".step or .stp"),
)

const booleanOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["output_file", "operation", "result_volume", "result_area", "bounding_box", "solid_count"],
  "properties": {
    "output_file": {"type": "string", "description": "Absolute path of the STEP file written."},
    "operation": {"type": "string", "enum": ["union", "subtract", "intersect"]},
    "result_volume": {"type": "number", "minimum": 0, "description": "Volume of the result, mm^3; 0 when it is empty."},
    "result_area": {"type": "number", "minimum": 0, "description": "Surface area of the result, mm^2."},
    "bounding_box": ` + nullableBBoxSchema + `,
    "solid_count": {"type": "integer", "minimum": 0, "description": "Separate solids in the result: 0 when empty, 2 for a union of parts that do not meet."}
  }
}`
