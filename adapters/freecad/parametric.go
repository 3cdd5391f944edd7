package freecad

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
)

// ToolCreateParametric builds one of the contract's parametric parts.
const ToolCreateParametric = "freecad.create_parametric"

// parametricTool is cad_generation: cadquery.create_parametric's
// arguments, checks and result, built by FreeCAD.
var parametricTool = func() tool {
	t := adapters.Declare(adapters.Manifest{
		ToolID:    ToolCreateParametric,
		AdapterID: AdapterID,
		Name:      "Create parametric part (FreeCAD)",
		Description: "Build a parametric part with FreeCAD and write it as STEP in the call's own folder: the same shapes, " +
			"parameters, defaults and centring as cadquery.create_parametric, so the same part from either kernel measures the same. " +
			"shape_type picks the part, parameters give its dimensions in mm (any left out take the default shown); " +
			"every part is centred so its bounding box is symmetric about the origin. Shapes: " + cadquery.ShapeSummaries() + ". " +
			"Returns cad_file (absolute path of the STEP), volume_mm3, surface_area_mm2, bounding_box ({min, max, size}, mm), " +
			"parameters_used (all of them, defaults filled in), kernel (\"freecad\"), and, only when a material is given, material and mass_kg " +
			"(volume x the material's density; never defaulted).",
		Capability:     "cad_generation",
		OutputSchema:   withKernel(cadquery.ParametricOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 120,
	}, method((*Adapter).createParametric))
	t.Manifest.InputSchema = cadquery.ParametricInputSchema // the contract's, rules and all
	return t
}()

type parametricRequest struct {
	ShapeType  string             `json:"shape_type"`
	Parameters map[string]float64 `json:"parameters"`
	CadFile    string             `json:"cad_file"`
}

type parametricResult struct {
	cadquery.ParametricResult
	kernel
}

func (r parametricResult) written() []string { return []string{r.CadFile} }

func (a *Adapter) createParametric(ctx context.Context, in cadquery.ParametricArgs) (any, error) {
	params, err := cadquery.CompleteShape(in.ShapeType, in.Parameters)
	if err != nil {
		return nil, err
	}
	mat, err := cadquery.Material(in.Material)
	if err != nil {
		return nil, err
	}
	name, err := cadquery.OutputName("output_path", in.OutputPath, in.ShapeType+".step", stepExts...)
	if err != nil {
		return nil, err
	}
	out := parametricResult{kernel: freecadKernel}
	out.ShapeType, out.ParametersUsed, out.Material = in.ShapeType, params, cadquery.MaterialName(mat)
	if _, err := a.produce(ctx, "create_parametric", "output_path", name, func(file string) any {
		return parametricRequest{ShapeType: in.ShapeType, Parameters: params, CadFile: file}
	}, &out); err != nil {
		return nil, err
	}
	out.MassKg = cadquery.MassOf(mat, out.VolumeMM3)
	return out, nil
}
