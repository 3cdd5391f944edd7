package cadquery_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// A geometry call past its deadline cannot be interrupted inside
// OpenCASCADE, so the kernel is replaced; the next call must not queue
// behind the runaway.
func TestRunawayGeometryIsStoppedAndTheNextCallWorks(t *testing.T) {
	warm(t) // only to skip without CadQuery: this test has a kernel of its own
	ws := workspace.New(t.TempDir())
	a := cadquery.New(ws, cadquery.Options{})
	defer a.Close()
	pin := part(t, a, "cylinder", map[string]float64{"diameter": 10, "height": 30, "bore_diameter": 4})

	// 100 copies of one tube in one place: 4950 pairwise booleans, far
	// more than a second's work.
	parts := make([]obj, 100)
	for i := range parts {
		parts[i] = obj{"name": "tube" + string(rune('A'+i/26)) + string(rune('a'+i%26)), "file": pin, "rz": float64(i)}
	}
	raw := mustJSON(t, obj{"parts": parts})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := a.Call(ctx, cadquery.ToolCreateAssembly, raw)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.ToolTimeout {
		t.Fatalf("a runaway assembly: want TOOL_TIMEOUT, got %v", err)
	}
	mustContain(t, "the timeout", pe.Details, "restarted")

	started := time.Now()
	data, _ := call(t, a, cadquery.ToolGetProperties, obj{"input_file": pin})
	near(t, "tube volume", num(t, data, "volume"), 3.141592653589793*(25-4)*30, 1e-9)
	t.Logf("the next call took %s, restarting the kernel included", time.Since(started).Round(time.Millisecond))
}

// A CadQuery that is found but does not import is TOOL_UNAVAILABLE with
// Python's own error, from the kernel itself.
func TestBrokenCadQueryInstall(t *testing.T) {
	warm(t) // the fake interpreter wraps the real python3
	broken := t.TempDir()
	if err := os.MkdirAll(filepath.Join(broken, "cadquery"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "cadquery", "__init__.py"), []byte("raise ImportError('libTKernel.so: cannot open shared object file')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	python := filepath.Join(broken, "python")
	script := "#!/bin/sh\nPYTHONPATH=" + broken + " exec python3 \"$@\"\n"
	if err := os.WriteFile(python, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	a := cadquery.New(workspace.New(t.TempDir()), cadquery.Options{Python: python})
	defer a.Close()
	details := callErr(t, a, cadquery.ToolCreateParametric, obj{"shape_type": "box"}, protocol.ToolUnavailable)
	mustContain(t, "the error", details, "installed for "+python+" but does not import", "ImportError: libTKernel.so", "--force-reinstall")
	// Once more: the kernel that could not import was dropped, and a new
	// one says the same.
	again := callErr(t, a, cadquery.ToolCreateParametric, obj{"shape_type": "box"}, protocol.ToolUnavailable)
	if again != details {
		t.Errorf("the second call says %q, the first %q", again, details)
	}
}
