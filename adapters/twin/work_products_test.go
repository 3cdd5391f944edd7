package twin_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/twin/twintest"
	"github.com/metaforge/metaforge/internal/workspace"
)

// Staging a committed part, as the worker runs the tool, on each store:
// the bytes written are the blob's, into the call's own folder by
// default (a retried call finds its file), or a write root's path, kept
// when it already holds them and never replaced. The durable tools say
// what they need where it is missing. The whole path (Temporal, the
// solvers) is tested in runs/work_products_test.go.
func TestStageWorkProductFile(t *testing.T) {
	for name, be := range map[string]func(t *testing.T) backend{
		"memory": newBackend,
		"neo4j":  func(t *testing.T) backend { return backend{Backend: neo4jBackend(t, false)} },
	} {
		t.Run(name, func(t *testing.T) {
			b := be(t).Backend
			dir := t.TempDir()
			ws := workspace.New(dir)
			out := filepath.Join(dir, "out")
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			ws.Confine(nil, []string{out})
			d := twintest.New(t, b)
			pid := d.Call(call("p"), "project.create", map[string]any{"name": "Staging"})["project_id"].(string)
			stepText := step("bracket")
			wp := d.Call(call("c"), "twin.commit_geometry", map[string]any{"project_id": pid, "name": "Bracket", "step_base64": stepText})
			want, _ := base64.StdEncoding.DecodeString(stepText)
			args := map[string]any{"project_id": pid, "work_product_id": wp["item_ref"]}

			if msg := d.Refusal(call("s0"), "twin.stage_work_product_file", args); !strings.Contains(msg, "this server has no workspace to stage files in") {
				t.Errorf("without a workspace: %s", msg)
			}
			b.Files = ws
			first := d.Call(call("s1"), "twin.stage_work_product_file", args)
			retried := d.Call(call("s1"), "twin.stage_work_product_file", args)
			path := first["file_path"].(string)
			if got, _ := os.ReadFile(path); !bytes.Equal(got, want) || filepath.Base(path) != "CAD-BRACKET-r1.step" ||
				!strings.Contains(path, filepath.Join("calls", "s1")) || retried["file_path"] != path || retried["already_staged"] != true {
				t.Errorf("staged %v, retried %v; the file holds %q", first, retried, got)
			}
			args["output_path"] = filepath.Join(out, "bracket.stp")
			if got := d.Call(call("s2"), "twin.stage_work_product_file", args); got["already_staged"] != false || got["file_path"] != args["output_path"] {
				t.Errorf("into the write root: %v", got)
			}
			if err := os.WriteFile(args["output_path"].(string), []byte("edited by hand"), 0o644); err != nil {
				t.Fatal(err)
			}
			if msg := d.Refusal(call("s3"), "twin.stage_work_product_file", args); !strings.Contains(msg, "staging never replaces a file") {
				t.Errorf("over a file with other bytes: %s", msg)
			}

			for tool, a := range map[string]map[string]any{
				"twin.import_work_product":      {"project_id": pid, "name": "Bracket", "file_path": "bracket.step"},
				"twin.evaluate_overhang_metric": {"project_id": pid, "work_product_id": wp["item_ref"], "mesh_file": "mesh.inp"},
			} {
				if _, err := d.Try(call("x-"+tool), tool, a); err == nil || !strings.Contains(err.Error(), "needs Temporal") {
					t.Errorf("%s without its engine: %v", tool, err)
				}
			}
		})
	}
}
