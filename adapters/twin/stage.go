package twin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

func stageWorkProductFileTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.stage_work_product_file", Name: "Stage a work product's file",
		Capability: "twin_read",
		Description: "Write a committed work product's geometry file (its STEP, or its STL) from the blob store back onto the " +
			"workspace, so a solver tool can load the stored part instead of recreating it: by default into this call's own folder, " +
			"named after the revision (CAD-BRACKET-r2.step); output_path may name a file there or a path under a write root. It " +
			"changes nothing in the twin and never replaces a file: a file already there with the same bytes is kept (staged again " +
			"gives the same file), one with other bytes is refused. Returns file_path, sha256, bytes and next_step.",
		Idempotent: true, TimeoutSeconds: 60}, stageWorkProductFile,
		adapters.At("work_product_id", adapters.MinLength(1)),
		adapters.At("output_path", adapters.MinLength(1)))
}

type stageWorkProductFileArgs struct {
	project.Scope
	WorkProductID string `json:"work_product_id" jsonschema:"the cad_model: its node id, or its item ref (KEY@n, or KEY for the head)"`
	OutputPath    string `json:"output_path,omitempty" jsonschema:"default: <KEY>-r<n>.<step|stl> in the call's own folder; or a path under a write root"`
}

// nextSteps are the tools that load a staged file, by format.
var nextSteps = map[twin.GeometryFormat]string{
	twin.FormatSTEP: "load it with cadquery.get_properties (input_file), cadquery.export_geometry or cadquery.boolean_operation, " +
		"or mesh it with gmsh.generate_mesh (input_file) for calculix.run_fea",
	twin.FormatSTL: "measure it with cadquery.get_properties (input_file: a closed STL)",
}

func stageWorkProductFile(ctx context.Context, b *Backend, a stageWorkProductFileArgs) (any, error) {
	if b.Files == nil {
		return nil, protocol.Refusal("this server has no workspace to stage files in: run it with a data dir (metaforge serve)")
	}
	n, err := b.workProduct(ctx, a.ProjectID, a.WorkProductID)
	if err != nil {
		return nil, classify(err)
	}
	f, err := twin.GeometryOf(n)
	if err != nil {
		return nil, classify(err)
	}
	dir, err := b.Files.ForCall(ctx)
	if err != nil {
		return nil, err
	}
	name := a.OutputPath
	if name == "" {
		name = n.ItemKey + "-r" + fmt.Sprint(n.Revision) + f.Format.Ext()
	} else if ext := strings.ToLower(filepath.Ext(name)); ext != f.Format.Ext() && !(f.Format == twin.FormatSTEP && ext == ".stp") {
		return nil, protocol.Invalid("output_path %q must end in %s: %s's file is a%s", name, f.Format.Ext(), n.Ref(), article(f.Format))
	}
	path, err := b.Files.ResolveWrite(dir, "output_path", name)
	if err != nil {
		return nil, err
	}
	data, err := b.Blobs.Get(f.Blob.Key)
	if err != nil {
		return nil, classify(err)
	}
	already, err := sameFile(path, data)
	if err != nil {
		return nil, protocol.Refusal("output_path %s is already a file with other bytes (%v): staging never replaces a file; "+
			"pass another output_path", path, err)
	}
	if !already {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, protocol.Transient("cannot make %s: %v", filepath.Dir(path), err)
		}
		if err := writeWhole(path, data); err != nil {
			return nil, protocol.Transient("cannot write %s: %v", path, err)
		}
	}
	return map[string]any{"file_path": path, "sha256": f.Blob.SHA256, "bytes": len(data), "format": string(f.Format),
		"work_product_id": n.ID, "item_ref": n.Ref(), "already_staged": already,
		"next_step": fmt.Sprintf("file_path %s is %s's %s; %s", path, n.Ref(), strings.ToUpper(string(f.Format)), nextSteps[f.Format])}, nil
}

func article(f twin.GeometryFormat) string {
	if f == twin.FormatSTEP {
		return " STEP"
	}
	return "n STL"
}

// sameFile says whether path already holds exactly data; an error says a
// file is there with other bytes (or cannot be read), which staging must
// not replace.
func sameFile(path string, data []byte) (bool, error) {
	have, err := os.ReadFile(path)
	switch {
	case os.IsNotExist(err):
		return false, nil
	case err != nil:
		return false, err
	case !bytes.Equal(have, data):
		sum := sha256.Sum256(have)
		return false, fmt.Errorf("sha256 %s", hex.EncodeToString(sum[:]))
	}
	return true, nil
}

// writeWhole writes data to path aside and renames it into place, so no
// reader ever sees half a file and two writers of the same bytes both end
// with it whole.
func writeWhole(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
