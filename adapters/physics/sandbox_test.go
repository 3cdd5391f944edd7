package physics_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/physics"
	"github.com/metaforge/metaforge/internal/solver"
)

// The simulations run in the bubblewrap sandbox a worker gives them, under
// their manifests' limits and the workspace read-only: the Python is
// installed where the sandbox can read it, PyBullet's ground plane comes
// from its own package, and nothing is written.
func TestSimulationsRunInTheSandbox(t *testing.T) {
	ws := setup(t)
	sb, err := solver.NewSandbox()
	if err != nil {
		t.Fatalf("this machine has no working sandbox: %v", err)
	}
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
	urdf := pendulumURDF(t)
	raw, _ := json.Marshal(map[string]any{"urdf_file": urdf, "duration_s": 0.5, "joint_targets": map[string]any{"hinge": 10.0}})
	res, err := physics.New(ws, physics.Options{}).Call(in(physics.ToolRunSimulation), physics.ToolRunSimulation, raw)
	if err != nil {
		t.Fatalf("run_simulation in the sandbox: %v", err)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	if n := num(t, out, "sample_count"); n != 31 {
		t.Errorf("sandboxed run: %v samples, want 31", n)
	}
	raw, _ = json.Marshal(map[string]any{"urdf_file": urdf})
	res, err = physics.New(ws, physics.Options{}).ValidateStability(in(cadquery.ToolValidatePhysicsStability), raw)
	if err != nil {
		t.Fatalf("validate_physics_stability in the sandbox: %v", err)
	}
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	if out["stable"] != true {
		t.Errorf("sandboxed settle: the held hinge is not stable: %v", out["reasons"])
	}
}
