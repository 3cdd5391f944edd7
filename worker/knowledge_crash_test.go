package worker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/activities"
	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/knowledge/datasheettest"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

// knowledgeWorkerEnv, when set to a Temporal address, makes the test
// binary a worker process of the "metaforge" queue ingesting into the
// SQLite knowledge base knowledgeDBEnv names: the one
// TestKnowledgeIngestSurvivesItsWorker kills. knowledgeSlowEnv slows its
// store's writes so the kill lands mid-ingest.
const (
	knowledgeWorkerEnv = "METAFORGE_TEST_KNOWLEDGE_WORKER_OF"
	knowledgeDBEnv     = "METAFORGE_TEST_KNOWLEDGE_DB"
	knowledgeSlowEnv   = "METAFORGE_TEST_KNOWLEDGE_SLOW"
)

// pageWritePause is how long the slowed store takes to store one page's
// chunks: 300 pages take about 12 s, a window the kill cannot miss.
const pageWritePause = 40 * time.Millisecond

// slowKnowledgeStore is the worker process's knowledge base with each
// PutChunks slowed by pageWritePause; everything else is the real store.
type slowKnowledgeStore struct{ knowledge.Store }

func (s slowKnowledgeStore) PutChunks(ctx context.Context, chunks []knowledge.Chunk) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(pageWritePause):
	}
	return s.Store.PutChunks(ctx, chunks)
}

// runKnowledgeWorkerProcess serves the workflow queue, its ingests
// writing the SQLite file, until it is killed.
func runKnowledgeWorkerProcess(addr string) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	c, err := client.Dial(client.Options{HostPort: addr, Logger: sdklog.NewStructuredLogger(workertest.QuietLogger())})
	if err != nil {
		panic(err)
	}
	store, err := knowledge.OpenSQLite(ctx, os.Getenv(knowledgeDBEnv))
	if err != nil {
		panic(err)
	}
	if os.Getenv(knowledgeSlowEnv) != "" {
		store = slowKnowledgeStore{store}
	}
	w, err := worker.StartWorkersWith(c, adapters.NewRegistry(), []string{workflows.TaskQueue}, workertest.QuietLogger(),
		worker.Deps{Knowledge: store})
	if err != nil {
		panic(err)
	}
	os.Stdout.WriteString("worker ready\n")
	<-ctx.Done()
	w.Stop()
	_ = store.Close()
}

// cleanIngest runs the ingest on a worker of this process, on a queue of
// its own, into a store of its own: what an ingest nothing interrupts
// stores.
func cleanIngest(t *testing.T, ctx context.Context, tmp *worker.Temporal, in workflows.KnowledgeIngestRequest) workflows.KnowledgeIngestResult {
	t.Helper()
	store, err := knowledge.OpenSQLite(ctx, filepath.Join(t.TempDir(), "clean.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	const queue = "knowledge-clean"
	w := sdkworker.New(tmp.Client, queue, sdkworker.Options{})
	w.RegisterWorkflowWithOptions(workflows.KnowledgeIngest, workflow.RegisterOptions{Name: workflows.KnowledgeIngestWorkflow})
	activities.RegisterKnowledgeActivities(w, &activities.Knowledge{Store: store})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	run, err := tmp.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "clean-" + in.CallID, TaskQueue: queue},
		workflows.KnowledgeIngestWorkflow, in)
	if err != nil {
		t.Fatal(err)
	}
	var res workflows.KnowledgeIngestResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatalf("the clean ingest: %v", err)
	}
	return res
}

// A worker process is killed (SIGKILL) a third of the way through the
// ingest of a 300-page PDF. A new worker process takes the ingest up: the
// batch the dead one was writing runs again, the batches it finished do
// not, and the source is indexed once: one source, as many chunks as an
// ingest nothing interrupted stores, each page's marker in exactly one
// chunk and found by search on its page.
func TestKnowledgeIngestSurvivesItsWorker(t *testing.T) {
	began := time.Now()
	mark := func(what string) { t.Logf("%s at %s", what, time.Since(began).Round(time.Millisecond)) }
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const pages = 300
	dir := t.TempDir()
	pdf := filepath.Join(dir, "long.pdf")
	datasheettest.Long(t, pdf, pages)
	data, err := os.ReadFile(pdf)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	in := workflows.KnowledgeIngestRequest{CallID: "00000000000000c1", File: pdf, SHA256: hex.EncodeToString(sum[:]), Origin: pdf,
		Format: "pdf", Tags: map[string]string{"category": "manual"}}
	tmp := workertest.StartTemporal(t)
	clean := cleanIngest(t, ctx, tmp, in)
	want := clean.Chunks
	if clean.Pages != pages || want < pages {
		t.Fatalf("a clean ingest stored %d chunks of %d pages; want every one of %d pages to have text", want, clean.Pages, pages)
	}
	mark("PDF written and ingested cleanly")

	db := filepath.Join(dir, "knowledge.db")
	env := []string{knowledgeWorkerEnv + "=" + tmp.Address, knowledgeDBEnv + "=" + db, knowledgeSlowEnv + "=1"}
	first := startWorkerProcess(t, "", env...)
	id := workflows.KnowledgeIngestWorkflowID(in.CallID)
	run, err := tmp.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue},
		workflows.KnowledgeIngestWorkflow, in)
	if err != nil {
		t.Fatal(err)
	}
	progress := func() workflows.KnowledgeIngestProgress {
		var p workflows.KnowledgeIngestProgress
		if v, err := tmp.Client.QueryWorkflow(ctx, id, "", workflows.KnowledgeProgressQuery); err == nil {
			_ = v.Get(&p)
		}
		return p
	}
	waitUntil(t, ctx, "a third of the pages stored", func() bool {
		p := progress()
		if p.PagesDone == pages {
			t.Fatal("missed the window: the ingest finished before the kill")
		}
		return p.PagesDone >= pages/3
	})
	waitForActivityStarted(t, ctx, tmp.Client, id)
	before := progress()
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	mark(fmt.Sprintf("worker killed with %d pages done", before.PagesDone))
	startWorkerProcess(t, "", env...)

	var res workflows.KnowledgeIngestResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatalf("the ingest after the kill: %v", err)
	}
	mark("ingest finished on the second worker")
	if res.Pages != pages || res.Chunks != want || res.AlreadyIndexed || res.SourceID != "src-"+in.SHA256[:16] {
		t.Errorf("result %+v; want %d pages, %d chunks (a clean ingest's), not already indexed", res, pages, want)
	}

	// The history: the batch the dead worker ran started again (attempt
	// 2) on the new one; no finished batch ran twice.
	retried, batches := 0, 0
	it := tmp.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	scheduled := map[int64]string{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			scheduled[ev.GetEventId()] = a.GetActivityType().GetName()
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && scheduled[a.GetScheduledEventId()] == workflows.IngestKnowledgePagesActivity {
			batches++
			if a.GetAttempt() > 1 {
				retried++
			}
		}
	}
	if batches != pages/workflows.KnowledgePagesPerBatch || retried != 1 {
		t.Errorf("history: %d batches, %d started again; want %d batches, the one the kill interrupted started again",
			batches, retried, pages/workflows.KnowledgePagesPerBatch)
	}

	store, err := knowledge.OpenSQLite(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sources, err := store.Sources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) != 1 || sources[0].State != knowledge.StateIndexed || sources[0].Chunks != want || sources[0].Pages != pages {
		t.Fatalf("sources after the kill: %+v; want one, indexed, %d pages and %d chunks", sources, pages, want)
	}
	chunks, err := store.Chunks(ctx, sources[0].ID)
	if err != nil || len(chunks) != want {
		t.Fatalf("%d chunks stored (%v); want %d", len(chunks), err, want)
	}
	found := make([]int, pages+1)
	for _, c := range chunks {
		for n := 1; n <= pages; n++ {
			if strings.Contains(c.Text, datasheettest.Marker(n)) {
				found[n]++
				if c.Page != n {
					t.Errorf("marker of page %d in a chunk of page %d", n, c.Page)
				}
			}
		}
	}
	for n := 1; n <= pages; n++ {
		if found[n] != 1 {
			t.Errorf("page %d's marker is in %d chunks; want exactly 1", n, found[n])
		}
	}
	// Search finds a page the dead worker wrote, the page it was writing,
	// and one the new worker wrote, each once.
	for _, n := range []int{1, before.PagesDone + 1, pages} {
		hits, err := store.Search(ctx, knowledge.Query{Text: strings.TrimPrefix(datasheettest.Marker(n), "marker ")})
		if err != nil || len(hits) != 1 || hits[0].Page != n {
			t.Errorf("search for page %d's marker: %+v %v; want one hit on page %d", n, hits, err, n)
		}
	}
}
