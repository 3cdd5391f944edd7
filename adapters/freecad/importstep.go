package freecad

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
)

// ToolImportStep reads a STEP into a FreeCAD document.
const ToolImportStep = "freecad.import_step"

type importArgs struct {
	InputFile  string `json:"input_file"`
	OutputPath string `json:"output_path,omitempty"`
}

type importRequest struct {
	File       string `json:"file"`
	OutputFile string `json:"output_file"`
}

type importResult struct {
	Parts
	OutputFile string `json:"output_file"`
	kernel
}

func (r importResult) written() []string { return []string{r.OutputFile} }

var importTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolImportStep,
	AdapterID: AdapterID,
	Name:      "Import a STEP file into a FreeCAD document",
	Description: "Read a STEP file with FreeCAD, keeping each part's label and colour, and write it as a FreeCAD document (.FCStd) " +
		"in the call's own folder, ready to open as an editing session's base document. Headless FreeCAD drops a STEP's colours, so they " +
		"are read from the file's styling (STYLED_ITEM ... COLOUR_RGB, matched to each part's product) and stored on each part's object " +
		"(property MetaforgeColor, [r, g, b]), where they survive in the .FCStd. Returns output_file (absolute path) and the parts as " +
		"freecad.describe_step_file gives them (label, volume_mm3, surface_area_mm2, bounding_box, color) with their totals.",
	Capability: "cad_import",
	OutputSchema: schema(`{"type": "object", "additionalProperties": false, "required": [` + partsRequired + `, "output_file"], "properties": {` +
		partsProperties + `, "output_file": {"type": "string", "description": "Absolute path of the FreeCAD document written."}}}`),
	Idempotent:     true,
	TimeoutSeconds: 180,
}, method((*Adapter).importStep),
	inputRule("input_file", "a STEP file (.step, .stp)"),
	outputRule("<input file's name>.FCStd", ".FCStd"))

func (a *Adapter) importStep(ctx context.Context, in importArgs) (any, error) {
	file, err := a.input("input_file", in.InputFile, ".step")
	if err != nil {
		return nil, err
	}
	name, err := cadquery.OutputName("output_path", in.OutputPath, stem(file)+".FCStd", ".FCStd", ".fcstd")
	if err != nil {
		return nil, err
	}
	out := importResult{kernel: freecadKernel}
	if _, err := a.produce(ctx, "import_step", "output_path", name, func(f string) any {
		return importRequest{File: file, OutputFile: f}
	}, &out); err != nil {
		return nil, err
	}
	return out, nil
}
