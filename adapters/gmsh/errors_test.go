package gmsh

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/protocol"
)

// wantError checks err is a taxonomy error of the given code, naming the
// tool, whose details say each of says.
func wantError(t *testing.T, err error, code protocol.Code, says ...string) {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want %s", err, code.Name())
	}
	if pe.Code != code || pe.ToolID == "" || pe.Retryable {
		t.Errorf("error %+v, want non-retryable %s naming the tool", pe, code.Name())
	}
	for _, s := range says {
		if !strings.Contains(pe.Details, s) {
			t.Errorf("error %q does not say %q", pe.Details, s)
		}
	}
}

// nothingWritten checks no call folder was made.
func nothingWritten(t *testing.T, a *Adapter) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(a.ws.Root, "calls"))
	if err == nil && len(entries) > 0 || err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed call left %d call folders (%v)", len(entries), err)
	}
}

func TestBadArguments(t *testing.T) {
	a := newAdapter(t)
	box := fixture("box.step")
	for name, tc := range map[string]struct {
		args map[string]any
		says string
	}{
		"missing file":      {map[string]any{"input_file": filepath.Join(a.ws.Root, "nope.step")}, "does not exist"},
		"no input":          {map[string]any{}, "input_file is empty"},
		"outside the roots": {map[string]any{"input_file": "/etc/hostname"}, "outside the allowed roots"},
		"order 3":           {map[string]any{"input_file": box, "element_order": 3}, "element_order 3"},
		"size 0":            {map[string]any{"input_file": box, "mesh_size_mm": 0}, "mesh_size_mm 0 must be greater than 0"},
		"negative size":     {map[string]any{"input_file": box, "mesh_size_mm": -2}, "mesh_size_mm -2"},
		"min above max":     {map[string]any{"input_file": box, "mesh_size_mm": 2, "mesh_size_min_mm": 3}, "larger than mesh_size_mm"},
		"folder in name":    {map[string]any{"input_file": box, "output_name": "../mesh.inp"}, "plain file name"},
		"unknown field":     {map[string]any{"input_file": box, "order": 2}, "unknown argument order; this tool takes"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := callTool(a, ToolGenerateMesh, tc.args)
			wantError(t, err, protocol.InvalidParams, tc.says)
		})
	}
	_, err := callTool(a, "gmsh.nope", nil)
	wantError(t, err, protocol.InvalidParams, ToolGenerateMesh)
	nothingWritten(t, a)
}

func TestFilesGmshCannotMesh(t *testing.T) {
	needGmsh(t)
	a := newAdapter(t)
	if err := os.MkdirAll(a.ws.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(a.ws.Root, "notes.step")
	if err := os.WriteFile(text, []byte("this is not a STEP file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := callTool(a, ToolGenerateMesh, map[string]any{"input_file": text})
	wantError(t, err, protocol.ToolExecutionError, "notes.step is not a STEP file gmsh can read", "Could not read file")

	_, err = callTool(a, ToolGenerateMesh, map[string]any{"input_file": fixture("sheet.step")})
	wantError(t, err, protocol.ToolExecutionError, "gmsh could not mesh sheet.step", "holds no solid volume")
	nothingWritten(t, a)
}

func TestListNamedFacesNeedsAFaceTable(t *testing.T) {
	a := newAdapter(t)
	if err := os.MkdirAll(a.ws.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	deck := filepath.Join(a.ws.Root, "other.inp")
	if err := os.WriteFile(deck, []byte("*NODE\n1, 0, 0, 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := callTool(a, ToolListNamedFaces, map[string]any{"mesh_file": deck})
	wantError(t, err, protocol.InvalidParams, "no face table", ToolGenerateMesh)
	_, err = callTool(a, ToolListNamedFaces, map[string]any{"mesh_file": "missing.inp"})
	wantError(t, err, protocol.InvalidParams, "does not exist")
}

func TestHealth(t *testing.T) {
	needGmsh(t)
	h, err := newAdapter(t).Health(context.Background())
	if err != nil || h.Status != "healthy" || !strings.Contains(h.Version, "gmsh 4.") || h.ToolsAvailable != 2 {
		t.Fatalf("health %+v, %v", h, err)
	}
}

func TestWithoutGmsh(t *testing.T) {
	a := newAdapter(t)
	a.Binary = "/nonexistent/gmsh"
	_, err := a.Health(context.Background())
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.ToolUnavailable || !strings.Contains(pe.Details, "apt-get install gmsh") {
		t.Fatalf("health without gmsh: %v, want TOOL_UNAVAILABLE with the install hint", err)
	}
	_, err = callTool(a, ToolGenerateMesh, map[string]any{"input_file": fixture("box.step")})
	wantError(t, err, protocol.ToolUnavailable, "apt-get install gmsh")
	nothingWritten(t, a)
}
