package physics_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/physics"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// One workspace serves the tests, with the physics adapter and the
// cadquery adapter (which declares cadquery.validate_physics_stability;
// that tool never starts the CadQuery kernel) registered as the server
// registers them. Every call runs the real PyBullet.
var shared struct {
	once sync.Once
	ws   *workspace.Workspace
	reg  *adapters.Registry
	dir  string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

func setup(t *testing.T) *workspace.Workspace {
	t.Helper()
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "physics-test-")
		if err != nil {
			panic(err)
		}
		shared.dir = dir
		shared.ws = workspace.New(dir)
		if err := os.MkdirAll(shared.ws.Root, 0o755); err != nil {
			panic(err)
		}
		shared.reg = adapters.NewRegistry()
		for _, a := range []adapters.Adapter{physics.New(shared.ws, physics.Options{}), cadquery.New(shared.ws, cadquery.Options{})} {
			if err := shared.reg.Register(a); err != nil {
				panic(err)
			}
		}
	})
	return shared.ws
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// call runs a tool as the server would (arguments checked against its
// input schema, then its adapter's Call), checks the result against the
// tool's output schema and returns it.
func call(t *testing.T, tool string, args map[string]any) map[string]any {
	t.Helper()
	out, err := try(t, tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return out
}

func try(t *testing.T, tool string, args map[string]any) (map[string]any, error) {
	t.Helper()
	setup(t)
	raw, _ := json.Marshal(args)
	if err := shared.reg.ValidateArguments(tool, raw); err != nil {
		return nil, err
	}
	m, a, ok := shared.reg.Tool(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	res, err := a.Call(ctx(t), tool, raw)
	if err != nil {
		return nil, err
	}
	if m.Capability == "robot_simulation" && len(res.OutputFiles) != 0 {
		t.Errorf("%s wrote files %v; it writes nothing", tool, res.OutputFiles)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(m.OutputSchema, &s); err != nil {
		t.Fatalf("%s: output schema: %v", tool, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: output schema: %v", tool, err)
	}
	if err := rs.Validate(out); err != nil {
		t.Errorf("%s: the result does not match its output schema: %v", tool, err)
	}
	return out, nil
}

// refused runs a call that must fail with code, and returns the error's
// details, which must name the tool.
func refused(t *testing.T, code protocol.Code, tool string, args map[string]any) string {
	t.Helper()
	out, err := try(t, tool, args)
	if err == nil {
		t.Fatalf("%s: want %s, got %v", tool, code.Name(), out)
	}
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != code {
		t.Fatalf("%s: want %s, got %v", tool, code.Name(), err)
	}
	return pe.Details
}

func mustContain(t *testing.T, what, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("%s: %q does not say %q", what, text, p)
		}
	}
}

// near checks got against want within a relative tolerance.
func near(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %.6g, want %.6g within %.2g%%", what, got, want, rel*100)
	} else {
		t.Logf("%s = %.6g, closed form %.6g (%.3f%% off, tolerance %.2g%%)", what, got, want, 100*math.Abs(got-want)/math.Abs(want), rel*100)
	}
}

// writeFile writes body at rel under the workspace root and returns its
// absolute path.
func writeFile(t *testing.T, rel, body string) string {
	t.Helper()
	ws := setup(t)
	path := filepath.Join(ws.Root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func num(t *testing.T, v any, path ...any) float64 {
	t.Helper()
	v = at(t, v, path...)
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v: not a number: %v", path, v)
	}
	return f
}

func at(t *testing.T, v any, path ...any) any {
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
				t.Fatalf("%v: not an array of more than %d", path, k)
			}
			v = s[k]
		}
	}
	return v
}

func floats(t *testing.T, v any) []float64 {
	t.Helper()
	s, ok := v.([]any)
	if !ok {
		t.Fatalf("not an array: %v", v)
	}
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = x.(float64)
	}
	return out
}

// jointNamed is the result's entry for the joint called name.
func jointNamed(t *testing.T, out map[string]any, name string) map[string]any {
	t.Helper()
	for _, j := range out["joints"].([]any) {
		if m := j.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no joint %q in %v", name, out["joints"])
	return nil
}

func xyz(v [3]float64) string { return fmt.Sprintf("%g %g %g", v[0], v[1], v[2]) }
