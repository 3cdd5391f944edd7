package cadquery

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// SDF exports: the robot model (robot_args.go) written by the kernel's
// sdf.py as an SDFormat 1.9 model, or a world holding it, a mesh per link
// beside the file.
const (
	ToolExportSDF         = "cadquery.export_sdf"
	ToolExportSDFAssembly = "cadquery.export_sdf_assembly"
)

// groundModelName is the ground plane's model in a world the export
// writes: the robot may not take its name.
const groundModelName = "ground_plane"

var exportSDFTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolExportSDF,
		AdapterID: AdapterID,
		Name:      "Export SDF (single link)",
		Description: "Write a one-link SDFormat 1.9 model (Gazebo) of a part (STEP or BREP file) of a material, in the call's own folder: " +
			"link base_link, its frame the part's own, with an <inertial> computed from the exact B-rep (mass = volume x the material's " +
			"density; its <pose> at the centre of mass; the full inertia tensor about it, kg m^2, ixy = -integral(x y dm) as SDF wants it) " +
			"and the part's mesh as visual and collision geometry: a binary STL in metres named <link>.stl beside the file, referred to " +
			"by that relative uri. " + sdfWorldDoc + sdfResultDoc,
		Capability:     "robot_description",
		InputSchema:    exportSDFInputSchema,
		OutputSchema:   json.RawMessage(sdfOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 300,
	},
	call: (*Adapter).exportSDF,
}

var exportSDFAssemblyTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolExportSDFAssembly,
		AdapterID: AdapterID,
		Name:      "Export SDF (assembly)",
		Description: "Write a multi-link SDFormat 1.9 model (Gazebo) from parts (STEP or BREP files) and the joints between them, in the " +
			"call's own folder: a link per part (its <pose> in the model frame), a joint per joint. " + robotModelDoc + " Joint types in " +
			"SDF: fixed -> fixed, slider -> prismatic (limits required), revolute -> revolute with limits or continuous without (no " +
			"rotation limit is made up), ball -> ball (SDF has it, URDF does not); cylindrical joints are refused with the reason, since " +
			"no single SDF joint turns and slides on one axis. SDF defaults a limit's effort and velocity, so they are optional. Each " +
			"joint's frame is its child link's (at the joint's origin, the assembly's axes), so its axis is written as given. Every link's " +
			"<inertial> has its pose at the centre of mass and the full inertia tensor about it; meshes are <link>.stl beside the file. " +
			sdfWorldDoc + sdfResultDoc,
		Capability:     "robot_description",
		InputSchema:    exportSDFAssemblyInputSchema,
		OutputSchema:   json.RawMessage(sdfOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 600,
	},
	call: (*Adapter).exportSDFAssembly,
}

const sdfWorldDoc = "Without world_name the file is a model, <model_name>.sdf; with it, a world, <world_name>.world, holding gravity " +
	"(0 0 -9.80665 m/s^2: the assembly's Z is up), ODE physics at a 1 ms step in real time, a static ground_plane model at z = 0 and the " +
	"model, raised or lowered so its lowest point rests on the ground (model_pose_m says by how much). "

const sdfResultDoc = "Returns output_file (absolute path), model_name, sdf_version, world_name and model_pose_m (with a world), " +
	"links (each link's name, material, volume_mm3, mass_kg, com_m (centre of mass in the link frame, m), inertia_kg_m2 (3x3, about " +
	"the centre of mass) and mesh_file), joints (name, SDF type, parent, child) and files (every file written). Check the file with " +
	"gazebo.validate_world (libsdformat). A refused call writes nothing."

type exportSDFArgs struct {
	File       string `json:"file"`
	Material   string `json:"material"`
	ModelName  string `json:"model_name,omitempty" jsonschema:"The model's name; default robot."`
	WorldName  string `json:"world_name,omitempty" jsonschema:"Name of a world to wrap the model in (a .world file with gravity, physics and a ground plane); none: a model file."`
	OutputPath string `json:"output_path,omitempty"`
}

type exportSDFAssemblyArgs struct {
	Parts      []robotPartArgs `json:"parts"`
	Joints     []jointArgs     `json:"joints,omitempty"`
	Material   string          `json:"material,omitempty" jsonschema:"Material of every part that does not name its own."`
	ModelName  string          `json:"model_name,omitempty" jsonschema:"The model's name; default robot."`
	WorldName  string          `json:"world_name,omitempty" jsonschema:"Name of a world to wrap the model in (a .world file with gravity, physics and a ground plane); none: a model file."`
	OutputPath string          `json:"output_path,omitempty"`
}

// sdfRequest is what the kernel's export_sdf takes: the robot model,
// where to write it, and the world to wrap it in ("" for none).
type sdfRequest struct {
	robotRequest
	OutputFile string `json:"output_file"`
	WorldName  string `json:"world_name,omitempty"`
}

// sdfResult is what both tools answer. Links and joints are reported as
// the URDF exports report theirs.
type sdfResult struct {
	OutputFile string      `json:"output_file"`
	ModelName  string      `json:"model_name"`
	SDFVersion string      `json:"sdf_version"`
	WorldName  string      `json:"world_name,omitempty"`
	ModelPoseM *[3]float64 `json:"model_pose_m,omitempty"`
	Links      []urdfLink  `json:"links"`
	Joints     []urdfJoint `json:"joints"`
	Files      []string    `json:"files"`
}

func (a *Adapter) exportSDF(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in exportSDFArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	return a.writeSDF(ctx, ToolExportSDF, in.ModelName, in.WorldName, singleLink(in.File, in.Material), in.OutputPath)
}

func (a *Adapter) exportSDFAssembly(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in exportSDFAssemblyArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	robot := robotArgs{Parts: in.Parts, Joints: in.Joints, Material: in.Material}
	return a.writeSDF(ctx, ToolExportSDFAssembly, in.ModelName, in.WorldName, robot, in.OutputPath)
}

// writeSDF checks the robot for SDF (jointKind's sdf row) and the world's
// name, and has the kernel write the model or the world.
func (a *Adapter) writeSDF(ctx context.Context, toolID, name, world string, robot robotArgs, output string) (*adapters.Result, error) {
	if name == "" {
		name = defaultRobotName
	}
	if world != "" {
		switch {
		case !robotName.MatchString(world):
			return nil, protocol.Invalid("world_name %q must be 1 to 64 letters, digits and underscores, not starting with a digit", world)
		case name == groundModelName:
			return nil, protocol.Invalid("model_name %q is the name of the world's ground plane model; give the robot another name", name)
		}
	}
	req, err := a.robotRequest(name, robot, formatSDF)
	if err != nil {
		return nil, err
	}
	var file string
	if world != "" {
		file, err = outputName("output_path", output, world+".world", ".world", ".sdf")
	} else {
		file, err = outputName("output_path", output, name+".sdf", ".sdf")
	}
	if err != nil {
		return nil, err
	}
	var out sdfResult
	files, err := a.produce(ctx, toolID, file, func(_, path string) any {
		return sdfRequest{robotRequest: req, OutputFile: path, WorldName: world}
	}, &out)
	if err != nil {
		return nil, err
	}
	out.Files = files
	return result(out, files)
}

var sdfCommonRules = []adapters.SchemaRule{
	adapters.At("model_name", adapters.Pattern(robotNamePattern), adapters.Default(defaultRobotName)),
	adapters.At("world_name", adapters.Pattern(robotNamePattern)),
	adapters.At("output_path", plainFileName, adapters.Describe("Plain file name (no folders) of the SDF file, written in the call's own "+
		"output folder with the meshes beside it; the result gives its absolute path. Default <model_name>.sdf, or <world_name>.world "+
		"with a world. Must end in .sdf (a world: .world or .sdf); a name without an extension gets one.")),
}

var exportSDFInputSchema = adapters.SchemaFor[exportSDFArgs](slices.Concat([]adapters.SchemaRule{inputFile("file"), material}, sdfCommonRules)...)

var exportSDFAssemblyInputSchema = adapters.SchemaFor[exportSDFAssemblyArgs](slices.Concat(robotPartsRules, sdfCommonRules)...)

const sdfOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["output_file", "model_name", "sdf_version", "links", "joints", "files"],
  "properties": {
    "output_file": {"type": "string", "description": "Absolute path of the .sdf model or .world file."},
    "model_name": {"type": "string"},
    "sdf_version": {"type": "string", "description": "The SDFormat version written (1.9)."},
    "world_name": {"type": "string", "description": "The world's name; present only when a world was written."},
    "model_pose_m": {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3,
      "description": "Where the model sits in the world, m: raised or lowered so its lowest point rests on the ground plane. Present only with a world."},
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
      "properties": {"name": {"type": "string"}, "type": {"type": "string", "enum": ["fixed", "prismatic", "revolute", "continuous", "ball"]},
        "parent": {"type": "string"}, "child": {"type": "string"}}}},
    "files": {"type": "array", "items": {"type": "string"}, "description": "Every file written: the SDF file, then the meshes."}
  }
}`
