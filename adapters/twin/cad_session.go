package twin

import (
	"context"

	"github.com/metaforge/metaforge/twin"
)

// RecordSessionGeometry records a closed CAD editing session's document
// as the next revision of its cad_model item, through the one geometry
// recorder, and names the revision: its node id and KEY@n.
func (b *Backend) RecordSessionGeometry(ctx context.Context, w twin.GeometryWrite) (nodeID, itemRef string, err error) {
	n, _, _, err := twin.CommitGeometry(ctx, b.Store, b.Blobs, w)
	if err != nil {
		return "", "", asProtocolRefusal(classify(err))
	}
	return n.ID, n.Ref(), nil
}
