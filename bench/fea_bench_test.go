package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters/gmsh"
)

// gmshFixtures is the gmsh adapter's STEP fixtures, which the bench meshes.
func gmshFixtures() string {
	dir, _ := filepath.Abs(filepath.Join("..", "adapters", "gmsh", "testdata"))
	return dir
}

// BenchmarkCantileverFEA measures what orchestration adds to a real solve:
// calculix.run_fea on the steel cantilever (100 x 10 x 10 mm, C3D10,
// 2.5 mm elements, 1000 N at the tip) through MCP and the durable path,
// against ccx alone on the very deck that call wrote. The two are run in
// turn, b.N times each, so drift on a shared machine hits both alike; the
// ratio of their medians is the figure to read.
func BenchmarkCantileverFEA(b *testing.B) {
	e := durableEnv(b)
	ctx := context.Background()
	step := filepath.Join(gmshFixtures(), "box.step")
	r, err := gmsh.New(benchWorkspace).Call(ctx, "gmsh.generate_mesh", json.RawMessage(`{"input_file":"`+step+`","element_order":2,"mesh_size_mm":2.5}`))
	if err != nil {
		b.Fatalf("mesh the cantilever: %v", err)
	}
	var mesh struct {
		MeshFile string `json:"mesh_file"`
		Elements int    `json:"elements"`
	}
	if err := json.Unmarshal(r.Data, &mesh); err != nil {
		b.Fatal(err)
	}
	args := fmt.Sprintf(`{"mesh_file":%q,"material":"steel","fixed_node_set":"Face1","load_node_set":"Face2","load_force_n":1000}`, mesh.MeshFile)
	cs := e.sessions(b, 1)[0]

	// One call first: it writes the deck ccx alone then runs.
	first, _, err := feaOverMCP(ctx, cs, args)
	if err != nil {
		b.Fatal(err)
	}
	deckDir := filepath.Dir(first)

	var viaMCP, inCall, alone []time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		_, solver, err := feaOverMCP(ctx, cs, args)
		if err != nil {
			b.Fatal(err)
		}
		viaMCP = append(viaMCP, time.Since(start))
		inCall = append(inCall, solver)

		start = time.Now()
		cmd := exec.Command("ccx", "-i", "fea")
		cmd.Dir = deckDir
		cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "CCX_NPROC_EQUATION_SOLVER=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("ccx alone: %v\n%s", err, out)
		}
		alone = append(alone, time.Since(start))
	}
	b.StopTimer()
	m, a := median(viaMCP), median(alone)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(mesh.Elements), "elements")
	b.ReportMetric(a.Seconds(), "ccx_alone_p50_s")
	b.ReportMetric(m.Seconds(), "via_mcp_p50_s")
	// ccx's own run inside the call: what is left of via_mcp is MetaForge.
	// Taken call by call, this difference is free of ccx's own run-to-run
	// spread (several per cent on a shared machine), which swamps the
	// comparison with ccx alone.
	added := make([]time.Duration, len(viaMCP))
	for i := range viaMCP {
		added[i] = viaMCP[i] - inCall[i]
	}
	b.ReportMetric(median(inCall).Seconds(), "ccx_in_call_p50_s")
	b.ReportMetric(float64(median(added).Milliseconds()), "added_ms_p50")
	b.ReportMetric(100*float64(median(added))/float64(median(inCall)), "added_pct")
	b.ReportMetric(100*(float64(m)/float64(a)-1), "overhead_pct")
}

// feaOverMCP runs the cantilever through MCP and returns the deck's path
// and how long ccx ran inside the call.
func feaOverMCP(ctx context.Context, cs *mcp.ClientSession, args string) (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "calculix.run_fea", Arguments: json.RawMessage(args)})
	if err != nil {
		return "", 0, err
	}
	if res.IsError || len(res.Content) == 0 {
		return "", 0, fmt.Errorf("calculix.run_fea failed: %v", res.Content)
	}
	var out struct {
		MaxDeflection float64           `json:"max_deflection_along_load_mm"`
		SolverTime    float64           `json:"solver_time"`
		Files         map[string]string `json:"files"`
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "", 0, fmt.Errorf("calculix.run_fea answered no text")
	}
	if err := json.Unmarshal([]byte(text.Text), &out); err != nil {
		return "", 0, err
	}
	// The solve must be right, not just fast: 1.905 mm within 3%.
	if out.MaxDeflection < 1.905*0.97 || out.MaxDeflection > 1.905*1.03 {
		return "", 0, fmt.Errorf("tip deflection %g mm, want 1.905 within 3%%", out.MaxDeflection)
	}
	return out.Files["deck"], time.Duration(out.SolverTime * float64(time.Second)), nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
