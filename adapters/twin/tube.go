package twin

import (
	"context"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	tubes "github.com/metaforge/metaforge/internal/tube"
	"github.com/metaforge/metaforge/twin"
)

// The tube problem of a CAD work product (twin.TubeOf reads it from a
// committed cad_model) is the geometry twin.optimize_parameter,
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
	t, err := twin.TubeOf(n)
	if err != nil {
		return TubeGeometry{}, classify(err)
	}
	return TubeGeometry{WorkProductID: n.ID, ItemRef: n.Ref(), ProjectID: n.ProjectID, Tube: t}, nil
}

// workProduct finds the cad_model revision a work_product_id names: an
// item ref with no project named is looked up in the calling session's
// project first (twin.WorkProduct).
func (b *Backend) workProduct(ctx context.Context, projectID, ref string) (twin.Node, error) {
	if projectID == "" && !strings.HasPrefix(strings.TrimSpace(ref), "n-") && adapters.CallInfoFrom(ctx).SessionID != "" {
		if p, err := projectFor(ctx, b, ""); err == nil {
			projectID = p.ID
		}
	}
	return twin.WorkProduct(ctx, b.Store, projectID, ref)
}
