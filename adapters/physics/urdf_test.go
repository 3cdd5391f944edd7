package physics_test

import (
	"fmt"
	"math"
	"strings"
)

// The tests' robots are written here as URDF text from boxes, their
// inertials derived in the test from the box formula and the parallel-axis
// theorem: nothing but the simulation is taken on trust.

// box is a solid block of one density: size in m, centred at at (m) in
// its link's frame, axis-aligned.
type box struct {
	size    [3]float64
	at      [3]float64
	density float64 // kg/m^3
}

func (b box) mass() float64 { return b.density * b.size[0] * b.size[1] * b.size[2] }

// link is one URDF link made of boxes, each also its collision shape.
type link struct {
	name  string
	boxes []box
	// rpy turns every box (and the inertial) about the link's origin, rad;
	// a root link so turned stands tilted.
	rpy [3]float64
}

func (l link) mass() float64 {
	m := 0.0
	for _, b := range l.boxes {
		m += b.mass()
	}
	return m
}

// com is the centre of mass in the link's frame before rpy.
func (l link) com() [3]float64 {
	var c [3]float64
	for _, b := range l.boxes {
		for i := range c {
			c[i] += b.mass() * b.at[i]
		}
	}
	for i := range c {
		c[i] /= l.mass()
	}
	return c
}

// inertia is the tensor about the centre of mass, axes of the link before
// rpy: each box's own (m (b^2 + c^2) / 12 on the diagonal) moved by the
// parallel-axis theorem, I_ij += m (|d|^2 delta_ij - d_i d_j), d from the
// centre of mass to the box's centre; URDF's ixy is the tensor's element.
func (l link) inertia() [3][3]float64 {
	var in [3][3]float64
	c := l.com()
	for _, b := range l.boxes {
		m := b.mass()
		s := b.size
		own := [3]float64{m * (s[1]*s[1] + s[2]*s[2]) / 12, m * (s[0]*s[0] + s[2]*s[2]) / 12, m * (s[0]*s[0] + s[1]*s[1]) / 12}
		d := [3]float64{b.at[0] - c[0], b.at[1] - c[1], b.at[2] - c[2]}
		d2 := d[0]*d[0] + d[1]*d[1] + d[2]*d[2]
		for i := 0; i < 3; i++ {
			in[i][i] += own[i]
			for j := 0; j < 3; j++ {
				delta := 0.0
				if i == j {
					delta = 1
				}
				in[i][j] += m * (d2*delta - d[i]*d[j])
			}
		}
	}
	return in
}

func (l link) xml() string {
	var sb strings.Builder
	rpy := xyz(l.rpy)
	in := l.inertia()
	fmt.Fprintf(&sb, "  <link name=%q>\n", l.name)
	fmt.Fprintf(&sb, "    <inertial><origin xyz=%q rpy=%q/><mass value=\"%g\"/>"+
		"<inertia ixx=\"%g\" iyy=\"%g\" izz=\"%g\" ixy=\"%g\" ixz=\"%g\" iyz=\"%g\"/></inertial>\n",
		xyz(rotate(l.rpy, l.com())), rpy, l.mass(), in[0][0], in[1][1], in[2][2], in[0][1], in[0][2], in[1][2])
	for _, b := range l.boxes {
		fmt.Fprintf(&sb, "    <collision><origin xyz=%q rpy=%q/><geometry><box size=%q/></geometry></collision>\n",
			xyz(rotate(l.rpy, b.at)), rpy, xyz(b.size))
	}
	sb.WriteString("  </link>\n")
	return sb.String()
}

// joint is one URDF joint; origin in the parent's frame (m), limits in
// rad or m (lower, upper, effort, velocity), none for a continuous joint.
type joint struct {
	name, kind, parent, child string
	origin, axis              [3]float64
	limit                     *[4]float64
}

func (j joint) xml() string {
	s := fmt.Sprintf("  <joint name=%q type=%q>\n    <parent link=%q/><child link=%q/>\n    <origin xyz=%q/><axis xyz=%q/>\n",
		j.name, j.kind, j.parent, j.child, xyz(j.origin), xyz(j.axis))
	if j.limit != nil {
		s += fmt.Sprintf("    <limit lower=\"%g\" upper=\"%g\" effort=\"%g\" velocity=\"%g\"/>\n", j.limit[0], j.limit[1], j.limit[2], j.limit[3])
	}
	return s + "  </joint>\n"
}

func robotXML(name string, links []link, joints []joint) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "<?xml version=\"1.0\"?>\n<robot name=%q>\n", name)
	for _, l := range links {
		sb.WriteString(l.xml())
	}
	for _, j := range joints {
		sb.WriteString(j.xml())
	}
	sb.WriteString("</robot>\n")
	return sb.String()
}

// rotate turns v by roll, pitch, yaw about fixed X, Y, Z (URDF's rpy).
func rotate(rpy [3]float64, v [3]float64) [3]float64 {
	rx := func(a float64, v [3]float64) [3]float64 {
		c, s := math.Cos(a), math.Sin(a)
		return [3]float64{v[0], c*v[1] - s*v[2], s*v[1] + c*v[2]}
	}
	ry := func(a float64, v [3]float64) [3]float64 {
		c, s := math.Cos(a), math.Sin(a)
		return [3]float64{c*v[0] + s*v[2], v[1], -s*v[0] + c*v[2]}
	}
	rz := func(a float64, v [3]float64) [3]float64 {
		c, s := math.Cos(a), math.Sin(a)
		return [3]float64{c*v[0] - s*v[1], s*v[0] + c*v[1], v[2]}
	}
	return rz(rpy[2], ry(rpy[1], rx(rpy[0], v)))
}
