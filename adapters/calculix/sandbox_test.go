package calculix

import (
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"slices"
	"sync"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/solver"
)

// recorder is a runtime that keeps the Output of every run it passes on.
type recorder struct {
	solver.Runtime
	mu   sync.Mutex
	outs []solver.Output
}

func (r *recorder) Exec(ctx context.Context, c solver.Command, p solver.Policy) (solver.Output, error) {
	out, err := r.Runtime.Exec(ctx, c, p)
	r.mu.Lock()
	r.outs = append(r.outs, out)
	r.mu.Unlock()
	return out, err
}

// The cantilever of TestReferenceCantileverStatic with ccx in the sandbox,
// under run_fea's own limits and the policy the worker gives a read-only
// tool: tip deflection F L^3 / (3 E I) = 1.905 mm within 3%.
func TestReferenceCantileverStaticInSandbox(t *testing.T) {
	ws, mesh := barMesh(t)
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatalf("bwrap is not on PATH: install bubblewrap (apt-get install bubblewrap): %v", err)
	}
	sandbox, err := solver.NewSandbox()
	if err != nil {
		t.Fatal(err)
	}
	a := New(ws)
	var lim adapters.ResourceLimits
	for _, m := range a.Manifests() {
		if m.ToolID == ToolRunFEA {
			lim = m.ResourceLimits
		}
	}
	ann, _ := adapters.AnnotationsFor(ToolRunFEA)
	policy := solver.Policy{ // as activities.policyFor fills it
		Limits: solver.Limits{MemoryMB: lim.MaxMemoryMB, CPUSeconds: lim.MaxCPUSeconds,
			Processes: solver.DefaultProcesses, FileSizeMB: lim.MaxDiskMB},
		WorkspaceRoot: ws.Root, WritesWorkspace: !ann.ReadOnly,
	}
	rec := &recorder{Runtime: sandbox}
	ctx := solver.WithRuntime(context.Background(), rec, policy)
	args, _ := json.Marshal(map[string]any{
		"mesh_file": mesh, "material": "steel", "fixed_node_set": "Face1", "load_node_set": "Face2",
		"load_force_n": 1000, "load_direction": []float64{0, 0, -1},
	})
	res, err := a.Call(ctx, ToolRunFEA, args)
	if err != nil {
		t.Fatal(err)
	}
	var r FEAResult
	if err := json.Unmarshal(res.Data, &r); err != nil {
		t.Fatal(err)
	}
	want := 1000.0 * math.Pow(100, 3) / (3 * 210000 * 10 * math.Pow(10, 3) / 12)
	got := *r.MaxDeflectionMM
	if len(rec.outs) != 1 {
		t.Fatalf("want one ccx run through the sandbox, got %d", len(rec.outs))
	}
	iso := rec.outs[0].Isolation
	t.Logf("tip deflection %.4f mm (closed form %.4f), ccx %.2f s in the sandbox, isolation %v", got, want, r.SolverTime, iso)
	if math.Abs(got-want)/want > 0.03 {
		t.Errorf("tip deflection %.4f mm, want %.4f within 3%%", got, want)
	}
	for _, layer := range []string{solver.LayerBwrap, solver.LayerNoNetwork, solver.LayerRlimitCPU, solver.LayerRlimitFsize} {
		if !slices.Contains(iso, layer) {
			t.Errorf("isolation %v lacks %s", iso, layer)
		}
	}
	if !policy.WritesWorkspace && !slices.Contains(iso, solver.LayerWorkspaceRO) {
		t.Errorf("run_fea is read-only, yet its workspace was writable: %v", iso)
	}
}
