package twin

import (
	"context"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/internal/materials"
	"github.com/metaforge/metaforge/internal/tube"
	"github.com/metaforge/metaforge/internal/units"
)

// The tube problem of a CAD work product: a committed cad_model read as a
// rectangular tube cantilever, fixed at one end and loaded at the other.
// Its bounding box gives the span (x, the length) and the section (y the
// width, z the height, the depth in the load direction); its properties
// give the uniform wall and the material, whose figures come from the
// materials table.

// WallProps are the properties a cad_model gives its wall in, in order:
// the first present wins.
var WallProps = []string{"wall_thickness_mm", "min_wall_thickness_mm", "thickness_mm"}

// WorkProduct finds the cad_model revision a work product reference names:
// in projectID when one is given (KEY@n, KEY or a node id), else by node
// id, else in the one project that has the item.
func WorkProduct(ctx context.Context, s Store, projectID, ref string) (Node, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Node{}, Refusef("Missing: work_product_id. Name the cad_model by its node id or item ref (CAD-...@n)")
	}
	var n Node
	var err error
	switch {
	case projectID != "":
		n, err = ResolveRef(ctx, s, projectID, ref)
	case strings.HasPrefix(ref, "n-"):
		n, err = s.GetNode(ctx, ref)
	default:
		n, err = ResolveRefAnywhere(ctx, s, ref)
	}
	if err != nil {
		return Node{}, fmt.Errorf("work_product_id %s: %w", ref, err)
	}
	if n.Type != "cad_model" {
		return Node{}, Refusef("work_product_id %s is a %s, not a cad_model: name a part committed with twin.commit_geometry", ref, n.Type)
	}
	return n, nil
}

// TubeOf reads the tube from a cad_model revision. Every piece missing is
// named at once, with what to record, in a refusal.
func TubeOf(n Node) (tube.Tube, error) {
	var t tube.Tube
	var missing []string
	box := []struct {
		metric, axis string
		into         *float64
	}{{"length", "x", &t.LengthMM}, {"width", "y", &t.WidthMM}, {"height", "z", &t.HeightMM}}
	boxNoted := false
	for _, d := range box {
		v, ok, note := CadModelValue(n, d.metric)
		if !ok {
			if !boxNoted {
				boxNoted = true
				what := "record bounding_box ({size:[x,y,z]} in mm: x the length, y the width, z the height) in the cad_model's properties with twin.commit_geometry"
				if note != "" {
					what += "; it needs " + note
				}
				missing = append(missing, what)
			}
			continue
		}
		mm, err := units.Convert(v.Value, v.Unit, "mm")
		if err != nil {
			missing = append(missing, fmt.Sprintf("record bounding_box in a length unit (its unit %s is not one: %v)", v.Unit, err))
			boxNoted = true
			continue
		}
		if !(mm > 0) {
			missing = append(missing, fmt.Sprintf("record a bounding_box with a positive %s (%s, along %s); it is %g mm", d.metric, d.axis, d.axis, mm))
			continue
		}
		*d.into = mm
	}
	wallFound := false
	for _, p := range WallProps {
		raw, has := n.Properties[p]
		if !has || raw == nil {
			continue
		}
		f, ok := NumberOf(raw)
		if !ok || !(f > 0) {
			missing = append(missing, fmt.Sprintf("record %s as a positive number of mm (it is %v)", p, raw))
		} else {
			t.WallMM = f
		}
		wallFound = true
		break
	}
	if !wallFound {
		missing = append(missing, "record wall_thickness_mm (the tube's uniform wall, mm) in the cad_model's properties with twin.commit_geometry")
	}
	mat, name, note := CadMaterial(n)
	switch {
	case name == "":
		missing = append(missing, fmt.Sprintf("record material (one of %s) on the cad_model with twin.commit_geometry", strings.Join(materials.Names(), ", ")))
	case note != "":
		missing = append(missing, "record "+note)
	default:
		t.Material, t.Mat = name, mat
	}
	if len(missing) == 0 && t.WallMM > 0 {
		if err := (beam.HollowRect{Width: t.WidthMM, Height: t.HeightMM, Wall: t.WallMM}).Check(); err != nil {
			missing = append(missing, fmt.Sprintf("record a wall_thickness_mm that leaves a hollow: %v", err))
		}
	}
	if len(missing) > 0 {
		return tube.Tube{}, Refusef("cad_model %s cannot be read as a rectangular tube: %s", n.Ref(), strings.Join(missing, "; "))
	}
	return t, nil
}
