package twin

import (
	"slices"
	"strings"
)

// LinkInertial is a rigid body's mass properties in URDF's terms: the mass,
// the inertial frame (origin at the centre of mass, in the body's frame),
// and the inertia tensor about it. Any part may be unknown.
type LinkInertial struct {
	MassKg      *float64    `json:"mass_kg,omitempty" jsonschema:"mass, kg"`
	OriginXYZM  *[3]float64 `json:"origin_xyz_m,omitempty" jsonschema:"the centre of mass in the body's frame, m"`
	OriginRPY   *[3]float64 `json:"origin_rpy,omitempty" jsonschema:"the inertial frame's roll, pitch, yaw, rad"`
	InertiaKgM2 *[6]float64 `json:"inertia_kg_m2,omitempty" jsonschema:"ixx, ixy, ixz, iyy, iyz, izz about the centre of mass, kg m^2"`
}

// InterfaceJoint is the kinematic joint a mechanical interface is: from
// the interface's From (the parent) to its To (the child).
type InterfaceJoint struct {
	Type       string      `json:"type" jsonschema:"revolute, continuous, prismatic, fixed, floating or planar (URDF's joint types)"`
	OriginXYZM *[3]float64 `json:"origin_xyz_m,omitempty" jsonschema:"the child's frame in the parent's, m"`
	OriginRPY  *[3]float64 `json:"origin_rpy,omitempty" jsonschema:"the child's frame's roll, pitch, yaw in the parent's, rad"`
	Axis       *[3]float64 `json:"axis,omitempty" jsonschema:"the joint axis in the joint frame"`
	Lower      *float64    `json:"lower,omitempty" jsonschema:"lower limit, rad or m"`
	Upper      *float64    `json:"upper,omitempty" jsonschema:"upper limit, rad or m"`
	Effort     *float64    `json:"effort,omitempty" jsonschema:"effort limit, N m or N"`
	Velocity   *float64    `json:"velocity,omitempty" jsonschema:"velocity limit, rad/s or m/s"`
}

// ArchitectureSource is the file an architecture was imported from.
type ArchitectureSource struct {
	Format    string `json:"format"`
	File      string `json:"file,omitempty"`
	SHA256    string `json:"sha256"`
	RobotName string `json:"robot_name,omitempty"`
}

func (in *LinkInertial) check() error {
	if in == nil {
		return nil
	}
	if in.MassKg != nil && (!finite(*in.MassKg) || *in.MassKg < 0) {
		return Refusef("inertial mass_kg must be a finite number of 0 or more")
	}
	if !finiteAll(in.OriginXYZM) || !finiteAll(in.OriginRPY) {
		return Refusef("inertial origin must be finite numbers")
	}
	if in.InertiaKgM2 != nil {
		for _, v := range in.InertiaKgM2 {
			if !finite(v) {
				return Refusef("inertial inertia_kg_m2 must be six finite numbers (ixx, ixy, ixz, iyy, iyz, izz)")
			}
		}
	}
	return nil
}

func (j *InterfaceJoint) check() error {
	if j == nil {
		return nil
	}
	if !slices.Contains(URDFJointTypes, j.Type) {
		return Refusef("joint type %q is not one of %s", j.Type, strings.Join(URDFJointTypes, ", "))
	}
	if !finiteAll(j.OriginXYZM) || !finiteAll(j.OriginRPY) || !finiteAll(j.Axis) {
		return Refusef("joint origin and axis must be finite numbers")
	}
	if j.Axis != nil && j.Axis[0] == 0 && j.Axis[1] == 0 && j.Axis[2] == 0 {
		return Refusef("joint axis is the zero vector; give the direction it moves about or along")
	}
	for _, v := range []*float64{j.Lower, j.Upper, j.Effort, j.Velocity} {
		if v != nil && !finite(*v) {
			return Refusef("joint limits must be finite numbers")
		}
	}
	if j.Lower != nil && j.Upper != nil && *j.Lower > *j.Upper {
		return Refusef("joint lower limit %g is above its upper limit %g", *j.Lower, *j.Upper)
	}
	return nil
}

func finiteAll(v *[3]float64) bool {
	return v == nil || (finite(v[0]) && finite(v[1]) && finite(v[2]))
}
