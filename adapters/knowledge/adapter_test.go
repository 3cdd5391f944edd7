package knowledge_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	knowledgeadapter "github.com/metaforge/metaforge/adapters/knowledge"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

func openStore(t *testing.T) knowledge.Store {
	t.Helper()
	s, err := knowledge.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "knowledge.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func call(t *testing.T, a *knowledgeadapter.Adapter, tool string, args map[string]any) (map[string]any, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := a.Call(context.Background(), tool, raw)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatalf("%s answered %s: %v", tool, res.Data, err)
	}
	return out, nil
}

// The tools are declared with schemas and classified; health says what
// the search is (full text, BM25) and where it is kept; without a store
// it says there is none.
func TestManifestsAndHealth(t *testing.T) {
	a := knowledgeadapter.New(knowledgeadapter.Options{Store: openStore(t)})
	var ids []string
	for _, m := range a.Manifests() {
		ids = append(ids, m.ToolID)
		if m.AdapterID != "knowledge" || len(m.InputSchema) == 0 {
			t.Errorf("%s: adapter %q, schema %s", m.ToolID, m.AdapterID, m.InputSchema)
		}
		if _, ok := adapters.AnnotationsFor(m.ToolID); !ok {
			t.Errorf("%s is not classified in adapters/annotations.go", m.ToolID)
		}
	}
	if strings.Join(ids, ",") != "knowledge.ingest,knowledge.search,knowledge.extract,knowledge.populate_bom" {
		t.Errorf("tools %v", ids)
	}
	if ann, _ := adapters.AnnotationsFor("knowledge.search"); !ann.ReadOnly {
		t.Error("knowledge.search is not read-only")
	}
	if ann, _ := adapters.AnnotationsFor("knowledge.ingest"); ann.ReadOnly || !ann.Idempotent {
		t.Error("knowledge.ingest is not an idempotent write")
	}
	h, err := a.Health(context.Background())
	if err != nil || h.Status != "healthy" || !strings.Contains(h.Version, "full text, BM25 (SQLite FTS5) in ") {
		t.Errorf("health %+v %v; want healthy, naming full text BM25 search and its file", h, err)
	}
	_, err = knowledgeadapter.New(knowledgeadapter.Options{}).Health(context.Background())
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.ToolUnavailable {
		t.Errorf("health without a store: %v; want TOOL_UNAVAILABLE", err)
	}
}

// Bytes already indexed are answered at once, without an ingest engine
// (no process); other bytes need one, and say so.
func TestIngestOfIndexedBytesIsANoOp(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	text := "Soft-start time 2.5 ms on the evaluation board.\n"
	sum := sha256.Sum256([]byte(text))
	src, _, err := store.BeginSource(ctx, knowledge.Source{SHA256: hex.EncodeToString(sum[:]), Origin: "inline", Title: "Eval notes", Format: "text"})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.PutChunks(ctx, knowledge.ChunkPage(src.ID, knowledge.Page{Number: 1, Text: text})); err != nil {
		t.Fatal(err)
	}
	if err := store.FinishSource(ctx, src.ID, 1, 1); err != nil {
		t.Fatal(err)
	}
	a := knowledgeadapter.New(knowledgeadapter.Options{Store: store, Files: workspace.New(t.TempDir())})
	out, err := call(t, a, "knowledge.ingest", map[string]any{"text": text, "title": "Again"})
	if err != nil || out["already_indexed"] != true || out["source_id"] != src.ID || out["title"] != "Eval notes" || out["chunks"] != float64(1) {
		t.Errorf("re-ingest: %v %v; want already_indexed for %s with its first title", out, err, src.ID)
	}
	_, err = call(t, a, "knowledge.ingest", map[string]any{"text": "other words", "title": "New"})
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.ToolUnavailable || !strings.Contains(err.Error(), "Temporal") {
		t.Errorf("new bytes without an engine: %v; want TOOL_UNAVAILABLE saying an ingest needs Temporal", err)
	}

	found, err := call(t, a, "knowledge.search", map[string]any{"query": "soft-start", "limit": 5})
	if err != nil || len(found["hits"].([]any)) != 1 {
		t.Errorf("search: %v %v", found, err)
	}
	none, err := call(t, a, "knowledge.search", map[string]any{"query": "the of and"})
	if err != nil || len(none["hits"].([]any)) != 0 || !strings.Contains(none["note"].(string), `"the of and" in any indexed source (no tag filters applied)`) {
		t.Errorf("search of stop words only: %v %v; want hits [] and a note naming the query and no filters", none, err)
	}
}
