package twin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/internal/materials"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// fileTools are work products from files and files from work products,
// and the overhang check on a work product's mesh.
func fileTools() []tool {
	return []tool{importWorkProductTool(), stageWorkProductFileTool(), evaluateOverhangMetricTool()}
}

// ImportEngine describes an import as the durable process that runs it:
// the CAD kernel measures the file (a solver call), then the twin records
// it; the call's workflow runs that process as its child.
type ImportEngine interface {
	ImportProcess(c twin.ImportCall) (adapters.Process, error)
}

func importWorkProductTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.import_work_product", Name: "Import a work product", Capability: "twin_write",
		Description: "Import a part from a file on the server: a STEP (.step, .stp) or a closed STL mesh (.stl) under the read roots. " +
			"The CAD kernel measures it (cadquery.get_properties, as a durable child call: volume, surface area, bounding box, centre of " +
			"mass, inertia, and with a material its mass), then it is committed as the next revision of a cad_model item exactly as " +
			"twin.commit_geometry commits one: the file in the content-addressed blob store (step_blob or stl_blob), the measured " +
			"properties on the revision (volume_mm3, surface_area_mm2, bounding_box, center_of_mass_mm, mass_kg). A file that cannot " +
			"be measured (no closed solid, an open mesh) is refused and nothing is recorded. The result names item_ref (KEY@n).",
		Idempotent: true, TimeoutSeconds: 300}, importWorkProduct, withItemRules(
		adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("file_path", adapters.MinLength(1)))...)
}

type importWorkProductArgs struct {
	project.Scope
	Name     string `json:"name"`
	FilePath string `json:"file_path" jsonschema:"a STEP (.step, .stp) or closed STL (.stl) file under the server's read roots (or a path a tool returned)"`
	Material string `json:"material,omitempty" jsonschema:"a material of the materials table: its density gives mass_kg"`
	itemArgs
}

func importWorkProduct(ctx context.Context, b *Backend, a importWorkProductArgs) (any, error) {
	if b.Files == nil {
		return nil, protocol.Refusal("file_path: this server reads no files for the twin; commit the STEP's bytes with twin.commit_geometry (step_base64)")
	}
	if b.Imports == nil {
		return nil, protocol.Unavailable("an import needs Temporal, which this server is not connected to")
	}
	src, err := b.Files.ResolveRead("file_path", a.FilePath)
	if err != nil {
		return nil, err
	}
	format, ok := twin.FormatOfPath(src)
	if !ok {
		return nil, protocol.Refusal("file_path %s is not a STEP (.step, .stp) or STL (.stl) file: export the part as STEP (or its mesh as STL) "+
			"and pass that file's path", a.FilePath)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, protocol.Refusal("file_path %s cannot be read: %v", a.FilePath, err)
	}
	if err := format.Check(data); err != nil {
		return nil, classify(err)
	}
	var material string
	if a.Material != "" {
		m, err := materials.Lookup(a.Material)
		if err != nil {
			return nil, err
		}
		material = m.Name
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	file, sha, err := b.keepForCall(ctx, data, format)
	if err != nil {
		return nil, err
	}
	c := twin.ImportCall{CallID: callID(ctx), ProjectID: p.ID, Name: a.Name, SourceFile: src, File: file, SHA256: sha, Format: format,
		Material: material, Info: writeInfo(ctx, a.itemArgs)}
	proc, err := b.Imports.ImportProcess(c)
	if err != nil {
		return nil, err
	}
	return &adapters.Result{Process: &proc}, nil
}

// keepForCall writes the call's own copy of an imported file into its
// folder, named by its hash: the copy is what the kernel measures and the
// twin records. A retried call finds the copy it made.
func (b *Backend) keepForCall(ctx context.Context, data []byte, f twin.GeometryFormat) (path, sha string, err error) {
	sum := sha256.Sum256(data)
	sha = hex.EncodeToString(sum[:])
	dir, err := b.Files.ForCall(ctx)
	if err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, "import-"+sha[:16]+f.Ext())
	if err := writeWhole(path, data); err != nil {
		return "", "", protocol.Transient("cannot keep the call's copy of the file in %s: %v", dir, err)
	}
	return path, sha, nil
}

// RecordImport commits an import's measured file as a cad_model revision
// through the one geometry recorder, with what the kernel measured as its
// properties. The copy must still hash to what was measured.
func (b *Backend) RecordImport(ctx context.Context, c twin.ImportCall, measureCallID string, measured json.RawMessage) (map[string]any, error) {
	data, err := os.ReadFile(c.File)
	if err != nil {
		return nil, protocol.Refusal("the measured copy %s is gone (%v): import %s again", c.File, err, c.SourceFile)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != c.SHA256 {
		return nil, protocol.Refusal("the measured copy %s no longer hashes to %s: import %s again", c.File, c.SHA256, c.SourceFile)
	}
	props, err := measuredProperties(measured)
	if err != nil {
		return nil, err
	}
	props["geometry_format"], props["imported_from"] = string(c.Format), c.SourceFile
	props["measured_by"], props["measure_call_id"] = "cadquery.get_properties", measureCallID
	n, it, blob, err := twin.CommitGeometry(ctx, b.Store, b.Blobs, twin.GeometryWrite{ProjectID: c.ProjectID, Name: c.Name, Format: c.Format,
		Data: data, Material: c.Material, Properties: props, Info: c.Info})
	if err != nil {
		return nil, asProtocolRefusal(classify(err))
	}
	out := written(n, it)
	out["project_id"], out["blob"], out["format"] = c.ProjectID, blob, string(c.Format)
	out["properties"], out["measure_call_id"] = props, measureCallID
	return out, nil
}

// measuredAs names each figure cadquery.get_properties gives by the
// property a cad_model records it under (twin.commit_geometry's names).
var measuredAs = map[string]string{
	"volume": "volume_mm3", "area": "surface_area_mm2", "center_of_mass": "center_of_mass_mm", "bounding_box": "bounding_box",
	"solid_count": "solid_count", "inertia": "inertia_unit_density_mm5", "mass_kg": "mass_kg", "inertia_kg_mm2": "inertia_kg_mm2",
}

// measuredProperties are the kernel's figures under the cad_model's
// names, as JSON values; a measurement without a volume is no
// measurement.
func measuredProperties(raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("cadquery.get_properties's answer cannot be read: %w", err)
	}
	if _, ok := m["volume"].(float64); !ok {
		return nil, fmt.Errorf("cadquery.get_properties's answer has no volume: %s", raw)
	}
	props := map[string]any{}
	for from, to := range measuredAs {
		if v, ok := m[from]; ok && v != nil {
			props[to] = v
		}
	}
	return props, nil
}
