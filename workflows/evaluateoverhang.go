package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// EvaluateOverhangWorkflowID is an overhang check's workflow ID: the id of
// the call that asked for it.
func EvaluateOverhangWorkflowID(callID string) string { return "evaluate-overhang-" + callID }

// Activities of the EvaluateOverhang workflow.
const (
	// PrepareOverhangCallActivity builds the face-table call.
	PrepareOverhangCallActivity = "PrepareOverhangCall"
	// RecordOverhangActivity judges the faces and records the evidence.
	RecordOverhangActivity = "RecordOverhang"
)

// OverhangRequest is one 3D-print overhang check of a work product's mesh.
type OverhangRequest struct {
	CallID        string     `json:"call_id"`
	ProjectID     string     `json:"project_id"`
	WorkProductID string     `json:"work_product_id"`
	MeshFile      string     `json:"mesh_file"`
	ThresholdDeg  float64    `json:"threshold_deg"`
	BuildAxis     [3]float64 `json:"build_axis"`
}

// RecordOverhangRequest is the face table an overhang check read.
type RecordOverhangRequest struct {
	Request OverhangRequest `json:"request"`
	Faces   ToolCallResult  `json:"faces"`
}

// OverhangFace is one face as the check judged it.
type OverhangFace struct {
	Name    string  `json:"name"`
	AreaMM2 float64 `json:"area_mm2"`
	TiltDeg float64 `json:"tilt_deg"`
	AxisDot float64 `json:"normal_dot_axis"`
	Flagged bool    `json:"flagged"`
}

// OverhangResult is an overhang check's answer: the evidence recorded and
// what it found.
type OverhangResult struct {
	EvidenceID      string         `json:"evidence_id"`
	WorkProduct     string         `json:"work_product"`
	OverhangAreaMM2 float64        `json:"overhang_area_mm2"`
	FlaggedFaces    []string       `json:"flagged_faces"`
	NotJudged       []string       `json:"not_judged"`
	Faces           []OverhangFace `json:"faces"`
	TotalAreaMM2    float64        `json:"total_area_mm2"`
	ThresholdDeg    float64        `json:"threshold_deg"`
	BuildAxis       [3]float64     `json:"build_axis"`
	Undirected      bool           `json:"undirected"`
	Summary         string         `json:"summary"`
	FaceCallID      string         `json:"face_call_id"`
}

// EvaluateOverhang reads a mesh's named-face table (gmsh.list_named_faces,
// a child ToolCall), flags the faces leaning past the threshold from the
// build axis, and records the flagged area as evidence pinned to the work
// product. A mesh whose faces cannot be read ends the check with the
// reader's refusal, and nothing is recorded.
func EvaluateOverhang(ctx workflow.Context, in OverhangRequest) (OverhangResult, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:             "prepare gmsh.list_named_faces for " + in.WorkProductID,
	})
	var read ToolCallInput
	if err := workflow.ExecuteActivity(actx, PrepareOverhangCallActivity, in).Get(ctx, &read); err != nil {
		return OverhangResult{}, err
	}
	faces, err := childToolCall(ctx, in.ProjectID, read, "named faces of "+in.WorkProductID+"'s mesh")
	if err != nil {
		return OverhangResult{}, err
	}
	if faces.Status != StatusSuccess {
		return OverhangResult{}, childRefused(faces, read.ToolID+" could not read the faces of "+in.MeshFile+", so nothing was recorded")
	}
	rctx := workflow.WithActivityOptions(actx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:     "judge the faces and record the overhangs"})
	var out OverhangResult
	if err := workflow.ExecuteActivity(rctx, RecordOverhangActivity, RecordOverhangRequest{Request: in, Faces: faces}).Get(ctx, &out); err != nil {
		return OverhangResult{}, err
	}
	return out, nil
}
