package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// CadSessionTwin is the twin as a closed CAD session records its document.
type CadSessionTwin interface {
	// RecordSessionGeometry records w and names the revision it made:
	// its node id and its KEY@n.
	RecordSessionGeometry(ctx context.Context, w twin.GeometryWrite) (nodeID, itemRef string, err error)
}

// CadRecords is the CadSession workflow's activity on the workflows'
// queue, where the twin is.
type CadRecords struct {
	Twin CadSessionTwin
}

var errNoCadTwin = errors.New("this worker serves no twin, so a CAD session's document cannot be recorded here")

// sessionMeasured names each figure the document's STEP export measured
// by the property a cad_model records it under.
var sessionMeasured = []struct{ from, to string }{
	{"volume_mm3", "volume_mm3"}, {"surface_area_mm2", "surface_area_mm2"},
	{"bounding_box", "bounding_box"}, {"center_of_mass", "center_of_mass_mm"},
}

// RecordCadSession commits the session's exported STEP as the next
// revision of the project's cad_model named for the session, with the
// properties measured from that STEP. The idempotency key is the
// session's, so a retry records once.
func (r *CadRecords) RecordCadSession(ctx context.Context, req workflows.RecordCadSessionRequest) (workflows.CadRecorded, error) {
	var rec workflows.CadRecorded
	if r.Twin == nil {
		return rec, temporal.NewNonRetryableApplicationError(errNoCadTwin.Error(), "no_twin", nil)
	}
	if req.Saved.STEP == "" {
		return rec, temporal.NewNonRetryableApplicationError("the session's document was saved without its STEP", "no_step", nil)
	}
	data, err := os.ReadFile(req.Saved.STEP)
	if err != nil {
		return rec, fmt.Errorf("read the session's STEP: %w", err)
	}
	var measured map[string]any
	_ = json.Unmarshal(req.Saved.Export, &measured)
	props := map[string]any{"cad_session_id": req.SessionID, "freecad_document": req.Saved.Document, "authored_in": "freecad session"}
	for _, m := range sessionMeasured {
		if v, ok := measured[m.from]; ok && v != nil {
			props[m.to] = v
		}
	}
	name := req.Name
	if name == "" {
		name = "CAD session " + req.SessionID
	}
	rec.NodeID, rec.ItemRef, err = r.Twin.RecordSessionGeometry(ctx, twin.GeometryWrite{ProjectID: req.ProjectID, Name: name,
		Format: twin.FormatSTEP, Data: data, Properties: props,
		Info: twin.WriteInfo{Author: req.CreatedBy, IdempotencyKey: "cad-session-" + req.SessionID}})
	return rec, err
}
