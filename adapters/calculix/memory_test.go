package calculix

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

// The estimate against the peak memory ccx was measured to take (see
// estimateMemoryMB): the slender beams' figures within 10%, and never
// above what a compact part took.
func TestMemoryEstimateFollowsTheMeasurements(t *testing.T) {
	for _, c := range []struct {
		nodes    int
		element  string
		kind     solveKind
		measured int
	}{
		{3366, "C3D10", solveStatic, 33}, {22988, "C3D10", solveStatic, 266}, {82432, "C3D10", solveStatic, 1334},
		{12237, "C3D4", solveStatic, 112}, {39552, "C3D4", solveStatic, 492},
		{22988, "C3D10", solveModal, 285}, {22988, "C3D10", solveThermal, 62}, {82432, "C3D10", solveThermal, 245},
	} {
		got := estimateMemoryMB(c.nodes, c.element, c.kind)
		if d := float64(got-c.measured) / float64(c.measured); d > 0.1 || d < -0.1 {
			t.Errorf("%s, %d nodes: estimate %d MB, measured %d MB", c.kind, c.nodes, got, c.measured)
		}
	}
	// The compact cubes took more than the estimate: it is a floor.
	if est := estimateMemoryMB(29597, "C3D10", solveStatic); est >= 677 {
		t.Errorf("cube of 29,597 nodes: estimate %d MB, at or over the 677 MB it took", est)
	}
	// Issue 20's 1.0 mm beam (153k nodes) failed at 2048 MB after 126 s.
	if est := estimateMemoryMB(153000, "C3D10", solveStatic); est <= DefaultCallMemoryMB {
		t.Errorf("153k nodes: estimate %d MB, yet that solve ran out of 2048 MB", est)
	}
}

// A solve that cannot fit is refused at once, with the estimate and which
// figure to change: the call's max_memory_mb when the deployment allows
// more, the deployment's maximum when it does not.
func TestSolveThatCannotFitIsRefusedAtOnce(t *testing.T) {
	ws, m := fixtureMesh(t, "beam.step", 2, 2) // 22,988 nodes: at least 266 MB
	args := func(extra map[string]any) map[string]any {
		a := map[string]any{"mesh_file": m.path, "material": "aluminum_6061_t6", "fixed_node_set": m.fixed,
			"load_node_set": m.loaded, "load_force_n": beamP}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	expect := func(what string, a *Adapter, extra map[string]any, code protocol.Code, parts ...string) {
		t.Helper()
		began := time.Now()
		err := call(t, a, ToolRunFEA, args(extra), nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != code {
			t.Fatalf("%s: want code %d, got %v", what, code, err)
		}
		for _, p := range parts {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: %q does not say %q", what, err, p)
			}
		}
		if d := time.Since(began); d > 2*time.Second {
			t.Errorf("%s: refused after %v; the refusal must come before ccx runs", what, d)
		}
	}
	roomy := NewWith(ws, Options{MaxMemoryMB: 8192})
	expect("under the call's limit", roomy, map[string]any{"max_memory_mb": 128}, protocol.ToolExecutionError,
		"at least about 266 MB", "22988 nodes", "nothing was run", "Give max_memory_mb 512 or more", "up to 8192")
	tight := NewWith(ws, Options{MaxMemoryMB: 200})
	expect("over the deployment's maximum", tight, nil, protocol.ToolExecutionError,
		"at least about 266 MB", "over this deployment's maximum of 200 MB", MaxMemoryEnv, "raised to 512")
	expect("asking past the deployment", tight, map[string]any{"max_memory_mb": 300}, protocol.InvalidParams,
		"max_memory_mb 300 is over this deployment's maximum of 200 MB", MaxMemoryEnv)
	expect("asking for too little", roomy, map[string]any{"max_memory_mb": 10}, protocol.InvalidParams, "max_memory_mb 10")

	// The same call with room runs, and says what it had and expected.
	var r FEAResult
	if err := call(t, roomy, ToolRunFEA, args(map[string]any{"max_memory_mb": 512}), &r); err != nil {
		t.Fatal(err)
	}
	if r.Memory.LimitMB != 512 || r.Memory.EstimateMB != 266 {
		t.Errorf("memory %+v, want the 512 MB asked and the 266 MB estimate", r.Memory)
	}
	// The manifest's limit, which the sandbox holds, is the deployment's.
	for _, mf := range roomy.Manifests() {
		if (mf.ToolID == ToolRunFEA || mf.ToolID == ToolRunThermal) && mf.ResourceLimits.MaxMemoryMB != 8192 {
			t.Errorf("%s limits %+v, want the deployment's 8192 MB", mf.ToolID, mf.ResourceLimits)
		}
	}
}

// In the sandbox a solve runs under its call's limit, not the deployment's;
// and one that goes past it anyway (a compact part fills in more than the
// estimate's slender beams: testdata/cube.step at 2 mm has 8,029 nodes, an
// estimate of 79 MB, and took 123 MB) is stopped and told which figure to
// change.
func TestSolveHeldToTheCallsMemoryInTheSandbox(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatalf("bwrap is not on PATH: install bubblewrap (apt-get install bubblewrap): %v", err)
	}
	sandbox, err := solver.NewSandbox()
	if err != nil {
		t.Fatal(err)
	}
	ws, m := fixtureMesh(t, "cube.step", 2, 2)
	a := NewWith(ws, Options{MaxMemoryMB: 4096})
	rec := &recorder{Runtime: sandbox}
	var policies []solver.Policy
	spy := policySpy{Runtime: rec, seen: &policies}
	ctx := solver.WithRuntime(context.Background(), spy, solver.Policy{
		Limits: solver.Limits{MemoryMB: 4096, Processes: solver.DefaultProcesses}, WorkspaceRoot: ws.Root})
	run := func(memoryMB int) error {
		b, _ := json.Marshal(map[string]any{"mesh_file": m.path, "material": "steel", "fixed_node_set": m.fixed,
			"load_node_set": m.loaded, "load_force_n": 100, "max_memory_mb": memoryMB})
		_, err := a.Call(ctx, ToolRunFEA, b)
		return err
	}
	if err := run(1024); err != nil {
		t.Fatal(err)
	}
	if n := len(policies); n != 1 || policies[0].Limits.MemoryMB != 1024 {
		t.Fatalf("the solve ran under %+v, want the call's 1024 MB", policies)
	}
	err = run(100)
	var pe *protocol.Error
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "ran out of memory") {
		t.Fatalf("a 100 MB solve of a part that takes 123 MB: want out of memory, got %v", err)
	}
	for _, want := range []string{"100 MB", "the estimate was 79 MB", "give max_memory_mb up to 4096", MaxMemoryEnv} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	t.Logf("%v", err)
}

// policySpy records the policy each run is given.
type policySpy struct {
	solver.Runtime
	seen *[]solver.Policy
}

func (p policySpy) Exec(ctx context.Context, c solver.Command, pol solver.Policy) (solver.Output, error) {
	*p.seen = append(*p.seen, pol)
	return p.Runtime.Exec(ctx, c, pol)
}
