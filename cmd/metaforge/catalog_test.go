package main

import (
	"context"
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
	tw, err := openTwin(context.Background(), t.TempDir(), false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	reg, _, err := catalog(context.Background(), &worker.Temporal{}, tw, workspaceFor(t.TempDir(), fileRoots{}), &runs.Service{}, nil)
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
