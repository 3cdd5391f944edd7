package omniverseusd

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/protocol"
)

// ToolConvertGLBToUSD turns a binary glTF into a USD stage.
const ToolConvertGLBToUSD = "omniverse_usd.convert_glb_to_usd"

// outputExts are the stage formats the converter writes, by extension:
// .usda text, .usdc crate, .usd (crate).
var outputExts = []string{".usda", ".usdc", ".usd"}

type convertArgs struct {
	File       string `json:"file"`
	OutputPath string `json:"output_path,omitempty"`
	LengthUnit string `json:"length_unit,omitempty" jsonschema:"The unit of the GLB's numbers: m as glTF defines, or mm for a GLB written from a millimetre model by OpenCASCADE (cadquery.export_geometry's glb). Sets the stage's metersPerUnit; no number is scaled."`
}

type convertRequest struct {
	File       string `json:"file"`
	OutputFile string `json:"output_file"`
	LengthUnit string `json:"length_unit"`
}

type convertedNode struct {
	Index      int      `json:"index"`
	Name       *string  `json:"name"`
	Path       string   `json:"path"`
	MeshPrims  []string `json:"mesh_prims"`
	PointCount int      `json:"point_count"`
}

type skippedPart struct {
	What   string `json:"what"`
	Reason string `json:"reason"`
}

type convertResult struct {
	OutputFile    string          `json:"output_file"`
	Format        string          `json:"format"`
	UpAxis        string          `json:"up_axis"`
	MetersPerUnit float64         `json:"meters_per_unit"`
	DefaultPrim   string          `json:"default_prim"`
	NodeCount     int             `json:"node_count"`
	MeshCount     int             `json:"mesh_count"`
	PointCount    int             `json:"point_count"`
	TriangleCount int             `json:"triangle_count"`
	Nodes         []convertedNode `json:"nodes"`
	NodesListed   int             `json:"nodes_listed"`
	Skipped       []skippedPart   `json:"skipped"`
	NotConverted  map[string]int  `json:"not_converted"`
}

func (r convertResult) written() []string { return []string{r.OutputFile} }

var convertTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolConvertGLBToUSD,
	AdapterID: AdapterID,
	Name:      "Convert GLB to USD",
	Description: "Convert a binary glTF 2.0 file (.glb, e.g. from cadquery.export_geometry with output_format glb) into an OpenUSD " +
		"stage with usd-core, in the call's own folder: output_path ending .usda (text, the default), .usdc or .usd (binary crate). " +
		"Each node of the GLB's scene becomes an Xform under the default prim /Scene (or the scene's name), keeping its name (made " +
		"a valid USD identifier, unique among its siblings; the name as written is the prim's displayName and customData " +
		"gltf:name) and its transform (translate/orient/scale ops, or its matrix). Each triangle primitive of a node's mesh " +
		"becomes a UsdGeom.Mesh under it: points, triangles, vertex normals, no subdivision, the material's base colour as " +
		"displayColor. Point and line primitives are skipped and listed in skipped; animations, skins, cameras and textures are " +
		"counted in not_converted. The stage is Y up as glTF is; length_unit (m, the default as glTF defines; mm for OpenCASCADE's " +
		"millimetre GLBs such as CadQuery's) sets metersPerUnit. Returns output_file, format, up_axis, meters_per_unit, " +
		"default_prim, node_count, mesh_count, point_count, triangle_count, nodes ([{index, name, path, mesh_prims, point_count}], " +
		"up to 1000), skipped and not_converted.",
	Capability:     "usd_conversion",
	OutputSchema:   json.RawMessage(convertOutputSchema),
	Idempotent:     true,
	TimeoutSeconds: 300,
}, method((*Adapter).convert),
	inputRule("file", "a binary glTF file (.glb)"),
	adapters.At("output_path", adapters.MinLength(1), adapters.MaxLength(255), adapters.Pattern(`^[^/\\]+$`),
		adapters.Describe("Plain file name (no folders) for the stage, written in the call's own output folder; the result gives its "+
			"absolute path. Default <input file's name>.usda. Must end in .usda, .usdc or .usd; a name without an extension gets .usda.")),
	adapters.At("length_unit", adapters.Enum("m", "mm"), adapters.Default("m")),
)

func (a *Adapter) convert(ctx context.Context, in convertArgs) (any, error) {
	req := convertRequest{LengthUnit: "m"}
	switch in.LengthUnit {
	case "", "m":
	case "mm":
		req.LengthUnit = "mm"
	default:
		return nil, protocol.Invalid("length_unit %q is not m or mm: say m for a GLB in metres (glTF's unit), mm for one written from a millimetre model", in.LengthUnit)
	}
	var err error
	if req.File, err = a.input("file", in.File, "binary glTF", []string{".glb"}); err != nil {
		return nil, err
	}
	name, err := cadquery.OutputName("output_path", in.OutputPath, stem(req.File)+".usda", outputExts...)
	if err != nil {
		return nil, err
	}
	var out convertResult
	if err := a.produce(ctx, "convert_glb_to_usd", "output_path", name, func(file string) any {
		req.OutputFile = file
		return req
	}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

const convertOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["output_file", "format", "up_axis", "meters_per_unit", "default_prim", "node_count", "mesh_count", "point_count",
    "triangle_count", "nodes", "nodes_listed", "skipped", "not_converted"],
  "properties": {
    "output_file": {"type": "string", "description": "Absolute path of the stage written."},
    "format": {"type": "string", "enum": ["usda", "usdc"]},
    "up_axis": {"const": "Y"},
    "meters_per_unit": {"type": "number", "enum": [1, 0.001]},
    "default_prim": {"type": "string"},
    "node_count": {"type": "integer", "minimum": 1},
    "mesh_count": {"type": "integer", "minimum": 1, "description": "UsdGeom.Mesh prims written, one per triangle primitive."},
    "point_count": {"type": "integer", "minimum": 0},
    "triangle_count": {"type": "integer", "minimum": 0},
    "nodes": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["index", "name", "path", "mesh_prims", "point_count"],
      "properties": {
        "index": {"type": "integer", "minimum": 0, "description": "The node's index in the GLB."},
        "name": {"type": ["string", "null"], "description": "The node's name as the GLB gives it; null when it has none."},
        "path": {"type": "string", "description": "The Xform's prim path."},
        "mesh_prims": {"type": "array", "items": {"type": "string"}},
        "point_count": {"type": "integer", "minimum": 0}}}},
    "nodes_listed": {"type": "integer", "minimum": 0},
    "skipped": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["what", "reason"],
      "properties": {"what": {"type": "string"}, "reason": {"type": "string"}}}},
    "not_converted": {"type": "object", "additionalProperties": {"type": "integer"},
      "description": "What the GLB has that the stage does not carry, counted: animations, skins, cameras, textures."}
  }
}`
