package omniverseusd

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ToolDescribeStage reports what a USD stage holds.
const ToolDescribeStage = "omniverse_usd.describe_stage"

// Bounds of max_prims: how many prims (and meshes) are listed one by one.
const (
	defaultMaxPrims = 500
	maxMaxPrims     = 20_000
)

type describeArgs struct {
	File     string `json:"file"`
	MaxPrims *int   `json:"max_prims,omitempty" jsonschema:"How many prims, and how many meshes, to list one by one; the counts cover the whole stage."`
}

type describeRequest struct {
	File     string `json:"file"`
	MaxPrims int    `json:"max_prims"`
}

type stagePrim struct {
	Path           string      `json:"path"`
	Type           string      `json:"type"`
	APISchemas     []string    `json:"api_schemas"`
	DisplayName    string      `json:"display_name,omitempty"`
	WorldTransform [][]float64 `json:"world_transform,omitempty"`
}

type stageMesh struct {
	Path                 string  `json:"path"`
	PointCount           int     `json:"point_count"`
	FaceCount            int     `json:"face_count"`
	FaceVertexIndexCount int     `json:"face_vertex_index_count"`
	SubdivisionScheme    string  `json:"subdivision_scheme"`
	Collision            bool    `json:"collision"`
	Approximation        *string `json:"approximation"`
}

type rigidBody struct {
	Path              string    `json:"path"`
	Mass              *float64  `json:"mass"`
	Density           *float64  `json:"density"`
	CenterOfMass      []float64 `json:"center_of_mass"`
	DiagonalInertia   []float64 `json:"diagonal_inertia"`
	PrincipalAxesWXYZ []float64 `json:"principal_axes_wxyz"`
	CollisionPrims    []string  `json:"collision_prims"`
	WorldPosition     []float64 `json:"world_position"`
}

type stageJoint struct {
	Path                    string    `json:"path"`
	Type                    string    `json:"type"`
	Body0                   *string   `json:"body0"`
	Body1                   *string   `json:"body1"`
	LocalPos0               []float64 `json:"local_pos0"`
	LocalRot0WXYZ           []float64 `json:"local_rot0_wxyz"`
	LocalPos1               []float64 `json:"local_pos1"`
	LocalRot1WXYZ           []float64 `json:"local_rot1_wxyz"`
	Enabled                 bool      `json:"enabled"`
	ExcludeFromArticulation bool      `json:"exclude_from_articulation"`
	Axis                    string    `json:"axis,omitempty"`
	AxisInBody0             []float64 `json:"axis_in_body0,omitempty"`
	LowerLimit              *float64  `json:"lower_limit,omitempty"`
	UpperLimit              *float64  `json:"upper_limit,omitempty"`
	ConeAngle0Limit         *float64  `json:"cone_angle0_limit,omitempty"`
	ConeAngle1Limit         *float64  `json:"cone_angle1_limit,omitempty"`
}

type describeResult struct {
	stageSummary
	File              string       `json:"file"`
	Prims             []stagePrim  `json:"prims"`
	PrimsListed       int          `json:"prims_listed"`
	Meshes            []stageMesh  `json:"meshes"`
	RigidBodies       []rigidBody  `json:"rigid_bodies"`
	Joints            []stageJoint `json:"joints"`
	ArticulationRoots []string     `json:"articulation_roots"`
}

var describeTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolDescribeStage,
	AdapterID: AdapterID,
	Name:      "Describe a USD stage",
	Description: "Read a USD stage (.usd, .usda, .usdc, .usdz) with usd-core and report its structure: up_axis and meters_per_unit " +
		"(with whether each is authored), kilograms_per_unit, default_prim, prim_count, mesh_count, rigid_body_count, " +
		"joint_count; prims (up to max_prims, default 500: path, type, applied API schemas, display_name, and for transformable " +
		"prims world_transform, USD's row-vector 4x4 whose last row is the translation); meshes (point, face and index counts, " +
		"subdivision scheme, collision and its approximation); rigid_bodies (UsdPhysics.MassAPI as authored, null where not: " +
		"mass, density, center_of_mass in the body's frame, diagonal_inertia and principal_axes_wxyz, the quaternion whose " +
		"rotation turns the body's axes onto the inertia's principal axes; its collision prims and world position); joints " +
		"(type such as PhysicsRevoluteJoint, body0, body1, local_pos0/1, local_rot0/1_wxyz, axis token, axis_in_body0: that axis " +
		"turned by local_rot0, lower_limit/upper_limit, degrees for revolute and distance units for prismatic, cone limits for " +
		"spherical); articulation_roots. Values are in the stage's units. Writes nothing.",
	Capability:     "usd_inspection",
	OutputSchema:   json.RawMessage(describeOutputSchema),
	Idempotent:     true,
	TimeoutSeconds: 120,
}, method((*Adapter).describe),
	inputRule("file", "a USD file (.usd, .usda, .usdc, .usdz)"),
	adapters.At("max_prims", adapters.Minimum(0), adapters.Maximum(maxMaxPrims), adapters.Default(defaultMaxPrims)),
)

func (a *Adapter) describe(ctx context.Context, in describeArgs) (any, error) {
	req := describeRequest{MaxPrims: defaultMaxPrims}
	if in.MaxPrims != nil {
		if *in.MaxPrims < 0 || *in.MaxPrims > maxMaxPrims {
			return nil, protocol.Invalid("max_prims must be 0 to %d, got %d", maxMaxPrims, *in.MaxPrims)
		}
		req.MaxPrims = *in.MaxPrims
	}
	var err error
	if req.File, err = a.input("file", in.File, "USD", usdExts); err != nil {
		return nil, err
	}
	var out describeResult
	if err := a.run(ctx, "describe_stage", req, "", &out); err != nil {
		return nil, err
	}
	return out, nil
}

const vec3 = `{"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3}`
const nullableVec3 = `{"type": ["array", "null"], "items": {"type": "number"}, "minItems": 3, "maxItems": 3}`
const quat = `{"type": ["array", "null"], "items": {"type": "number"}, "minItems": 4, "maxItems": 4, "description": "Quaternion (w, x, y, z)."}`

const describeOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": [` + summaryRequired + `, "file", "prims", "prims_listed", "meshes", "rigid_bodies", "joints", "articulation_roots"],
  "properties": {` + summaryProperties + `,
    "file": {"type": "string", "description": "Absolute path of the stage read."},
    "prims": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["path", "type", "api_schemas"],
      "properties": {
        "path": {"type": "string"}, "type": {"type": "string", "description": "The prim's schema type (Xform, Mesh, PhysicsRevoluteJoint, ...); empty for a typeless prim."},
        "api_schemas": {"type": "array", "items": {"type": "string"}},
        "display_name": {"type": "string"},
        "world_transform": {"type": "array", "items": {"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4}, "minItems": 4, "maxItems": 4,
          "description": "Local-to-world matrix in USD's row-vector convention (a point p maps to p M; the last row is the translation)."}}}},
    "prims_listed": {"type": "integer", "minimum": 0, "description": "How many prims are listed: prim_count unless max_prims cut the list short."},
    "meshes": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["path", "point_count", "face_count", "face_vertex_index_count", "subdivision_scheme", "collision", "approximation"],
      "properties": {
        "path": {"type": "string"}, "point_count": {"type": "integer", "minimum": 0}, "face_count": {"type": "integer", "minimum": 0},
        "face_vertex_index_count": {"type": "integer", "minimum": 0}, "subdivision_scheme": {"type": "string"},
        "collision": {"type": "boolean", "description": "Has PhysicsCollisionAPI."},
        "approximation": {"type": ["string", "null"], "description": "physics:approximation as authored (PhysicsMeshCollisionAPI), e.g. convexHull."}}}},
    "rigid_bodies": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["path", "mass", "density", "center_of_mass", "diagonal_inertia", "principal_axes_wxyz", "collision_prims", "world_position"],
      "properties": {
        "path": {"type": "string"},
        "mass": {"type": ["number", "null"], "description": "physics:mass as authored, stage mass units; null: not authored (the simulator computes it)."},
        "density": {"type": ["number", "null"]},
        "center_of_mass": ` + nullableVec3 + `,
        "diagonal_inertia": ` + nullableVec3 + `,
        "principal_axes_wxyz": ` + quat + `,
        "collision_prims": {"type": "array", "items": {"type": "string"}},
        "world_position": ` + vec3 + `}}},
    "joints": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["path", "type", "body0", "body1", "local_pos0", "local_rot0_wxyz", "local_pos1", "local_rot1_wxyz", "enabled", "exclude_from_articulation"],
      "properties": {
        "path": {"type": "string"}, "type": {"type": "string"},
        "body0": {"type": ["string", "null"]}, "body1": {"type": ["string", "null"], "description": "Target path; null: the world."},
        "local_pos0": ` + nullableVec3 + `, "local_rot0_wxyz": ` + quat + `,
        "local_pos1": ` + nullableVec3 + `, "local_rot1_wxyz": ` + quat + `,
        "enabled": {"type": "boolean"}, "exclude_from_articulation": {"type": "boolean"},
        "axis": {"type": "string", "enum": ["X", "Y", "Z"]},
        "axis_in_body0": ` + vec3 + `,
        "lower_limit": {"type": "number"}, "upper_limit": {"type": "number"},
        "cone_angle0_limit": {"type": "number"}, "cone_angle1_limit": {"type": "number"}}}},
    "articulation_roots": {"type": "array", "items": {"type": "string"}}
  }
}`
