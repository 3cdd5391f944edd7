package physics

import (
	"context"
	"encoding/json"
	"math"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// The settling check's defaults.
const (
	defaultSettleS          = 2.0
	defaultVelocityTolMMS   = 5.0
	defaultAngularTolDegS   = 5.0
	defaultPenetrationTolMM = 1.0
	defaultMaxTiltDeg       = 10.0
)

// stabilityArgs are the settling check's arguments.
type stabilityArgs struct {
	URDFFile                     string             `json:"urdf_file"`
	SettleTimeS                  *float64           `json:"settle_time_s,omitempty"`
	TimeStepS                    *float64           `json:"time_step_s,omitempty"`
	Gravity                      []float64          `json:"gravity,omitempty"`
	FixedBase                    *bool              `json:"fixed_base,omitempty"`
	JointsHeld                   *bool              `json:"joints_held,omitempty"`
	SelfCollision                bool               `json:"self_collision,omitempty"`
	Ground                       *bool              `json:"ground,omitempty"`
	GroundZMM                    *float64           `json:"ground_z_mm,omitempty"`
	InitialPositions             map[string]float64 `json:"initial_positions,omitempty"`
	DefaultMaxForce              *float64           `json:"default_max_force,omitempty"`
	VelocityToleranceMMS         *float64           `json:"velocity_tolerance_mm_s,omitempty"`
	AngularVelocityToleranceDegS *float64           `json:"angular_velocity_tolerance_deg_s,omitempty"`
	PenetrationToleranceMM       *float64           `json:"penetration_tolerance_mm,omitempty"`
	MaxTiltDeg                   *float64           `json:"max_tilt_deg,omitempty"`
}

type stabilityRequest struct {
	worldRequest
	Steps                  int     `json:"steps"`
	JointsHeld             bool    `json:"joints_held"`
	VelocityToleranceMMS   float64 `json:"velocity_tolerance_mm_s"`
	AngularToleranceDegS   float64 `json:"angular_velocity_tolerance_deg_s"`
	PenetrationToleranceMM float64 `json:"penetration_tolerance_mm"`
	MaxTiltDeg             float64 `json:"max_tilt_deg"`
}

// StabilityManifest is the manifest of the settling check, for the
// adapter that declares it (cadquery, as cadquery.validate_physics_stability):
// toolID and adapterID are that adapter's. Its calls go to ValidateStability.
func StabilityManifest(toolID, adapterID string) adapters.Manifest {
	return adapters.Manifest{
		ToolID:    toolID,
		AdapterID: adapterID,
		Name:      "Check a robot settles",
		Description: "Load a URDF in PyBullet (headless, fixed time step, deterministic) on a ground plane, let it settle under gravity " +
			"for settle_time_s, and say how it ended. By default the base is fixed (fixed_base) and every movable joint is held at " +
			"its starting position by PyBullet's position controller with the URDF's effort (joints_held), as a powered robot " +
			"standing still: with joints_held false the joints are free and an arm swings. at_rest: every link's speed at the end is " +
			"within velocity_tolerance_mm_s and angular_velocity_tolerance_deg_s; stable: at rest and the base tipped no more than " +
			"max_tilt_deg (the angle between its z axis at the start and at the end). Also: the start and final base pose (xyz_m, " +
			"rpy_deg), tilt_deg, the penetrations at the end (pairs of links, mm, from contact points whose distance is below 0; the " +
			"ground is link \"ground\") against penetration_tolerance_mm, the deepest penetration while settling, each movable joint's " +
			"drift between start and end (deg or mm), the contacts at the end, and reasons, a sentence for each check that failed. " +
			"PyBullet's default link damping is set to 0 and its default joint motors off; the URDF's inertials are used as written. " +
			"At most 60 simulated seconds and 200000 steps. Writes nothing.",
		Capability:     "robot_simulation",
		InputSchema:    stabilityInputSchema,
		OutputSchema:   json.RawMessage(stabilityOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: timeoutSeconds,
		ResourceLimits: adapters.ResourceLimits{MaxMemoryMB: maxMemoryMB, MaxCPUSeconds: timeoutSeconds, MaxDiskMB: 16},
	}
}

var stabilityInputSchema = adapters.SchemaFor[stabilityArgs](append(worldRules(true),
	adapters.At("", adapters.Require("urdf_file")),
	adapters.At("settle_time_s", adapters.ExclusiveMinimum(0), adapters.Maximum(maxDurationS), adapters.Default(defaultSettleS),
		adapters.Describe("Simulated seconds to let the robot settle.")),
	adapters.At("joints_held", adapters.Default(true), adapters.Describe(
		"true: each movable joint is held at its starting position by position control (the URDF's effort, else default_max_force); "+
			"false: the joints are free.")),
	adapters.At("velocity_tolerance_mm_s", adapters.ExclusiveMinimum(0), adapters.Default(defaultVelocityTolMMS),
		adapters.Describe("A link slower than this at the end, mm/s, counts as at rest.")),
	adapters.At("angular_velocity_tolerance_deg_s", adapters.ExclusiveMinimum(0), adapters.Default(defaultAngularTolDegS),
		adapters.Describe("A link turning slower than this at the end, deg/s, counts as at rest.")),
	adapters.At("penetration_tolerance_mm", adapters.Minimum(0), adapters.Default(defaultPenetrationTolMM),
		adapters.Describe("Deepest penetration at the end, mm, that penetration_within_tolerance accepts.")),
	adapters.At("max_tilt_deg", adapters.Minimum(0), adapters.Maximum(180), adapters.Default(defaultMaxTiltDeg),
		adapters.Describe("Most the base may tip from its start, degrees, and still be stable.")),
)...)

// ValidateStability runs the settling check on a call's arguments
// (checked against the manifest's schema by the registry, and here).
func (a *Adapter) ValidateStability(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	var in stabilityArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	out, err := a.validateStability(ctx, in)
	if err != nil {
		return nil, err
	}
	return encode(out)
}

func (a *Adapter) validateStability(ctx context.Context, in stabilityArgs) (map[string]any, error) {
	world, r, err := a.world(worldArgs{URDFFile: in.URDFFile, TimeStepS: in.TimeStepS, Gravity: in.Gravity,
		FixedBase: in.FixedBase, FixedBaseDefault: true, SelfCollision: in.SelfCollision, Ground: in.Ground,
		GroundZMM: in.GroundZMM, InitialPositions: in.InitialPositions, DefaultMaxForce: in.DefaultMaxForce})
	if err != nil {
		return nil, err
	}
	settle := orDefault(in.SettleTimeS, defaultSettleS)
	n, err := steps("settle_time_s", settle, world.TimeStepS)
	if err != nil {
		return nil, err
	}
	req := stabilityRequest{worldRequest: world, Steps: n, JointsHeld: in.JointsHeld == nil || *in.JointsHeld,
		VelocityToleranceMMS:   orDefault(in.VelocityToleranceMMS, defaultVelocityTolMMS),
		AngularToleranceDegS:   orDefault(in.AngularVelocityToleranceDegS, defaultAngularTolDegS),
		PenetrationToleranceMM: orDefault(in.PenetrationToleranceMM, defaultPenetrationTolMM),
		MaxTiltDeg:             orDefault(in.MaxTiltDeg, defaultMaxTiltDeg)}
	for _, c := range []struct {
		name     string
		v        float64
		zeroOK   bool
		max      float64
		unitText string
	}{
		{"velocity_tolerance_mm_s", req.VelocityToleranceMMS, false, math.Inf(1), "mm/s"},
		{"angular_velocity_tolerance_deg_s", req.AngularToleranceDegS, false, math.Inf(1), "deg/s"},
		{"penetration_tolerance_mm", req.PenetrationToleranceMM, true, math.Inf(1), "mm"},
		{"max_tilt_deg", req.MaxTiltDeg, true, 180, "deg"},
	} {
		if math.IsNaN(c.v) || c.v < 0 || (c.v == 0 && !c.zeroOK) || c.v > c.max {
			return nil, protocol.Invalid("%s is %g %s; give a tolerance above 0%s", c.name, c.v, c.unitText, upTo(c.max, c.unitText))
		}
	}
	var out map[string]any
	if err := a.run(ctx, "validate_stability", req, &out); err != nil {
		return nil, err
	}
	out["urdf_file"] = r.File
	out["robot_name"] = r.Name
	out["time_step_s"] = world.TimeStepS
	out["fixed_base"] = world.FixedBase
	return out, nil
}

func orDefault(v *float64, def float64) float64 {
	if v == nil {
		return def
	}
	return *v
}

func upTo(max float64, unit string) string {
	if math.IsInf(max, 1) {
		return ""
	}
	return " and at most " + formatFloat(max) + " " + unit
}

func formatFloat(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const jointDriftSchema = `{"type": "object", "additionalProperties": false, "required": ["name", "type", "unit", "start", "end", "drift"],
  "properties": {
    "name": {"type": "string"},
    "type": {"enum": ["revolute", "continuous", "prismatic"]},
    "unit": {"enum": ["deg", "mm"]},
    "start": {"type": "number"}, "end": {"type": "number"},
    "drift": {"type": "number", "description": "end - start, in unit."}}}`

const stabilityOutputSchema = `{"type": "object", "additionalProperties": false,
  "required": ["urdf_file", "robot_name", "at_rest", "stable", "reasons", "simulated_s", "steps", "time_step_s", "fixed_base", "joints_held",
    "start_base_pose", "final_base_pose", "tilt_deg", "max_linear_speed_mm_s", "max_angular_speed_deg_s", "max_penetration_mm",
    "penetration_within_tolerance", "penetrations", "peak_penetration_mm", "joint_drift", "ground_z_m", "contacts"],
  "properties": {
    "urdf_file": {"type": "string"},
    "robot_name": {"type": "string"},
    "at_rest": {"type": "boolean", "description": "Every link within the speed tolerances at the end."},
    "stable": {"type": "boolean", "description": "At rest, and the base tipped no more than max_tilt_deg."},
    "reasons": {"type": "array", "items": {"type": "string"}, "description": "One sentence per failed check (rest, tilt, penetration); empty when all passed."},
    "simulated_s": {"type": "number"},
    "steps": {"type": "integer"},
    "time_step_s": {"type": "number"},
    "fixed_base": {"type": "boolean"},
    "joints_held": {"type": "boolean"},
    "start_base_pose": ` + poseSchema + `,
    "final_base_pose": ` + poseSchema + `,
    "tilt_deg": {"type": "number", "minimum": 0, "description": "Angle between the base's z axis at the start and at the end."},
    "max_linear_speed_mm_s": {"type": "number", "minimum": 0, "description": "Fastest link at the end."},
    "max_angular_speed_deg_s": {"type": "number", "minimum": 0},
    "max_penetration_mm": {"type": "number", "minimum": 0, "description": "Deepest penetration at the end."},
    "penetration_within_tolerance": {"type": "boolean"},
    "penetrations": {"type": "array", "items": ` + contactPairSchema + `, "description": "Pairs that overlap at the end."},
    "peak_penetration_mm": {"type": "number", "minimum": 0, "description": "Deepest penetration at any step while settling (impacts included)."},
    "peak_penetrations": {"type": "array", "items": ` + contactPairSchema + `},
    "joint_drift": {"type": "array", "items": ` + jointDriftSchema + `},
    "ground_z_m": {"type": ["number", "null"]},
    "contacts": {"type": "array", "items": ` + contactPairSchema + `, "description": "The robot's contacts at the end, by pair of links."}
  }}`
