package digitaltwin

import (
	"context"
	"errors"
	"fmt"
	"github.com/metaforge/metaforge/internal/units"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/internal/materials"
	tubes "github.com/metaforge/metaforge/internal/tube"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// The tube problem of a CAD work product: a committed cad_model read as a
// rectangular tube cantilever, fixed at one end and loaded at the other.
// Its bounding box gives the span (x, the length) and the section (y the
// width, z the height, the depth in the load direction); its properties
// give the uniform wall and the material, whose figures come from the
// materials table. This is the geometry twin.optimize_parameter,
// twin.rank_sensitivity and the design loops compute on.

// tubeTools are the tools that compute on a committed tube and record
// what they found: twin.optimize_parameter and twin.rank_sensitivity.
func tubeTools() []tool { return []tool{optimizeParameterTool(), rankSensitivityTool()} }

// TubeGeometry is a cad_model revision read as a rectangular tube.
type TubeGeometry struct {
	// WorkProductID is the revision's node id; ItemRef is its KEY@n.
	WorkProductID, ItemRef string
	// ProjectID is the project the revision is in.
	ProjectID string
	tubes.Tube
}

// wallProps are the properties a cad_model gives its wall in, in order:
// the first present wins.
var wallProps = []string{"wall_thickness_mm", "min_wall_thickness_mm", "thickness_mm"}

// TubeGeometry reads the tube of a cad_model: workProductID is its
// revision's node id, or an item ref (KEY@n, or KEY for the head). A node
// id names its own project; an item ref is looked up in the calling
// session's project, else in the one project that has the key. Anything
// the tube model needs and the revision lacks is a refusal naming the
// property to record.
func (b *Backend) TubeGeometry(ctx context.Context, workProductID string) (TubeGeometry, error) {
	return b.TubeGeometryIn(ctx, "", workProductID)
}

// TubeGeometryIn is TubeGeometry with the project an item ref is looked
// up in; "" finds it as TubeGeometry does.
func (b *Backend) TubeGeometryIn(ctx context.Context, projectID, workProductID string) (TubeGeometry, error) {
	n, err := b.workProduct(ctx, projectID, workProductID)
	if err != nil {
		return TubeGeometry{}, classify(err)
	}
	return tubeOf(n)
}

// workProduct finds the cad_model revision a work_product_id names.
func (b *Backend) workProduct(ctx context.Context, projectID, ref string) (twin.Node, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return twin.Node{}, protocol.Refusal("Missing: work_product_id. Name the cad_model by its node id or item ref (CAD-...@n)")
	}
	var n twin.Node
	var err error
	switch {
	case projectID != "":
		n, err = resolveRef(ctx, b, projectID, ref)
	case strings.HasPrefix(ref, "n-"):
		n, err = b.Store.GetNode(ctx, ref)
	default:
		n, err = b.refAnywhere(ctx, ref)
	}
	if err != nil {
		return twin.Node{}, fmt.Errorf("work_product_id %s: %w", ref, err)
	}
	if n.Type != "cad_model" {
		return twin.Node{}, protocol.Refusal("work_product_id %s is a %s, not a cad_model: name a part committed with twin.commit_geometry", ref, n.Type)
	}
	return n, nil
}

// refAnywhere resolves an item ref with no project named: in the session's
// project, else in the one project that has the item.
func (b *Backend) refAnywhere(ctx context.Context, ref string) (twin.Node, error) {
	if adapters.CallInfoFrom(ctx).SessionID != "" {
		if p, err := projectFor(ctx, b, ""); err == nil {
			return resolveRef(ctx, b, p.ID, ref)
		}
	}
	key, _, err := twin.ParseItemRef(ref)
	if err != nil {
		return twin.Node{}, err
	}
	projects, err := b.Store.ListProjects(ctx)
	if err != nil {
		return twin.Node{}, err
	}
	var in []twin.Project
	for _, p := range projects {
		if _, err := b.Store.GetItem(ctx, p.ID, key); err == nil {
			in = append(in, p)
		} else if !errors.Is(err, twin.ErrNotFound) {
			return twin.Node{}, err
		}
	}
	switch len(in) {
	case 0:
		return twin.Node{}, fmt.Errorf("%w: %s names no item in any project", twin.ErrNotFound, ref)
	case 1:
		return resolveRef(ctx, b, in[0].ID, ref)
	}
	names := make([]string, len(in))
	for i, p := range in {
		names[i] = p.Name + " (" + p.ID + ")"
	}
	return twin.Node{}, protocol.Refusal("%s is an item in %d projects (%s): pass project_id, or the revision's node id", ref, len(in), strings.Join(names, ", "))
}

// tubeOf reads the tube from a cad_model revision. Every piece missing is
// named at once, with what to record.
func tubeOf(n twin.Node) (TubeGeometry, error) {
	t := TubeGeometry{WorkProductID: n.ID, ItemRef: n.Ref(), ProjectID: n.ProjectID}
	var missing []string
	box := []struct {
		metric, axis string
		into         *float64
	}{{"length", "x", &t.LengthMM}, {"width", "y", &t.WidthMM}, {"height", "z", &t.HeightMM}}
	boxNoted := false
	for _, d := range box {
		v, ok, note := cadModelValue(n, d.metric)
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
		mm, err := units.Convert(v.value, v.unit, "mm")
		if err != nil {
			missing = append(missing, fmt.Sprintf("record bounding_box in a length unit (its unit %s is not one: %v)", v.unit, err))
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
	for _, p := range wallProps {
		raw, has := n.Properties[p]
		if !has || raw == nil {
			continue
		}
		f, ok := numberOf(raw)
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
	mat, name, note := cadMaterial(n)
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
		return TubeGeometry{}, protocol.Refusal("cad_model %s cannot be read as a rectangular tube: %s", n.Ref(), strings.Join(missing, "; "))
	}
	return t, nil
}
