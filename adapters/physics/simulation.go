package physics

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ToolRunSimulation runs a URDF with joint targets for a duration.
const ToolRunSimulation = "physics.run_simulation"

type simulationArgs struct {
	URDFFile         string             `json:"urdf_file"`
	DurationS        float64            `json:"duration_s" jsonschema:"Simulated time, s."`
	TimeStepS        *float64           `json:"time_step_s,omitempty"`
	Gravity          []float64          `json:"gravity,omitempty"`
	FixedBase        *bool              `json:"fixed_base,omitempty"`
	SelfCollision    bool               `json:"self_collision,omitempty"`
	Ground           *bool              `json:"ground,omitempty"`
	GroundZMM        *float64           `json:"ground_z_mm,omitempty"`
	InitialPositions map[string]float64 `json:"initial_positions,omitempty"`
	JointTargets     map[string]float64 `json:"joint_targets,omitempty"`
	DefaultMaxForce  *float64           `json:"default_max_force,omitempty"`
	SampleRateHz     *float64           `json:"sample_rate_hz,omitempty"`
}

type simulationRequest struct {
	worldRequest
	Steps        int                `json:"steps"`
	SampleEvery  int                `json:"sample_every"`
	JointTargets map[string]float64 `json:"joint_targets"`
}

var simulationTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolRunSimulation,
	AdapterID: AdapterID,
	Name:      "Run a robot simulation",
	Description: "Simulate a URDF robot in PyBullet (headless, fixed time step, deterministic: the same call gives the same numbers) " +
		"for duration_s under gravity, standing on a ground plane. Joints named in joint_targets are driven there by PyBullet's " +
		"position controller, limited by the URDF's effort and velocity (default_max_force when the URDF states no effort); every " +
		"other movable joint is free (PyBullet's default joint motors are switched off). PyBullet's default link damping (0.04) is " +
		"set to 0, since no URDF declares it; a joint's own <dynamics damping> is kept; the URDF's <inertial> is used as written. " +
		"Revolute and continuous joints are in degrees, prismatic in mm. Returns times_s (the sample times), per movable joint its " +
		"position and velocity at each sample (deg, deg/s or mm, mm/s), the contacts at each sample (per pair of links: summed " +
		"normal force N, points, deepest penetration mm; the ground is link \"ground\"), the final base pose (the root link's " +
		"frame: xyz_m, rpy_deg) and the ground's height. Bounded: at most 60 simulated seconds, 200000 steps, 5000 samples and " +
		"200000 joint samples per call, and 20000 contact pairs in all (the rest counted in contact_pairs_left_off). Writes nothing.",
	Capability:     "robot_simulation",
	OutputSchema:   json.RawMessage(simulationOutputSchema),
	Idempotent:     true,
	TimeoutSeconds: timeoutSeconds,
	ResourceLimits: adapters.ResourceLimits{MaxMemoryMB: maxMemoryMB, MaxCPUSeconds: timeoutSeconds, MaxDiskMB: 16},
}, method((*Adapter).runSimulation), append(worldRules(true),
	adapters.At("", adapters.Require("urdf_file", "duration_s")),
	adapters.At("duration_s", adapters.ExclusiveMinimum(0), adapters.Maximum(maxDurationS)),
	adapters.At("joint_targets", adapters.MaxProperties(maxJointsNamed), adapters.Describe(
		"Target position of named movable joints (degrees for revolute and continuous, mm for prismatic, within the URDF's "+
			"limits), held from the start by position control. Joints not named move freely.")),
	adapters.At("sample_rate_hz", adapters.ExclusiveMinimum(0), adapters.Maximum(1/minTimeStepS), adapters.Default(defaultSampleHz),
		adapters.Describe("How often to sample, Hz; samples fall on whole time steps (the nearest), at most one per step, "+
			"and the result's sample_interval_s says the interval used. t = 0 is the first sample.")),
)...)

func (a *Adapter) runSimulation(ctx context.Context, in simulationArgs) (any, error) {
	world, r, err := a.world(worldArgs{URDFFile: in.URDFFile, TimeStepS: in.TimeStepS, Gravity: in.Gravity,
		FixedBase: in.FixedBase, FixedBaseDefault: true, SelfCollision: in.SelfCollision, Ground: in.Ground,
		GroundZMM: in.GroundZMM, InitialPositions: in.InitialPositions, DefaultMaxForce: in.DefaultMaxForce})
	if err != nil {
		return nil, err
	}
	n, err := steps("duration_s", in.DurationS, world.TimeStepS)
	if err != nil {
		return nil, err
	}
	hz := defaultSampleHz
	if in.SampleRateHz != nil {
		hz = *in.SampleRateHz
	}
	every, err := sampleEvery(hz, world.TimeStepS, n, len(r.movableNames()))
	if err != nil {
		return nil, err
	}
	if len(in.JointTargets) > maxJointsNamed {
		return nil, protocol.Invalid("joint_targets names %d joints; at most %d", len(in.JointTargets), maxJointsNamed)
	}
	if err := r.jointValues("joint_targets", in.JointTargets); err != nil {
		return nil, err
	}
	targets := map[string]float64{}
	for k, v := range in.JointTargets {
		targets[k] = v
	}
	var out map[string]any
	if err := a.run(ctx, "run_simulation", simulationRequest{worldRequest: world, Steps: n, SampleEvery: every, JointTargets: targets}, &out); err != nil {
		return nil, err
	}
	out["urdf_file"] = r.File
	out["robot_name"] = r.Name
	out["time_step_s"] = world.TimeStepS
	out["fixed_base"] = world.FixedBase
	return out, nil
}

const poseSchema = `{"type": "object", "additionalProperties": false, "required": ["xyz_m", "rpy_deg", "quat_xyzw"],
  "description": "The URDF root link's frame in the world: position, m; roll, pitch, yaw about fixed X, Y, Z, degrees; the same rotation as a quaternion.",
  "properties": {
    "xyz_m": {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3},
    "rpy_deg": {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3},
    "quat_xyzw": {"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4}}}`

const contactPairSchema = `{"type": "object", "additionalProperties": false, "required": ["link_a", "link_b", "normal_force_n", "points", "penetration_mm"],
  "properties": {
    "link_a": {"type": "string", "description": "A link of the robot."},
    "link_b": {"type": "string", "description": "Another link of the robot, or \"ground\"."},
    "normal_force_n": {"type": "number", "description": "Sum of the points' normal forces, N."},
    "points": {"type": "integer", "minimum": 1},
    "penetration_mm": {"type": "number", "minimum": 0, "description": "Deepest overlap of the two shapes, mm; 0 when they only touch."}}}`

const simulationOutputSchema = `{"type": "object", "additionalProperties": false,
  "required": ["urdf_file", "robot_name", "simulated_s", "steps", "time_step_s", "fixed_base", "sample_interval_s", "sample_count", "times_s",
    "joints", "contacts", "contact_pairs_left_off", "final_base_pose", "ground_z_m", "links"],
  "properties": {
    "urdf_file": {"type": "string"},
    "robot_name": {"type": "string"},
    "simulated_s": {"type": "number"},
    "steps": {"type": "integer"},
    "time_step_s": {"type": "number"},
    "fixed_base": {"type": "boolean"},
    "sample_interval_s": {"type": "number"},
    "sample_count": {"type": "integer"},
    "times_s": {"type": "array", "items": {"type": "number"}},
    "joints": {"type": "array", "description": "Every movable joint, in the URDF's order.", "items": {"type": "object", "additionalProperties": false,
      "required": ["name", "type", "unit", "position", "velocity", "final_position", "driven"],
      "properties": {
        "name": {"type": "string"},
        "type": {"enum": ["revolute", "continuous", "prismatic"]},
        "unit": {"enum": ["deg", "mm"], "description": "Of position and target; velocity is in unit/s."},
        "position": {"type": "array", "items": {"type": "number"}, "description": "At each of times_s."},
        "velocity": {"type": "array", "items": {"type": "number"}, "description": "At each of times_s."},
        "final_position": {"type": "number"},
        "driven": {"type": "boolean", "description": "true when joint_targets named it."},
        "target": {"type": "number"},
        "max_force": {"type": "number", "description": "The controller's force limit, N m or N: the URDF's effort, else default_max_force."}}}},
    "contacts": {"type": "array", "description": "At each of times_s, the robot's contacts by pair of links, largest force first (at most 100).",
      "items": {"type": "object", "additionalProperties": false, "required": ["t_s", "pairs"],
        "properties": {"t_s": {"type": "number"}, "pairs": {"type": "array", "items": ` + contactPairSchema + `}}}},
    "contact_pairs_left_off": {"type": "integer", "minimum": 0, "description": "Pairs left off: past the 100 a sample lists, or past the 20000 a result lists in all."},
    "final_base_pose": ` + poseSchema + `,
    "ground_z_m": {"type": ["number", "null"], "description": "Height of the ground's top, m; null without a ground."},
    "links": {"type": "array", "items": {"type": "string"}, "description": "The robot's links, root first."}
  }}`
