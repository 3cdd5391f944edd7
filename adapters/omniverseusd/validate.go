package omniverseusd

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ToolValidateUSDMinimum is the cheap structural gate on a stage.
const ToolValidateUSDMinimum = "omniverse_usd.validate_usd_minimum"

// Bounds of min_meshes.
const (
	defaultMinMeshes = 1
	maxMinMeshes     = 1_000_000
)

type validateArgs struct {
	File          string `json:"file"`
	MinMeshes     *int   `json:"min_meshes,omitempty" jsonschema:"Fewest UsdGeom.Mesh prims the stage must have."`
	RequireMeters *bool  `json:"require_meters,omitempty" jsonschema:"Whether the stage must author metersPerUnit (USD otherwise assumes centimetres)."`
	RequireUpAxis *bool  `json:"require_up_axis,omitempty" jsonschema:"Whether the stage must author upAxis (USD otherwise assumes Y)."`
}

type validateRequest struct {
	File          string `json:"file"`
	MinMeshes     int    `json:"min_meshes"`
	RequireMeters bool   `json:"require_meters"`
	RequireUpAxis bool   `json:"require_up_axis"`
}

type check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

type validateResult struct {
	File    string        `json:"file"`
	Passed  bool          `json:"passed"`
	Checks  []check       `json:"checks"`
	Summary *stageSummary `json:"summary"`
}

var validateTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolValidateUSDMinimum,
	AdapterID: AdapterID,
	Name:      "Validate a USD stage (minimum)",
	Description: "A cheap structural gate on a USD stage (.usd, .usda, .usdc, .usdz) before it is sent to a simulator, done with " +
		"usd-core: the stage opens without composition errors; its root layer names a default prim that exists; it has at least " +
		"min_meshes (default 1) UsdGeom.Mesh prims; it authors metersPerUnit (require_meters, default true) and upAxis " +
		"(require_up_axis, default true) rather than leaving USD's fallbacks (centimetres, Y up); and, when it has UsdPhysics " +
		"joints, each joint's body0/body1 names a rigid body or collider on the stage; and usd-core's own validators " +
		"(UsdValidation: AttributeTypeMismatch and the UsdPhysics rigid body, collider, joint and articulation checkers) report " +
		"no error (check usd_validation, their messages in its detail). Returns passed (every check passed), " +
		"checks ([{name, passed, detail}]) and summary (up axis, metersPerUnit, default prim, prim/mesh/rigid body/joint counts; " +
		"null when the file does not open). A failed check is an answer, not an error. Writes nothing.",
	Capability:     "usd_validation",
	OutputSchema:   json.RawMessage(validateOutputSchema),
	Idempotent:     true,
	TimeoutSeconds: 120,
}, method((*Adapter).validate),
	inputRule("file", "a USD file (.usd, .usda, .usdc, .usdz)"),
	adapters.At("min_meshes", adapters.Minimum(0), adapters.Maximum(maxMinMeshes), adapters.Default(defaultMinMeshes)),
	adapters.At("require_meters", adapters.Default(true)),
	adapters.At("require_up_axis", adapters.Default(true)),
)

func (a *Adapter) validate(ctx context.Context, in validateArgs) (any, error) {
	req := validateRequest{MinMeshes: defaultMinMeshes, RequireMeters: true, RequireUpAxis: true}
	if in.MinMeshes != nil {
		if *in.MinMeshes < 0 || *in.MinMeshes > maxMinMeshes {
			return nil, protocol.Invalid("min_meshes must be 0 to %d, got %d", maxMinMeshes, *in.MinMeshes)
		}
		req.MinMeshes = *in.MinMeshes
	}
	if in.RequireMeters != nil {
		req.RequireMeters = *in.RequireMeters
	}
	if in.RequireUpAxis != nil {
		req.RequireUpAxis = *in.RequireUpAxis
	}
	var err error
	if req.File, err = a.input("file", in.File, "USD", usdExts); err != nil {
		return nil, err
	}
	var out validateResult
	if err := a.run(ctx, "validate_usd_minimum", req, "", &out); err != nil {
		return nil, err
	}
	return out, nil
}

const validateOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["file", "passed", "checks", "summary"],
  "properties": {
    "file": {"type": "string", "description": "Absolute path of the stage checked."},
    "passed": {"type": "boolean", "description": "true when every check passed."},
    "checks": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["name", "passed", "detail"],
      "properties": {
        "name": {"type": "string", "enum": ["opens", "composition", "default_prim", "mesh_count", "meters_per_unit", "up_axis", "joint_bodies", "usd_validation"]},
        "passed": {"type": "boolean"},
        "detail": {"type": "string", "description": "What was found, and for a failed check what is wrong."}}}},
    "summary": {"type": ["object", "null"], "additionalProperties": false, "required": [` + summaryRequired + `],
      "description": "The stage's units and counts; null when it does not open.",
      "properties": {` + summaryProperties + `}}
  }
}`
