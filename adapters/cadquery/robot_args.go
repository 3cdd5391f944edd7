package cadquery

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/materials"
	"github.com/metaforge/metaforge/protocol"
)

// The robot model every robot export (URDF, SDF, USD) starts from: parts
// placed in an assembly frame, each of a material, and joints between
// them forming a tree. The arguments are checked here, once, for every
// format; what a format can express is its own row of jointKind. The
// kernel (python/cqkernel/robot.py) gets a robotRequest: files resolved,
// densities looked up, limits in SI, parts root first.

// Joint types, as the tools take them.
const (
	jointFixed       = "fixed"
	jointSlider      = "slider"
	jointRevolute    = "revolute"
	jointCylindrical = "cylindrical"
	jointBall        = "ball"
)

var jointTypes = []string{jointFixed, jointSlider, jointRevolute, jointCylindrical, jointBall}

// Robot description formats, the first argument of jointKind.
const (
	formatURDF = "urdf"
	formatSDF  = "sdf"
	formatUSD  = "usd"
)

// singleLinkName names the one link of a single-link export, as ROS
// names a robot's first link.
const singleLinkName = "base_link"

// robotNamePattern is what a robot, a part or a joint may be called: a
// name URDF and SDF accept, a valid USD prim name, and a file name (each
// link's mesh is named for it).
const robotNamePattern = `^[A-Za-z_][A-Za-z0-9_]{0,63}$`

var robotName = regexp.MustCompile(robotNamePattern)

// robotPartArgs is one part of a robot: create_assembly's part (a STEP or
// BREP file placed in the assembly frame) and the material it is made of.
type robotPartArgs struct {
	Name     string  `json:"name" jsonschema:"Unique name of the part; it becomes the link's name."`
	File     string  `json:"file"`
	X        float64 `json:"x" jsonschema:"Move along X, mm, after rotating."`
	Y        float64 `json:"y" jsonschema:"Move along Y, mm, after rotating."`
	Z        float64 `json:"z" jsonschema:"Move along Z, mm, after rotating."`
	RX       float64 `json:"rx" jsonschema:"Rotation about the global X axis through the part's origin, degrees; applied first."`
	RY       float64 `json:"ry" jsonschema:"Rotation about the global Y axis, degrees; applied second."`
	RZ       float64 `json:"rz" jsonschema:"Rotation about the global Z axis, degrees; applied third."`
	Material string  `json:"material,omitempty" jsonschema:"This part's material; default: the call's material."`
}

// jointArgs is one joint: the follower part moves relative to the base
// part about (revolute), along (slider) or about and along (cylindrical)
// axis through origin, or about origin (ball), or not at all (fixed).
type jointArgs struct {
	Name     string       `json:"name" jsonschema:"Unique name of the joint (not also a part's name)."`
	Type     string       `json:"type" jsonschema:"fixed, slider, revolute, cylindrical or ball; what each format makes of it is in the tool description."`
	Base     string       `json:"base" jsonschema:"The part the joint is fixed to (the parent link)."`
	Follower string       `json:"follower" jsonschema:"The part the joint moves (the child link); its link frame sits at origin."`
	Origin   []float64    `json:"origin" jsonschema:"The joint's point [x, y, z], mm, in the assembly frame: on the axis of a revolute joint, the centre of a ball."`
	Axis     []float64    `json:"axis,omitempty" jsonschema:"Direction [x, y, z] in the assembly frame, any length but zero (it is normalised); required for slider and revolute."`
	Limits   *jointLimits `json:"limits,omitempty" jsonschema:"Travel limits; required for a slider, optional for a revolute joint (none: it turns freely), not taken by fixed and ball joints."`
}

// jointLimits are in the tools' units: degrees and mm, per second.
type jointLimits struct {
	Lower    float64  `json:"lower" jsonschema:"Lowest position: degrees (revolute) or mm (slider), from the parts as placed."`
	Upper    float64  `json:"upper" jsonschema:"Highest position, above lower: degrees (revolute) or mm (slider)."`
	Effort   *float64 `json:"effort,omitempty" jsonschema:"Largest force (slider, N) or torque (revolute, N m) the joint exerts; URDF requires it with limits."`
	Velocity *float64 `json:"velocity,omitempty" jsonschema:"Largest speed: deg/s (revolute) or mm/s (slider); URDF requires it with limits."`
}

// robotArgs are the parts and joints of an assembly tool, and the
// material of the parts that do not name their own.
type robotArgs struct {
	Parts    []robotPartArgs `json:"parts"`
	Joints   []jointArgs     `json:"joints,omitempty"`
	Material string          `json:"material,omitempty" jsonschema:"Material of every part that does not name its own."`
}

// singleLink is the robot of a single-link export: the file, unmoved, as
// base_link, with no joints.
func singleLink(file, material string) robotArgs {
	return robotArgs{Parts: []robotPartArgs{{Name: singleLinkName, File: file, Material: material}}}
}

// robotRequest is the robot model the kernel's robot.build_model takes.
// Tools add their own fields (output file, options) beside it.
type robotRequest struct {
	RobotName string       `json:"robot_name"`
	Parts     []robotPart  `json:"parts"`  // the root first, every base before its followers
	Joints    []robotJoint `json:"joints"` // in the order of their followers in Parts
}

// robotPart is a checked part: file absolute, material looked up.
type robotPart struct {
	Name        string  `json:"name"`
	File        string  `json:"file"`
	X           float64 `json:"x"`
	Y           float64 `json:"y"`
	Z           float64 `json:"z"`
	RX          float64 `json:"rx"`
	RY          float64 `json:"ry"`
	RZ          float64 `json:"rz"`
	Material    string  `json:"material"`
	DensityKgM3 float64 `json:"density_kg_m3"`
}

// robotJoint is a checked joint between two parts.
type robotJoint struct {
	Name   string `json:"name"`
	Type   string `json:"type"` // fixed, slider, revolute or ball (cylindrical never gets here)
	Kind   string `json:"kind"` // the format's name for it, from jointKind
	Parent string `json:"parent"`
	Child  string `json:"child"`
	// OriginMM is the joint's point in the assembly frame, mm: the child
	// link frame's origin.
	OriginMM [3]float64 `json:"origin_mm"`
	// Axis is unit length; nil for a fixed or ball joint given none.
	Axis   *[3]float64  `json:"axis"`
	Limits *robotLimits `json:"limits"`
}

// robotLimits are jointLimits in SI: rad or m, rad/s or m/s, N m or N.
type robotLimits struct {
	Lower    float64  `json:"lower"`
	Upper    float64  `json:"upper"`
	Effort   *float64 `json:"effort"`
	Velocity *float64 `json:"velocity"`
}

// robotRequest checks in for format ("urdf", "sdf" or "usd") and returns
// the kernel's model of the robot named name. Every export tool builds its
// request with it, so all formats refuse the same robots for the same
// reasons, apart from each format's own row of jointKind.
func (a *Adapter) robotRequest(name string, in robotArgs, format string) (robotRequest, error) {
	if !robotName.MatchString(name) {
		return robotRequest{}, protocol.Invalid("the robot's name %q must be 1 to 64 letters, digits and underscores, not starting with a digit", name)
	}
	if len(in.Parts) == 0 || len(in.Parts) > maxParts {
		return robotRequest{}, protocol.Invalid("parts must list 1 to %d parts, got %d", maxParts, len(in.Parts))
	}
	var defaultMat *materials.Material
	if in.Material != "" {
		m, err := materials.Lookup(in.Material)
		if err != nil {
			return robotRequest{}, err
		}
		defaultMat = &m
	}
	parts := map[string]robotPart{}
	for i, p := range in.Parts {
		field := fmt.Sprintf("parts[%d]", i)
		switch {
		case !robotName.MatchString(p.Name):
			return robotRequest{}, protocol.Invalid("%s.name %q must be 1 to 64 letters, digits and underscores, not starting with a digit: "+
				"it names the link in URDF, SDF and USD and its mesh file", field, p.Name)
		case parts[p.Name].Name != "":
			return robotRequest{}, protocol.Invalid("%s.name %q is used twice; each part needs a name of its own", field, p.Name)
		}
		part := robotPart{Name: p.Name, X: p.X, Y: p.Y, Z: p.Z, RX: p.RX, RY: p.RY, RZ: p.RZ}
		var err error
		if part.File, err = a.inputFile(field+".file", p.File); err != nil {
			return robotRequest{}, err
		}
		switch {
		case p.Material != "":
			m, err := materials.Lookup(p.Material)
			if err != nil {
				var pe *protocol.Error
				if errors.As(err, &pe) {
					err = protocol.Invalid("%s.material: %s", field, pe.Details)
				}
				return robotRequest{}, err
			}
			part.Material, part.DensityKgM3 = m.Name, m.DensityKgM3
		case defaultMat != nil:
			part.Material, part.DensityKgM3 = defaultMat.Name, defaultMat.DensityKgM3
		default:
			return robotRequest{}, protocol.Invalid("part %q has no material, so it has no mass: give %s.material or the call's material "+
				"(one of %s)", p.Name, field, strings.Join(materials.Names(), ", "))
		}
		parts[p.Name] = part
	}

	joints := map[string]robotJoint{} // by follower
	names := map[string]bool{}
	for i, j := range in.Joints {
		rj, err := checkJoint(fmt.Sprintf("joints[%d]", i), j, parts, format)
		if err != nil {
			return robotRequest{}, err
		}
		if names[j.Name] {
			return robotRequest{}, protocol.Invalid("joints[%d].name %q is used twice; each joint needs a name of its own", i, j.Name)
		}
		names[j.Name] = true
		if prev, ok := joints[j.Follower]; ok {
			return robotRequest{}, protocol.Invalid("part %q is the follower of two joints, %q and %q: a part hangs from one base only "+
				"(a robot is a tree); remove one of them", j.Follower, prev.Name, j.Name)
		}
		joints[j.Follower] = rj
	}

	order, err := treeOrder(in.Parts, in.Joints, joints)
	if err != nil {
		return robotRequest{}, err
	}
	req := robotRequest{RobotName: name, Parts: make([]robotPart, len(order)), Joints: make([]robotJoint, 0, len(order)-1)}
	for i, n := range order {
		req.Parts[i] = parts[n]
		if i > 0 {
			req.Joints = append(req.Joints, joints[n])
		}
	}
	return req, nil
}

// checkJoint checks one joint (field names it, e.g. joints[2]) against
// the parts and the format, and converts it for the kernel.
func checkJoint(field string, j jointArgs, parts map[string]robotPart, format string) (robotJoint, error) {
	switch {
	case !robotName.MatchString(j.Name):
		return robotJoint{}, protocol.Invalid("%s.name %q must be 1 to 64 letters, digits and underscores, not starting with a digit", field, j.Name)
	case parts[j.Name].Name != "":
		return robotJoint{}, protocol.Invalid("%s.name %q is also a part's name; SDF and USD need a joint and a link to be named apart, so rename the joint", field, j.Name)
	case !slices.Contains(jointTypes, j.Type):
		return robotJoint{}, protocol.Invalid("%s.type %q is not one of %s", field, j.Type, strings.Join(jointTypes, ", "))
	case parts[j.Base].Name == "":
		return robotJoint{}, protocol.Invalid("%s.base %q names no part; the parts are %s", field, j.Base, partNames(parts))
	case parts[j.Follower].Name == "":
		return robotJoint{}, protocol.Invalid("%s.follower %q names no part; the parts are %s", field, j.Follower, partNames(parts))
	case j.Base == j.Follower:
		return robotJoint{}, protocol.Invalid("%s joins part %q to itself: base and follower must be two different parts", field, j.Base)
	case len(j.Origin) != 3:
		return robotJoint{}, protocol.Invalid("%s.origin must be [x, y, z] in mm (the joint's point in the assembly frame), got %d numbers", field, len(j.Origin))
	}
	rj := robotJoint{Name: j.Name, Type: j.Type, Parent: j.Base, Child: j.Follower, OriginMM: [3]float64(j.Origin)}

	needsAxis := j.Type == jointSlider || j.Type == jointRevolute
	switch {
	case j.Axis == nil && needsAxis:
		return robotJoint{}, protocol.Invalid("%s.axis is required for a %s joint: give its direction [x, y, z] in the assembly frame, e.g. [0, 0, 1]", field, j.Type)
	case j.Axis != nil:
		if len(j.Axis) != 3 {
			return robotJoint{}, protocol.Invalid("%s.axis must be [x, y, z], got %d numbers", field, len(j.Axis))
		}
		n := math.Sqrt(j.Axis[0]*j.Axis[0] + j.Axis[1]*j.Axis[1] + j.Axis[2]*j.Axis[2])
		if n < 1e-12 {
			return robotJoint{}, protocol.Invalid("%s.axis %v has no direction: give a non-zero vector, e.g. [0, 0, 1]", field, j.Axis)
		}
		rj.Axis = &[3]float64{j.Axis[0] / n, j.Axis[1] / n, j.Axis[2] / n}
	}

	if err := checkLimits(field, j); err != nil {
		return robotJoint{}, err
	}
	rj.Limits = siLimits(j)

	kind, err := jointKind(format, j)
	if err != nil {
		return robotJoint{}, err
	}
	rj.Kind = kind
	return rj, nil
}

// checkLimits holds for every format: what a joint type takes, and
// limits that make sense.
func checkLimits(field string, j jointArgs) error {
	l := j.Limits
	switch {
	case l == nil && j.Type == jointSlider:
		return protocol.Invalid("%s (joint %q) is a slider without limits: give limits {lower, upper} in mm (and effort in N, velocity in mm/s); "+
			"a slider's travel is never made up", field, j.Name)
	case l == nil:
		return nil
	case j.Type == jointFixed || j.Type == jointBall:
		return protocol.Invalid("%s (joint %q) is a %s joint, which takes no limits: leave limits out", field, j.Name, j.Type)
	case !(l.Lower < l.Upper):
		return protocol.Invalid("%s.limits: lower (%g) must be below upper (%g)", field, l.Lower, l.Upper)
	case l.Effort != nil && !(*l.Effort > 0):
		return protocol.Invalid("%s.limits.effort must be above 0 (N for a slider, N m for a revolute joint), got %g", field, *l.Effort)
	case l.Velocity != nil && !(*l.Velocity > 0):
		return protocol.Invalid("%s.limits.velocity must be above 0 (mm/s for a slider, deg/s for a revolute joint), got %g", field, *l.Velocity)
	}
	return nil
}

// siLimits converts a joint's limits to SI: degrees to radians, mm to m.
func siLimits(j jointArgs) *robotLimits {
	if j.Limits == nil {
		return nil
	}
	scale := 1e-3 // mm, mm/s
	if j.Type == jointRevolute || j.Type == jointCylindrical {
		scale = math.Pi / 180
	}
	l := &robotLimits{Lower: j.Limits.Lower * scale, Upper: j.Limits.Upper * scale, Effort: j.Limits.Effort}
	if j.Limits.Velocity != nil {
		v := *j.Limits.Velocity * scale
		l.Velocity = &v
	}
	return l
}

// jointKind is what format calls joint j, or why it cannot have one. The
// one table of joint types per format: URDF fixed, prismatic, revolute
// (limited) or continuous; SDF the same and ball; USD's Physics*Joint
// schemas. No format has a cylindrical joint.
func jointKind(format string, j jointArgs) (string, error) {
	if j.Type == jointCylindrical {
		return "", protocol.Invalid("joint %q is cylindrical (it turns about and slides along one axis), which no single %s joint expresses: "+
			"model it as a slider and a revolute joint on the same axis, through a part between them", j.Name, formatTitle(format))
	}
	switch format {
	case formatURDF, formatSDF:
		switch j.Type {
		case jointFixed:
			return "fixed", nil
		case jointSlider:
			return "prismatic", urdfLimitRule(format, j)
		case jointRevolute:
			if j.Limits == nil {
				return "continuous", nil
			}
			return "revolute", urdfLimitRule(format, j)
		case jointBall:
			if format == formatSDF {
				return "ball", nil
			}
			return "", protocol.Invalid("joint %q is a ball joint, which URDF cannot express: a URDF joint turns or slides along one axis "+
				"(revolute, continuous, prismatic) and URDF has no ball joint; export this robot with cadquery.export_sdf_assembly or "+
				"cadquery.export_usd_assembly, which have ball joints, or replace it with revolute joints", j.Name)
		}
	case formatUSD:
		switch j.Type {
		case jointFixed:
			return "PhysicsFixedJoint", nil
		case jointSlider:
			return "PhysicsPrismaticJoint", nil
		case jointRevolute:
			return "PhysicsRevoluteJoint", nil
		case jointBall:
			return "PhysicsSphericalJoint", nil
		}
	default:
		return "", &protocol.Error{Code: protocol.InternalError, Details: fmt.Sprintf("jointKind: unknown robot format %q", format)}
	}
	return "", protocol.Invalid("joint %q has type %q, which is not one of %s", j.Name, j.Type, strings.Join(jointTypes, ", "))
}

// urdfLimitRule: URDF's <limit> requires effort and velocity, so a
// limited joint without them cannot be written. SDF defaults them.
func urdfLimitRule(format string, j jointArgs) error {
	if format != formatURDF || j.Limits == nil {
		return nil
	}
	var missing []string
	if j.Limits.Effort == nil {
		missing = append(missing, "effort")
	}
	if j.Limits.Velocity == nil {
		missing = append(missing, "velocity")
	}
	if len(missing) == 0 {
		return nil
	}
	units := "effort in N m, velocity in deg/s"
	if j.Type == jointSlider {
		units = "effort in N, velocity in mm/s"
	}
	return protocol.Invalid("joint %q has limits without %s, which URDF's <limit> requires: give limits.effort and limits.velocity (%s)",
		j.Name, strings.Join(missing, " or "), units)
}

func formatTitle(format string) string {
	switch format {
	case formatURDF:
		return "URDF"
	case formatSDF:
		return "SDF"
	case formatUSD:
		return "UsdPhysics"
	}
	return format
}

// treeOrder checks that the joints make the parts one tree (exactly one
// root, which is never a follower, and every part reachable from it) and
// returns the part names root first, breadth first, each level in the
// order the joints were given.
func treeOrder(parts []robotPartArgs, joints []jointArgs, byFollower map[string]robotJoint) ([]string, error) {
	var roots []string
	for _, p := range parts {
		if _, ok := byFollower[p.Name]; !ok {
			roots = append(roots, p.Name)
		}
	}
	if len(roots) > 1 {
		return nil, protocol.Invalid("parts %s are never a follower, so the robot has %d roots: a robot has exactly one root part; "+
			"join the others to it (or to its descendants) with joints, a fixed joint where they do not move", quoteList(roots), len(roots))
	}
	order := roots
	for i := 0; i < len(order); i++ {
		for _, j := range joints {
			if j.Base == order[i] {
				order = append(order, j.Follower)
			}
		}
	}
	if len(order) == len(parts) {
		return order, nil
	}
	// Every part follows at most one base, so a part the root does not
	// reach leads, base by base, into a cycle.
	reached := map[string]bool{}
	for _, n := range order {
		reached[n] = true
	}
	var start string
	for _, p := range parts {
		if !reached[p.Name] {
			start = p.Name
			break
		}
	}
	seen := map[string]bool{}
	n := start
	for !seen[n] {
		seen[n] = true
		n = byFollower[n].Parent
	}
	cycle := []string{n}
	for m := byFollower[n].Parent; m != n; m = byFollower[m].Parent {
		cycle = append(cycle, m)
	}
	cycle = append(cycle, n)
	slices.Reverse(cycle)
	return nil, protocol.Invalid("the joints form a cycle, %s (each the base of the next): a robot is a tree with one root part; "+
		"remove one of the joints in the cycle", strings.Join(cycle, " -> "))
}

func partNames(parts map[string]robotPart) string {
	names := make([]string, 0, len(parts))
	for n := range parts {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// robotPartsRules are the schema rules of robotArgs' fields, for a tool
// whose arguments carry parts, joints and material.
var robotPartsRules = []adapters.SchemaRule{
	adapters.At("parts", adapters.MinItems(1), adapters.MaxItems(maxParts)),
	adapters.At("parts[]", adapters.Require("name", "file")),
	adapters.At("parts[].name", adapters.Pattern(robotNamePattern)),
	inputFile("parts[].file"),
	adapters.At("parts[].x", adapters.Default(0)), adapters.At("parts[].y", adapters.Default(0)), adapters.At("parts[].z", adapters.Default(0)),
	adapters.At("parts[].rx", adapters.Default(0)), adapters.At("parts[].ry", adapters.Default(0)), adapters.At("parts[].rz", adapters.Default(0)),
	adapters.At("parts[].material", adapters.MinLength(1)),
	adapters.At("joints", adapters.MaxItems(maxParts-1)),
	adapters.At("joints[].name", adapters.Pattern(robotNamePattern)),
	adapters.At("joints[].type", adapters.Enum(jointTypes...)),
	adapters.At("joints[].base", adapters.Pattern(robotNamePattern)),
	adapters.At("joints[].follower", adapters.Pattern(robotNamePattern)),
	adapters.At("joints[].origin", adapters.MinItems(3), adapters.MaxItems(3)),
	adapters.At("joints[].axis", adapters.MinItems(3), adapters.MaxItems(3)),
	adapters.At("joints[].limits.effort", adapters.ExclusiveMinimum(0)),
	adapters.At("joints[].limits.velocity", adapters.ExclusiveMinimum(0)),
	material,
}

// robotModelDoc says, for a tool description, what the robot tools take
// and how they compute a link.
const robotModelDoc = "Each part is a STEP or BREP file placed in the assembly frame as cadquery.create_assembly places it (rotated by " +
	"rx, ry, rz degrees about the global X, then Y, then Z axes through its own origin, then moved by x, y, z mm), of its own material " +
	"or the call's. Joints: {name, type, base, follower, origin [x, y, z] mm in the assembly frame, axis [x, y, z] (normalised), " +
	"limits {lower, upper (revolute: degrees, slider: mm), effort (N m or N), velocity (deg/s or mm/s)}}. The parts and joints must " +
	"form one tree: exactly one root part (never a follower), each part the follower of at most one joint, no cycles. Names are " +
	"letters, digits and underscores. The root's link frame is the assembly frame; a follower's link frame sits at its joint's origin, " +
	"axes parallel to the assembly's. Each link's mass is the part's volume (OpenCASCADE) x its material's density; its centre of mass " +
	"and inertia tensor about it come from the exact B-rep, scaled to kg m^2; its mesh is a binary STL in metres in the link frame " +
	"(0.1 mm, 0.1 rad tessellation), written beside the description."
