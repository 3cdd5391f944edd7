package activities

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// OverhangTwin is the twin as an overhang check records into it.
type OverhangTwin interface {
	RecordOverhang(ctx context.Context, c twin.OverhangCall, faceCallID string, faces json.RawMessage) (map[string]any, error)
}

// Overhangs are the EvaluateOverhang workflow's activities.
type Overhangs struct {
	Twin  OverhangTwin
	Steps *DesignFlows
}

var errNoOverhangTwin = errors.New("this worker serves no twin, so an overhang check cannot be recorded here")

// PrepareOverhangCall builds the gmsh.list_named_faces call on the mesh.
func (o *Overhangs) PrepareOverhangCall(ctx context.Context, in workflows.OverhangRequest) (workflows.ToolCallInput, error) {
	raw, _ := json.Marshal(map[string]any{"mesh_file": in.MeshFile})
	return o.Steps.PrepareStepCall(ctx, workflows.PrepareStepCallRequest{CallID: derivedCallID(in.CallID, "list_named_faces"),
		ToolID: "gmsh.list_named_faces", Arguments: raw, ProjectID: in.ProjectID})
}

// RecordOverhang judges the faces read and records the evidence.
func (o *Overhangs) RecordOverhang(ctx context.Context, req workflows.RecordOverhangRequest) (workflows.OverhangResult, error) {
	if o.Twin == nil {
		return workflows.OverhangResult{}, errNoOverhangTwin
	}
	in := req.Request
	c := twin.OverhangCall{CallID: in.CallID, ProjectID: in.ProjectID, WorkProductID: in.WorkProductID, MeshFile: in.MeshFile,
		ThresholdDeg: in.ThresholdDeg, BuildAxis: in.BuildAxis}
	recorded, err := o.Twin.RecordOverhang(ctx, c, req.Faces.CallID, req.Faces.Data)
	if err != nil {
		return workflows.OverhangResult{}, finalIfRefusal(err)
	}
	var out workflows.OverhangResult
	return out, remarshal(recorded, &out)
}
