package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/metaforge/metaforge/workflows"
)

// progressEvery is how often the bar asks the ingest how far it is.
const progressEvery = 300 * time.Millisecond

// showIngestProgress redraws a progress bar on w until the returned stop
// is called, asking the ingest's workflow (knowledge-ingest-<callId>)
// with the progress query. Until that workflow exists, and when it never
// does (bytes already indexed answer without one), the bar shows only the
// time spent. stop clears the line.
func showIngestProgress(ctx context.Context, c client.Client, callID string, w io.Writer) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	started := time.Now()
	go func() {
		defer close(done)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		var p *workflows.KnowledgeIngestProgress
		for {
			if got, ok := ingestProgress(ctx, c, callID); ok {
				p = &got
			}
			fmt.Fprintf(w, "\r%s\x1b[K", progressLine(p, time.Since(started)))
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
		fmt.Fprint(w, "\r\x1b[K")
	}
}

// ingestProgress asks the ingest how far it is; ok is false while it does
// not answer (not started yet, or never: the answer came without one).
func ingestProgress(ctx context.Context, c client.Client, callID string) (workflows.KnowledgeIngestProgress, bool) {
	var p workflows.KnowledgeIngestProgress
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	v, err := c.QueryWorkflow(qctx, workflows.KnowledgeIngestWorkflowID(callID), "", workflows.KnowledgeProgressQuery)
	if err != nil || v.Get(&p) != nil || p.SourceID == "" {
		return p, false
	}
	return p, true
}

// barWidth is the bar's width in characters.
const barWidth = 30

// progressLine is one frame of the bar: pages done of pages, passages
// stored, and the time spent; nil progress shows the time alone.
func progressLine(p *workflows.KnowledgeIngestProgress, elapsed time.Duration) string {
	secs := fmt.Sprintf("%.1fs", elapsed.Seconds())
	if p == nil || p.Pages <= 0 {
		return fmt.Sprintf("[%s] reading the document  %s", strings.Repeat(" ", barWidth), secs)
	}
	return fmt.Sprintf("[%s] %d/%d pages, %d passages  %s", bar(p.PagesDone, p.Pages), p.PagesDone, p.Pages, p.Chunks, secs)
}

// bar is done of total as barWidth characters, # for what is done; the
// ingest's and a run's waiting bars draw it.
func bar(done, total int) string {
	filled := 0
	if total > 0 {
		filled = max(0, min(barWidth, barWidth*done/total))
	}
	return strings.Repeat("#", filled) + strings.Repeat(" ", barWidth-filled)
}
