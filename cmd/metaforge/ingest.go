package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/metaforge/metaforge/adapters"
	knowledgeadapter "github.com/metaforge/metaforge/adapters/knowledge"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// runIngest is `metaforge ingest FILE`: knowledge.ingest run as a
// ToolCall workflow on the serve's workers, exactly as an agent's call
// runs, so the file must lie under the serve's read roots. While it runs
// a progress bar on a terminal's stderr reads the ingest's own workflow;
// a refusal (the file outside the read roots, a format the knowledge base
// does not read) exits 2 with the tool's words, any other failure 1.
func runIngest(ctx context.Context, args []string, out, errOut io.Writer) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	conn := registerQueueFlags(fs)
	var tags tagFlags
	fs.Var(&tags, "tag", "a label key=value (purchase_unit, category, mpn, manufacturer or any other key); repeat it")
	title := fs.String("title", "", "the source's title (default: the one read from the document, else its file name)")
	format := fs.String("format", "", "pdf, markdown, text, html or csv (default: from the extension)")
	asJSON := fs.Bool("json", false, "print the tool's answer as JSON")
	file, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return flagError(err)
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	} else if fs.NArg() > 0 {
		file = ""
	}
	if file == "" {
		return usageError("usage: metaforge ingest FILE [--tag k=v]... [--title T] [--format F] [--json]")
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return fmt.Errorf("ingest %s: %w", file, err)
	}
	q, closeQueue, err := conn.open(ctx)
	if err != nil {
		return err
	}
	defer closeQueue()
	reg, err := knowledgeTools()
	if err != nil {
		return err
	}
	calls := cliCalls{engine: mcpserver.TemporalEngine{Client: q.Client}, tools: reg}
	callArgs := map[string]any{"file_path": abs}
	if *title != "" {
		callArgs["title"] = *title
	}
	if *format != "" {
		callArgs["format"] = *format
	}
	if len(tags) > 0 {
		callArgs["tags"] = tags.m()
	}
	callID, runID, err := calls.start(ctx, knowledgeadapter.ToolIngest, callArgs)
	if err != nil {
		var bad *protocol.Error
		if errors.As(err, &bad) && bad.Code == protocol.InvalidParams {
			return &saidStatus{status: 2, err: err} // the schema's refusal: --format names no format
		}
		return err
	}
	stop := func() {}
	if isTerminal(errOut) {
		stop = showIngestProgress(ctx, q.Client, callID, errOut)
	}
	data, err := calls.await(ctx, knowledgeadapter.ToolIngest, callID, runID)
	stop()
	var failed *callFailed
	if errors.As(err, &failed) && failed.refused() {
		return &saidStatus{status: 2, err: err}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		_, err := fmt.Fprintf(out, "%s\n", b)
		return err
	}
	var res workflows.KnowledgeIngestResult
	if err := json.Unmarshal(data, &res); err != nil {
		return fmt.Errorf("knowledge.ingest answered what this CLI cannot read (%v): is the serve the same version?", err)
	}
	if res.AlreadyIndexed {
		fmt.Fprintf(out, "already indexed as %s (ingested at %s): nothing changed\n", res.SourceID, res.IngestedAt)
		return nil
	}
	fmt.Fprintf(out, "indexed %s as %s: %d pages, %d passages\n", res.Title, res.SourceID, res.Pages, res.Chunks)
	if res.Chunks == 0 {
		fmt.Fprintln(errOut, res.Note)
	}
	return nil
}

// knowledgeTools registers the knowledge adapter for its static manifests
// (schemas, timeout, retries); the tools run on the serve's workers.
func knowledgeTools() (*adapters.Registry, error) {
	reg := adapters.NewRegistry()
	if err := reg.Register(knowledgeadapter.New(knowledgeadapter.Options{})); err != nil {
		return nil, err
	}
	return reg, nil
}

// isTerminal says whether w is a terminal, where a progress bar can
// redraw itself; a pipe or a file gets only the final line.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
