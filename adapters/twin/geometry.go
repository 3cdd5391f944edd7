package twin

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

func commitGeometryTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.commit_geometry", Name: "Commit geometry", Capability: "twin_write",
		Description: "Record a part's geometry (a STEP file) as the next revision of its item: the STEP goes to the content-addressed blob store, " +
			"the revision keeps its key and hash plus the measured properties you pass. Name an export by session_id and obj_id (its " +
			"stashed bytes are used, and win over any step_base64 also given), or give file_path or step_base64. " +
			"The result names item_key, revision and item_ref (KEY@n).",
		Idempotent: true, TimeoutSeconds: 60}, commitGeometry, withItemRules(
		adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("properties", anyObject))...)
}

type commitGeometryArgs struct {
	project.Scope
	Name       string         `json:"name"`
	FilePath   string         `json:"file_path,omitempty" jsonschema:"a STEP file on the server's machine"`
	StepBase64 string         `json:"step_base64,omitempty" jsonschema:"the STEP file's bytes, base64"`
	SessionID  string         `json:"session_id,omitempty" jsonschema:"with obj_id: the CAD session of an export whose bytes the server kept"`
	ObjID      string         `json:"obj_id,omitempty" jsonschema:"with session_id: the exported object"`
	Material   string         `json:"material,omitempty"`
	Properties map[string]any `json:"properties,omitempty" jsonschema:"measured properties: volume_mm3, surface_area_mm2, bounding_box, mass_kg, center_of_mass_mm"`
	itemArgs
}

func commitGeometry(ctx context.Context, b *Backend, a commitGeometryArgs) (any, error) {
	step, diverged, err := geometryBytes(b, a.FilePath, a.StepBase64, a.SessionID, a.ObjID)
	if err != nil {
		return nil, err
	}
	if err := twin.FormatSTEP.Check(step); err != nil {
		return nil, classify(err)
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	n, it, blob, err := twin.CommitGeometry(ctx, b.Store, b.Blobs, twin.GeometryWrite{ProjectID: p.ID, Name: a.Name, Format: twin.FormatSTEP,
		Data: step, Material: a.Material, Properties: a.Properties, Info: writeInfo(ctx, a.itemArgs)})
	if err != nil {
		return nil, err
	}
	out := written(n, it)
	out["project_id"] = p.ID
	out["blob"] = blob
	if diverged {
		// The stash came straight off the exporter; the copy the caller
		// carried back differed, so it was a corrupted copy. Say so.
		out["blob_diverged_repaired"] = true
		out["note"] = "step_base64 differed from the stashed export of " + a.SessionID + "/" + a.ObjID + "; the stashed bytes were committed"
	}
	return out, nil
}

// geometryBytes finds the STEP to commit. A stashed export named by
// (session_id, obj_id) is authoritative: it wins over a step_base64 given
// too, and diverged says the two differed. Missing geometry names exactly
// what is absent and what to pass.
func geometryBytes(b *Backend, filePath, stepBase64, sessionID, objID string) (step []byte, diverged bool, err error) {
	if (sessionID == "") != (objID == "") {
		missing := "obj_id"
		if sessionID == "" {
			missing = "session_id"
		}
		return nil, false, protocol.Refusal("Missing: %s. A stashed export is named by session_id and obj_id together", missing)
	}
	if sessionID != "" {
		stashed, ok := b.Stash.Get(sessionID, objID)
		switch {
		case ok:
			if stepBase64 != "" {
				carried, err := base64.StdEncoding.DecodeString(strings.TrimSpace(stepBase64))
				diverged = err != nil || !bytes.Equal(carried, stashed)
			}
			return stashed, diverged, nil
		case stepBase64 == "" && filePath == "":
			return nil, false, protocol.Refusal("no export of %s/%s is stashed (it expired or was never made): export it again, or pass step_base64 or file_path", sessionID, objID)
		}
	}
	switch {
	case filePath == "" && stepBase64 == "":
		return nil, false, protocol.Refusal("Missing: session_id, obj_id, step_base64. Name a stashed export by session_id and obj_id, or pass the STEP bytes as step_base64 (or its path on the server as file_path)")
	case filePath != "" && stepBase64 != "":
		return nil, false, protocol.Refusal("pass file_path or step_base64, not both: which one is the geometry?")
	case filePath != "":
		if b.Files == nil {
			return nil, false, protocol.Refusal("file_path: this server reads no files for the twin; pass the STEP bytes as step_base64")
		}
		real, err := b.Files.ResolveRead("file_path", filePath)
		if err != nil {
			return nil, false, err
		}
		data, err := os.ReadFile(real)
		if err != nil {
			return nil, false, protocol.Refusal("file_path %s cannot be read: %v", filePath, err)
		}
		return data, false, nil
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(stepBase64))
	if err != nil {
		return nil, false, protocol.Refusal("step_base64 is not valid base64: %v", err)
	}
	return data, false, nil
}
