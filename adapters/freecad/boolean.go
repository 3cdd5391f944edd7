package freecad

import (
	"context"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/protocol"
)

// ToolBooleanOperation unites, subtracts or intersects two parts.
const ToolBooleanOperation = "freecad.boolean_operation"

// booleanTool is cad_operations: cadquery.boolean_operation's arguments
// and result, done by FreeCAD.
var booleanTool = func() tool {
	t := adapters.Declare(adapters.Manifest{
		ToolID:    ToolBooleanOperation,
		AdapterID: AdapterID,
		Name:      "Boolean operation (FreeCAD)",
		Description: "Combine two parts with FreeCAD: union (A + B), subtract (A - B) or intersect (the volume A and B share), " +
			"and write the result as STEP in the call's own folder. Inputs are STEP or BREP files (or FreeCAD documents) in the workspace, " +
			"such as the cad_file of create_parametric. Returns output_file (absolute path), operation, result_volume (mm^3), " +
			"result_area (mm^2), bounding_box ({min, max, size}, mm; null when the result is empty), solid_count and kernel (\"freecad\"). " +
			"Parts that do not meet intersect to an empty result with volume 0, not an error.",
		Capability:     "cad_operations",
		OutputSchema:   withKernel(cadquery.BooleanOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 120,
	}, method((*Adapter).booleanOperation))
	t.Manifest.InputSchema = cadquery.BooleanInputSchema
	return t
}()

type booleanRequest struct {
	FileA      string `json:"file_a"`
	FileB      string `json:"file_b"`
	Operation  string `json:"operation"`
	OutputFile string `json:"output_file"`
}

type booleanResult struct {
	cadquery.BooleanResult
	kernel
}

func (r booleanResult) written() []string { return []string{r.OutputFile} }

func (a *Adapter) booleanOperation(ctx context.Context, in cadquery.BooleanArgs) (any, error) {
	if !slices.Contains(cadquery.BooleanOperations, in.Operation) {
		return nil, protocol.Invalid("operation %q is not one of %s", in.Operation, strings.Join(cadquery.BooleanOperations, ", "))
	}
	fileA, err := a.input("input_file_a", in.InputFileA, ".step", ".brep", ".fcstd")
	if err != nil {
		return nil, err
	}
	fileB, err := a.input("input_file_b", in.InputFileB, ".step", ".brep", ".fcstd")
	if err != nil {
		return nil, err
	}
	name, err := cadquery.OutputName("output_path", in.OutputPath, in.Operation+".step", stepExts...)
	if err != nil {
		return nil, err
	}
	out := booleanResult{kernel: freecadKernel}
	if _, err := a.produce(ctx, "boolean_operation", "output_path", name, func(file string) any {
		return booleanRequest{FileA: fileA, FileB: fileB, Operation: in.Operation, OutputFile: file}
	}, &out); err != nil {
		return nil, err
	}
	return out, nil
}
