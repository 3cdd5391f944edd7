package cad_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cad"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/calculix"
	"github.com/metaforge/metaforge/adapters/freecad"
	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/internal/workspace"
)

// The tests run the real kernels (CadQuery, FreeCAD, gmsh, CalculiX),
// registered as the catalog registers them: one registry, the cad adapter
// reading it.
var shared struct {
	once sync.Once
	dir  string
	ws   *workspace.Workspace
	reg  *adapters.Registry
	cq   *cadquery.Adapter
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cq != nil {
		_ = shared.cq.Close()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// catalog is the shared registry: cadquery, freecad (meshing with gmsh),
// gmsh, calculix and cad.
func catalog(t *testing.T) (*adapters.Registry, *workspace.Workspace) {
	t.Helper()
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "cad-test-")
		if err != nil {
			panic(err)
		}
		shared.dir = dir
		shared.ws = workspace.New(dir)
		mesher := gmsh.New(shared.ws)
		shared.cq = cadquery.New(shared.ws, cadquery.Options{})
		shared.reg = adapters.NewRegistry()
		for _, a := range []adapters.Adapter{
			cad.New(shared.reg), // before the kernels: it reads the registry at each call
			shared.cq,
			freecad.New(shared.ws, freecad.Options{Mesher: mesher}),
			mesher,
			calculix.New(shared.ws),
		} {
			if err := shared.reg.Register(a); err != nil {
				panic(err)
			}
		}
	})
	return shared.reg, shared.ws
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return c
}

// run calls a tool of reg as the server does: arguments checked against
// its input schema, then its adapter's Call. The answer's files exist.
func run(t *testing.T, reg *adapters.Registry, tool string, args map[string]any) (map[string]any, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	if err := reg.ValidateArguments(tool, raw); err != nil {
		return nil, err
	}
	_, a, _ := reg.Tool(tool)
	res, err := a.Call(ctx(t), tool, raw)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	for _, f := range res.OutputFiles {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: output file %s is missing or empty: %v", tool, f, err)
		}
	}
	return out, nil
}

func mustRun(t *testing.T, reg *adapters.Registry, tool string, args map[string]any) map[string]any {
	t.Helper()
	out, err := run(t, reg, tool, args)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return out
}

// num reads a number at path (object keys and array indexes).
func num(t *testing.T, v any, path ...any) float64 {
	t.Helper()
	for _, k := range path {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %q", path, k)
			}
			v = m[k]
		case int:
			s, ok := v.([]any)
			if !ok || k >= len(s) {
				t.Fatalf("%v: not an array longer than %d", path, k)
			}
			v = s[k]
		}
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v: %v is not a number", path, v)
	}
	return f
}

// near checks got against want to a relative tolerance (absolute near 0).
func near(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Max(math.Abs(want), 1) {
		t.Errorf("%s: got %.6g, want %.6g within %g%%", what, got, want, rel*100)
	}
}
