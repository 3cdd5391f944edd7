package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

// The search attributes are usable the moment ConnectTemporal returns, on a
// new data dir and on an existing one that lacks some of them (a data dir
// from an older MetaForge), without the server re-reading them on every
// request.
func TestSearchAttributesUsableAtOnceAfterStart(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := worker.TemporalOptions{Logger: workertest.QuietLogger(), Embed: worker.DevServerOptions{DataDir: dir}}

	first, err := worker.ConnectTemporal(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	startAndFindByEverySearchAttribute(t, ctx, first.Client, "new")
	// Make the database look like one from before MfGate and MfHold existed.
	removed := []string{workflows.AttrGate.GetName(), workflows.AttrHold.GetName()}
	if _, err := first.Client.OperatorService().RemoveSearchAttributes(ctx, &operatorservice.RemoveSearchAttributesRequest{
		Namespace: "default", SearchAttributes: removed,
	}); err != nil {
		t.Fatal(err)
	}
	first.Close()

	second, err := worker.ConnectTemporal(ctx, opts)
	if err != nil {
		t.Fatalf("start on the existing data dir: %v", err)
	}
	defer second.Close()
	startAndFindByEverySearchAttribute(t, ctx, second.Client, "existing")
}

// startAndFindByEverySearchAttribute starts a workflow (no worker needs to
// run it) carrying every MetaForge search attribute, then lists it by a
// query on each one. A start or query naming an attribute the server does
// not know fails at once; the visibility record itself is written a moment
// after the start, so the listing is retried briefly.
func startAndFindByEverySearchAttribute(t *testing.T, ctx context.Context, c client.Client, label string) {
	t.Helper()
	var updates []temporal.SearchAttributeUpdate
	for _, k := range workflows.SearchAttributeKeys {
		updates = append(updates, k.ValueSet(label+"-"+k.GetName()))
	}
	for _, k := range workflows.SearchAttributeListKeys {
		updates = append(updates, k.ValueSet([]string{label + "-" + k.GetName()}))
	}
	id := "sa-visible-" + label
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: "nobody-polls-" + label,
		TypedSearchAttributes: temporal.NewSearchAttributes(updates...),
	}, "ToolCall", workflows.ToolCallInput{})
	if err != nil {
		t.Fatalf("%s data dir: start with every search attribute: %v", label, err)
	}
	defer func() { _ = c.TerminateWorkflow(context.Background(), id, run.GetRunID(), "test done") }()
	var names []string
	for _, k := range workflows.SearchAttributeKeys {
		names = append(names, k.GetName())
	}
	for _, k := range workflows.SearchAttributeListKeys {
		names = append(names, k.GetName())
	}
	for _, name := range names {
		query := fmt.Sprintf("%s = %q", name, label+"-"+name)
		deadline := time.Now().Add(10 * time.Second)
		for {
			resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", Query: query})
			if err != nil {
				t.Fatalf("%s data dir: list %s: %v", label, query, err)
			}
			if len(resp.Executions) == 1 && resp.Executions[0].GetExecution().GetWorkflowId() == id {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s data dir: list %s found %d executions after 10 s, want the one started", label, query, len(resp.Executions))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
