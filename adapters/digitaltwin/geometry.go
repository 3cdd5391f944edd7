package digitaltwin

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

func commitGeometryTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.commit_geometry", Name: "Commit geometry", Capability: "twin_write",
		Description: "Record a part's geometry (a STEP file) as the next revision of its item: the STEP goes to the content-addressed blob store, " +
			"the revision keeps its key and hash plus the measured properties you pass. Give file_path or step_base64. " +
			"The result names item_key, revision and item_ref (KEY@n).",
		InputSchema: schema([]string{"name"}, projectIDProp+`,
"name":{"type":"string","minLength":1,"maxLength":200},
"file_path":{"type":"string","description":"a STEP file on the server's machine"},
"step_base64":{"type":"string","description":"the STEP file's bytes, base64"},
"material":{"type":"string"},
"properties":{"type":"object","description":"measured properties: volume_mm3, surface_area_mm2, bounding_box, mass_kg, center_of_mass_mm"},
`+itemProps),
		Idempotent: true, TimeoutSeconds: 60}, commitGeometry}
}

// stepMagic opens every STEP (ISO 10303-21) file.
var stepMagic = []byte("ISO-10303-21")

func commitGeometry(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID  string         `json:"project_id"`
		Name       string         `json:"name"`
		FilePath   string         `json:"file_path"`
		StepBase64 string         `json:"step_base64"`
		Material   string         `json:"material"`
		Properties map[string]any `json:"properties"`
		itemArgs
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	var step []byte
	switch {
	case a.FilePath == "" && a.StepBase64 == "":
		return nil, protocol.Refusal("Missing: file_path or step_base64. Pass the STEP file's path on the server, or its bytes as base64")
	case a.FilePath != "" && a.StepBase64 != "":
		return nil, protocol.Refusal("pass file_path or step_base64, not both: which one is the geometry?")
	case a.FilePath != "":
		data, err := os.ReadFile(a.FilePath)
		if err != nil {
			return nil, protocol.Refusal("file_path %s cannot be read: %v", a.FilePath, err)
		}
		step = data
	default:
		data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(a.StepBase64))
		if err != nil {
			return nil, protocol.Refusal("step_base64 is not valid base64: %v", err)
		}
		step = data
	}
	if !bytes.HasPrefix(bytes.TrimLeft(step, "\ufeff \t\r\n"), stepMagic) {
		return nil, protocol.Refusal("the geometry is not a STEP file: it does not start with ISO-10303-21; export STEP (AP203/AP214/AP242) and try again")
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	blob, err := b.Blobs.Put(step)
	if err != nil {
		return nil, err
	}
	props := map[string]any{"step_blob": blob.Key, "step_sha256": blob.SHA256, "step_bytes": blob.Bytes}
	if a.Material != "" {
		props["material"] = a.Material
	}
	for k, v := range a.Properties {
		props[k] = v
	}
	n, it, err := b.Store.CommitRevision(ctx, revisionWrite(ctx, p.ID, "cad_model", a.Name, a.itemArgs, props, nil))
	if err != nil {
		return nil, err
	}
	out := written(n, it)
	out["project_id"] = p.ID
	out["blob"] = blob
	return out, nil
}
