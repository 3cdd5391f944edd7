package twin_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/twin/twintest"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/twin"
)

// pybulletData is the folder of sample robots PyBullet ships: URDFs
// written by other people's tools, not by ours.
func pybulletData(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import pybullet_data; print(pybullet_data.getDataPath())").Output()
	if err != nil {
		t.Fatalf("pybullet_data does not import (%v): pip install pybullet (.ci/run installs it)", err)
	}
	return strings.TrimSpace(string(out))
}

// Importing somebody else's robot: PyBullet's r2d2.urdf (16 links, 15
// joints of four types, 8 mesh references to files in its own folder,
// joint dynamics the architecture has no place for), counted by hand from
// the file. A file that is not a URDF is refused and writes nothing.
func TestImportURDF(t *testing.T) {
	data := pybulletData(t)
	for name, be := range map[string]func(t *testing.T) backend{
		"memory": newBackend,
		"neo4j":  func(t *testing.T) backend { return backend{Backend: neo4jBackend(t, false)} },
	} {
		t.Run(name, func(t *testing.T) {
			b := be(t).Backend
			ws := workspace.New(t.TempDir())
			bad := filepath.Join(t.TempDir(), "notes")
			if err := os.MkdirAll(bad, 0o755); err != nil {
				t.Fatal(err)
			}
			ws.Confine([]string{data, bad}, nil)
			b.Files = ws
			d := twintest.New(t, b)
			pid := d.Call(call("p"), "project.create", map[string]any{"name": "R2D2 Reference"})["project_id"].(string)

			got := d.Call(call("i1"), "twin.import_urdf", map[string]any{"project_id": pid, "file_path": filepath.Join(data, "r2d2.urdf")})
			if got["robot_name"] != "physics" || got["component_count"] != float64(16) || got["interface_count"] != float64(15) ||
				got["item_ref"] != "ARCH-R2D2-REFERENCE@1" {
				t.Fatalf("import = robot %v, %v components, %v interfaces, %v", got["robot_name"], got["component_count"], got["interface_count"], got["item_ref"])
			}
			var swivel map[string]any
			for _, in := range got["interfaces"].([]any) {
				if m := in.(map[string]any); m["name"] == "head_swivel" {
					swivel = m
				}
			}
			joint, _ := swivel["joint"].(map[string]any)
			if swivel["from"] != "base_link" || swivel["to"] != "head" || joint["type"] != "continuous" || joint["upper"] != float64(0) ||
				joint["lower"] != -0.38 || fmt.Sprint(joint["origin_xyz_m"]) != "[0 0 0.3]" {
				t.Errorf("head_swivel = %v", swivel)
			}
			kinds := map[string]int{}
			for _, n := range got["not_imported"].([]any) {
				m := n.(map[string]any)
				kinds[m["kind"].(string)]++
				if m["kind"] == "mesh" && !strings.Contains(m["detail"].(string), "geometry is referenced by path and was not resolved") {
					t.Errorf("mesh not imported without saying why: %v", m)
				}
			}
			if kinds["mesh"] != 8 || kinds["joint_joint_properties"] != 4 {
				t.Errorf("not_imported kinds = %v, want 8 meshes and 4 joint_properties", kinds)
			}
			// Read back through the twin as the architecture it is.
			node := d.Call(call("g"), "twin.get_node", map[string]any{"node_id": got["node_id"]})
			if !strings.Contains(fmt.Sprint(node), "imported_from") {
				t.Errorf("the revision does not say where it came from: %v", node)
			}

			// Not a URDF: an SDF from the same folder, and XML that does not parse.
			if err := os.WriteFile(filepath.Join(bad, "broken.urdf"), []byte(`<robot name="x"><link name="a">`), 0o644); err != nil {
				t.Fatal(err)
			}
			for path, want := range map[string]string{
				filepath.Join(data, "kuka_iiwa", "model.sdf"): "its root element is <sdf>, not <robot>",
				filepath.Join(bad, "broken.urdf"):             "its XML does not parse",
			} {
				other := d.Call(call("p-"+filepath.Base(path)), "project.create", map[string]any{"name": "Not A Robot " + filepath.Base(path)})["project_id"]
				if msg := d.Refusal(call("x-"+filepath.Base(path)), "twin.import_urdf", map[string]any{"project_id": other, "file_path": path}); !strings.Contains(msg, want) {
					t.Errorf("%s: %s, want it to say %q", path, msg, want)
				}
				if heads, err := twin.HeadRevisions(context.Background(), b.Store, other.(string), twin.SystemArchitectureItemType); err != nil || len(heads) > 0 {
					t.Errorf("%s: an architecture was written: %v %v", path, heads, err)
				}
			}
		})
	}
}
