package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	knowledgeadapter "github.com/metaforge/metaforge/adapters/knowledge"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

const (
	lm317Text = "LM317 adjustable regulator. Output 1.25 V to 37 V at up to 1.5 A; set it with two resistors.\n"
	ne555Text = "NE555 timer: astable and monostable modes, 4.5 V to 16 V supply.\n"
	buckMD    = "# Buck converter notes\n\nThe TPS54331 switches at 570 kHz from a 3.5 V to 28 V input.\n"
)

// sourceID is the id the knowledge base gives bytes: src- and the first
// 16 hex digits of their SHA-256.
func sourceID(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "src-" + hex.EncodeToString(sum[:])[:16]
}

// metaforge ingest runs knowledge.ingest as a ToolCall workflow on a real
// stack (embedded Temporal, the workers with a SQLite knowledge base) and
// metaforge sources reads what it stored through the REST API with the
// operator token, as against a running serve.
func TestIngestAndSourcesCLI(t *testing.T) {
	ctx := context.Background()
	dataDir, token := cliOperator(t)
	store, err := knowledge.OpenSQLite(ctx, filepath.Join(dataDir, knowledgeFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	docs := t.TempDir()
	ws := workspace.New(dataDir, docs)
	st := mcptest.StartWithDeps(t, worker.Deps{Knowledge: store, WorkspaceRoot: ws.Root, ReadRoots: ws.Extra},
		knowledgeadapter.New(knowledgeadapter.Options{Store: store, Files: ws, Ingest: runs.Knowledge{}}))
	rest := mcpserver.New(mcpserver.Options{Registry: st.Registry, Engine: mcpserver.TemporalEngine{Client: st.Temporal.Client},
		Health: st.Health, Caller: mcpserver.CallerUntrusted, Transport: mcpserver.TransportHTTP, Version: "test",
		Logger: workertest.QuietLogger(), Auth: mcpserver.Auth{Verifier: mcpserver.HS256Verifier([]byte(cliJWTSecret)), OperatorToken: token},
		Routes: []mcpserver.Routes{knowledge.Handler{Store: store}}})
	srv := httptest.NewServer(rest.HTTPHandler())
	t.Cleanup(srv.Close)
	t.Setenv("TEMPORAL_ADDRESS", st.Temporal.Address)
	t.Setenv("TEMPORAL_NAMESPACE", st.Temporal.Namespace)
	at := []string{"--data-dir", dataDir, "--url", srv.URL}

	txt := filepath.Join(docs, "LM317 notes.txt")
	md := filepath.Join(docs, "buck.md")
	for f, body := range map[string]string{txt: lm317Text, md: buckMD} {
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// FILE is made absolute: give it relative to the working folder.
	wd, _ := os.Getwd()
	relTxt, err := filepath.Rel(wd, txt)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	// No --title, and a text file has none of its own: the file's name is
	// its title (not the name of the copy the ingest reads).
	if err := runIngest(ctx, []string{relTxt, "--tag", "mpn=LM317", "--tag", "category=ldo"}, &out, &errOut); err != nil {
		t.Fatalf("metaforge ingest %s: %v (stderr %q)", relTxt, err, errOut.String())
	}
	txtID := sourceID(lm317Text)
	if want := "indexed LM317 notes as " + txtID + ": 1 pages, 1 passages\n"; out.String() != want {
		t.Errorf("metaforge ingest printed %q, want %q", out.String(), want)
	}
	if errOut.Len() != 0 {
		t.Errorf("ingest wrote %q to a stderr that is no terminal; want nothing", errOut.String())
	}
	out.Reset()
	if err := runIngest(ctx, []string{txt}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^already indexed as ` + txtID + ` \(ingested at 20\d\d-[^)]+\): nothing changed\n$`).MatchString(out.String()) {
		t.Errorf("the second ingest of the same bytes printed %q, want already indexed as %s", out.String(), txtID)
	}

	// --json prints the tool's answer; the progress bar reads the ingest's
	// own workflow through the progress query.
	out.Reset()
	if err := runIngest(ctx, []string{md, "--tag", "category=buck_converter", "--json"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var res workflows.KnowledgeIngestResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("ingest --json printed %q: %v", out.String(), err)
	}
	mdID := sourceID(buckMD)
	if res.SourceID != mdID || res.Title != "Buck converter notes" || res.Format != "markdown" || res.Pages != 1 || res.Chunks != 1 ||
		res.AlreadyIndexed || res.Tags["category"] != "buck_converter" {
		t.Errorf("ingest --json: %+v; want %s, title Buck converter notes, markdown, 1 page, 1 passage, its tag", res, mdID)
	}

	// The progress bar, drawn while a real ingest runs and read once more
	// after it ends: the last frame says the page and passage are done.
	third := filepath.Join(docs, "ne555.txt")
	if err := os.WriteFile(third, []byte(ne555Text), 0o600); err != nil {
		t.Fatal(err)
	}
	reg, err := knowledgeTools()
	if err != nil {
		t.Fatal(err)
	}
	calls := cliCalls{engine: mcpserver.TemporalEngine{Client: st.Temporal.Client}, tools: reg}
	callID, runID, err := calls.start(ctx, knowledgeadapter.ToolIngest, map[string]any{"file_path": third})
	if err != nil {
		t.Fatal(err)
	}
	var bar bytes.Buffer
	stop := showIngestProgress(ctx, st.Temporal.Client, callID, &bar)
	if _, err := calls.await(ctx, knowledgeadapter.ToolIngest, callID, runID); err != nil {
		stop()
		t.Fatal(err)
	}
	time.Sleep(3 * progressEvery)
	stop()
	if s := bar.String(); !strings.Contains(s, "] 1/1 pages, 1 passages") || !strings.HasSuffix(s, "\r\x1b[K") {
		t.Errorf("the progress bar drew %q; want a frame with 1/1 pages, 1 passages, and the line cleared at the end", s)
	}

	// sources: the table, the filter, one source with its passages.
	out.Reset()
	if err := runSources(ctx, at, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TITLE", "LM317 notes", "Buck converter notes", sourceID(ne555Text), txtID, "category=ldo mpn=LM317", "indexed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("metaforge sources:\n%s\nwant it to show %q", out.String(), want)
		}
	}
	out.Reset()
	if err := runSources(ctx, append([]string{"--tag", "mpn=LM317", "--json"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Count   int                `json:"count"`
		Sources []knowledge.Source `json:"sources"`
	}
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatalf("sources --json printed %q: %v", out.String(), err)
	}
	if list.Count != 1 || len(list.Sources) != 1 || list.Sources[0].ID != txtID || list.Sources[0].Tags["mpn"] != "LM317" ||
		list.Sources[0].Tags["category"] != "ldo" || list.Sources[0].State != "indexed" || list.Sources[0].Chunks != 1 {
		t.Errorf("sources --tag mpn=LM317 --json: %+v; want only %s, indexed, 1 passage, with its two tags", list, txtID)
	}
	out.Reset()
	if err := runSources(ctx, append([]string{mdID}, at...), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{mdID + " · Buck converter notes · markdown · indexed", "1 pages, 1 passages", "tags: category=buck_converter",
		"The TPS54331 switches at 570 kHz"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("metaforge sources %s:\n%s\nwant %q", mdID, out.String(), want)
		}
	}
	err = runSources(ctx, append([]string{"src-0000000000000000"}, at...), &out)
	if err == nil || !strings.Contains(err.Error(), `no knowledge source "src-0000000000000000"`) || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("sources of an unknown id: %v; want the server's 404 in its words", err)
	}

	// Refusals exit 2 with the tool's words, and store nothing.
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("not for the knowledge base\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(docs, "board.kicad_pcb")
	if err := os.WriteFile(odd, []byte("(kicad_pcb)\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"outside the read roots", []string{outside}, "outside the allowed roots"},
		{"an extension naming no format", []string{odd}, "names no format the knowledge base reads"},
		{"a format that is none", []string{txt, "--format", "docx"}, "format"},
	} {
		out.Reset()
		err := runIngest(ctx, c.args, &out, &errOut)
		var said *saidStatus
		if !errors.As(err, &said) || said.status != 2 || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ingest %s: %v; want exit status 2 saying %q", c.name, err, c.says)
		}
		if out.Len() != 0 {
			t.Errorf("ingest %s printed %q; want nothing on stdout", c.name, out.String())
		}
	}
	if all, err := store.Sources(ctx, nil); err != nil || len(all) != 3 {
		t.Errorf("after the refusals the knowledge base holds %d sources (%v); want the 3 ingested", len(all), err)
	}
}

// progressLine draws pages done of pages as a share of the bar.
func TestIngestProgressLine(t *testing.T) {
	got := progressLine(&workflows.KnowledgeIngestProgress{SourceID: "src-1", PagesDone: 10, Pages: 30, Chunks: 42}, 2500*time.Millisecond)
	if want := "[##########                    ] 10/30 pages, 42 passages  2.5s"; got != want {
		t.Errorf("progressLine = %q, want %q", got, want)
	}
	if got := progressLine(nil, 300*time.Millisecond); got != "["+strings.Repeat(" ", barWidth)+"] reading the document  0.3s" {
		t.Errorf("progressLine before the ingest answers = %q", got)
	}
}
