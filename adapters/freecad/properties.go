package freecad

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
)

// ToolGetProperties measures a part.
const ToolGetProperties = "freecad.get_properties"

// propertiesTool is cad_analysis: cadquery.get_properties's arguments and
// result, measured by FreeCAD.
var propertiesTool = func() tool {
	t := adapters.Declare(adapters.Manifest{
		ToolID:    ToolGetProperties,
		AdapterID: AdapterID,
		Name:      "Get geometric properties (FreeCAD)",
		Description: "Measure the solids in a STEP or BREP file (or a FreeCAD document), or a closed (watertight) STL mesh, with FreeCAD: " +
			"volume (mm^3), area (mm^2), center_of_mass ([x, y, z], mm), bounding_box ({min, max, size}, mm), solid_count, " +
			"inertia (the 3x3 inertia tensor about the centre of mass for unit density, mm^5, off-diagonal entries the negated products " +
			"of inertia) and kernel (\"freecad\"). With a material, also mass_kg (volume x density) and inertia_kg_mm2 (kg mm^2). " +
			"A file with no closed solid has no mass properties and is refused, and so is an open STL.",
		Capability:     "cad_analysis",
		OutputSchema:   withKernel(cadquery.PropertiesOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 120,
	}, method((*Adapter).getProperties))
	t.Manifest.InputSchema = cadquery.PropertiesInputSchema
	return t
}()

type propertiesRequest struct {
	File string `json:"file"`
}

type propertiesResult struct {
	cadquery.PropertiesResult
	kernel
}

func (a *Adapter) getProperties(ctx context.Context, in cadquery.PropertiesArgs) (any, error) {
	file, err := a.input("input_file", in.InputFile, ".step", ".brep", ".stl", ".fcstd")
	if err != nil {
		return nil, err
	}
	mat, err := cadquery.Material(in.Material)
	if err != nil {
		return nil, err
	}
	out := propertiesResult{kernel: freecadKernel}
	if err := a.run(ctx, "get_properties", propertiesRequest{File: file}, "", &out); err != nil {
		return nil, err
	}
	out.InputFile, out.Material = file, cadquery.MaterialName(mat)
	if mat != nil {
		out.MassKg = cadquery.MassOf(mat, out.Volume)
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
	return out, nil
}
