package freecad

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
)

// ToolDescribeStepFile lists a STEP file's parts.
const ToolDescribeStepFile = "freecad.describe_step_file"

type describeArgs struct {
	InputFile string `json:"input_file"`
}

type fileRequest struct {
	File string `json:"file"`
}

type describeResult struct {
	Parts
	kernel
}

var describeTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolDescribeStepFile,
	AdapterID: AdapterID,
	Name:      "Describe a STEP file's parts",
	Description: "List the parts (STEP products) of a STEP file, such as a supplier's assembly, with FreeCAD: per part its label " +
		"(the name the file gives it), volume_mm3, surface_area_mm2, bounding_box ({min, max, size}, mm, global frame) and color " +
		"([r, g, b] 0-1 from the file's styling, or null); then part_count, total_volume_mm3, total_surface_area_mm2 and the " +
		"bounding_box of the whole. A FreeCAD document (.FCStd, e.g. from freecad.import_step) is described the same way. Writes nothing.",
	Capability:     "cad_inspection",
	OutputSchema:   schema(`{"type": "object", "additionalProperties": false, "required": [` + partsRequired + `], "properties": {` + partsProperties + `}}`),
	Idempotent:     true,
	TimeoutSeconds: 120,
}, method((*Adapter).describeStepFile),
	inputRule("input_file", "a STEP file (.step, .stp) or a FreeCAD document (.FCStd)"))

func (a *Adapter) describeStepFile(ctx context.Context, in describeArgs) (any, error) {
	file, err := a.input("input_file", in.InputFile, ".step", ".fcstd")
	if err != nil {
		return nil, err
	}
	out := describeResult{kernel: freecadKernel}
	if err := a.run(ctx, "describe_step_file", fileRequest{File: file}, "", &out); err != nil {
		return nil, err
	}
	return out, nil
}
