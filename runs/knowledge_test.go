package runs_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/api/serviceerror"

	knowledgeadapter "github.com/metaforge/metaforge/adapters/knowledge"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/knowledge/datasheettest"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/workflows"
)

// library is the whole durable path over a real SQLite knowledge base: a
// real MCP client, the MCP server, the embedded Temporal server and the
// workers, the knowledge adapter reading from a read root.
type library struct {
	t        *testing.T
	ctx      context.Context
	stack    *mcptest.Stack
	cs       *mcp.ClientSession
	store    knowledge.Store
	readRoot string
}

func newLibrary(t *testing.T) *library {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	dir := t.TempDir()
	store, err := knowledge.OpenSQLite(ctx, filepath.Join(dir, "knowledge.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	ws := workspace.New(dir)
	l := &library{t: t, ctx: ctx, store: store, readRoot: filepath.Join(dir, "docs")}
	if err := os.MkdirAll(l.readRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	ws.Confine([]string{l.readRoot}, nil)
	kn := knowledgeadapter.New(knowledgeadapter.Options{Store: store, Files: ws, Ingest: runs.Knowledge{}})
	l.stack = mcptest.StartWithDeps(t, worker.Deps{Knowledge: store, WorkspaceRoot: ws.Root}, kn)
	l.cs = l.stack.Connect(t, nil)
	return l
}

// call runs a tool and returns its answer and callId, or its refusal.
func (l *library) call(tool string, args map[string]any) (out map[string]any, callID, refusal string) {
	l.t.Helper()
	res, err := l.cs.CallTool(l.ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, "", err.Error()
	}
	text := res.Content[0].(*mcp.TextContent).Text
	callID, _ = res.Meta["callId"].(string)
	if res.IsError {
		return nil, callID, text
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		l.t.Fatalf("%s: %v: %s", tool, err, text)
	}
	return out, callID, ""
}

func (l *library) must(tool string, args map[string]any) (map[string]any, string) {
	l.t.Helper()
	out, id, refusal := l.call(tool, args)
	if out == nil {
		l.t.Fatalf("%s %v: %s", tool, args, refusal)
	}
	return out, id
}

// record writes the ingest's history and its call's for the replay test,
// when -record (-record-calls) is given.
func (l *library) record(ingestID, callID string) {
	l.t.Helper()
	h := &harness{t: l.t, ctx: l.ctx, temporal: l.stack.Temporal}
	if *record {
		h.writeHistory(ingestID, "knowledgeingest", "indexed.json")
	}
	if *recordCalls {
		h.writeHistory(workflows.CallWorkflowID(callID), "toolcall_process", "knowledge.ingest.json")
	}
}

func (l *library) sources() []knowledge.Source {
	l.t.Helper()
	all, err := l.store.Sources(l.ctx, nil)
	if err != nil {
		l.t.Fatal(err)
	}
	return all
}

func sha(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Three datasheets ingested through knowledge.ingest, each a durable
// KnowledgeIngest child of its call: each is indexed with its pages and
// tags, a query on each one's parameter table finds that table's page
// first, a filter that excludes it answers hits [] naming the filter, and
// ingesting the same bytes again is answered at once with no process.
func TestKnowledgeIngestAndSearch(t *testing.T) {
	l := newLibrary(t)
	sheets := datasheettest.Write(t, l.readRoot)
	ids := map[string]string{}
	for _, ds := range sheets {
		out, callID := l.must("knowledge.ingest", map[string]any{"file_path": ds.Path, "tags": map[string]any{
			"MPN": ds.MPN, "manufacturer": ds.Manufacturer, "category": ds.Category, "purchase_unit": "component"}})
		wantID := "src-" + sha(t, ds.Path)[:16]
		if out["source_id"] != wantID || out["title"] != ds.Title || out["already_indexed"] != false ||
			out["pages"] != float64(ds.Pages) || out["chunks"].(float64) < float64(ds.Pages) || out["origin"] != ds.Path {
			t.Errorf("%s: ingest answered %v; want source %s titled %q, %d pages, not already indexed", ds.MPN, out, wantID, ds.Title, ds.Pages)
		}
		if tags, _ := out["tags"].(map[string]any); tags["mpn"] != ds.MPN || tags["purchase_unit"] != "component" {
			t.Errorf("%s: tags %v; want mpn (key lower-cased) and purchase_unit", ds.MPN, out["tags"])
		}
		ids[ds.MPN] = wantID
		if ds.MPN == sheets[0].MPN {
			l.record(workflows.KnowledgeIngestWorkflowID(callID), callID)
		}
		// The ingest ran as the call's child, and its progress query
		// says every page is done.
		v, err := l.stack.Temporal.Client.QueryWorkflow(l.ctx, workflows.KnowledgeIngestWorkflowID(callID), "", workflows.KnowledgeProgressQuery)
		if err != nil {
			t.Fatalf("%s: progress of %s: %v", ds.MPN, workflows.KnowledgeIngestWorkflowID(callID), err)
		}
		var p workflows.KnowledgeIngestProgress
		if err := v.Get(&p); err != nil || p.PagesDone != ds.Pages || p.Pages != ds.Pages || p.SourceID != wantID || float64(p.Chunks) != out["chunks"] {
			t.Errorf("%s: progress %+v (%v); want %d of %d pages done, %v chunks", ds.MPN, p, err, ds.Pages, ds.Pages, out["chunks"])
		}
	}
	all := l.sources()
	if len(all) != 3 {
		t.Fatalf("%d sources after three ingests; want 3", len(all))
	}
	for _, s := range all {
		chunks, err := l.store.Chunks(l.ctx, s.ID)
		if err != nil || s.State != knowledge.StateIndexed || len(chunks) != s.Chunks || s.Format != "pdf" {
			t.Errorf("source %s: state %s, %d chunks stored for %d counted (%v)", s.ID, s.State, len(chunks), s.Chunks, err)
		}
	}

	for _, c := range []struct{ query, mpn string }{
		{"switching frequency soft-start time", "MFB2307"},
		{"dropout voltage ripple rejection", "MFL1117"},
		{"input offset voltage slew rate", "MFA358"},
	} {
		out, _ := l.must("knowledge.search", map[string]any{"query": c.query})
		hits, _ := out["hits"].([]any)
		if len(hits) == 0 {
			t.Errorf("%q: no hits", c.query)
			continue
		}
		first := hits[0].(map[string]any)
		if first["source_id"] != ids[c.mpn] || first["page"] != float64(datasheettest.TablePage) || !strings.Contains(first["snippet"].(string), "**") {
			t.Errorf("%q: first hit %v; want %s page %d with the match marked", c.query, first, c.mpn, datasheettest.TablePage)
		}
		meta, _ := out["_meta"].(map[string]any)
		if out["search_mode"] != "fulltext" || out["ranking"] != "bm25" || meta["search_mode"] != "fulltext" {
			t.Errorf("%q: search_mode %v ranking %v _meta %v; want fulltext, bm25, in _meta too", c.query, out["search_mode"], out["ranking"], meta)
		}
	}

	// A tag filter keeps only the sources it names.
	out, _ := l.must("knowledge.search", map[string]any{"query": "current limit", "tags": map[string]any{"category": "ldo"}})
	for _, h := range out["hits"].([]any) {
		if h.(map[string]any)["source_id"] != ids["MFL1117"] {
			t.Errorf("category=ldo found %v", h)
		}
	}
	// A filter nothing passes: hits [] and a note naming query and filter
	// (the words are in the buck converter's datasheet).
	out, _ = l.must("knowledge.search", map[string]any{"query": "hiccup inductor"})
	if hits := out["hits"].([]any); len(hits) == 0 || hits[0].(map[string]any)["source_id"] != ids["MFB2307"] {
		t.Errorf("hiccup inductor without a filter: %v; want MFB2307 first", out["hits"])
	}
	out, _ = l.must("knowledge.search", map[string]any{"query": "hiccup inductor", "tags": map[string]any{"category": "op-amp"}})
	if hits, ok := out["hits"].([]any); !ok || len(hits) != 0 ||
		!strings.Contains(out["note"].(string), `"hiccup inductor"`) || !strings.Contains(out["note"].(string), `category="op-amp"`) {
		t.Errorf("a search nothing passes answered %v; want hits [] and a note naming the query and category=\"op-amp\"", out)
	}

	// The same bytes again: already indexed, at once, no process.
	buck := sheets[0]
	out, callID := l.must("knowledge.ingest", map[string]any{"file_path": buck.Path, "tags": map[string]any{"category": "other"}})
	if out["already_indexed"] != true || out["source_id"] != ids[buck.MPN] || out["ingested_at"] == "" ||
		!strings.Contains(out["note"].(string), "nothing was done") {
		t.Errorf("re-ingest answered %v; want already_indexed true for %s, saying nothing was done", out, ids[buck.MPN])
	}
	_, err := l.stack.Temporal.Client.DescribeWorkflowExecution(l.ctx, workflows.KnowledgeIngestWorkflowID(callID), "")
	var nf *serviceerror.NotFound
	if !errors.As(err, &nf) {
		t.Errorf("re-ingest started %s (%v); want no process", workflows.KnowledgeIngestWorkflowID(callID), err)
	}
	if n := len(l.sources()); n != 3 {
		t.Errorf("%d sources after a re-ingest; want 3", n)
	}
	if s, _ := l.store.Source(l.ctx, ids[buck.MPN]); s.Tags["category"] != buck.Category {
		t.Errorf("re-ingest changed the tags: %v", s.Tags)
	}
	l.readResources(ids[buck.MPN], buck.Title)
}

// readResources reads metaforge://knowledge/sources and one source through
// MCP: the list names the three sources and the search mode, the source
// carries its passages with their pages, and an unknown source is
// RESOURCE_NOT_FOUND.
func (l *library) readResources(id, title string) {
	t := l.t
	templates, err := l.cs.ListResourceTemplates(l.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, rt := range templates.ResourceTemplates {
		uris = append(uris, rt.URITemplate)
	}
	for _, want := range []string{"metaforge://knowledge/sources", "metaforge://knowledge/sources/{id}"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/templates/list = %v, lacks %s", uris, want)
		}
	}
	read := func(uri string) map[string]any {
		res, err := l.cs.ReadResource(l.ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(res.Contents[0].Text), &out); err != nil {
			t.Fatalf("%s is not JSON: %v", uri, err)
		}
		return out
	}
	list := read("metaforge://knowledge/sources")
	if list["count"] != float64(3) || !strings.Contains(list["search"].(string), "BM25") {
		t.Errorf("metaforge://knowledge/sources = count %v, search %v; want 3 sources and a BM25 full-text search", list["count"], list["search"])
	}
	one := read("metaforge://knowledge/sources/" + id)
	src, _ := one["source"].(map[string]any)
	chunks, _ := one["chunks"].([]any)
	if src["id"] != id || src["title"] != title || len(chunks) == 0 {
		t.Fatalf("metaforge://knowledge/sources/%s = source %v with %d passages", id, src, len(chunks))
	}
	pages := map[float64]bool{}
	for _, c := range chunks {
		pages[c.(map[string]any)["page"].(float64)] = true
	}
	if !pages[1] || !pages[2] {
		t.Errorf("the source's passages cover pages %v; want 1 and 2 among them", pages)
	}
	if _, err := l.cs.ReadResource(l.ctx, &mcp.ReadResourceParams{URI: "metaforge://knowledge/sources/src-0000000000000000"}); err == nil ||
		!strings.Contains(err.Error(), "metaforge://knowledge/sources lists") {
		t.Errorf("an unknown source read as %v; want not found, naming the list", err)
	}
}

// Inline text is ingested with its title, and found; bad input (no
// title, an unknown format, a file outside the read roots, a PDF that
// needs a password is covered in knowledge) is refused and stores
// nothing.
func TestKnowledgeIngestInlineAndRefusals(t *testing.T) {
	l := newLibrary(t)
	out, _ := l.must("knowledge.ingest", map[string]any{"text": "# Bench notes\n\nThe zqflux regulator ran at 41 C on the bench.\n",
		"title": "Bench notes", "format": "markdown", "tags": map[string]any{"category": "notes"}})
	if out["origin"] != "inline" || out["title"] != "Bench notes" || out["format"] != "markdown" || out["pages"] != float64(1) || out["chunks"] != float64(1) {
		t.Errorf("inline ingest answered %v", out)
	}
	found, _ := l.must("knowledge.search", map[string]any{"query": "zqflux"})
	if hits := found["hits"].([]any); len(hits) != 1 || hits[0].(map[string]any)["title"] != "Bench notes" {
		t.Errorf("search for the inline text's word: %v", found["hits"])
	}

	outside := filepath.Join(t.TempDir(), "elsewhere.md")
	if err := os.WriteFile(outside, []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docx := filepath.Join(l.readRoot, "spec.docx")
	if err := os.WriteFile(docx, []byte("PK..."), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"text": "some words"}, "title is required"},
		{map[string]any{"file_path": docx}, "pdf, markdown, text, html, csv"},
		{map[string]any{"file_path": outside}, "elsewhere.md"},
		{map[string]any{}, "give file_path"},
	} {
		if out, _, refusal := l.call("knowledge.ingest", c.args); out != nil || !strings.Contains(refusal, c.want) {
			t.Errorf("ingest %v: %v %q; want a refusal saying %q", c.args, out, refusal, c.want)
		}
	}
	if n := len(l.sources()); n != 1 {
		t.Errorf("%d sources after the refusals; want the one inline source", n)
	}
}
