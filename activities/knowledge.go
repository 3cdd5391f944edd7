package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// Knowledge are the KnowledgeIngest workflow's activities: they read the
// call's copy of a document and write the knowledge base.
type Knowledge struct {
	// Store is the knowledge base; nil is a worker without one, whose
	// ingests fail and say so.
	Store knowledge.Store
	// HeartbeatEvery is how often a batch heartbeats while it works
	// (default 2 s), so a dead worker is noticed well within the
	// workflow's heartbeat timeout.
	HeartbeatEvery time.Duration
}

// RegisterKnowledgeActivities registers, on the "metaforge" queue's
// worker, the activities of the KnowledgeIngest workflow.
func RegisterKnowledgeActivities(r worker.ActivityRegistry, k *Knowledge) {
	for name, fn := range map[string]any{
		workflows.BeginKnowledgeSourceActivity:  k.BeginKnowledgeSource,
		workflows.IngestKnowledgePagesActivity:  k.IngestKnowledgePages,
		workflows.FinishKnowledgeSourceActivity: k.FinishKnowledgeSource,
	} {
		r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}

var errNoKnowledge = temporal.NewNonRetryableApplicationError(
	"this worker serves no knowledge base, so a document cannot be ingested here; run the worker with the server's data dir or DATABASE_URL",
	protocol.ToolUnavailable.Name(), nil)

// BeginKnowledgeSource checks the call's copy still hashes to what the
// call hashed, opens it (its title and page count), and records the
// source as indexing. Bytes an ingest indexed since the call looked are
// answered as already indexed; a source an interrupted ingest left
// indexing is taken up again.
func (k *Knowledge) BeginKnowledgeSource(ctx context.Context, in workflows.KnowledgeIngestRequest) (workflows.KnowledgeSourceBegun, error) {
	if k.Store == nil {
		return workflows.KnowledgeSourceBegun{}, errNoKnowledge
	}
	size, err := checkCopy(in.File, in.SHA256, in.Origin)
	if err != nil {
		return workflows.KnowledgeSourceBegun{}, err
	}
	doc, err := knowledge.OpenDocument(ctx, in.File, in.Format)
	if err != nil {
		return workflows.KnowledgeSourceBegun{}, knowledgeError(err)
	}
	title := in.Title
	if title == "" {
		title = doc.TitleOr(in.Origin)
	}
	src, existed, err := k.Store.BeginSource(ctx, knowledge.Source{SHA256: in.SHA256, Origin: in.Origin,
		Title: title, Format: doc.Format, Tags: in.Tags, Bytes: size})
	if err != nil {
		return workflows.KnowledgeSourceBegun{}, knowledgeError(err)
	}
	// A source already begun keeps what its first ingest recorded.
	out := workflows.KnowledgeSourceBegun{SourceID: src.ID, Title: src.Title, Pages: doc.Pages, Bytes: size, AlreadyIndexed: existed}
	if existed {
		out.Chunks, out.IngestedAt = src.Chunks, src.IngestedAt.UTC().Format(time.RFC3339)
	}
	return out, nil
}

// IngestKnowledgePages reads a batch of pages, chunks each page and
// stores its chunks, heartbeating while it works. Chunks are identified
// by (source, page, seq), so a batch run again replaces what it stored
// and never adds to it.
func (k *Knowledge) IngestKnowledgePages(ctx context.Context, in workflows.KnowledgePagesRequest) (workflows.KnowledgePagesResult, error) {
	if k.Store == nil {
		return workflows.KnowledgePagesResult{}, errNoKnowledge
	}
	stop := k.keepBeating(ctx, in)
	defer stop()
	if _, err := checkCopy(in.File, in.SHA256, in.File); err != nil {
		return workflows.KnowledgePagesResult{}, err
	}
	doc, err := knowledge.OpenDocument(ctx, in.File, in.Format)
	if err != nil {
		return workflows.KnowledgePagesResult{}, knowledgeError(err)
	}
	pages, err := doc.ReadPages(ctx, in.First, in.Last)
	if err != nil {
		return workflows.KnowledgePagesResult{}, knowledgeError(err)
	}
	out := workflows.KnowledgePagesResult{Pages: len(pages)}
	for _, p := range pages {
		chunks := knowledge.ChunkPage(in.SourceID, p)
		if len(chunks) > 0 {
			if err := k.Store.PutChunks(ctx, chunks); err != nil {
				return workflows.KnowledgePagesResult{}, knowledgeError(err)
			}
		}
		out.Chunks += len(chunks)
		activity.RecordHeartbeat(ctx, p.Number)
	}
	return out, nil
}

// FinishKnowledgeSource marks the source indexed with its counts.
func (k *Knowledge) FinishKnowledgeSource(ctx context.Context, in workflows.KnowledgeFinishRequest) (workflows.KnowledgeSourceFinished, error) {
	if k.Store == nil {
		return workflows.KnowledgeSourceFinished{}, errNoKnowledge
	}
	if err := k.Store.FinishSource(ctx, in.SourceID, in.Pages, in.Chunks); err != nil {
		return workflows.KnowledgeSourceFinished{}, knowledgeError(err)
	}
	src, err := k.Store.Source(ctx, in.SourceID)
	if err != nil {
		return workflows.KnowledgeSourceFinished{}, knowledgeError(err)
	}
	return workflows.KnowledgeSourceFinished{IngestedAt: src.IngestedAt.UTC().Format(time.RFC3339), Chunks: src.Chunks}, nil
}

// keepBeating heartbeats every HeartbeatEvery until stopped, so a batch
// whose pdftotext run is slow is not taken for dead, and one whose worker
// died is.
func (k *Knowledge) keepBeating(ctx context.Context, in workflows.KnowledgePagesRequest) func() {
	every := k.HeartbeatEvery
	if every <= 0 {
		every = 2 * time.Second
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx, fmt.Sprintf("pages %d-%d", in.First, in.Last))
			}
		}
	}()
	return func() { close(done) }
}

// checkCopy is the size of the call's copy, which must still hash to what
// the call hashed: a copy that is gone or changed is no longer the
// document asked for.
func checkCopy(path, sum, origin string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("the ingest's copy %s is gone (%v): ingest %s again", path, err, origin), protocol.ToolExecutionError.Name(), nil)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, fmt.Errorf("read the ingest's copy %s: %w", path, err)
	}
	if hex.EncodeToString(h.Sum(nil)) != sum {
		return 0, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("the ingest's copy %s no longer hashes to %s: ingest %s again", path, sum, origin), protocol.ToolExecutionError.Name(), nil)
	}
	return n, nil
}

// knowledgeError makes a refusal (an unreadable document) final, keeping
// its code; a transient error (a timeout, the store unreachable) is
// retried.
func knowledgeError(err error) error {
	var perr *protocol.Error
	if errors.As(err, &perr) && !perr.Retryable {
		return temporal.NewNonRetryableApplicationError(perr.Details, perr.Code.Name(), nil)
	}
	if errors.Is(err, knowledge.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError(err.Error(), protocol.ToolExecutionError.Name(), nil)
	}
	return err
}
