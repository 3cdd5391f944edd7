package omniverseusd

// stageUnits is what a stage says of its axes, scale and default prim,
// with whether each is authored (an unauthored one is USD's fallback).
type stageUnits struct {
	UpAxis                string  `json:"up_axis"`
	UpAxisAuthored        bool    `json:"up_axis_authored"`
	MetersPerUnit         float64 `json:"meters_per_unit"`
	MetersPerUnitAuthored bool    `json:"meters_per_unit_authored"`
	KilogramsPerUnit      float64 `json:"kilograms_per_unit"`
	DefaultPrim           *string `json:"default_prim"`
	DefaultPrimNamed      *string `json:"default_prim_named"`
}

// stageSummary is stageUnits with the stage's counts.
type stageSummary struct {
	stageUnits
	PrimCount      int `json:"prim_count"`
	MeshCount      int `json:"mesh_count"`
	RigidBodyCount int `json:"rigid_body_count"`
	JointCount     int `json:"joint_count"`
}

// summaryProperties and summaryRequired are stageSummary's output schema,
// shared by the tools that return it.
const summaryProperties = `
    "up_axis": {"type": "string", "enum": ["Y", "Z"], "description": "The stage's up axis (USD's fallback Y when not authored)."},
    "up_axis_authored": {"type": "boolean"},
    "meters_per_unit": {"type": "number", "exclusiveMinimum": 0, "description": "Metres per stage distance unit (USD's fallback 0.01 when not authored)."},
    "meters_per_unit_authored": {"type": "boolean"},
    "kilograms_per_unit": {"type": "number", "exclusiveMinimum": 0, "description": "Kilograms per stage mass unit (UsdPhysics; fallback 1)."},
    "default_prim": {"type": ["string", "null"], "description": "Path of the default prim, null when none is set or the one named does not exist."},
    "default_prim_named": {"type": ["string", "null"], "description": "The name the root layer's defaultPrim metadata gives, as written."},
    "prim_count": {"type": "integer", "minimum": 0},
    "mesh_count": {"type": "integer", "minimum": 0, "description": "UsdGeom.Mesh prims."},
    "rigid_body_count": {"type": "integer", "minimum": 0, "description": "Prims with PhysicsRigidBodyAPI."},
    "joint_count": {"type": "integer", "minimum": 0, "description": "UsdPhysics joint prims."}`

const summaryRequired = `"up_axis", "up_axis_authored", "meters_per_unit", "meters_per_unit_authored", "kilograms_per_unit",
    "default_prim", "default_prim_named", "prim_count", "mesh_count", "rigid_body_count", "joint_count"`
