package omniverseusd_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/omniverseusd"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// One workspace and registry serve the tests: the omniverse_usd adapter
// (a Python process per call) and a warm CadQuery adapter, which makes
// the parts and GLBs the USD tools read.
var shared struct {
	once sync.Once
	dir  string
	ws   *workspace.Workspace
	usd  *omniverseusd.Adapter
	cq   *cadquery.Adapter
	reg  *adapters.Registry
	skip string
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

// setup returns the shared registry, skipping the test on a machine
// without usd-core or CadQuery (deploy/install-solvers.sh installs both).
func setup(t *testing.T) *adapters.Registry {
	t.Helper()
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "omniverse-usd-test-")
		if err != nil {
			shared.skip = err.Error()
			return
		}
		shared.dir = dir
		shared.ws = workspace.New(dir)
		if err := os.MkdirAll(shared.ws.Root, 0o755); err != nil {
			shared.skip = err.Error()
			return
		}
		shared.usd = omniverseusd.New(shared.ws, omniverseusd.Options{})
		shared.cq = cadquery.New(shared.ws, cadquery.Options{})
		shared.reg = adapters.NewRegistry()
		for _, a := range []adapters.Adapter{shared.usd, shared.cq} {
			if err := shared.reg.Register(a); err != nil {
				shared.skip = err.Error()
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, a := range []adapters.Adapter{shared.usd, shared.cq} {
			if _, err := a.Health(ctx); err != nil {
				shared.skip = a.ID() + ": " + err.Error()
				return
			}
		}
	})
	if shared.skip != "" {
		t.Skip("usd-core or CadQuery is not available: " + shared.skip)
	}
	return shared.reg
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return c
}

type obj = map[string]any

// call runs a tool as the server would (arguments checked against its
// input schema, then the adapter's Call), checks the result against its
// output schema and the files it names, and returns its data.
func call(t *testing.T, tool string, args obj) (obj, *adapters.Result) {
	t.Helper()
	out, res, err := try(t, tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return out, res
}

func try(t *testing.T, tool string, args obj) (obj, *adapters.Result, error) {
	t.Helper()
	reg := setup(t)
	raw, _ := json.Marshal(args)
	if err := reg.ValidateArguments(tool, raw); err != nil {
		return nil, nil, err
	}
	_, a, ok := reg.Tool(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	res, err := a.Call(ctx(t), tool, raw)
	if err != nil {
		return nil, nil, err
	}
	var out obj
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatalf("%s: data does not decode: %v", tool, err)
	}
	if err := outputSchema(t, tool).Validate(out); err != nil {
		t.Fatalf("%s: the result does not match the output schema: %v\n%s", tool, err, res.Data)
	}
	for _, f := range res.OutputFiles {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: output file %s is missing or empty: %v", tool, f, err)
		}
	}
	return out, res, nil
}

// callErr runs a tool that must fail with code and returns its details.
func callErr(t *testing.T, tool string, args obj, code protocol.Code) string {
	t.Helper()
	_, res, err := try(t, tool, args)
	if err == nil {
		t.Fatalf("%s: want %s, got a result: %s", tool, code.Name(), res.Data)
	}
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != code {
		t.Fatalf("%s: want %s, got %v", tool, code.Name(), err)
	}
	return pe.Details
}

func outputSchema(t *testing.T, tool string) *jsonschema.Resolved {
	t.Helper()
	for _, m := range setup(t).Manifests() {
		if m.ToolID != tool || m.OutputSchema == nil {
			continue
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(m.OutputSchema, &s); err != nil {
			t.Fatalf("%s: the output schema does not decode: %v", tool, err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: the output schema does not resolve: %v", tool, err)
		}
		return rs
	}
	t.Fatalf("no tool %s with an output schema", tool)
	return nil
}

func mustContain(t *testing.T, what, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("%s %q does not say %q", what, text, p)
		}
	}
}

// writeFile writes body into the workspace and returns its path.
func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	setup(t)
	path := filepath.Join(shared.ws.Root, "inputs", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// emptyCallFolders fails when a call left a folder with files behind:
// every failed call must leave nothing.
func callFolders(t *testing.T) map[string]bool {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(shared.ws.Root, "calls"))
	out := map[string]bool{}
	for _, e := range entries {
		out[e.Name()] = true
	}
	return out
}

func TestHealthNamesUSDCore(t *testing.T) {
	setup(t)
	h, err := shared.usd.Health(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "version", h.Version, "usd-core 0.26.11")
	if h.ToolsAvailable != 3 {
		t.Errorf("tools %d, want 3", h.ToolsAvailable)
	}
}

// A Python without pxr (python3 -S: no site-packages) is TOOL_UNAVAILABLE
// saying how to install usd-core, for a call and for health.
func TestMissingUSDCoreIsUnavailable(t *testing.T) {
	setup(t)
	dir := t.TempDir()
	noPxr := filepath.Join(dir, "python-without-pxr")
	if err := os.WriteFile(noPxr, []byte("#!/bin/sh\nexec python3 -S \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := omniverseusd.New(shared.ws, omniverseusd.Options{Python: noPxr})
	stage := writeFile(t, "minimal.usda", "#usda 1.0\n")
	raw, _ := json.Marshal(obj{"file": stage})
	_, err := a.Call(ctx(t), omniverseusd.ToolDescribeStage, raw)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.ToolUnavailable {
		t.Fatalf("want TOOL_UNAVAILABLE, got %v", err)
	}
	mustContain(t, "the error", pe.Details, "pip install usd-core", "No module named 'pxr'", omniverseusd.EnvPython)
	if _, err := a.Health(ctx(t)); !errors.As(err, &pe) || pe.Code != protocol.ToolUnavailable {
		t.Fatalf("health: want TOOL_UNAVAILABLE, got %v", err)
	}
}
