package twin

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// A design sketch: the intent behind a shape, before it is modelled, as 2D
// sketch entities on a plane or as a description, with the parameters
// that drive it. Each entity has the points its kind needs (a line two
// distinct points, an arc three points not on one line...), so a sketch
// read back can be drawn.

// sketchPlanes are the planes a sketch may lie on.
var sketchPlanes = []string{"XY", "XZ", "YZ"}

// SketchEntityKinds are the kinds of sketch entity.
var SketchEntityKinds = []string{"point", "line", "arc", "circle", "rectangle", "polygon", "spline"}

// SketchEntity is one 2D entity of a sketch, in the sketch's unit.
type SketchEntity struct {
	Kind         string       `json:"kind" jsonschema:"point, line, arc, circle, rectangle, polygon or spline"`
	Points       [][2]float64 `json:"points,omitempty" jsonschema:"[x, y] in the sketch's unit: point 1; line 2 (ends); arc 3 (start, a point on it, end); circle 1 (centre) with radius; rectangle 2 (opposite corners); polygon 3 or more; spline 2 or more"`
	Radius       *float64     `json:"radius,omitempty" jsonschema:"a circle's radius"`
	Label        string       `json:"label,omitempty" jsonschema:"what the entity is (outer profile, mounting hole)"`
	Construction bool         `json:"construction,omitempty" jsonschema:"true for construction geometry, not part of the profile"`
}

// SketchParameter is a value that drives the sketch.
type SketchParameter struct {
	Name  string   `json:"name" jsonschema:"the parameter (wall_thickness, hole_spacing)"`
	Value *float64 `json:"value" jsonschema:"its value"`
	Unit  string   `json:"unit,omitempty" jsonschema:"its unit (mm, deg); leave out for a ratio or a count"`
	Note  string   `json:"note,omitempty" jsonschema:"why this value"`
}

// DesignSketch is the content of a design sketch.
type DesignSketch struct {
	Intent      string            `json:"intent" jsonschema:"what the shape must do (hold the servo 40 mm off the base plate)"`
	Plane       string            `json:"plane,omitempty" jsonschema:"the sketch plane: XY, XZ or YZ (XY when not given)"`
	Unit        string            `json:"unit,omitempty" jsonschema:"the length unit of the entities' coordinates (mm when not given)"`
	Entities    []SketchEntity    `json:"entities,omitempty" jsonschema:"the sketch's entities; give these or description, or both"`
	Description string            `json:"description,omitempty" jsonschema:"the sketch in words, when it has no entities yet"`
	Parameters  []SketchParameter `json:"parameters,omitempty" jsonschema:"the values that drive it"`
}

func (d DesignSketch) plane() string {
	if p := strings.ToUpper(strings.TrimSpace(d.Plane)); p != "" {
		return p
	}
	return "XY"
}

func (d DesignSketch) unit() string {
	if u := strings.TrimSpace(d.Unit); u != "" {
		return u
	}
	return "mm"
}

// DocumentType implements TypedDocument.
func (DesignSketch) DocumentType() string { return "design_sketch" }

// Check implements TypedDocument: an intent; entities or a description; a
// known plane and a length unit; each entity with the points its kind
// needs; parameters named once each, with a value and a unit that reads.
func (d DesignSketch) Check() error {
	if blank(d.Intent) {
		return Refusef("intent is blank: say what the shape must do")
	}
	if len(d.Entities) == 0 && blank(d.Description) {
		return Refusef("give the sketch as entities (kind, points) or as a description, or both")
	}
	if !slices.Contains(sketchPlanes, d.plane()) {
		return Refusef("plane %q; use XY, XZ or YZ", d.Plane)
	}
	if dim, err := units.Dimension(d.unit()); err != nil || dim != units.Length {
		return Refusef("unit %q: the entities' coordinates are lengths (mm, in)", d.Unit)
	}
	for i, e := range d.Entities {
		if err := e.check(i); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for i, p := range d.Parameters {
		mk := MetricKey(p.Name)
		switch {
		case mk == "":
			return Refusef("parameters[%d].name is blank", i)
		case seen[mk]:
			return Refusef("parameters names %s twice; give each once", p.Name)
		case p.Value == nil || !finite(*p.Value):
			return Refusef("parameters[%d] (%s): value must be a number", i, p.Name)
		}
		if u := strings.TrimSpace(p.Unit); u != "" {
			if _, err := units.Dimension(u); err != nil {
				return Refusef("parameters[%d] (%s): unit %q is not a unit this server reads; leave it out for a ratio or a count", i, p.Name, p.Unit)
			}
		}
		seen[mk] = true
	}
	return nil
}

// check refuses an entity of an unknown kind, or without the geometry its
// kind needs.
func (e SketchEntity) check(i int) error {
	name := fmt.Sprintf("entities[%d] (%s)", i, e.Kind)
	for _, p := range e.Points {
		if !finite(p[0]) || !finite(p[1]) {
			return Refusef("%s: every point is two finite numbers", name)
		}
	}
	n := len(e.Points)
	need := func(want string, ok bool) error {
		if ok {
			return nil
		}
		return Refusef("%s has %d points; a %s needs %s", name, n, e.Kind, want)
	}
	if e.Radius != nil && e.Kind != "circle" {
		return Refusef("%s: only a circle takes radius (an arc is its three points)", name)
	}
	switch e.Kind {
	case "point":
		return need("1", n == 1)
	case "line":
		if err := need("2 (its ends)", n == 2); err != nil {
			return err
		}
		if e.Points[0] == e.Points[1] {
			return Refusef("%s: its ends are the same point", name)
		}
	case "arc":
		if err := need("3 (start, a point on it, end)", n == 3); err != nil {
			return err
		}
		a, b, c := e.Points[0], e.Points[1], e.Points[2]
		cross := (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
		scale := math.Max(math.Hypot(b[0]-a[0], b[1]-a[1]), math.Hypot(c[0]-a[0], c[1]-a[1]))
		if scale == 0 || math.Abs(cross) <= 1e-12*scale*scale {
			return Refusef("%s: its three points lie on one line, so no arc passes through them", name)
		}
	case "circle":
		if err := need("1 (its centre) and a radius", n == 1); err != nil {
			return err
		}
		if e.Radius == nil || !finite(*e.Radius) || *e.Radius <= 0 {
			return Refusef("%s: radius must be a number > 0", name)
		}
	case "rectangle":
		if err := need("2 (opposite corners)", n == 2); err != nil {
			return err
		}
		if e.Points[0][0] == e.Points[1][0] || e.Points[0][1] == e.Points[1][1] {
			return Refusef("%s: opposite corners differ in both x and y, or the rectangle has no area", name)
		}
	case "polygon":
		return need("3 or more", n >= 3)
	case "spline":
		return need("2 or more", n >= 2)
	default:
		return Refusef("entities[%d]: kind %q; use one of %s", i, e.Kind, strings.Join(SketchEntityKinds, ", "))
	}
	return nil
}

// Markdown implements TypedDocument.
func (d DesignSketch) Markdown(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nDesign sketch on the %s plane, in %s.\n\n## Intent\n\n%s\n", title, d.plane(), d.unit(), strings.TrimSpace(d.Intent))
	if !blank(d.Description) {
		fmt.Fprintf(&b, "\n## Description\n\n%s\n", strings.TrimSpace(d.Description))
	}
	if len(d.Entities) > 0 {
		b.WriteString("\n## Entities\n\n| Kind | Points | Radius | Label |\n| --- | --- | --- | --- |\n")
		for _, e := range d.Entities {
			pts := make([]string, len(e.Points))
			for i, p := range e.Points {
				pts[i] = fmt.Sprintf("(%s, %s)", units.Format(p[0]), units.Format(p[1]))
			}
			radius := "-"
			if e.Radius != nil {
				radius = units.Format(*e.Radius)
			}
			kind := e.Kind
			if e.Construction {
				kind += " (construction)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", kind, strings.Join(pts, " "), radius, mdCell(e.Label))
		}
	}
	if len(d.Parameters) > 0 {
		b.WriteString("\n## Parameters\n\n| Name | Value | Unit | Note |\n| --- | --- | --- | --- |\n")
		for _, p := range d.Parameters {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCell(p.Name), units.Format(*p.Value), mdCell(p.Unit), mdCell(p.Note))
		}
	}
	return b.String()
}

// Summary implements TypedDocument: the entity count by kind and the
// parameters by name.
func (d DesignSketch) Summary() map[string]any {
	kinds := map[string]any{}
	for _, e := range d.Entities {
		n, _ := kinds[e.Kind].(float64)
		kinds[e.Kind] = n + 1
	}
	params := map[string]any{}
	for _, p := range d.Parameters {
		params[strings.TrimSpace(p.Name)] = map[string]any{"value": *p.Value, "unit": strings.TrimSpace(p.Unit)}
	}
	return map[string]any{"plane": d.plane(), "unit": d.unit(), "entities": float64(len(d.Entities)), "entities_by_kind": kinds,
		"parameters": params, "has_description": !blank(d.Description)}
}

// Concerns implements TypedDocument: a sketch names no item itself.
func (DesignSketch) Concerns() []string { return nil }
