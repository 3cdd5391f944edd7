package twin

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Joint is one joint of an assembly: Follower attaches to Base. Base and
// Follower name the positions (or parts) the assembly contains. AnchorMM
// is where the joint sits in its base's frame, as a kinematic tree (URDF)
// gives it: relative to the parent, never to one fixed origin.
type Joint struct {
	Name     string `json:"name" jsonschema:"the joint's name, unique in the assembly (shoulder, elbow)"`
	Type     string `json:"type" jsonschema:"revolute, continuous, prismatic or fixed"`
	Base     string `json:"base" jsonschema:"the part or position the joint is mounted on (the parent)"`
	Follower string `json:"follower" jsonschema:"the part or position it moves (the child)"`
	// AnchorMM is nil when not given: a harness length is then unknown,
	// never zero.
	AnchorMM []float64 `json:"anchor_mm,omitempty" jsonschema:"the joint's origin in its base's frame, mm: [x, y, z]"`
	// Limits, in degrees for a revolute joint and mm for a prismatic one.
	LowerLimit *float64 `json:"lower_limit,omitempty" jsonschema:"lower travel limit: degrees (revolute) or mm (prismatic)"`
	UpperLimit *float64 `json:"upper_limit,omitempty" jsonschema:"upper travel limit: degrees (revolute) or mm (prismatic)"`
	// Conductors is how many wires the joint's actuator needs; nil takes
	// DefaultJointConductors for a moving joint and none for a fixed one.
	Conductors *int `json:"conductors,omitempty" jsonschema:"wires the joint's actuator needs; default 4 for a moving joint (power pair and CAN pair), 0 for fixed"`
}

// JointTypes are the joint types an assembly may record.
var JointTypes = []string{"revolute", "continuous", "prismatic", "fixed"}

// DefaultJointConductors is a moving joint's wiring when none is given: a
// power pair and a CAN pair to its actuator.
const DefaultJointConductors = 4

// JointsProperty is the node property an assembly's joints are kept in.
const JointsProperty = "joints"

// CheckJoints refuses joints with a blank or repeated name, an unknown
// type, a joint whose base is its follower, or limits the wrong way round,
// saying which joint to fix.
func CheckJoints(joints []Joint) error {
	seen := map[string]bool{}
	for i, j := range joints {
		name := strings.TrimSpace(j.Name)
		switch {
		case name == "":
			return Refusef("joints[%d] has no name; name every joint", i)
		case seen[strings.ToLower(name)]:
			return Refusef("joints[%d]: two joints are named %q; joint names are unique in an assembly", i, name)
		case !slices.Contains(JointTypes, j.Type):
			return Refusef("joint %q: type %q is not one of %s", name, j.Type, strings.Join(JointTypes, ", "))
		case strings.TrimSpace(j.Base) == "" || strings.TrimSpace(j.Follower) == "":
			return Refusef("joint %q needs both base (the part it is mounted on) and follower (the part it moves)", name)
		case strings.EqualFold(strings.TrimSpace(j.Base), strings.TrimSpace(j.Follower)):
			return Refusef("joint %q has %q as both base and follower; a joint connects two parts", name, j.Base)
		case j.LowerLimit != nil && j.UpperLimit != nil && *j.LowerLimit > *j.UpperLimit:
			return Refusef("joint %q: lower_limit %g is above upper_limit %g", name, *j.LowerLimit, *j.UpperLimit)
		case j.AnchorMM != nil && len(j.AnchorMM) != 3:
			return Refusef("joint %q: anchor_mm has %d numbers; give [x, y, z] in mm", name, len(j.AnchorMM))
		case j.Conductors != nil && *j.Conductors < 0:
			return Refusef("joint %q: conductors %d is negative", name, *j.Conductors)
		}
		seen[strings.ToLower(name)] = true
	}
	return nil
}

// ConductorCount is the joint's wiring: as given, else the default for
// its type.
func (j Joint) ConductorCount() int {
	if j.Conductors != nil {
		return *j.Conductors
	}
	if j.Type == "fixed" {
		return 0
	}
	return DefaultJointConductors
}

// JointsOf reads the joints a node records (nil when it records none).
func JointsOf(n Node) ([]Joint, error) {
	raw, ok := n.Properties[JointsProperty]
	if !ok || raw == nil {
		return nil, nil
	}
	var text []byte
	if s, isString := raw.(string); isString {
		text = []byte(s)
	} else {
		var err error
		if text, err = json.Marshal(raw); err != nil {
			return nil, err
		}
	}
	var out []Joint
	if err := json.Unmarshal(text, &out); err != nil {
		return nil, fmt.Errorf("node %s: its joints cannot be read: %w", n.ID, err)
	}
	return out, nil
}

// JointsValue is joints as a node property: a JSON text, which both stores
// keep as it is.
func JointsValue(joints []Joint) (string, error) {
	text, err := json.Marshal(joints)
	return string(text), err
}
