package cadquery

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ToolExportGeometry converts a part to another format.
const ToolExportGeometry = "cadquery.export_geometry"

// exportFormat is one output_format: its file extensions (the first is the
// default), and whether it is a mesh, whose fineness the tolerances set.
type exportFormat struct {
	name string
	exts []string
	mesh bool
	doc  string
}

var exportFormats = []exportFormat{
	{name: "step", exts: []string{".step", ".stp"}, doc: "STEP, exact geometry"},
	{name: "stl", exts: []string{".stl"}, mesh: true, doc: "binary STL triangle mesh"},
	{name: "obj", exts: []string{".obj"}, mesh: true, doc: "Wavefront OBJ triangle mesh"},
	{name: "brep", exts: []string{".brep", ".brp"}, doc: "OpenCASCADE BREP, exact geometry"},
	{name: "amf", exts: []string{".amf"}, mesh: true, doc: "AMF (XML) triangle mesh"},
	{name: "svg", exts: []string{".svg"}, doc: "SVG line drawing of a default projection"},
	{name: "glb", exts: []string{".glb"}, mesh: true, doc: "binary glTF 2.0 mesh"},
}

// Mesh fineness when the call does not say.
const (
	defaultTolerance        = 0.1 // mm
	defaultAngularTolerance = 0.1 // radians
)

// maxStepBase64Bytes bounds the STEP files whose bytes come back inline;
// a larger one is read from output_file instead.
const maxStepBase64Bytes = 8 << 20

var exportTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolExportGeometry,
		AdapterID: AdapterID,
		Name:      "Export geometry",
		Description: "Write a part from a STEP or BREP file in another format, in the call's own folder. output_format: " +
			formatList() + ". For the mesh formats (stl, obj, amf, glb), tolerance (mm, default 0.1) bounds how far a triangle " +
			"may stray from the true surface and angular_tolerance (radians, default 0.1) the angle between neighbouring ones; " +
			"other formats take neither. Returns output_file (absolute path), format and file_size_bytes, and for step also " +
			fmt.Sprintf("step_base64, the file's bytes (files up to %d MiB).", maxStepBase64Bytes>>20),
		Capability:     "cad_export",
		InputSchema:    exportInputSchema,
		OutputSchema:   json.RawMessage(exportOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 120,
	},
	call: (*Adapter).exportGeometry,
}

type exportArgs struct {
	InputFile        string   `json:"input_file"`
	OutputFormat     string   `json:"output_format"`
	OutputPath       string   `json:"output_path,omitempty"`
	Tolerance        *float64 `json:"tolerance,omitempty" jsonschema:"Mesh formats only: largest distance, mm, between a triangle and the true surface."`
	AngularTolerance *float64 `json:"angular_tolerance,omitempty" jsonschema:"Mesh formats only: largest angle, radians, between neighbouring triangles along a curve."`
}

type exportRequest struct {
	File             string  `json:"file"`
	Format           string  `json:"format"`
	OutputFile       string  `json:"output_file"`
	Tolerance        float64 `json:"tolerance"`
	AngularTolerance float64 `json:"angular_tolerance"`
}

type exportResult struct {
	OutputFile    string `json:"output_file"`
	Format        string `json:"format"`
	FileSizeBytes int64  `json:"file_size_bytes"`
	StepBase64    string `json:"step_base64,omitempty"`
}

func (a *Adapter) exportGeometry(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in exportArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	format, err := findFormat(in.OutputFormat)
	if err != nil {
		return nil, err
	}
	req := exportRequest{Format: format.name, Tolerance: defaultTolerance, AngularTolerance: defaultAngularTolerance}
	if err := format.tolerances(in, &req); err != nil {
		return nil, err
	}
	if req.File, err = a.inputFile("input_file", in.InputFile); err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(filepath.Base(req.File), filepath.Ext(req.File))
	name, err := outputName("output_path", in.OutputPath, stem+format.exts[0], format.exts...)
	if err != nil {
		return nil, err
	}
	var out exportResult
	files, err := a.produce(ctx, ToolExportGeometry, name, func(_, file string) any {
		req.OutputFile = file
		return req
	}, &out)
	if err != nil {
		return nil, err
	}
	if format.name == "step" {
		if out.StepBase64, err = stepBase64(out.OutputFile); err != nil {
			return nil, err
		}
	}
	return result(out, files)
}

func findFormat(name string) (exportFormat, error) {
	for _, f := range exportFormats {
		if f.name == name {
			return f, nil
		}
	}
	if name == "" {
		return exportFormat{}, protocol.Invalid("output_format is required: one of %s", formatNames())
	}
	return exportFormat{}, protocol.Invalid("output_format %q is not one of %s", name, formatNames())
}

// tolerances copies the call's mesh tolerances into req, refusing them for
// a format that is not a mesh (they would silently do nothing).
func (f exportFormat) tolerances(in exportArgs, req *exportRequest) error {
	if !f.mesh && (in.Tolerance != nil || in.AngularTolerance != nil) {
		return protocol.Invalid("tolerance and angular_tolerance apply only to the mesh formats stl, obj, amf and glb, not %s", f.name)
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
		return "", protocol.Refusal("the STEP file %s the kernel wrote cannot be read: %v", path, err)
	}
	if st.Size() > maxStepBase64Bytes {
		return "", nil
	}
	body, err := os.ReadFile(path)
	if err != nil {
		return "", protocol.Refusal("the STEP file %s the kernel wrote cannot be read: %v", path, err)
	}
	return base64.StdEncoding.EncodeToString(body), nil
}

func formatNames() string {
	names := make([]string, len(exportFormats))
	for i, f := range exportFormats {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

func formatList() string {
	parts := make([]string, len(exportFormats))
	for i, f := range exportFormats {
		parts[i] = fmt.Sprintf("%s (%s, %s)", f.name, f.doc, strings.Join(f.exts, " or "))
	}
	return strings.Join(parts, "; ")
}

var exportInputSchema = adapters.SchemaFor[exportArgs](
	inputFile("input_file"),
	adapters.At("output_format", adapters.Enum("step", "stl", "obj", "brep", "amf", "svg", "glb")),
	outputPath("<input file's name>.<format>", "the format's extension"),
	adapters.At("tolerance", adapters.Minimum(0.001), adapters.Default(0.1)),
	adapters.At("angular_tolerance", adapters.ExclusiveMinimum(0), adapters.Maximum(1), adapters.Default(0.1)),
)

const exportOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["output_file", "format", "file_size_bytes"],
  "properties": {
    "output_file": {"type": "string", "description": "Absolute path of the file written."},
    "format": {"type": "string", "enum": ["step", "stl", "obj", "brep", "amf", "svg", "glb"]},
    "file_size_bytes": {"type": "integer", "minimum": 1},
    "step_base64": {"type": "string", "contentEncoding": "base64", "description": "step only: the STEP file's bytes, for files up to 8 MiB."}
  }
}`
