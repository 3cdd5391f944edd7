package freecad_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/freecad"
	"github.com/metaforge/metaforge/internal/solver"
)

// The tools run in the bubblewrap sandbox a worker gives them, under their
// manifests' limits, the workspace read-only but for the call's folder:
// the Python is installed where the sandbox can read it, FreeCAD keeps its
// user folder in the sandbox's /tmp, and each tool writes only its output.
func TestToolsRunInTheSandbox(t *testing.T) {
	_, ws := setup(t)
	sb, err := solver.NewSandbox()
	if err != nil {
		t.Fatalf("this machine has no working sandbox: %v", err)
	}
	step := supplierStep(t)
	in := func(tool string) context.Context {
		m, _, ok := shared.reg.Tool(tool)
		if !ok {
			t.Fatalf("no tool %s", tool)
		}
		ann, _ := adapters.AnnotationsFor(tool)
		lim := m.ResourceLimits
		return solver.WithRuntime(ctx(t), sb, solver.Policy{
			Limits: solver.Limits{MemoryMB: lim.MaxMemoryMB, CPUSeconds: lim.MaxCPUSeconds,
				Processes: solver.DefaultProcesses, FileSizeMB: lim.MaxDiskMB},
			WorkspaceRoot: ws.Root, WritesWorkspace: !ann.ReadOnly,
		})
	}
	run := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := shared.a.Call(in(tool), tool, raw)
		if err != nil {
			t.Fatalf("%s in the sandbox: %v", tool, err)
		}
		var out map[string]any
		if err := json.Unmarshal(res.Data, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	box := run(freecad.ToolCreateParametric, map[string]any{"shape_type": "box"})
	near(t, "sandboxed box volume", num(t, box, "volume_mm3"), 100*50*20, 1e-9)
	checkSupplierParts(t, "sandboxed import_step", run(freecad.ToolImportStep, map[string]any{"input_file": step}))
	mesh := run(freecad.ToolGenerateMesh, map[string]any{"input_file": box["cad_file"], "element_order": 1, "mesh_size_mm": 10})
	bboxIs(t, "sandboxed mesh", mesh["mesh_bbox_mm"], [3]float64{-50, -25, -10}, [3]float64{50, 25, 10})
}
