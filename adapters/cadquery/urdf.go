package cadquery

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/metaforge/metaforge/adapters"
)

// URDF exports: the robot model (robot_args.go) written by the kernel's
// urdf.py, a mesh per link beside the description.
const (
	ToolExportURDF         = "cadquery.export_urdf"
	ToolExportURDFAssembly = "cadquery.export_urdf_assembly"
)

// defaultRobotName names a robot whose call gives no name.
const defaultRobotName = "robot"

var exportURDFTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolExportURDF,
		AdapterID: AdapterID,
		Name:      "Export URDF (single link)",
		Description: "Write a one-link URDF robot description of a part (STEP or BREP file) of a material, in the call's own folder: " +
			"link base_link, its frame the part's own, with an <inertial> computed from the exact B-rep (mass = volume x the material's " +
			"density; the centre of mass; the full inertia tensor about it, kg m^2, products of inertia with URDF's sign, ixy = " +
			"-integral(x y dm)) and the part's mesh as visual and collision geometry: a binary STL in metres (0.1 mm, 0.1 rad " +
			"tessellation) named <link>.stl beside the URDF, referred to by that relative name. xacro=true writes <robot_name>.urdf.xacro " +
			"with the xacro namespace declared on <robot> (no macros: a file to include in a larger xacro description). " + urdfResultDoc,
		Capability:     "robot_description",
		InputSchema:    exportURDFInputSchema,
		OutputSchema:   json.RawMessage(urdfOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 300,
	},
	call: (*Adapter).exportURDF,
}

var exportURDFAssemblyTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolExportURDFAssembly,
		AdapterID: AdapterID,
		Name:      "Export URDF (assembly)",
		Description: "Write a multi-link URDF robot description from parts (STEP or BREP files) and the joints between them, in the " +
			"call's own folder: a link per part, a joint per joint. " + robotModelDoc + " Joint types in URDF: fixed -> fixed, slider -> " +
			"prismatic (limits required), revolute -> revolute with limits or continuous without (no rotation limit is made up); " +
			"ball and cylindrical joints are refused with the reason, since a URDF joint moves along one axis only (SDF and USD have " +
			"ball joints). URDF's <limit> needs effort and velocity, so limits without them are refused. Every link's <inertial> has " +
			"its origin at the centre of mass and the full inertia tensor about it (products of inertia with URDF's sign, ixy = " +
			"-integral(x y dm)); meshes are <link>.stl beside the URDF, referred to by that relative name. xacro=true writes " +
			"<robot_name>.urdf.xacro with the xacro namespace declared on <robot>. " + urdfResultDoc,
		Capability:     "robot_description",
		InputSchema:    exportURDFAssemblyInputSchema,
		OutputSchema:   json.RawMessage(urdfOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 600,
	},
	call: (*Adapter).exportURDFAssembly,
}

const urdfResultDoc = "Returns output_file (absolute path), robot_name, xacro, links (each link's name, material, volume_mm3, mass_kg, " +
	"com_m (centre of mass in the link frame, m), inertia_kg_m2 (3x3, about the centre of mass) and mesh_file), joints (name, URDF type, " +
	"parent, child) and files (every file written). A refused call writes nothing."

type exportURDFArgs struct {
	File       string `json:"file"`
	Material   string `json:"material"`
	RobotName  string `json:"robot_name,omitempty" jsonschema:"The robot's name; default robot."`
	OutputPath string `json:"output_path,omitempty"`
	Xacro      bool   `json:"xacro,omitempty" jsonschema:"Write a .urdf.xacro file with the xacro namespace declared."`
}

type exportURDFAssemblyArgs struct {
	Parts      []robotPartArgs `json:"parts"`
	Joints     []jointArgs     `json:"joints,omitempty"`
	Material   string          `json:"material,omitempty" jsonschema:"Material of every part that does not name its own."`
	RobotName  string          `json:"robot_name,omitempty" jsonschema:"The robot's name; default robot."`
	OutputPath string          `json:"output_path,omitempty"`
	Xacro      bool            `json:"xacro,omitempty" jsonschema:"Write a .urdf.xacro file with the xacro namespace declared."`
}

// urdfRequest is what the kernel's export_urdf takes: the robot model and
// where to write it.
type urdfRequest struct {
	robotRequest
	OutputFile string `json:"output_file"`
	Xacro      bool   `json:"xacro"`
}

type urdfResult struct {
	OutputFile string      `json:"output_file"`
	RobotName  string      `json:"robot_name"`
	Xacro      bool        `json:"xacro"`
	Links      []urdfLink  `json:"links"`
	Joints     []urdfJoint `json:"joints"`
	Files      []string    `json:"files"`
}

type urdfLink struct {
	Name        string        `json:"name"`
	Material    string        `json:"material"`
	VolumeMM3   float64       `json:"volume_mm3"`
	MassKg      float64       `json:"mass_kg"`
	ComM        [3]float64    `json:"com_m"`
	InertiaKgM2 [3][3]float64 `json:"inertia_kg_m2"`
	MeshFile    string        `json:"mesh_file"`
}

type urdfJoint struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Parent string `json:"parent"`
	Child  string `json:"child"`
}

func (a *Adapter) exportURDF(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in exportURDFArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	return a.writeURDF(ctx, ToolExportURDF, in.RobotName, singleLink(in.File, in.Material), in.OutputPath, in.Xacro)
}

func (a *Adapter) exportURDFAssembly(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in exportURDFAssemblyArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	robot := robotArgs{Parts: in.Parts, Joints: in.Joints, Material: in.Material}
	return a.writeURDF(ctx, ToolExportURDFAssembly, in.RobotName, robot, in.OutputPath, in.Xacro)
}

// writeURDF checks the robot for URDF and has the kernel write it.
func (a *Adapter) writeURDF(ctx context.Context, toolID, name string, robot robotArgs, output string, xacro bool) (*adapters.Result, error) {
	if name == "" {
		name = defaultRobotName
	}
	req, err := a.robotRequest(name, robot, formatURDF)
	if err != nil {
		return nil, err
	}
	var file string
	if xacro {
		file, err = outputName("output_path", output, name+".urdf.xacro", ".urdf.xacro", ".xacro")
	} else {
		file, err = outputName("output_path", output, name+".urdf", ".urdf")
	}
	if err != nil {
		return nil, err
	}
	var out urdfResult
	files, err := a.produce(ctx, toolID, file, func(_, path string) any {
		return urdfRequest{robotRequest: req, OutputFile: path, Xacro: xacro}
	}, &out)
	if err != nil {
		return nil, err
	}
	out.Files = files
	return result(out, files)
}

var urdfCommonRules = []adapters.SchemaRule{
	adapters.At("robot_name", adapters.Pattern(robotNamePattern), adapters.Default(defaultRobotName)),
	adapters.At("xacro", adapters.Default(false)),
	adapters.At("output_path", plainFileName, adapters.Describe("Plain file name (no folders) of the URDF, written in the call's own "+
		"output folder with the meshes beside it; the result gives its absolute path. Default <robot_name>.urdf (xacro: "+
		"<robot_name>.urdf.xacro). Must end in .urdf (xacro: .xacro); a name without an extension gets one.")),
}

var exportURDFInputSchema = adapters.SchemaFor[exportURDFArgs](slices.Concat([]adapters.SchemaRule{inputFile("file"), material}, urdfCommonRules)...)

var exportURDFAssemblyInputSchema = adapters.SchemaFor[exportURDFAssemblyArgs](slices.Concat(robotPartsRules, urdfCommonRules)...)

const urdfOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["output_file", "robot_name", "xacro", "links", "joints", "files"],
  "properties": {
    "output_file": {"type": "string", "description": "Absolute path of the URDF (or .urdf.xacro) file."},
    "robot_name": {"type": "string"},
    "xacro": {"type": "boolean"},
    "links": {"type": "array", "minItems": 1, "items": {"type": "object", "additionalProperties": false,
      "required": ["name", "material", "volume_mm3", "mass_kg", "com_m", "inertia_kg_m2", "mesh_file"],
      "properties": {
        "name": {"type": "string"},
        "material": {"type": "string", "description": "The material's name in the table."},
        "volume_mm3": {"type": "number", "exclusiveMinimum": 0},
        "mass_kg": {"type": "number", "exclusiveMinimum": 0, "description": "volume x the material's density."},
        "com_m": ` + vec3Schema + `,
        "inertia_kg_m2": ` + matrix3Schema + `,
        "mesh_file": {"type": "string", "description": "Absolute path of the link's binary STL (metres, link frame)."}}}},
    "joints": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["name", "type", "parent", "child"],
      "properties": {"name": {"type": "string"}, "type": {"type": "string", "enum": ["fixed", "prismatic", "revolute", "continuous"]},
        "parent": {"type": "string"}, "child": {"type": "string"}}}},
    "files": {"type": "array", "items": {"type": "string"}, "description": "Every file written: the URDF, then the meshes."}
  }
}`
