package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Timeouts of an ingest's batch of pages: pdftotext and the store's writes
// take well under a minute for ten pages, and the activity heartbeats
// every couple of seconds while it works, so a worker that dies is
// noticed within ingestHeartbeat and the batch runs again on another.
const (
	ingestBatchTimeout = 5 * time.Minute
	ingestHeartbeat    = 10 * time.Second
)

// KnowledgeIngest indexes a document into the knowledge base: it records
// the source as indexing, reads and stores its pages a batch at a time,
// then marks it indexed with its counts. Each batch is one activity whose
// chunks replace any stored before under the same (source, page, seq),
// so a batch run again after a crash, or a resumed run, stores nothing
// twice; a batch done is in the history and is not run again. Search sees
// the source only once it is indexed. The "progress" query says how many
// pages are done.
func KnowledgeIngest(ctx workflow.Context, in KnowledgeIngestRequest) (KnowledgeIngestResult, error) {
	progress := KnowledgeIngestProgress{}
	if err := workflow.SetQueryHandler(ctx, KnowledgeProgressQuery, func() (KnowledgeIngestProgress, error) {
		return progress, nil
	}); err != nil {
		return KnowledgeIngestResult{}, err
	}
	retry := &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5}
	bctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute, RetryPolicy: retry, Summary: "begin indexing " + in.Origin,
	})
	var begun KnowledgeSourceBegun
	if err := workflow.ExecuteActivity(bctx, BeginKnowledgeSourceActivity, in).Get(ctx, &begun); err != nil {
		return KnowledgeIngestResult{}, err
	}
	out := KnowledgeIngestResult{SourceID: begun.SourceID, Title: begun.Title, Origin: in.Origin, Format: in.Format, SHA256: in.SHA256,
		Tags: in.Tags, Pages: begun.Pages, Bytes: begun.Bytes}
	progress.SourceID, progress.Pages = begun.SourceID, begun.Pages
	if begun.AlreadyIndexed {
		out.AlreadyIndexed, out.Chunks, out.IngestedAt = true, begun.Chunks, begun.IngestedAt
		out.Note = "these bytes were already indexed as " + begun.SourceID + " (by another ingest since this call looked): nothing was stored again"
		progress.PagesDone, progress.Chunks = begun.Pages, begun.Chunks
		return out, nil
	}
	per := in.PagesPerBatch
	if per <= 0 {
		per = KnowledgePagesPerBatch
	}
	for first := 1; first <= begun.Pages; first += per {
		last := min(first+per-1, begun.Pages)
		pctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: ingestBatchTimeout, HeartbeatTimeout: ingestHeartbeat,
			RetryPolicy: retry, Summary: fmt.Sprintf("pages %d-%d of %d", first, last, begun.Pages),
		})
		var batch KnowledgePagesResult
		req := KnowledgePagesRequest{SourceID: begun.SourceID, File: in.File, SHA256: in.SHA256, Format: in.Format, First: first, Last: last}
		if err := workflow.ExecuteActivity(pctx, IngestKnowledgePagesActivity, req).Get(ctx, &batch); err != nil {
			return KnowledgeIngestResult{}, err
		}
		progress.PagesDone, progress.Chunks = last, progress.Chunks+batch.Chunks
	}
	fctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute, RetryPolicy: retry, Summary: "mark " + begun.SourceID + " indexed",
	})
	var done KnowledgeSourceFinished
	if err := workflow.ExecuteActivity(fctx, FinishKnowledgeSourceActivity,
		KnowledgeFinishRequest{SourceID: begun.SourceID, Pages: begun.Pages, Chunks: progress.Chunks}).Get(ctx, &done); err != nil {
		return KnowledgeIngestResult{}, err
	}
	out.Chunks, out.IngestedAt = progress.Chunks, done.IngestedAt
	out.Note = fmt.Sprintf("indexed %d pages as %d passages; knowledge.search finds them by full text (BM25)", begun.Pages, progress.Chunks)
	if progress.Chunks == 0 {
		out.Note = fmt.Sprintf("indexed, but no text was found on its %d pages, so search will never find it: a scanned PDF "+
			"needs OCR first (ocrmypdf in.pdf out.pdf), then ingest the copy", begun.Pages)
	}
	return out, nil
}
