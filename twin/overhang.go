package twin

import (
	"fmt"
	"math"
	"sort"
)

// The 3D-printing overhang check, a design-for-manufacture rule: a face
// that leans further from the vertical build axis than the printer's
// self-supporting angle (45 degrees is the usual FDM convention) needs
// support material under it. The check is undirected on purpose: a mesh
// face's mean normal is not guaranteed to point out of the part, so it
// cannot tell a ceiling (an overhang) from a floor or a top (harmless),
// and flags near-horizontal faces either way rather than be confidently
// wrong. It is advisory: nothing gates on it.

// DefaultOverhangDeg is the self-supporting angle checked when none is
// given, from the vertical.
const DefaultOverhangDeg = 45

// overhangSlackDeg absorbs the rounding of a mesh's face normals, so a
// face at exactly the threshold (a 45 degree chamfer) is not flagged.
const overhangSlackDeg = 1e-6

// MeshFace is one named face of a mesh as its face table gives it: its
// area and its area-averaged unit normal (zero for a face with no mean
// direction, such as a full cylinder).
type MeshFace struct {
	Name    string
	AreaMM2 float64
	Normal  [3]float64
}

// OverhangFace is one face judged: TiltDeg is how far it leans from the
// build axis's vertical (0 a wall, 90 horizontal), AxisDot the cosine of
// its normal to the axis, whose sign the check ignores.
type OverhangFace struct {
	Name    string  `json:"name"`
	AreaMM2 float64 `json:"area_mm2"`
	TiltDeg float64 `json:"tilt_deg"`
	AxisDot float64 `json:"normal_dot_axis"`
	Flagged bool    `json:"flagged"`
}

// Overhangs is the check's answer.
type Overhangs struct {
	ThresholdDeg float64    `json:"threshold_deg"`
	BuildAxis    [3]float64 `json:"build_axis"` // unit
	Faces        []OverhangFace
	// Flagged names the faces tilted past the threshold, by decreasing
	// area; FlaggedAreaMM2 is their total, TotalAreaMM2 every judged face's.
	Flagged        []string
	FlaggedAreaMM2 float64
	TotalAreaMM2   float64
	// NotJudged names the faces with no mean direction: no tilt, so
	// neither flagged nor cleared.
	NotJudged []string
}

// CheckOverhangs judges each face against the threshold (degrees from the
// vertical, 0 < threshold < 90) and the build axis (any non-zero vector;
// its sign does not matter). A face table with no face to judge is
// refused: absence is not a pass.
func CheckOverhangs(faces []MeshFace, axis [3]float64, thresholdDeg float64) (Overhangs, error) {
	norm, err := checkOverhangSettings(axis, thresholdDeg)
	if err != nil {
		return Overhangs{}, err
	}
	out := Overhangs{ThresholdDeg: thresholdDeg}
	for k := range 3 {
		out.BuildAxis[k] = axis[k] / norm
	}
	for _, f := range faces {
		n := math.Sqrt(f.Normal[0]*f.Normal[0] + f.Normal[1]*f.Normal[1] + f.Normal[2]*f.Normal[2])
		if !(n > 0) {
			out.NotJudged = append(out.NotJudged, f.Name)
			continue
		}
		dot := (f.Normal[0]*out.BuildAxis[0] + f.Normal[1]*out.BuildAxis[1] + f.Normal[2]*out.BuildAxis[2]) / n
		dot = math.Max(-1, math.Min(1, dot))
		// The face's plane leans from the vertical by the angle its
		// normal makes with the horizontal: asin |n . axis|.
		tilt := math.Asin(math.Abs(dot)) * 180 / math.Pi
		j := OverhangFace{Name: f.Name, AreaMM2: f.AreaMM2, TiltDeg: tilt, AxisDot: dot, Flagged: tilt > thresholdDeg+overhangSlackDeg}
		out.Faces = append(out.Faces, j)
		out.TotalAreaMM2 += f.AreaMM2
		if j.Flagged {
			out.FlaggedAreaMM2 += f.AreaMM2
		}
	}
	if len(out.Faces) == 0 {
		if len(faces) == 0 {
			return Overhangs{}, Refusef("the face table has no faces: mesh the part with gmsh.generate_mesh and pass its mesh_file")
		}
		return Overhangs{}, Refusef("no face of the mesh has a direction (%d faces, all without a mean normal, such as a sphere's), "+
			"so none can be judged", len(faces))
	}
	flagged := make([]OverhangFace, 0, len(out.Faces))
	for _, f := range out.Faces {
		if f.Flagged {
			flagged = append(flagged, f)
		}
	}
	sort.SliceStable(flagged, func(i, j int) bool { return flagged[i].AreaMM2 > flagged[j].AreaMM2 })
	for _, f := range flagged {
		out.Flagged = append(out.Flagged, f.Name)
	}
	return out, nil
}

// Summary is the check's one line, saying it is undirected.
func (o Overhangs) Summary() string {
	s := fmt.Sprintf("%d of %d faces lean more than %g° from the build axis (%.6g of %.6g mm2)", len(o.Flagged), len(o.Faces),
		o.ThresholdDeg, o.FlaggedAreaMM2, o.TotalAreaMM2)
	if len(o.NotJudged) > 0 {
		s += fmt.Sprintf("; %d faces have no mean direction and were not judged", len(o.NotJudged))
	}
	return s + ". Undirected: a face's normal may not point out of the part, so an upward-facing face (a top) is flagged " +
		"as a downward one (an unsupported ceiling) would be; read normal_dot_axis where the normals are known to point outward"
}

// OverhangCall is one overhang check of a work product's mesh.
type OverhangCall struct {
	CallID, ProjectID, WorkProductID, MeshFile string
	ThresholdDeg                               float64
	BuildAxis                                  [3]float64
}

// Check refuses a threshold or an axis the check cannot use, before
// anything is run.
func (c OverhangCall) Check() error {
	_, err := checkOverhangSettings(c.BuildAxis, c.ThresholdDeg)
	return err
}

// checkOverhangSettings refuses an angle out of range and an axis of no
// length, and returns the axis's length.
func checkOverhangSettings(axis [3]float64, thresholdDeg float64) (float64, error) {
	if !(thresholdDeg > 0 && thresholdDeg < 90) {
		return 0, Refusef("threshold_deg %g is not an angle from the vertical between 0 and 90 (exclusive): "+
			"pass the printer's self-supporting angle, %d for the usual FDM rule", thresholdDeg, DefaultOverhangDeg)
	}
	norm := math.Sqrt(axis[0]*axis[0] + axis[1]*axis[1] + axis[2]*axis[2])
	if !(norm > 0) || math.IsInf(norm, 0) {
		return 0, Refusef("build_axis %v has no direction: pass the printer's vertical, [0, 0, 1] for +Z", axis)
	}
	return norm, nil
}
