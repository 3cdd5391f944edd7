package twin

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/metaforge/metaforge/internal/materials"
	"github.com/metaforge/metaforge/internal/units"
)

// The committed geometry as a source of values: the head revision of each
// cad_model item gives its envelope (properties.bounding_box), mass,
// volume, surface area and wall thickness, and its material's yield strength and
// Young's modulus from the materials table, so design-flow gates compare
// envelope, thickness and material requirements to the committed model.
// A head revision is current by definition: these values are never stale.

// How a cad_model gives a metric's value.
const (
	fromBoundingBox = iota // one axis of properties.bounding_box, mm
	fromProperty           // the first of some numeric properties
	fromMaterial           // a figure of properties.material in the materials table
)

// cadMetric is what a committed cad_model gives for one metric.
type cadMetric struct {
	from  int
	axis  int      // fromBoundingBox: 0 x, 1 y, 2 z
	props []string // fromProperty: read in order, the first present wins
	unit  string   // fromProperty and fromMaterial: the unit of the value
	// figure reads the material's value, named by what (fromMaterial).
	figure func(materials.Material) float64
	what   string
}

// cadMetrics are the metrics a cad_model gives, by metricKey.
var cadMetrics = func() map[string]cadMetric {
	thickness := cadMetric{from: fromProperty, props: []string{"min_wall_thickness_mm", "wall_thickness_mm", "thickness_mm"}, unit: "mm"}
	yield := cadMetric{from: fromMaterial, unit: "MPa", what: "yield strength",
		figure: func(m materials.Material) float64 { return m.YieldStrengthMPa }}
	modulus := cadMetric{from: fromMaterial, unit: "GPa", what: "Young's modulus",
		figure: func(m materials.Material) float64 { return m.YoungsModulusGPa }}
	return map[string]cadMetric{
		"envelope_x": {from: fromBoundingBox, axis: 0}, "length": {from: fromBoundingBox, axis: 0},
		"envelope_y": {from: fromBoundingBox, axis: 1}, "width": {from: fromBoundingBox, axis: 1},
		"envelope_z": {from: fromBoundingBox, axis: 2}, "height": {from: fromBoundingBox, axis: 2},
		"mass":           {from: fromProperty, props: []string{"mass_kg"}, unit: "kg"},
		"volume":         {from: fromProperty, props: []string{"volume_mm3"}, unit: "mm3"},
		"surface_area":   {from: fromProperty, props: []string{"surface_area_mm2"}, unit: "mm2"},
		"wall_thickness": thickness, "min_wall_thickness": thickness, "thickness": thickness,
		"yield_strength": yield,
		"youngs_modulus": modulus, "young_modulus": modulus, "elastic_modulus": modulus,
	}
}()

// CadHint says what a committed cad_model needs to give a metric, for a
// requirement with nothing to check it against; "" when no cad_model can.
func CadHint(metric string) string {
	m, ok := cadMetrics[MetricKey(metric)]
	if !ok {
		return ""
	}
	switch m.from {
	case fromBoundingBox:
		return "a committed cad_model with properties.bounding_box (in mm)"
	case fromMaterial:
		return "a committed cad_model with a material from the materials table"
	}
	if MetricKey(metric) == "mass" {
		return "a committed cad_model with properties.mass_kg (or volume_mm3 and a known material)"
	}
	return "a committed cad_model with properties." + strings.Join(m.props, " or ")
}

// CadValue is a value a committed cad_model gives, in the unit it is
// stored in, and where on the revision it came from.
type CadValue struct {
	Value float64
	Unit  string
	From  string
}

// CadModelValue reads the value a cad_model revision gives for a metric
// (by metricKey). ok is false when it gives none; note then says what
// names the metric but cannot be read (an unknown material, a bounding box
// in no shape this reads), or is "" when the revision says nothing of it.
func CadModelValue(n Node, key string) (v CadValue, ok bool, note string) {
	m, known := cadMetrics[key]
	if !known || n.Type != "cad_model" {
		return CadValue{}, false, ""
	}
	switch m.from {
	case fromBoundingBox:
		raw, has := n.Properties["bounding_box"]
		if !has || raw == nil {
			return CadValue{}, false, ""
		}
		size, unit, ok := boxSize(raw)
		if !ok {
			return CadValue{}, false, fmt.Sprintf("a readable bounding_box on cad_model %s ({size:[x,y,z]}, {min:[x,y,z],max:[x,y,z]} "+
				"or {x,y,z}, in mm)", n.Ref())
		}
		return CadValue{Value: size[m.axis], Unit: unit, From: "properties.bounding_box " + string("xyz"[m.axis])}, true, ""
	case fromProperty:
		for _, p := range m.props {
			raw, has := n.Properties[p]
			if !has || raw == nil {
				continue
			}
			f, ok := NumberOf(raw)
			if !ok {
				return CadValue{}, false, fmt.Sprintf("a numeric %s on cad_model %s (it is %v)", p, n.Ref(), raw)
			}
			return CadValue{Value: f, Unit: m.unit, From: "properties." + p}, true, ""
		}
		if key == "mass" {
			return derivedMass(n)
		}
		return CadValue{}, false, ""
	}
	mat, name, note := CadMaterial(n)
	if name == "" || note != "" {
		return CadValue{}, false, note
	}
	return CadValue{Value: m.figure(mat), Unit: m.unit, From: fmt.Sprintf("the %s of material %s (materials table)", m.what, mat.Name)}, true, ""
}

// derivedMass is a cad_model's mass from volume_mm3 and its material's
// density, when it records no mass_kg.
func derivedMass(n Node) (CadValue, bool, string) {
	raw, has := n.Properties["volume_mm3"]
	if !has || raw == nil {
		return CadValue{}, false, ""
	}
	vol, ok := NumberOf(raw)
	if !ok {
		return CadValue{}, false, ""
	}
	mat, name, note := CadMaterial(n)
	if name == "" || note != "" {
		return CadValue{}, false, note
	}
	return CadValue{Value: units.RoundSig(mat.MassKg(vol), 12), Unit: "kg",
		From: fmt.Sprintf("properties.volume_mm3 x the density of material %s (materials table)", mat.Name)}, true, ""
}

// CadMaterial is the material a cad_model revision names, looked up in the
// materials table. name is "" when it names none; note says when the
// table does not know it.
func CadMaterial(n Node) (m materials.Material, name, note string) {
	name, _ = n.Properties["material"].(string)
	name = strings.TrimSpace(name)
	if name == "" {
		return materials.Material{}, "", ""
	}
	m, err := materials.Lookup(name)
	if err != nil {
		return materials.Material{}, name, fmt.Sprintf("a known material on cad_model %s (its material %q is not in the materials table: "+
			"use one of %s)", n.Ref(), name, strings.Join(materials.Names(), ", "))
	}
	return m, name, ""
}

// boxSize reads a bounding box's size along x, y and z, and the unit it is
// in (mm unless the box names one): {size:[x,y,z]}, {min:[..],max:[..]},
// {x,y,z}, {xlen,ylen,zlen}, a bare [x,y,z], or any of these as JSON text.
// A negative or non-finite size is no size.
func boxSize(raw any) (size [3]float64, unit string, ok bool) {
	unit = "mm"
	if s, isText := raw.(string); isText {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return size, unit, false
		}
		raw = v
	}
	switch b := raw.(type) {
	case []any:
		size, ok = vec3(b)
	case map[string]any:
		if u, has := b["unit"].(string); has && strings.TrimSpace(u) != "" {
			unit = strings.TrimSpace(u)
		}
		switch {
		case b["size"] != nil:
			size, ok = vec3(b["size"])
		case b["min"] != nil && b["max"] != nil:
			lo, okLo := vec3(b["min"])
			hi, okHi := vec3(b["max"])
			if ok = okLo && okHi; ok {
				for i := range size {
					size[i] = units.RoundSig(hi[i]-lo[i], 12)
				}
			}
		default:
			size, ok = vec3(b)
		}
	}
	for _, v := range size {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return size, unit, false
		}
	}
	return size, unit, ok
}

// vec3 reads [x,y,z], {x,y,z} or {xlen,ylen,zlen}.
func vec3(raw any) (out [3]float64, ok bool) {
	switch v := raw.(type) {
	case []any:
		if len(v) != 3 {
			return out, false
		}
		for i, x := range v {
			if out[i], ok = NumberOf(x); !ok {
				return out, false
			}
		}
		return out, true
	case []float64:
		if len(v) != 3 {
			return out, false
		}
		return [3]float64{v[0], v[1], v[2]}, true
	case map[string]any:
		for _, names := range [][3]string{{"x", "y", "z"}, {"xlen", "ylen", "zlen"}} {
			found := true
			for i, k := range names {
				if out[i], ok = NumberOf(v[k]); !ok {
					found = false
					break
				}
			}
			if found {
				return out, true
			}
		}
	}
	return out, false
}
