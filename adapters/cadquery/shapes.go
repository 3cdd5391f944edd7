package cadquery

import (
	"fmt"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// dimension is one parameter of a parametric shape, in millimetres.
type dimension struct {
	name string
	def  float64
	// zeroOK allows 0, meaning "none" (no holes, no bore); other
	// dimensions must be above 0.
	zeroOK bool
	doc    string
}

// shape is one shape_type of cadquery.create_parametric. This table is the
// one definition of the shapes' parameters: the input schema, the tool's
// description and the checks come from it, and the kernel
// (python/cqkernel/shapes.py) builds each shape from a full, checked set.
type shape struct {
	name string
	doc  string
	dims []dimension
	// fits says what is wrong with dimensions that cannot make the shape.
	fits func(d map[string]float64) error
}

// shapes are sorted by name.
var shapes = []shape{
	{
		name: "box",
		doc:  "a rectangular block",
		dims: []dimension{
			{name: "length", def: 100, doc: "along X"},
			{name: "width", def: 50, doc: "along Y"},
			{name: "height", def: 20, doc: "along Z"},
		},
		fits: func(map[string]float64) error { return nil },
	},
	{
		name: "bracket",
		doc:  "an L bracket: a base along X and an upright along Z, extruded along Y, with a hole through each leg when hole_diameter is above 0",
		dims: []dimension{
			{name: "length", def: 50, doc: "of the base, along X"},
			{name: "width", def: 40, doc: "along Y"},
			{name: "height", def: 50, doc: "of the upright, along Z"},
			{name: "thickness", def: 5, doc: "of both legs"},
			{name: "hole_diameter", def: 0, zeroOK: true, doc: "of the hole in the middle of each leg; 0 for none"},
		},
		fits: func(d map[string]float64) error {
			return firstErr(
				less(d, "thickness", "length"), less(d, "thickness", "height"),
				holeFits(d, "width", d["width"]),
				holeFits(d, "length - thickness", d["length"]-d["thickness"]),
				holeFits(d, "height - thickness", d["height"]-d["thickness"]))
		},
	},
	{
		name: "cylinder",
		doc:  "a cylinder along Z, a tube when bore_diameter is above 0",
		dims: []dimension{
			{name: "diameter", def: 20, doc: "outer"},
			{name: "height", def: 50, doc: "along Z"},
			{name: "bore_diameter", def: 0, zeroOK: true, doc: "of the axial bore; 0 for a solid cylinder"},
		},
		fits: func(d map[string]float64) error { return less(d, "bore_diameter", "diameter") },
	},
	{
		name: "enclosure",
		doc:  "an open-top box whose walls and floor are wall_thickness thick",
		dims: []dimension{
			{name: "length", def: 100, doc: "outside, along X"},
			{name: "width", def: 60, doc: "outside, along Y"},
			{name: "height", def: 40, doc: "outside, along Z"},
			{name: "wall_thickness", def: 2, doc: "of the walls and the floor"},
		},
		fits: func(d map[string]float64) error {
			return firstErr(lessTwice(d, "wall_thickness", "length"), lessTwice(d, "wall_thickness", "width"),
				less(d, "wall_thickness", "height"))
		},
	},
	{
		name: "plate",
		doc:  "a flat plate in XY, with four corner holes when hole_diameter is above 0",
		dims: []dimension{
			{name: "length", def: 100, doc: "along X"},
			{name: "width", def: 60, doc: "along Y"},
			{name: "thickness", def: 5, doc: "along Z"},
			{name: "hole_diameter", def: 0, zeroOK: true, doc: "of the four corner holes; 0 for none"},
			{name: "hole_margin", def: 10, doc: "from each edge to the nearest hole centres"},
			{name: "corner_radius", def: 0, zeroOK: true, doc: "of the rounded vertical corners; 0 for square ones"},
		},
		fits: func(d map[string]float64) error {
			err := firstErr(lessHalf(d, "corner_radius", "length"), lessHalf(d, "corner_radius", "width"))
			if err != nil || d["hole_diameter"] == 0 {
				return err
			}
			if d["hole_diameter"] >= 2*d["hole_margin"] {
				return protocol.Invalid("parameters.hole_diameter (%g) must be less than twice parameters.hole_margin (%g), "+
					"so each hole stays inside the plate", d["hole_diameter"], d["hole_margin"])
			}
			return firstErr(lessTwice(d, "hole_margin", "length"), lessTwice(d, "hole_margin", "width"))
		},
	},
}

func shapeNames() []string {
	names := make([]string, len(shapes))
	for i, s := range shapes {
		names[i] = s.name
	}
	return names
}

func findShape(name string) (shape, error) {
	for _, s := range shapes {
		if s.name == name {
			return s, nil
		}
	}
	if name == "" {
		return shape{}, protocol.Invalid("shape_type is required: one of %s", strings.Join(shapeNames(), ", "))
	}
	return shape{}, protocol.Invalid("shape_type %q is not one of %s", name, strings.Join(shapeNames(), ", "))
}

// complete checks the parameters given for s and fills the defaults in.
func (s shape) complete(given map[string]float64) (map[string]float64, error) {
	valid := map[string]dimension{}
	for _, d := range s.dims {
		valid[d.name] = d
	}
	var unknown []string
	for name := range given {
		if _, ok := valid[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, protocol.Invalid("parameters %s: a %s has no such parameter; its parameters are %s",
			strings.Join(unknown, ", "), s.name, s.paramList())
	}
	full := map[string]float64{}
	for _, d := range s.dims {
		v, ok := given[d.name]
		if !ok {
			v = d.def
		}
		switch {
		case d.zeroOK && v < 0:
			return nil, protocol.Invalid("parameters.%s must be 0 or more mm, got %g", d.name, v)
		case !d.zeroOK && v <= 0:
			return nil, protocol.Invalid("parameters.%s must be greater than 0 mm, got %g", d.name, v)
		}
		full[d.name] = v
	}
	if err := s.fits(full); err != nil {
		return nil, err
	}
	return full, nil
}

// paramList is "length, width, height" in the table's order.
func (s shape) paramList() string {
	names := make([]string, len(s.dims))
	for i, d := range s.dims {
		names[i] = d.name
	}
	return strings.Join(names, ", ")
}

// summary is "box (a rectangular block): length 100 along X, ..." for the
// tool's description.
func (s shape) summary() string {
	parts := make([]string, len(s.dims))
	for i, d := range s.dims {
		parts[i] = fmt.Sprintf("%s %g (%s)", d.name, d.def, d.doc)
	}
	return fmt.Sprintf("%s, %s: %s", s.name, s.doc, strings.Join(parts, ", "))
}

// The checks between dimensions. Each names both parameters and their values.

func less(d map[string]float64, small, big string) error {
	if d[small] >= d[big] {
		return protocol.Invalid("parameters.%s (%g) must be less than parameters.%s (%g)", small, d[small], big, d[big])
	}
	return nil
}

func lessHalf(d map[string]float64, small, big string) error {
	if d[small] > 0 && d[small] >= d[big]/2 {
		return protocol.Invalid("parameters.%s (%g) must be less than half of parameters.%s (%g)", small, d[small], big, d[big])
	}
	return nil
}

func lessTwice(d map[string]float64, small, big string) error {
	if 2*d[small] >= d[big] {
		return protocol.Invalid("twice parameters.%s (%g) must be less than parameters.%s (%g)", small, d[small], big, d[big])
	}
	return nil
}

func holeFits(d map[string]float64, room string, size float64) error {
	if h := d["hole_diameter"]; h > 0 && h >= size {
		return protocol.Invalid("parameters.hole_diameter (%g) must be less than %s (%g) for the hole to fit", h, room, size)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
