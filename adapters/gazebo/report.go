package gazebo

// report is what metaforge-sdfcheck prints (deploy/sdfcheck/sdfcheck.cc):
// libsdformat's verdict on one file and the structure it built from it.
// Link and Joint pass into the tool's result as they are; models nest
// there and are flattened for the result (see flatten).
type report struct {
	File           string        `json:"file"`
	Valid          bool          `json:"valid"`
	SDFVersion     string        `json:"sdf_version"`
	LibraryVersion string        `json:"libsdformat_version"`
	Errors         []SDFError    `json:"errors"`
	Messages       []Message     `json:"messages"`
	Worlds         []reportWorld `json:"worlds"`
	Models         []reportModel `json:"models"`
}

type reportWorld struct {
	Name    string        `json:"name"`
	Gravity []float64     `json:"gravity"`
	Models  []reportModel `json:"models"`
}

type reportModel struct {
	Name          string        `json:"name"`
	Static        bool          `json:"static"`
	CanonicalLink string        `json:"canonical_link"`
	Pose          Pose          `json:"pose"`
	Links         []Link        `json:"links"`
	Joints        []Joint       `json:"joints"`
	Models        []reportModel `json:"models"`
}

// SDFError is one error libsdformat returned from sdf::Root::Load.
type SDFError struct {
	// Code is libsdformat's sdf::ErrorCode by name ("JOINT_PARENT_LINK_INVALID").
	Code    string `json:"code"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	XMLPath string `json:"xml_path,omitempty"`
}

// Message is one line libsdformat printed on its console rather than
// returning: a warning (an element SDF does not define) or the detail of
// an error (where the XML stopped parsing).
type Message struct {
	Level string `json:"level"`
	Text  string `json:"text"`
}

// Pose is an SDF pose: position in metres, then roll, pitch, yaw in radians.
type Pose struct {
	XYZ []float64 `json:"xyz"`
	RPY []float64 `json:"rpy"`
}

// Inertia is a link's inertia tensor about its centre of mass, in the
// inertial frame, kg m^2, as SDF's <inertia> gives it.
type Inertia struct {
	IXX float64 `json:"ixx"`
	IYY float64 `json:"iyy"`
	IZZ float64 `json:"izz"`
	IXY float64 `json:"ixy"`
	IXZ float64 `json:"ixz"`
	IYZ float64 `json:"iyz"`
}

// Link is one link as libsdformat loaded it.
type Link struct {
	Name   string  `json:"name"`
	MassKg float64 `json:"mass_kg"`
	// Inertia is about the centre of mass, axes of InertialPose.
	Inertia Inertia `json:"inertia_kg_m2"`
	// InertialPose is the centre of mass (and inertia axes) in the link frame.
	InertialPose Pose `json:"inertial_pose"`
	// Pose is the link's pose as written, relative to PoseRelativeTo
	// ("" is the model frame).
	Pose           Pose   `json:"pose"`
	PoseRelativeTo string `json:"pose_relative_to"`
	// PoseInModel is the pose resolved in the model frame; null when
	// libsdformat cannot resolve it (its errors say why).
	PoseInModel    *Pose `json:"pose_in_model"`
	VisualCount    int   `json:"visual_count"`
	CollisionCount int   `json:"collision_count"`
}

// Joint is one joint as libsdformat loaded it.
type Joint struct {
	Name string `json:"name"`
	// Type is SDF's: fixed, revolute, continuous, prismatic, ball, screw,
	// universal, revolute2, gearbox (invalid for an unknown one).
	Type   string `json:"type"`
	Parent string `json:"parent"`
	Child  string `json:"child"`
	// Axis is null for a joint without one (fixed, ball).
	Axis           *Axis  `json:"axis"`
	Axis2          *Axis  `json:"axis2,omitempty"`
	Pose           Pose   `json:"pose"`
	PoseRelativeTo string `json:"pose_relative_to"`
}

// Axis is a joint axis: its unit vector as written and in the model frame,
// and its limits (rad or m; libsdformat's +-1e16 where none are given).
// Effort and velocity are null when unlimited: libsdformat holds infinity
// for a limit the file leaves out, which JSON cannot carry.
type Axis struct {
	XYZ         []float64 `json:"xyz"`
	ExpressedIn string    `json:"expressed_in"`
	XYZInModel  []float64 `json:"xyz_in_model,omitempty"`
	Lower       *float64  `json:"lower"`
	Upper       *float64  `json:"upper"`
	Effort      *float64  `json:"effort"`
	Velocity    *float64  `json:"velocity"`
}
