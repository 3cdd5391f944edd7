package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"

	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/workflows"
)

// lateStart is a client interceptor that lets a start through and then
// reports the deadline the RPC would have hit: the server started the
// workflow, the caller was told it timed out.
// With started false it reports the deadline without starting anything.
type lateStart struct {
	interceptor.ClientInterceptorBase
	started bool
}

func (l *lateStart) InterceptClient(next interceptor.ClientOutboundInterceptor) interceptor.ClientOutboundInterceptor {
	return &lateStartOutbound{ClientOutboundInterceptorBase: interceptor.ClientOutboundInterceptorBase{Next: next}, started: l.started}
}

type lateStartOutbound struct {
	interceptor.ClientOutboundInterceptorBase
	started bool
}

func (o *lateStartOutbound) ExecuteWorkflow(ctx context.Context, in *interceptor.ClientExecuteWorkflowInput) (client.WorkflowRun, error) {
	if o.started {
		if _, err := o.Next.ExecuteWorkflow(ctx, in); err != nil {
			return nil, err
		}
	}
	return nil, context.DeadlineExceeded
}

func lateClient(t *testing.T, s *stack, started bool) client.Client {
	t.Helper()
	c, err := client.NewClientFromExisting(s.Temporal.Client, client.Options{Interceptors: []interceptor.ClientInterceptor{&lateStart{started: started}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// A start that timed out after the server took it is found, not reported
// as "could not be started": the client would retry and write twice.
func TestStartThatTimedOutAfterStartingIsFound(t *testing.T) {
	s := theStack(t)
	engine := mcpserver.TemporalEngine{Client: lateClient(t, s, true)}
	id := mcpserver.NewCallID()
	in := workflows.ToolCallInput{CallID: id, ToolID: "fixture.echo", AdapterID: "fixture", Arguments: json.RawMessage(`{"key":"late-start"}`), TimeoutSeconds: 30}
	runID, err := engine.StartCall(context.Background(), in, nil)
	if err != nil || runID == "" {
		t.Fatalf("StartCall = %q, %v; want the run that did start", runID, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := engine.AwaitCall(ctx, id, runID)
	if err != nil || res.Status != workflows.StatusSuccess || s.fixture.Attempts("late-start") != 1 {
		t.Fatalf("result %+v, %v; ran %d times", res, err, s.fixture.Attempts("late-start"))
	}

	// A start that timed out and never happened is still an error.
	engine = mcpserver.TemporalEngine{Client: lateClient(t, s, false)}
	if runID, err := engine.StartCall(context.Background(), workflows.ToolCallInput{CallID: mcpserver.NewCallID(), ToolID: "fixture.echo", AdapterID: "fixture", TimeoutSeconds: 30}, nil); err == nil {
		t.Errorf("a start that never happened reported run %q", runID)
	}
}
