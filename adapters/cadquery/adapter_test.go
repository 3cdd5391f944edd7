package cadquery_test

import (
	"context"
	"encoding/json"
	"errors"
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
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// One warm adapter serves every test that needs CadQuery: starting the
// kernel (and the script runner's fork server) costs seconds.
var shared struct {
	once sync.Once
	dir  string
	ws   *workspace.Workspace
	a    *cadquery.Adapter
	skip string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.a != nil {
		_ = shared.a.Close()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// warm returns the shared adapter, skipping the test on a machine whose
// Python has no CadQuery.
func warm(t *testing.T) (*cadquery.Adapter, *workspace.Workspace) {
	t.Helper()
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "cadquery-test-")
		if err != nil {
			shared.skip = err.Error()
			return
		}
		shared.dir = dir
		shared.ws = workspace.New(dir)
		shared.a = cadquery.New(shared.ws, cadquery.Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := shared.a.Health(ctx); err != nil {
			shared.skip = err.Error()
		}
	})
	if shared.skip != "" {
		t.Skip("CadQuery is not available: " + shared.skip)
	}
	return shared.a, shared.ws
}

// call runs a tool that must succeed and returns its data as a map.
func call(t *testing.T, a *cadquery.Adapter, toolID string, args any) (map[string]any, *adapters.Result) {
	t.Helper()
	res, err := run(a, toolID, args)
	if err != nil {
		t.Fatalf("%s: %v", toolID, err)
	}
	var data map[string]any
	if err := json.Unmarshal(res.Data, &data); err != nil {
		t.Fatalf("%s: data does not decode: %v", toolID, err)
	}
	if err := outputSchema(t, a, toolID).Validate(data); err != nil {
		t.Errorf("%s: the result does not match the output schema: %v\n%s", toolID, err, res.Data)
	}
	return data, res
}

// outputSchema is the tool's output schema, resolved.
func outputSchema(t *testing.T, a *cadquery.Adapter, toolID string) *jsonschema.Resolved {
	t.Helper()
	for _, m := range a.Manifests() {
		if m.ToolID != toolID {
			continue
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(m.OutputSchema, &s); err != nil {
			t.Fatalf("%s: the output schema does not decode: %v", toolID, err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: the output schema does not resolve: %v", toolID, err)
		}
		return rs
	}
	t.Fatalf("no tool %s", toolID)
	return nil
}

// callErr runs a tool that must fail with code and returns its details.
func callErr(t *testing.T, a *cadquery.Adapter, toolID string, args any, code protocol.Code) string {
	t.Helper()
	res, err := run(a, toolID, args)
	if err == nil {
		t.Fatalf("%s: want %s, got a result: %s", toolID, code.Name(), res.Data)
	}
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("%s: want a %s *protocol.Error, got %T: %v", toolID, code.Name(), err, err)
	}
	if pe.Code != code {
		t.Fatalf("%s: want %s, got %s: %s", toolID, code.Name(), pe.Code.Name(), pe.Details)
	}
	if pe.ToolID != toolID {
		t.Errorf("%s: the error names tool %q", toolID, pe.ToolID)
	}
	return pe.Details
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func run(a *cadquery.Adapter, toolID string, args any) (*adapters.Result, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return a.Call(ctx, toolID, raw)
}

// part makes a parametric part and returns its STEP file.
func part(t *testing.T, a *cadquery.Adapter, shapeType string, params map[string]float64) string {
	t.Helper()
	data, _ := call(t, a, cadquery.ToolCreateParametric, map[string]any{"shape_type": shapeType, "parameters": params})
	return data["cad_file"].(string)
}

type obj = map[string]any

// num reads a number at a path of keys and indexes, e.g. num(d, "bounding_box", "size", 0).
func num(t *testing.T, v any, path ...any) float64 {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %q", path, k)
			}
			v = m[k]
		case int:
			s, ok := v.([]any)
			if !ok || k >= len(s) {
				t.Fatalf("%v: not an array of more than %d at %d", path, k, k)
			}
			v = s[k]
		}
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v: want a number, got %v", path, v)
	}
	return f
}

// near checks got against want within a relative tolerance (an absolute
// one when want is 0).
func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	scale := math.Abs(want)
	if scale == 0 {
		scale = 1
	}
	if math.Abs(got-want) > tol*scale {
		t.Errorf("%s = %.12g, want %.12g (tolerance %g)", what, got, want, tol)
	}
}

// callFolders counts the call folders, to show a refused call wrote nothing.
func callFolders(t *testing.T, ws *workspace.Workspace) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(ws.Root, "calls"))
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not say %q: %s", what, sub, s)
		}
	}
}
