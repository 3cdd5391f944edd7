package twin

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A URDF is a rigid-body graph: links joined by joints, each joint naming
// its parent and child link. That is the shape a system architecture
// already holds (subsystems and the interfaces between them), so a URDF is
// read into one, and everything the architecture has no place for is
// named in NotImported rather than dropped in silence.

// URDFJointTypes are the joint types the URDF specification defines.
var URDFJointTypes = []string{"revolute", "continuous", "prismatic", "fixed", "floating", "planar"}

// NotImported is one thing a file held that an import did not record, and
// why.
type NotImported struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Detail string `json:"detail"`
}

// URDFRobot is what a URDF describes, as read.
type URDFRobot struct {
	Name        string
	Links       []ArchitectureSubsystem
	Joints      []ArchitectureInterface
	NotImported []NotImported
}

type urdfDoc struct {
	XMLName xml.Name
	Name    string      `xml:"name,attr"`
	Links   []urdfLink  `xml:"link"`
	Joints  []urdfJoint `xml:"joint"`
	Other   []xmlAny    `xml:",any"`
}

type xmlAny struct {
	XMLName xml.Name
	Name    string `xml:"name,attr"`
}

type urdfLink struct {
	Name       string         `xml:"name,attr"`
	Inertial   *urdfInertial  `xml:"inertial"`
	Visuals    []urdfGeometry `xml:"visual"`
	Collisions []urdfGeometry `xml:"collision"`
	Other      []xmlAny       `xml:",any"`
}

type urdfInertial struct {
	Origin  *urdfOrigin `xml:"origin"`
	Mass    *urdfValue  `xml:"mass"`
	Inertia *struct {
		IXX string `xml:"ixx,attr"`
		IXY string `xml:"ixy,attr"`
		IXZ string `xml:"ixz,attr"`
		IYY string `xml:"iyy,attr"`
		IYZ string `xml:"iyz,attr"`
		IZZ string `xml:"izz,attr"`
	} `xml:"inertia"`
}

type urdfValue struct {
	Value string `xml:"value,attr"`
}

type urdfOrigin struct {
	XYZ string `xml:"xyz,attr"`
	RPY string `xml:"rpy,attr"`
}

type urdfGeometry struct {
	Name     string `xml:"name,attr"`
	Geometry struct {
		Box *struct {
			Size string `xml:"size,attr"`
		} `xml:"box"`
		Cylinder *struct {
			Radius string `xml:"radius,attr"`
			Length string `xml:"length,attr"`
		} `xml:"cylinder"`
		Sphere *struct {
			Radius string `xml:"radius,attr"`
		} `xml:"sphere"`
		Mesh *struct {
			Filename string `xml:"filename,attr"`
		} `xml:"mesh"`
	} `xml:"geometry"`
}

type urdfJoint struct {
	Name   string      `xml:"name,attr"`
	Type   string      `xml:"type,attr"`
	Origin *urdfOrigin `xml:"origin"`
	Parent *struct {
		Link string `xml:"link,attr"`
	} `xml:"parent"`
	Child *struct {
		Link string `xml:"link,attr"`
	} `xml:"child"`
	Axis *struct {
		XYZ string `xml:"xyz,attr"`
	} `xml:"axis"`
	Limit *struct {
		Lower    string `xml:"lower,attr"`
		Upper    string `xml:"upper,attr"`
		Effort   string `xml:"effort,attr"`
		Velocity string `xml:"velocity,attr"`
	} `xml:"limit"`
	Other []xmlAny `xml:",any"`
}

// ParseURDF reads a URDF's links and joints. A document that is not a URDF
// is refused rather than partly read: XML that does not parse, a root that
// is not <robot>, no links, a link or joint with no name or a name used
// twice, a number that does not parse. Joints of a type the specification
// does not define, or naming a link the file lacks, meshes (referenced by
// path, usually package:// URIs that resolve only in a ROS workspace) and
// elements the architecture has no place for are listed in NotImported.
func ParseURDF(data []byte) (URDFRobot, error) {
	var doc urdfDoc
	dec := xml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return URDFRobot{}, Refusef("the file is not a URDF: its XML does not parse (%v); pass a URDF (<robot> with <link> and <joint> elements)", err)
	}
	if doc.XMLName.Local != "robot" {
		return URDFRobot{}, Refusef("the file is not a URDF: its root element is <%s>, not <robot>; pass a URDF (an SDF or xacro must be converted first)", doc.XMLName.Local)
	}
	if len(doc.Links) == 0 {
		return URDFRobot{}, Refusef("the URDF %q has no <link>; there is nothing to import", doc.Name)
	}
	r := URDFRobot{Name: strings.TrimSpace(doc.Name)}
	if r.Name == "" {
		return URDFRobot{}, Refusef("the URDF's <robot> has no name attribute; a URDF names its robot")
	}
	links := map[string]bool{}
	for i, l := range doc.Links {
		name := strings.TrimSpace(l.Name)
		if name == "" {
			return URDFRobot{}, Refusef("link %d of the URDF has no name; every <link> is named", i+1)
		}
		if links[name] {
			return URDFRobot{}, Refusef("the URDF names two links %q; link names are unique in a URDF", name)
		}
		links[name] = true
		sub, skipped, err := urdfLinkSubsystem(r.Name, l)
		if err != nil {
			return URDFRobot{}, refusalAbout("link "+strconv.Quote(name), err)
		}
		r.Links = append(r.Links, sub)
		r.NotImported = append(r.NotImported, skipped...)
	}
	joints := map[string]bool{}
	parentOf := map[string]string{}
	for i, j := range doc.Joints {
		name := strings.TrimSpace(j.Name)
		if name == "" {
			return URDFRobot{}, Refusef("joint %d of the URDF has no name; every <joint> is named", i+1)
		}
		if joints[name] {
			return URDFRobot{}, Refusef("the URDF names two joints %q; joint names are unique in a URDF", name)
		}
		joints[name] = true
		in, skip, err := urdfJointInterface(j, links, parentOf)
		if err != nil {
			return URDFRobot{}, refusalAbout("joint "+strconv.Quote(name), err)
		}
		if skip != nil {
			r.NotImported = append(r.NotImported, *skip)
			continue
		}
		parentOf[in.To] = name
		r.Joints = append(r.Joints, in)
		for _, o := range j.Other {
			r.NotImported = append(r.NotImported, NotImported{Kind: "joint_" + o.XMLName.Local, Name: name,
				Detail: "<" + o.XMLName.Local + "> (dynamics, calibration, mimic or controller settings) has no place in the architecture; the joint was imported without it"})
		}
	}
	for _, o := range doc.Other {
		r.NotImported = append(r.NotImported, NotImported{Kind: o.XMLName.Local, Name: o.Name,
			Detail: "<" + o.XMLName.Local + "> at the top of the URDF (materials, transmissions, simulator extensions) is not part of the rigid-body graph and was not imported"})
	}
	return r, nil
}

// urdfLinkSubsystem is a link as a subsystem: its inertial kept, its
// primitive shapes described, its meshes listed as not imported.
func urdfLinkSubsystem(robot string, l urdfLink) (ArchitectureSubsystem, []NotImported, error) {
	name := strings.TrimSpace(l.Name)
	sub := ArchitectureSubsystem{Name: name}
	var shapes []string
	var skipped []NotImported
	for _, g := range []struct {
		role  string
		items []urdfGeometry
	}{{"visual", l.Visuals}, {"collision", l.Collisions}} {
		for _, item := range g.items {
			geo := item.Geometry
			switch {
			case geo.Box != nil:
				shapes = append(shapes, g.role+" box "+strings.Join(strings.Fields(geo.Box.Size), " x ")+" m")
			case geo.Cylinder != nil:
				shapes = append(shapes, fmt.Sprintf("%s cylinder r %s m, length %s m", g.role, geo.Cylinder.Radius, geo.Cylinder.Length))
			case geo.Sphere != nil:
				shapes = append(shapes, fmt.Sprintf("%s sphere r %s m", g.role, geo.Sphere.Radius))
			case geo.Mesh != nil:
				skipped = append(skipped, NotImported{Kind: "mesh", Name: name + "/" + g.role,
					Detail: geo.Mesh.Filename + " -- geometry is referenced by path and was not resolved; the structure was imported without it"})
			}
		}
	}
	for _, o := range l.Other {
		skipped = append(skipped, NotImported{Kind: "link_" + o.XMLName.Local, Name: name,
			Detail: "<" + o.XMLName.Local + "> of a link has no place in the architecture; the link was imported without it"})
	}
	sub.Description = "URDF link of " + robot
	if len(shapes) > 0 {
		sub.Description += ": " + strings.Join(shapes, "; ")
	}
	if l.Inertial != nil {
		in, err := urdfInertialOf(*l.Inertial)
		if err != nil {
			return sub, nil, err
		}
		sub.Inertial = in
	}
	return sub, skipped, nil
}

func urdfInertialOf(x urdfInertial) (*LinkInertial, error) {
	in := &LinkInertial{}
	if x.Mass != nil {
		m, err := urdfNumber("inertial mass value", x.Mass.Value)
		if err != nil {
			return nil, err
		}
		in.MassKg = &m
	}
	if x.Origin != nil {
		var err error
		if in.OriginXYZM, err = urdfTriple("inertial origin xyz", x.Origin.XYZ); err != nil {
			return nil, err
		}
		if in.OriginRPY, err = urdfTriple("inertial origin rpy", x.Origin.RPY); err != nil {
			return nil, err
		}
	}
	if t := x.Inertia; t != nil {
		var v [6]float64
		for i, f := range []struct{ name, text string }{{"ixx", t.IXX}, {"ixy", t.IXY}, {"ixz", t.IXZ}, {"iyy", t.IYY}, {"iyz", t.IYZ}, {"izz", t.IZZ}} {
			n, err := urdfNumber("inertia "+f.name, f.text)
			if err != nil {
				return nil, err
			}
			v[i] = n
		}
		in.InertiaKgM2 = &v
	}
	return in, nil
}

// urdfJointInterface is a joint as an interface from its parent link to its
// child, or what was not imported when its type or links are not ones
// the file defines, or its child already has a parent joint.
func urdfJointInterface(j urdfJoint, links map[string]bool, parentOf map[string]string) (ArchitectureInterface, *NotImported, error) {
	name := strings.TrimSpace(j.Name)
	typ := strings.TrimSpace(j.Type)
	if !slices.Contains(URDFJointTypes, typ) {
		return ArchitectureInterface{}, &NotImported{Kind: "joint", Name: name,
			Detail: fmt.Sprintf("type %q is not a URDF joint type (%s); it was not guessed at", typ, strings.Join(URDFJointTypes, ", "))}, nil
	}
	var parent, child string
	if j.Parent != nil {
		parent = strings.TrimSpace(j.Parent.Link)
	}
	if j.Child != nil {
		child = strings.TrimSpace(j.Child.Link)
	}
	for _, end := range []struct{ role, link string }{{"parent", parent}, {"child", child}} {
		if end.link == "" {
			return ArchitectureInterface{}, &NotImported{Kind: "joint", Name: name, Detail: "it names no " + end.role + " link"}, nil
		}
		if !links[end.link] {
			return ArchitectureInterface{}, &NotImported{Kind: "joint", Name: name,
				Detail: fmt.Sprintf("its %s link %q is not a link of this URDF", end.role, end.link)}, nil
		}
	}
	if parent == child {
		return ArchitectureInterface{}, &NotImported{Kind: "joint", Name: name, Detail: fmt.Sprintf("it joins link %q to itself", parent)}, nil
	}
	if other, ok := parentOf[child]; ok {
		return ArchitectureInterface{}, &NotImported{Kind: "joint", Name: name,
			Detail: fmt.Sprintf("link %q already has parent joint %q; a URDF link has one parent", child, other)}, nil
	}
	jt := &InterfaceJoint{Type: typ}
	var err error
	if j.Origin != nil {
		if jt.OriginXYZM, err = urdfTriple("origin xyz", j.Origin.XYZ); err != nil {
			return ArchitectureInterface{}, nil, err
		}
		if jt.OriginRPY, err = urdfTriple("origin rpy", j.Origin.RPY); err != nil {
			return ArchitectureInterface{}, nil, err
		}
	}
	if j.Axis != nil {
		if jt.Axis, err = urdfTriple("axis xyz", j.Axis.XYZ); err != nil {
			return ArchitectureInterface{}, nil, err
		}
	}
	if l := j.Limit; l != nil {
		for _, f := range []struct {
			name, text string
			to         **float64
		}{{"lower", l.Lower, &jt.Lower}, {"upper", l.Upper, &jt.Upper}, {"effort", l.Effort, &jt.Effort}, {"velocity", l.Velocity, &jt.Velocity}} {
			if strings.TrimSpace(f.text) == "" {
				continue
			}
			v, err := urdfNumber("limit "+f.name, f.text)
			if err != nil {
				return ArchitectureInterface{}, nil, err
			}
			*f.to = &v
		}
	}
	return ArchitectureInterface{Name: name, From: parent, To: child, Kind: "mechanical", Joint: jt}, nil, nil
}

func urdfNumber(what, text string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, Refusef("%s %q is not a number", what, text)
	}
	return v, nil
}

// urdfTriple reads "x y z"; an absent attribute is nil (URDF's default).
func urdfTriple(what, text string) (*[3]float64, error) {
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return nil, nil
	}
	if len(fields) != 3 {
		return nil, Refusef("%s %q is not three numbers", what, text)
	}
	var v [3]float64
	for i, f := range fields {
		n, err := urdfNumber(what, f)
		if err != nil {
			return nil, err
		}
		v[i] = n
	}
	return &v, nil
}
