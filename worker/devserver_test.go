package worker_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

func TestBusyPortIsAnErrorNamingIt(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	for _, opts := range []worker.DevServerOptions{{FrontendPort: port}, {UIPort: port}} {
		_, err := worker.StartDevServer(opts)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("port %d", port)) || !strings.Contains(err.Error(), "in use") {
			t.Errorf("StartDevServer(%+v) = %v, want an error naming port %d as in use", opts, err, port)
		}
	}
}

// A call in flight when the embedded server and its workers stop is still
// there when they start again on the same data dir, and completes; the
// search attributes are registered on the existing database too.
func TestRunsSurviveARestartOnTheSameDataDir(t *testing.T) {
	dir := t.TempDir()
	port, err := worker.FreePort("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := worker.TemporalOptions{Logger: workertest.QuietLogger(), Embed: worker.DevServerOptions{DataDir: dir, FrontendPort: port}}
	reg := adapters.NewRegistry()
	if err := reg.Register(&adaptertest.Fixture{}); err != nil {
		t.Fatal(err)
	}

	first, err := worker.ConnectTemporal(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	w, err := worker.StartWorkers(first.Client, reg, worker.AllQueues(reg), workertest.QuietLogger())
	if err != nil {
		t.Fatal(err)
	}
	const callID = "00000000000000b1"
	_, err = first.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: workflows.CallWorkflowID(callID), TaskQueue: workflows.TaskQueue},
		"ToolCall", workflows.ToolCallInput{CallID: callID, ToolID: "fixture.sleep", AdapterID: "fixture", TimeoutSeconds: 60,
			Arguments: []byte(`{"key":"restart","sleep_ms":2000}`), Idempotent: true, Retries: 3, Caller: "local"})
	if err != nil {
		t.Fatal(err)
	}
	waitForActivityStarted(t, ctx, first.Client, workflows.CallWorkflowID(callID))
	w.Stop()
	first.Close()

	second, err := worker.ConnectTemporal(ctx, opts)
	if err != nil {
		t.Fatalf("restart on the same data dir: %v", err)
	}
	defer second.Close()
	w2, err := worker.StartWorkers(second.Client, reg, worker.AllQueues(reg), workertest.QuietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	var res workflows.ToolCallResult
	if err := second.Client.GetWorkflow(ctx, workflows.CallWorkflowID(callID), "").Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != workflows.StatusSuccess || res.Attempts < 2 {
		t.Errorf("after restart: status %s attempts %d %+v, want success on a later attempt", res.Status, res.Attempts, res.Error)
	}
	sa, err := second.Client.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for name := range worker.SearchAttributes {
		if _, ok := sa.GetCustomAttributes()[name]; !ok {
			t.Errorf("search attribute %s is not registered after the restart", name)
		}
	}
}

func TestParseQueues(t *testing.T) {
	reg := adapters.NewRegistry()
	if err := reg.Register(&adaptertest.Fixture{}); err != nil {
		t.Fatal(err)
	}
	all, err := worker.ParseQueues("all", reg)
	if err != nil || strings.Join(all, ",") != "metaforge,adapter-fixture" {
		t.Errorf("all = %v %v", all, err)
	}
	some, err := worker.ParseQueues("fixture, metaforge,adapter-fixture", reg)
	if err != nil || strings.Join(some, ",") != "adapter-fixture,metaforge" {
		t.Errorf("some = %v %v", some, err)
	}
	if _, err := worker.ParseQueues("adapter-calculix", reg); err == nil || !strings.Contains(err.Error(), "known: metaforge, adapter-fixture") {
		t.Errorf("unknown queue error = %v", err)
	}
}
