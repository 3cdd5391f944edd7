package physics

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// maxURDFBytes bounds the file read to check it: a robot description is
// text, and one this large is not a robot description.
const maxURDFBytes = 16 << 20

// robot is what the Go side needs of a URDF before PyBullet sees it: the
// robot's name, its joints (to check the joints a call names, in the
// tool's units) and the meshes it references (to check that each is a
// file inside the workspace, found relative to the URDF as PyBullet finds
// it).
type robot struct {
	File   string // absolute, inside the workspace
	Name   string
	Joints []robotJoint
}

// robotJoint is one <joint>; Lower and Upper are in the tool's units
// (deg for revolute, mm for prismatic) and set only for a limited joint.
type robotJoint struct {
	Name         string
	Type         string
	Lower, Upper *float64
}

// movable is a joint a call can set or drive: one degree of freedom,
// measured in deg or mm.
func (j robotJoint) movable() bool {
	return j.Type == "revolute" || j.Type == "continuous" || j.Type == "prismatic"
}

func (j robotJoint) unit() string {
	if j.Type == "prismatic" {
		return "mm"
	}
	return "deg"
}

// The parts of a URDF read here. Only <robot>'s own children count:
// a <transmission>'s <joint> is not a joint.
type urdfXML struct {
	XMLName xml.Name   `xml:"robot"`
	Name    string     `xml:"name,attr"`
	Links   []linkXML  `xml:"link"`
	Joints  []jointXML `xml:"joint"`
}

type linkXML struct {
	Name       string       `xml:"name,attr"`
	Visuals    []geomHolder `xml:"visual"`
	Collisions []geomHolder `xml:"collision"`
}

type geomHolder struct {
	Mesh *struct {
		Filename string `xml:"filename,attr"`
	} `xml:"geometry>mesh"`
}

type jointXML struct {
	Name  string `xml:"name,attr"`
	Type  string `xml:"type,attr"`
	Limit *struct {
		Lower *float64 `xml:"lower,attr"`
		Upper *float64 `xml:"upper,attr"`
	} `xml:"limit"`
}

// readRobot resolves field's path inside the workspace and checks that it
// is a URDF PyBullet can be given: a .urdf file whose root element is
// <robot>, with named links, and meshes that are files inside the
// workspace.
func readRobot(ws *workspace.Workspace, field, path string) (*robot, error) {
	file, err := ws.ResolveRead(field, path)
	if err != nil {
		return nil, err
	}
	if file, err = filepath.Abs(file); err != nil {
		return nil, protocol.Invalid("%s %q has no absolute path: %v", field, path, err)
	}
	lower := strings.ToLower(file)
	switch {
	case strings.HasSuffix(lower, ".xacro"):
		return nil, protocol.Invalid("%s %q is a xacro macro file; expand it to a plain URDF first (`xacro %s > robot.urdf`) and give that",
			field, path, filepath.Base(file))
	case filepath.Ext(lower) != ".urdf":
		return nil, protocol.Invalid("%s %q is not a URDF file: give a .urdf robot description (cadquery.export_urdf_assembly writes one)", field, path)
	}
	st, err := os.Stat(file)
	if err != nil {
		return nil, protocol.Invalid("%s %q cannot be read: %v", field, path, err)
	}
	if st.Size() > maxURDFBytes {
		return nil, protocol.Invalid("%s %q is %d bytes, more than a robot description's %d; give the URDF, not a mesh or a bundle",
			field, path, st.Size(), maxURDFBytes)
	}
	body, err := os.ReadFile(file)
	if err != nil {
		return nil, protocol.Invalid("%s %q cannot be read: %v", field, path, err)
	}
	var doc urdfXML
	if err := xml.NewDecoder(bytes.NewReader(body)).Decode(&doc); err != nil {
		var notRobot xml.UnmarshalError
		if errors.As(err, &notRobot) {
			return nil, protocol.Invalid("%s %q is not a URDF: its root element is not <robot> (%v)", field, path, err)
		}
		return nil, protocol.Invalid("%s %q is not a URDF: it does not parse as XML (%v)", field, path, err)
	}
	if len(doc.Links) == 0 {
		return nil, protocol.Invalid("%s %q describes no <link>: a URDF robot needs at least one link", field, path)
	}
	r := &robot{File: file, Name: doc.Name}
	for i, l := range doc.Links {
		if l.Name == "" {
			return nil, protocol.Invalid("%s %q: link %d has no name; every <link> needs name=", field, path, i+1)
		}
		for _, g := range slices.Concat(l.Visuals, l.Collisions) {
			if g.Mesh == nil {
				continue
			}
			if err := checkMesh(ws, file, l.Name, g.Mesh.Filename); err != nil {
				return nil, err
			}
		}
	}
	for i, j := range doc.Joints {
		if j.Name == "" {
			return nil, protocol.Invalid("%s %q: joint %d has no name; every <joint> needs name=", field, path, i+1)
		}
		rj := robotJoint{Name: j.Name, Type: j.Type}
		if j.Limit != nil && (j.Type == "revolute" || j.Type == "prismatic") {
			scale := 180 / math.Pi
			if j.Type == "prismatic" {
				scale = 1000
			}
			lo, hi := 0.0, 0.0 // URDF's defaults for a <limit> without them
			if j.Limit.Lower != nil {
				lo = *j.Limit.Lower
			}
			if j.Limit.Upper != nil {
				hi = *j.Limit.Upper
			}
			lo, hi = lo*scale, hi*scale
			rj.Lower, rj.Upper = &lo, &hi
		}
		r.Joints = append(r.Joints, rj)
	}
	return r, nil
}

// checkMesh finds a mesh the URDF references as PyBullet will: relative
// to the URDF's folder (file:// stripped). A ROS package:// address cannot
// be found without ROS and is refused with what to write instead.
func checkMesh(ws *workspace.Workspace, urdf, link, name string) error {
	field := fmt.Sprintf("the mesh of link %q in %s", link, filepath.Base(urdf))
	switch {
	case name == "":
		return protocol.Invalid("%s has no filename; give the mesh file's path relative to the URDF", field)
	case strings.HasPrefix(name, "package://"):
		return protocol.Invalid("%s is %q, a ROS package address, which cannot be found without ROS; write the mesh's path "+
			"relative to the URDF's folder instead", field, name)
	}
	name = strings.TrimPrefix(name, "file://")
	if !filepath.IsAbs(name) {
		name = filepath.Join(filepath.Dir(urdf), name)
	}
	if _, err := ws.ResolveRead(field, name); err != nil {
		return err
	}
	return nil
}

// joint is the movable joint called name, or an error saying which
// joints there are; field names the argument that named it.
func (r *robot) joint(field, name string) (robotJoint, error) {
	var movable []string
	for _, j := range r.Joints {
		if j.Name == name {
			if !j.movable() {
				return j, protocol.Invalid("%s names joint %q, a %s joint, which has no position to set; name a revolute, "+
					"continuous or prismatic joint", field, name, j.Type)
			}
			return j, nil
		}
		if j.movable() {
			movable = append(movable, j.Name)
		}
	}
	if len(movable) == 0 {
		return robotJoint{}, protocol.Invalid("%s names joint %q, but robot %q in %s has no movable joint", field, name, r.Name, filepath.Base(r.File))
	}
	return robotJoint{}, protocol.Invalid("%s names joint %q, which robot %q does not have; its movable joints are %s",
		field, name, r.Name, strings.Join(r.movableNames(), ", "))
}

func (r *robot) movableNames() []string {
	var out []string
	for _, j := range r.Joints {
		if j.movable() {
			out = append(out, j.Name)
		}
	}
	return out
}

// jointValues checks a {joint: value} argument: every name a movable
// joint, every value within the joint's limits, in the joint's unit.
func (r *robot) jointValues(field string, values map[string]float64) error {
	for _, name := range slices.Sorted(maps.Keys(values)) {
		j, err := r.joint(field, name)
		if err != nil {
			return err
		}
		v := values[name]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return protocol.Invalid("%s.%s must be a finite number (%s)", field, name, j.unit())
		}
		if j.Lower != nil && (v < *j.Lower-1e-9 || v > *j.Upper+1e-9) {
			return protocol.Invalid("%s.%s is %g %s, outside the joint's limits [%.6g, %.6g] %s in the URDF",
				field, name, v, j.unit(), *j.Lower, *j.Upper, j.unit())
		}
	}
	return nil
}
