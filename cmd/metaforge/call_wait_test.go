package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/workflows"
)

// metaforge call ID --wait waits while the call runs (here: held for a
// decision), and once a person approves it, shows how it ended; without
// --wait the same call shows as running at once.
func TestCLICallWaitsForTheEnd(t *testing.T) {
	dataDir, token := cliOperator(t)
	fx := &adaptertest.Fixture{}
	st := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.Caller, o.Transport = mcpserver.CallerUntrusted, mcpserver.TransportHTTP
		o.Auth = mcpserver.Auth{OperatorToken: token}
		svc := &runs.Service{Client: o.Engine.(mcpserver.TemporalEngine).Client, Registry: o.Registry}
		o.Routes = []mcpserver.Routes{runs.Calls{Runs: svc, Lookup: worker.CallLookup{Client: svc.Client}, Authority: approvals.Authority{Identify: o.Auth.Person}}}
	}, fx)
	srv := httptest.NewServer(st.Server.HTTPHandler())
	t.Cleanup(srv.Close)
	at := []string{"--data-dir", dataDir, "--url", srv.URL}
	ctx := context.Background()

	id := mcpserver.NewCallID()
	in := workflows.ToolCallInput{CallID: id, ToolID: "fixture.write", AdapterID: "fixture", Arguments: json.RawMessage(`{"key":"waited"}`),
		TimeoutSeconds: 30, Caller: mcpserver.CallerRemote,
		Hold: &workflows.Hold{ApprovalID: id, Route: workflows.RouteDashboard, WindowSeconds: 120, Reason: "writes; held for approval (remote caller)"}}
	ask := approvals.Ask{ToolID: in.ToolID, AdapterID: "fixture", Summary: approvals.Summarize(in.Arguments), Reason: in.Hold.Reason,
		Caller: in.Caller, Route: in.Hold.Route, WindowSeconds: 120}
	if _, err := (mcpserver.TemporalEngine{Client: st.Temporal.Client}).StartCall(ctx, in, &ask); err != nil {
		t.Fatal(err)
	}

	var now bytes.Buffer
	if err := runCall(ctx, append([]string{id}, at...), &now, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(now.String(), "call "+id+": fixture.write running") || strings.Contains(now.String(), "outcome:") {
		t.Fatalf("call %s while held:\n%s\nwant it running, with no outcome", id, now.String())
	}

	waited := &lockedBuffer{}
	done := make(chan error, 1)
	go func() { done <- runCall(ctx, append([]string{id, "--wait"}, at...), waited, io.Discard) }()
	select {
	case err := <-done:
		t.Fatalf("call --wait returned while the call was held: %v\n%s", err, waited.String())
	case <-time.After(2 * time.Second):
	}
	if fx.Attempts("waited") != 0 {
		t.Fatal("the held call ran before anyone decided")
	}
	var decided bytes.Buffer
	if err := runDecide(ctx, "approve", append([]string{id, "--as", "ada"}, at...), &decided); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("call --wait still waits 30 s after the call was approved")
	}
	for _, want := range []string{"call " + id + ": fixture.write completed", "outcome: success"} {
		if !strings.Contains(waited.String(), want) {
			t.Fatalf("call --wait printed:\n%s\nwant %q", waited.String(), want)
		}
	}
	if fx.Attempts("waited") != 1 {
		t.Fatalf("the approved call ran %d times, want 1", fx.Attempts("waited"))
	}
}

// The bar of a running call sweeps a block across and back, one step a
// frame, and names the call, its tool and the time spent.
func TestCallProgressLine(t *testing.T) {
	d := runs.CallDetail{}
	d.CallID, d.ToolID, d.State = "0123456789abcdef", "calculix.run_static", "running"
	first := callProgressLine(d, 0, 1500*time.Millisecond)
	if want := "[" + strings.Repeat("#", sweepWidth) + strings.Repeat(" ", barWidth-sweepWidth) + "] 0123456789abcdef calculix.run_static running  1.5s"; first != want {
		t.Fatalf("frame 0: %q\nwant     %q", first, want)
	}
	span := barWidth - sweepWidth
	for _, c := range []struct{ frame, pos int }{{1, 1}, {span, span}, {span + 1, span - 1}, {2 * span, 0}} {
		line := callProgressLine(d, c.frame, 0)
		if got := strings.Index(line, "#") - 1; got != c.pos {
			t.Errorf("frame %d: block at %d, want %d: %q", c.frame, got, c.pos, line)
		}
		if bar := line[1 : 1+barWidth]; strings.Count(bar, "#") != sweepWidth || line[1+barWidth] != ']' {
			t.Errorf("frame %d: bar %q is not %d wide with a %d-wide block", c.frame, bar, barWidth, sweepWidth)
		}
	}
}
