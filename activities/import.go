package activities

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// ImportTwin is the twin as an import records into it.
type ImportTwin interface {
	RecordImport(ctx context.Context, c twin.ImportCall, measureCallID string, measured json.RawMessage) (map[string]any, error)
}

// Imports are the ImportWorkProduct workflow's activities.
type Imports struct {
	Twin  ImportTwin
	Steps *DesignFlows
}

var errNoImportTwin = errors.New("this worker serves no twin, so a work product cannot be imported here")

// PrepareImportCall builds the cadquery.get_properties call that measures
// the import's copy of the file (with its material, for the mass).
func (im *Imports) PrepareImportCall(ctx context.Context, in workflows.ImportRequest) (workflows.ToolCallInput, error) {
	args := map[string]any{"input_file": in.File}
	if in.Material != "" {
		args["material"] = in.Material
	}
	raw, _ := json.Marshal(args)
	return im.Steps.PrepareStepCall(ctx, workflows.PrepareStepCallRequest{CallID: derivedCallID(in.CallID, "get_properties"),
		ToolID: "cadquery.get_properties", Arguments: raw, ProjectID: in.ProjectID})
}

// RecordImport commits the measured file as a cad_model revision.
func (im *Imports) RecordImport(ctx context.Context, req workflows.RecordImportRequest) (workflows.ImportResult, error) {
	if im.Twin == nil {
		return workflows.ImportResult{}, errNoImportTwin
	}
	in := req.Request
	c := twin.ImportCall{CallID: in.CallID, ProjectID: in.ProjectID, Name: in.Name, SourceFile: in.SourceFile, File: in.File,
		SHA256: in.SHA256, Format: twin.GeometryFormat(in.Format), Material: in.Material,
		Info: twin.WriteInfo{ItemKey: in.ItemKey, Supersedes: in.Supersedes, ChangeReason: in.ChangeReason, Author: in.Author,
			IdempotencyKey: in.CallID}}
	written, err := im.Twin.RecordImport(ctx, c, req.Measure.CallID, req.Measure.Data)
	if err != nil {
		return workflows.ImportResult{}, finalIfRefusal(err)
	}
	var out workflows.ImportResult
	return out, remarshal(written, &out)
}

// remarshal reads a twin answer (JSON values) into a workflow's type.
func remarshal(from any, to any) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, to)
}
