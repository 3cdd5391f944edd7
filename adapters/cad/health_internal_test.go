package cad

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/internal/workspace"
)

// A health answer is kept for HealthTTL: a cadquery whose Python appears
// after a failed health check stays unhealthy to the router until the
// answer is HealthTTL old, then is found healthy. The Python is the real
// one with CadQuery, appearing as a link at a path that did not exist.
func TestHealthAnswerIsKeptForTheTTL(t *testing.T) {
	py := os.Getenv(cadquery.EnvPython)
	if py == "" {
		py = "python3"
	}
	python, err := exec.LookPath(py)
	if err != nil {
		t.Fatalf("no Python with CadQuery (%s): %v", py, err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "bin", "python3")
	ws := workspace.New(filepath.Join(dir, "ws"))
	cq := cadquery.New(ws, cadquery.Options{Python: link})
	t.Cleanup(func() { _ = cq.Close() })
	reg := adapters.NewRegistry()
	a := New(reg)
	for _, ad := range []adapters.Adapter{cq, a} {
		if err := reg.Register(ad); err != nil {
			t.Fatal(err)
		}
	}
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a.health.now = func() time.Time { return clock }
	create, _ := CapabilityOf(ToolCreateParametric)
	ctx := context.Background()

	if _, err := a.resolve(ctx, create, KernelCadQuery); err == nil {
		t.Fatal("cadquery with no Python is healthy")
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(python, link); err != nil {
		t.Fatal(err)
	}
	if _, err := cq.Health(ctx); err != nil {
		t.Fatalf("cadquery's own health with its Python in place: %v", err)
	}
	clock = clock.Add(HealthTTL - time.Second)
	if _, err := a.resolve(ctx, create, KernelCadQuery); err == nil {
		t.Errorf("within %s the failed answer is not kept", HealthTTL)
	}
	clock = clock.Add(2 * time.Second)
	if m, err := a.resolve(ctx, create, KernelCadQuery); err != nil || m.toolID != cadquery.ToolCreateParametric {
		t.Errorf("after %s cadquery is asked again and healthy: %+v, %v", HealthTTL, m, err)
	}
}
