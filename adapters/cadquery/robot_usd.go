package cadquery

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// USD exports: the robot model (robot_args.go) written as a .usda text
// stage by the kernel's usd_export.py, our own writer (usd-core is not
// needed to write; omniverse_usd reads the result back with it).
const (
	ToolExportUSD         = "cadquery.export_usd"
	ToolExportUSDAssembly = "cadquery.export_usd_assembly"
)

// collisionApproximations are PhysicsMeshCollisionAPI's
// physics:approximation tokens; convexHull is the default here, as a
// simulator handles it for any moving body.
var collisionApproximations = []string{"convexHull", "convexDecomposition", "meshSimplification", "boundingCube", "boundingSphere", "none"}

const defaultCollisionApproximation = "convexHull"

var exportUSDTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolExportUSD,
		AdapterID: AdapterID,
		Name:      "Export USD (single body)",
		Description: "Write a one-body OpenUSD stage (.usda text) of a part (STEP or BREP file) of a material, in the call's own folder, " +
			"for Omniverse / Isaac Sim: metersPerUnit 1, upAxis Z, kilogramsPerUnit 1, default prim <name> (an Xform), holding the " +
			"rigid body base_link (the part's own frame) with PhysicsRigidBodyAPI and PhysicsMassAPI computed from the exact B-rep: " +
			"physics:mass (volume x density), physics:centerOfMass, physics:diagonalInertia (the principal moments) and " +
			"physics:principalAxes (the rotation onto the principal axes, so a part whose axes are not its principal axes keeps its " +
			"full inertia tensor). Its UsdGeom.Mesh child (points in metres, triangles, no subdivision; 0.1 mm, 0.1 rad tessellation) " +
			"has PhysicsCollisionAPI and PhysicsMeshCollisionAPI with collision_approximation (default convexHull). " + usdResultDoc,
		Capability:     "robot_description",
		InputSchema:    exportUSDInputSchema,
		OutputSchema:   json.RawMessage(usdOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 300,
	},
	call: (*Adapter).exportUSD,
}

var exportUSDAssemblyTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolExportUSDAssembly,
		AdapterID: AdapterID,
		Name:      "Export USD (assembly)",
		Description: "Write a multi-body OpenUSD stage (.usda text) with UsdPhysics joints from parts (STEP or BREP files) and the " +
			"joints between them, in the call's own folder: metersPerUnit 1, upAxis Z, default prim <name> (an Xform with " +
			"PhysicsArticulationRootAPI when there are joints) holding one rigid body Xform per part, at its link frame's origin, " +
			"with PhysicsMassAPI from the exact B-rep (mass, centerOfMass, diagonalInertia, principalAxes) and a collision " +
			"UsdGeom.Mesh, as cadquery.export_usd writes one; and one joint prim per joint beside them. " + robotModelDoc +
			" Joint types in UsdPhysics: fixed -> PhysicsFixedJoint, slider -> PhysicsPrismaticJoint (limits required, metres), " +
			"revolute -> PhysicsRevoluteJoint (limits in degrees when given; none made up), ball -> PhysicsSphericalJoint; " +
			"cylindrical is refused with the reason. physics:axis is the token X: the joint frame (physics:localPos0/localRot0 in " +
			"the base's frame, localPos1/localRot1 in the follower's) is turned so its X axis is the joint's axis, which may point " +
			"anywhere. UsdPhysics has no joint effort or velocity limit: given ones are kept in the joint's customData " +
			"(metaforge) and listed in not_exported. " + usdResultDoc,
		Capability:     "robot_description",
		InputSchema:    exportUSDAssemblyInputSchema,
		OutputSchema:   json.RawMessage(usdOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 600,
	},
	call: (*Adapter).exportUSDAssembly,
}

const usdResultDoc = "Returns output_file (absolute path), name, default_prim, up_axis, meters_per_unit, links (each link's name, " +
	"prim_path, material, volume_mm3, mass_kg, com_m, inertia_kg_m2 (3x3 about the centre of mass, link axes), " +
	"principal_moments_kg_m2, principal_axes_wxyz, point_count and triangle_count), joints (name, type as the UsdPhysics schema, " +
	"parent, child, prim_path, local_rot_wxyz), not_exported (what the stage does not carry, said) and files. Check the " +
	"stage with omniverse_usd.validate_usd_minimum and omniverse_usd.describe_stage. A refused call writes nothing."

type exportUSDArgs struct {
	File                   string `json:"file"`
	Material               string `json:"material"`
	Name                   string `json:"name,omitempty" jsonschema:"Name of the stage's default prim, the Xform holding the body; default robot."`
	OutputPath             string `json:"output_path,omitempty"`
	CollisionApproximation string `json:"collision_approximation,omitempty" jsonschema:"PhysicsMeshCollisionAPI's physics:approximation of each link's mesh."`
}

type exportUSDAssemblyArgs struct {
	Parts                  []robotPartArgs `json:"parts"`
	Joints                 []jointArgs     `json:"joints,omitempty"`
	Material               string          `json:"material,omitempty" jsonschema:"Material of every part that does not name its own."`
	Name                   string          `json:"name,omitempty" jsonschema:"Name of the stage's default prim, the Xform holding the bodies and joints; default robot."`
	OutputPath             string          `json:"output_path,omitempty"`
	CollisionApproximation string          `json:"collision_approximation,omitempty" jsonschema:"PhysicsMeshCollisionAPI's physics:approximation of each link's mesh."`
}

// usdRequest is what the kernel's export_usd takes: the robot model and
// where and how to write it.
type usdRequest struct {
	robotRequest
	OutputFile             string `json:"output_file"`
	CollisionApproximation string `json:"collision_approximation"`
}

type usdResult struct {
	OutputFile    string     `json:"output_file"`
	Name          string     `json:"name"`
	DefaultPrim   string     `json:"default_prim"`
	UpAxis        string     `json:"up_axis"`
	MetersPerUnit float64    `json:"meters_per_unit"`
	Links         []usdLink  `json:"links"`
	Joints        []usdJoint `json:"joints"`
	NotExported   []string   `json:"not_exported"`
	Files         []string   `json:"files"`
}

type usdLink struct {
	Name                 string        `json:"name"`
	PrimPath             string        `json:"prim_path"`
	Material             string        `json:"material"`
	VolumeMM3            float64       `json:"volume_mm3"`
	MassKg               float64       `json:"mass_kg"`
	ComM                 [3]float64    `json:"com_m"`
	InertiaKgM2          [3][3]float64 `json:"inertia_kg_m2"`
	PrincipalMomentsKgM2 [3]float64    `json:"principal_moments_kg_m2"`
	PrincipalAxesWXYZ    [4]float64    `json:"principal_axes_wxyz"`
	PointCount           int           `json:"point_count"`
	TriangleCount        int           `json:"triangle_count"`
}

type usdJoint struct {
	Name         string     `json:"name"`
	Type         string     `json:"type"`
	Parent       string     `json:"parent"`
	Child        string     `json:"child"`
	PrimPath     string     `json:"prim_path"`
	LocalRotWXYZ [4]float64 `json:"local_rot_wxyz"`
}

func (a *Adapter) exportUSD(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in exportUSDArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	return a.writeUSD(ctx, ToolExportUSD, in.Name, singleLink(in.File, in.Material), in.OutputPath, in.CollisionApproximation)
}

func (a *Adapter) exportUSDAssembly(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in exportUSDAssemblyArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	robot := robotArgs{Parts: in.Parts, Joints: in.Joints, Material: in.Material}
	return a.writeUSD(ctx, ToolExportUSDAssembly, in.Name, robot, in.OutputPath, in.CollisionApproximation)
}

// writeUSD checks the robot for UsdPhysics and has the kernel write it.
func (a *Adapter) writeUSD(ctx context.Context, toolID, name string, robot robotArgs, output, approximation string) (*adapters.Result, error) {
	if name == "" {
		name = defaultRobotName
	}
	switch {
	case approximation == "":
		approximation = defaultCollisionApproximation
	case !slices.Contains(collisionApproximations, approximation):
		return nil, protocol.Invalid("collision_approximation %q is not a PhysicsMeshCollisionAPI approximation: use one of %s",
			approximation, quoteList(collisionApproximations))
	}
	req, err := a.robotRequest(name, robot, formatUSD)
	if err != nil {
		return nil, err
	}
	file, err := outputName("output_path", output, name+".usda", ".usda")
	if err != nil {
		return nil, err
	}
	var out usdResult
	files, err := a.produce(ctx, toolID, file, func(_, path string) any {
		return usdRequest{robotRequest: req, OutputFile: path, CollisionApproximation: approximation}
	}, &out)
	if err != nil {
		return nil, err
	}
	out.Files = files
	return result(out, files)
}

var usdCommonRules = []adapters.SchemaRule{
	adapters.At("name", adapters.Pattern(robotNamePattern), adapters.Default(defaultRobotName)),
	adapters.At("collision_approximation", adapters.Enum(collisionApproximations...), adapters.Default(defaultCollisionApproximation)),
	adapters.At("output_path", plainFileName, adapters.Describe("Plain file name (no folders) of the stage, written in the call's own "+
		"output folder; the result gives its absolute path. Default <name>.usda. Must end in .usda (the stage is text); a name "+
		"without an extension gets it.")),
}

var exportUSDInputSchema = adapters.SchemaFor[exportUSDArgs](slices.Concat([]adapters.SchemaRule{inputFile("file"), material}, usdCommonRules)...)

var exportUSDAssemblyInputSchema = adapters.SchemaFor[exportUSDAssemblyArgs](slices.Concat(robotPartsRules, usdCommonRules)...)

const quat4Schema = `{"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4, "description": "Unit quaternion (w, x, y, z)."}`

const usdOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["output_file", "name", "default_prim", "up_axis", "meters_per_unit", "links", "joints", "not_exported", "files"],
  "properties": {
    "output_file": {"type": "string", "description": "Absolute path of the .usda stage."},
    "name": {"type": "string"},
    "default_prim": {"type": "string", "description": "Path of the default prim, /<name>."},
    "up_axis": {"const": "Z"},
    "meters_per_unit": {"const": 1},
    "links": {"type": "array", "minItems": 1, "items": {"type": "object", "additionalProperties": false,
      "required": ["name", "prim_path", "material", "volume_mm3", "mass_kg", "com_m", "inertia_kg_m2", "principal_moments_kg_m2",
        "principal_axes_wxyz", "point_count", "triangle_count"],
      "properties": {
        "name": {"type": "string"},
        "prim_path": {"type": "string", "description": "The rigid body's Xform."},
        "material": {"type": "string", "description": "The material's name in the table."},
        "volume_mm3": {"type": "number", "exclusiveMinimum": 0},
        "mass_kg": {"type": "number", "exclusiveMinimum": 0, "description": "volume x the material's density; physics:mass."},
        "com_m": ` + vec3Schema + `,
        "inertia_kg_m2": ` + matrix3Schema + `,
        "principal_moments_kg_m2": ` + vec3Schema + `,
        "principal_axes_wxyz": ` + quat4Schema + `,
        "point_count": {"type": "integer", "minimum": 3},
        "triangle_count": {"type": "integer", "minimum": 1}}}},
    "joints": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["name", "type", "parent", "child", "prim_path", "local_rot_wxyz"],
      "properties": {"name": {"type": "string"},
        "type": {"type": "string", "enum": ["PhysicsFixedJoint", "PhysicsPrismaticJoint", "PhysicsRevoluteJoint", "PhysicsSphericalJoint"]},
        "parent": {"type": "string"}, "child": {"type": "string"}, "prim_path": {"type": "string"},
        "local_rot_wxyz": ` + quat4Schema + `}}},
    "not_exported": {"type": "array", "items": {"type": "string"}},
    "files": {"type": "array", "items": {"type": "string"}, "description": "Every file written: the stage (meshes are inside it)."}
  }
}`
