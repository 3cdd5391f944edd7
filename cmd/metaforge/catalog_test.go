package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/worker"
)

// Every tool this binary serves is classified in the annotation table: an
// unclassified tool would be shown as a destructive write and held.
func TestEveryServedToolIsClassified(t *testing.T) {
	// The web tools are served only where enabled: enable them, so they
	// are checked too.
	t.Setenv("METAFORGE_WEB_FETCH", "1")
	t.Setenv("BRAVE_API_KEY", "test-key-never-sent")
	tw, err := openTwin(context.Background(), t.TempDir(), false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	reg, _, err := catalog(context.Background(), &worker.Temporal{}, tw, workspaceFor(t.TempDir(), fileRoots{}), &runs.Service{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if reg.ToolCount() < 25 {
		t.Fatalf("the catalogue has %d tools; the twin's are missing", reg.ToolCount())
	}
	served := map[string]bool{}
	for _, m := range reg.Manifests() {
		served[m.ToolID] = true
		if _, ok := adapters.AnnotationsFor(m.ToolID); !ok {
			t.Errorf("%s is not classified in adapters/annotations.go", m.ToolID)
		}
	}
	// And the table names no tool the binary does not serve (a renamed
	// tool would otherwise fall back to the unclassified default).
	for _, id := range adapters.ClassifiedTools() {
		if !served[id] && !strings.HasPrefix(id, "fixture.") {
			t.Errorf("adapters/annotations.go classifies %s, which this binary does not serve", id)
		}
	}
}

// health.check lists the spec's tools this build does not serve (Gazebo's
// simulator tools, Isaac Sim's), each with its reason, and none of them
// is served; gazebo.validate_world, which libsdformat makes real, is.
func TestHealthListsUnservedTools(t *testing.T) {
	tw, err := openTwin(context.Background(), t.TempDir(), false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	reg, checker, err := catalog(context.Background(), &worker.Temporal{}, tw, workspaceFor(t.TempDir(), fileRoots{}), &runs.Service{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(checker.Close)
	// The components' probes need a running Temporal, which this test does
	// not start; the adapters are probed as served.
	checker.Components = nil
	if _, _, ok := reg.Tool("gazebo.validate_world"); !ok {
		t.Fatal("gazebo.validate_world is not served")
	}
	_, h, ok := reg.Tool("health.check")
	if !ok {
		t.Fatal("health.check is not served")
	}
	res, err := h.Call(context.Background(), "health.check", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Unserved []adapters.UnservedTool `json:"unserved_tools"`
	}
	if err := json.Unmarshal(res.Data, &report); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"gazebo.run_simulation":  "Gazebo",
		"gazebo.extract_results": "Gazebo",
		"isaac_sim.run_physics":  "GPU",
		"isaac_sim.render_scene": "GPU",
	}
	for _, u := range report.Unserved {
		word, listed := want[u.ToolID]
		if !listed || !strings.Contains(u.Reason, word) {
			t.Errorf("unserved %s: %q (want a reason naming %s)", u.ToolID, u.Reason, word)
		}
		if _, _, served := reg.Tool(u.ToolID); served {
			t.Errorf("%s is listed as unserved but is served", u.ToolID)
		}
		delete(want, u.ToolID)
	}
	if len(want) != 0 {
		t.Errorf("health.check does not list as unserved: %v (report %s)", want, res.Data)
	}
}
