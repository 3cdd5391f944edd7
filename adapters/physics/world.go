package physics

import (
	"math"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// worldArgs are the arguments both tools take to set up the world a URDF
// is loaded into; each tool's argument type carries them as its own
// fields (so each schema lists them) and hands them here.
type worldArgs struct {
	URDFFile         string
	TimeStepS        *float64
	Gravity          []float64
	FixedBase        *bool
	FixedBaseDefault bool
	SelfCollision    bool
	Ground           *bool
	GroundZMM        *float64
	InitialPositions map[string]float64
	DefaultMaxForce  *float64
}

// worldRequest is what the Python World is built from (python/mfphysics/
// world.py), in SI units but for joint values (deg or mm).
type worldRequest struct {
	URDFFile         string             `json:"urdf_file"`
	TimeStepS        float64            `json:"time_step_s"`
	Gravity          [3]float64         `json:"gravity"`
	FixedBase        bool               `json:"fixed_base"`
	SelfCollision    bool               `json:"self_collision"`
	Ground           bool               `json:"ground"`
	GroundZM         *float64           `json:"ground_z_m"`
	InitialPositions map[string]float64 `json:"initial_positions"`
	DefaultMaxForce  float64            `json:"default_max_force"`
}

// world checks the arguments, reads the URDF and fills the defaults.
func (a *Adapter) world(in worldArgs) (worldRequest, *robot, error) {
	r, err := readRobot(a.ws, "urdf_file", in.URDFFile)
	if err != nil {
		return worldRequest{}, nil, err
	}
	req := worldRequest{URDFFile: r.File, TimeStepS: defaultTimeStepS, Gravity: [3]float64{0, 0, defaultGravityZ},
		FixedBase: in.FixedBaseDefault, SelfCollision: in.SelfCollision, Ground: true,
		InitialPositions: map[string]float64{}, DefaultMaxForce: defaultMaxForce}
	if in.TimeStepS != nil {
		ts := *in.TimeStepS
		if !(ts >= minTimeStepS && ts <= maxTimeStepS) {
			return req, nil, protocol.Invalid("time_step_s is %g s; give a step from %g to %g s (PyBullet's usual is 1/240 s)", ts, minTimeStepS, maxTimeStepS)
		}
		req.TimeStepS = ts
	}
	if in.Gravity != nil {
		if len(in.Gravity) != 3 {
			return req, nil, protocol.Invalid("gravity must be [x, y, z] in m/s^2, three numbers; got %d", len(in.Gravity))
		}
		for i, g := range in.Gravity {
			if math.IsNaN(g) || math.Abs(g) > maxGravityMS2 {
				return req, nil, protocol.Invalid("gravity[%d] is %g m/s^2; give each component within ±%g", i, g, maxGravityMS2)
			}
			req.Gravity[i] = g
		}
	}
	if in.FixedBase != nil {
		req.FixedBase = *in.FixedBase
	}
	if in.Ground != nil {
		req.Ground = *in.Ground
	}
	if in.GroundZMM != nil {
		if !req.Ground {
			return req, nil, protocol.Invalid("ground_z_mm places the ground, but ground is false; drop one of them")
		}
		if math.IsNaN(*in.GroundZMM) || math.Abs(*in.GroundZMM) > 1e6 {
			return req, nil, protocol.Invalid("ground_z_mm is %g; give a height within ±1e6 mm", *in.GroundZMM)
		}
		z := *in.GroundZMM / 1000
		req.GroundZM = &z
	}
	if in.DefaultMaxForce != nil {
		f := *in.DefaultMaxForce
		if !(f > 0) || math.IsInf(f, 0) {
			return req, nil, protocol.Invalid("default_max_force must be above 0 (N m for a revolute joint, N for a prismatic one), got %g", f)
		}
		req.DefaultMaxForce = f
	}
	if len(in.InitialPositions) > maxJointsNamed {
		return req, nil, protocol.Invalid("initial_positions names %d joints; at most %d", len(in.InitialPositions), maxJointsNamed)
	}
	if err := r.jointValues("initial_positions", in.InitialPositions); err != nil {
		return req, nil, err
	}
	for k, v := range in.InitialPositions {
		req.InitialPositions[k] = v
	}
	return req, r, nil
}

// worldRules describe the world's arguments in a tool's schema;
// fixedBase is the tool's default for fixed_base.
func worldRules(fixedBase bool) []adapters.SchemaRule {
	return []adapters.SchemaRule{
		adapters.At("urdf_file", adapters.MinLength(1), adapters.Describe(
			"Path of a URDF robot description (.urdf) inside the workspace, e.g. the output_file of cadquery.export_urdf_assembly; "+
				"a relative path is taken from the workspace root. Meshes it references are found relative to its folder and must be inside "+
				"the workspace (package:// addresses are refused).")),
		adapters.At("time_step_s", adapters.Minimum(minTimeStepS), adapters.Maximum(maxTimeStepS), adapters.Default(defaultTimeStepS),
			adapters.Describe("Fixed simulation time step, s; no substeps.")),
		adapters.At("gravity", adapters.MinItems(3), adapters.MaxItems(3), adapters.Default([]float64{0, 0, defaultGravityZ}),
			adapters.Describe("Gravity [x, y, z], m/s^2, in the world frame (the URDF root link's frame at the start).")),
		adapters.At("gravity[]", adapters.Minimum(-maxGravityMS2), adapters.Maximum(maxGravityMS2)),
		adapters.At("fixed_base", adapters.Default(fixedBase), adapters.Describe(
			"true: the root link is welded to the world where the URDF puts it, as a mounted arm is; false: the robot is a free body.")),
		adapters.At("self_collision", adapters.Default(false), adapters.Describe(
			"Collide the robot's links with each other (a link never with its parent); off, as in PyBullet, links pass through each other.")),
		adapters.At("ground", adapters.Default(true), adapters.Describe(
			"Load a ground plane (PyBullet's plane.urdf, a 200 m square) for the robot to stand on; its contacts are reported as link \"ground\".")),
		adapters.At("ground_z_mm", adapters.Minimum(-1e6), adapters.Maximum(1e6), adapters.Describe(
			"Height of the ground's top, mm, in the world frame. Default: where the robot's lowest collision shape touches it as the robot "+
				"starts (initial_positions applied), so a free body stands on it and nothing starts in it (a mesh's convex hull carries "+
				"PyBullet's 1 mm collision margin, so the ground sits 1 mm below a mesh); the result gives the height used.")),
		adapters.At("initial_positions", adapters.MaxProperties(maxJointsNamed), adapters.Describe(
			"Starting position of named movable joints: revolute and continuous in degrees, prismatic in mm, within the URDF's limits; "+
				"the others start at 0.")),
		adapters.At("default_max_force", adapters.ExclusiveMinimum(0), adapters.Default(defaultMaxForce), adapters.Describe(
			"Most force (N) or torque (N m) a joint's position controller may use when the URDF's <limit effort> is absent or 0; "+
				"otherwise the URDF's effort is the limit.")),
	}
}
