package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/protocol"
)

// ImportWorkProductWorkflowID is an import's workflow ID: the id of the
// call that asked for it.
func ImportWorkProductWorkflowID(callID string) string { return "import-work-product-" + callID }

// Activities of the ImportWorkProduct workflow.
const (
	// PrepareImportCallActivity builds the kernel's measuring call.
	PrepareImportCallActivity = "PrepareImportCall"
	// RecordImportActivity commits the measured file to the twin.
	RecordImportActivity = "RecordImport"
)

// ImportRequest is one import of a geometry file as a cad_model revision.
// File is the call's own copy of SourceFile, which hashes to SHA256.
type ImportRequest struct {
	CallID       string `json:"call_id"`
	ProjectID    string `json:"project_id"`
	Name         string `json:"name"`
	SourceFile   string `json:"source_file"`
	File         string `json:"file"`
	SHA256       string `json:"sha256"`
	Format       string `json:"format"` // step or stl
	Material     string `json:"material,omitempty"`
	ItemKey      string `json:"item_key,omitempty"`
	Supersedes   string `json:"supersedes,omitempty"`
	ChangeReason string `json:"change_reason,omitempty"`
	Author       string `json:"author,omitempty"`
}

// RecordImportRequest is what the kernel measured of an import's file.
type RecordImportRequest struct {
	Request ImportRequest  `json:"request"`
	Measure ToolCallResult `json:"measure"`
}

// ImportResult is an import's answer: the revision written and what it
// records.
type ImportResult struct {
	NodeID        string         `json:"node_id"`
	ItemKey       string         `json:"item_key"`
	Revision      int            `json:"revision"`
	ItemRef       string         `json:"item_ref"`
	Name          string         `json:"name"`
	ProjectID     string         `json:"project_id"`
	Format        string         `json:"format"`
	Blob          BlobRef        `json:"blob"`
	Properties    map[string]any `json:"properties"`
	MeasureCallID string         `json:"measure_call_id"`
}

// BlobRef names stored bytes by their content.
type BlobRef struct {
	Key    string `json:"key"`
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// ImportWorkProduct measures a geometry file with the CAD kernel
// (cadquery.get_properties, a child ToolCall) and records it as the next
// revision of a cad_model with what was measured. A file the kernel
// cannot measure ends the import with the kernel's refusal, and nothing
// is recorded.
func ImportWorkProduct(ctx workflow.Context, in ImportRequest) (ImportResult, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:             "prepare cadquery.get_properties for " + in.SourceFile,
	})
	var measure ToolCallInput
	if err := workflow.ExecuteActivity(actx, PrepareImportCallActivity, in).Get(ctx, &measure); err != nil {
		return ImportResult{}, err
	}
	res, err := childToolCall(ctx, in.ProjectID, measure, "measure "+in.SourceFile)
	if err != nil {
		return ImportResult{}, err
	}
	if res.Status != StatusSuccess {
		return ImportResult{}, childRefused(res, fmt.Sprintf("%s could not measure %s, so nothing was recorded", measure.ToolID, in.SourceFile))
	}
	rctx := workflow.WithActivityOptions(actx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:     "record " + in.Name + " with what was measured"})
	var out ImportResult
	if err := workflow.ExecuteActivity(rctx, RecordImportActivity, RecordImportRequest{Request: in, Measure: res}).Get(ctx, &out); err != nil {
		return ImportResult{}, err
	}
	return out, nil
}

// childRefused is the final error of a process whose solver call failed:
// the solver's own code and words, after what the process could not do.
func childRefused(res ToolCallResult, what string) error {
	code, details := protocol.ToolExecutionError.Name(), "no reason given"
	if res.Error != nil {
		if _, ok := protocol.CodeByName(res.Error.Type); ok {
			code = res.Error.Type
		}
		details = res.Error.Details
	}
	return temporal.NewNonRetryableApplicationError(what+": "+details, code, nil)
}
