package freecad

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/protocol"
)

// ToolExportGeometry converts a part to another format.
const ToolExportGeometry = "freecad.export_geometry"

// exportFormat is one output_format FreeCAD writes: its extensions (the
// first is the default), and whether it is a mesh, whose fineness the
// tolerances set.
type exportFormat struct {
	name string
	exts []string
	mesh bool
	doc  string
}

// exportFormats are cad_export's formats that FreeCAD offers (no amf, svg
// or glb: spec 003's contract).
var exportFormats = []exportFormat{
	{name: "step", exts: stepExts, doc: "STEP, exact geometry"},
	{name: "stl", exts: stlExts, mesh: true, doc: "binary STL triangle mesh"},
	{name: "obj", exts: []string{".obj"}, mesh: true, doc: "Wavefront OBJ triangle mesh"},
	{name: "brep", exts: brepExts, doc: "OpenCASCADE BREP, exact geometry"},
}

// Mesh fineness when the call does not say: cadquery's.
const (
	defaultTolerance        = 0.1 // mm
	defaultAngularTolerance = 0.1 // radians
)

// maxStepBase64Bytes bounds the STEP files whose bytes come back inline.
const maxStepBase64Bytes = 8 << 20

var exportTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolExportGeometry,
	AdapterID: AdapterID,
	Name:      "Export geometry (FreeCAD)",
	Description: "Write a part from a STEP or BREP file (or a FreeCAD document) in another format with FreeCAD, in the call's own folder. " +
		"output_format: " + formatList() + ". For the mesh formats (stl, obj), tolerance (mm, default 0.1) bounds how far a triangle " +
		"may stray from the true surface and angular_tolerance (radians, default 0.1) the angle between neighbouring ones; " +
		"other formats take neither. Returns output_file (absolute path), format, file_size_bytes, kernel (\"freecad\"), and for step also " +
		fmt.Sprintf("step_base64, the file's bytes (files up to %d MiB).", maxStepBase64Bytes>>20),
	Capability:     "cad_export",
	OutputSchema:   withKernel(cadquery.ExportOutputSchema),
	Idempotent:     true,
	TimeoutSeconds: 120,
}, method((*Adapter).exportGeometry),
	inputRule("input_file", "a STEP (.step, .stp) or BREP (.brep, .brp) file or a FreeCAD document (.FCStd)"),
	adapters.At("output_format", adapters.Enum("step", "stl", "obj", "brep")),
	outputRule("<input file's name>.<format>", "the format's extension"),
	adapters.At("tolerance", adapters.Minimum(0.001), adapters.Default(defaultTolerance)),
	adapters.At("angular_tolerance", adapters.ExclusiveMinimum(0), adapters.Maximum(1), adapters.Default(defaultAngularTolerance)),
)

type exportRequest struct {
	File             string  `json:"file"`
	Format           string  `json:"format"`
	OutputFile       string  `json:"output_file"`
	Tolerance        float64 `json:"tolerance"`
	AngularTolerance float64 `json:"angular_tolerance"`
}

type exportResult struct {
	cadquery.ExportResult
	kernel
}

func (r exportResult) written() []string { return []string{r.OutputFile} }

func (a *Adapter) exportGeometry(ctx context.Context, in cadquery.ExportArgs) (any, error) {
	format, err := findFormat(in.OutputFormat)
	if err != nil {
		return nil, err
	}
	req := exportRequest{Format: format.name, Tolerance: defaultTolerance, AngularTolerance: defaultAngularTolerance}
	if err := format.tolerances(in, &req); err != nil {
		return nil, err
	}
	if req.File, err = a.input("input_file", in.InputFile, ".step", ".brep", ".fcstd"); err != nil {
		return nil, err
	}
	name, err := cadquery.OutputName("output_path", in.OutputPath, stem(req.File)+format.exts[0], format.exts...)
	if err != nil {
		return nil, err
	}
	out := exportResult{kernel: freecadKernel}
	if _, err := a.produce(ctx, "export_geometry", "output_path", name, func(file string) any {
		req.OutputFile = file
		return req
	}, &out); err != nil {
		return nil, err
	}
	if format.name == "step" {
		if out.StepBase64, err = stepBase64(out.OutputFile); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func findFormat(name string) (exportFormat, error) {
	for _, f := range exportFormats {
		if f.name == name {
			return f, nil
		}
	}
	names := make([]string, len(exportFormats))
	for i, f := range exportFormats {
		names[i] = f.name
	}
	if name == "" {
		return exportFormat{}, protocol.Invalid("output_format is required: one of %s", strings.Join(names, ", "))
	}
	return exportFormat{}, protocol.Invalid("output_format %q is not one FreeCAD writes: use one of %s (cadquery.export_geometry also writes amf, svg and glb)",
		name, strings.Join(names, ", "))
}

// tolerances copies the call's mesh tolerances into req, refusing them for
// a format that is not a mesh (they would silently do nothing).
func (f exportFormat) tolerances(in cadquery.ExportArgs, req *exportRequest) error {
	if !f.mesh && (in.Tolerance != nil || in.AngularTolerance != nil) {
		return protocol.Invalid("tolerance and angular_tolerance apply only to the mesh formats stl and obj, not %s", f.name)
	}
	if in.Tolerance != nil {
		if *in.Tolerance < 0.001 {
			return protocol.Invalid("tolerance must be at least 0.001 mm, got %g", *in.Tolerance)
		}
		req.Tolerance = *in.Tolerance
	}
	if in.AngularTolerance != nil {
		if *in.AngularTolerance <= 0 || *in.AngularTolerance > 1 {
			return protocol.Invalid("angular_tolerance must be above 0 and at most 1 radian, got %g", *in.AngularTolerance)
		}
		req.AngularTolerance = *in.AngularTolerance
	}
	return nil
}

func stepBase64(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", protocol.Refusal("the STEP file %s FreeCAD wrote cannot be read: %v", path, err)
	}
	if st.Size() > maxStepBase64Bytes {
		return "", nil
	}
	body, err := os.ReadFile(path)
	if err != nil {
		return "", protocol.Refusal("the STEP file %s FreeCAD wrote cannot be read: %v", path, err)
	}
	return base64.StdEncoding.EncodeToString(body), nil
}

func formatList() string {
	parts := make([]string, len(exportFormats))
	for i, f := range exportFormats {
		parts[i] = fmt.Sprintf("%s (%s, %s)", f.name, f.doc, strings.Join(f.exts, " or "))
	}
	return strings.Join(parts, "; ")
}
