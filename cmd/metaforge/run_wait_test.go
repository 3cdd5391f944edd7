package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters/flow"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
)

// lockedBuffer is a buffer the command writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// metaforge run start --approve --wait proposes mech_v1, approves it as
// the operator, starts the run and waits while a client does the
// requirements phase, until the run waits at its gate; then it says what
// to decide and how, and exits 0.
func TestRunStartWaitsAtTheGate(t *testing.T) {
	dataDir, token := cliOperator(t)
	mem := twin.NewMemoryStore()
	backend := &twinadapter.Backend{Store: mem, Sessions: mem}
	svc := &runs.Service{}
	fsvc := &flow.Service{Engine: svc, Store: mem, Facts: backend}
	st := mcptest.StartWithTwinConfigured(t, backend, func(o *mcpserver.Options) {
		o.Caller, o.Transport = mcpserver.CallerUntrusted, mcpserver.TransportHTTP
		o.Auth = mcpserver.Auth{OperatorToken: token}
	}, append(twinadapter.New(backend), flow.New(fsvc)...)...)
	// The flow tools need the stack's Temporal and catalogue, which exist only now.
	svc.Client, svc.Namespace, svc.Registry, fsvc.Catalog = st.Temporal.Client, st.Temporal.Namespace, st.Registry, st.Registry
	srv := httptest.NewServer(st.Server.HTTPHandler())
	t.Cleanup(srv.Close)
	t.Setenv("TEMPORAL_ADDRESS", st.Temporal.Address)
	t.Setenv("TEMPORAL_NAMESPACE", st.Temporal.Namespace)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := mem.CreateProject(ctx, twin.Project{Name: "waited bracket"}, "")
	if err != nil {
		t.Fatal(err)
	}

	var out lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- runRun(ctx, []string{"start", "mech_v1", "--project", p.ID,
			"--goal", "an aluminium 6061 bracket carrying 200 N with under 0.5 mm deflection and a safety factor of at least 2",
			"--manufacturing", "cnc_milling", "--maturity", "prototype", "--loads", "200 N tip load", "--approve", "--wait",
			"--data-dir", dataDir, "--url", srv.URL}, &out)
	}()
	// The client's side: once the run waits for it, do the requirements phase.
	var runID string
	for runID == "" {
		select {
		case err := <-done:
			t.Fatalf("run start ended before the run waited at a gate: %v\n%s", err, out.String())
		case <-ctx.Done():
			t.Fatalf("no run started:\n%s", out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if rs, err := svc.ListRuns(ctx, p.ID); err == nil && len(rs) == 1 && rs[0].Status == flows.RunWaitingForClient {
			runID = rs[0].RunID
		}
	}
	select {
	case err := <-done:
		t.Fatalf("run start --wait ended while the run waited for a client: %v\n%s", err, out.String())
	case <-time.After(time.Second):
	}
	if _, err := svc.Claim(ctx, runID, flows.ClaimRequest{Phase: "requirements", ClaimedBy: "test"}); err != nil {
		t.Fatal(err)
	}
	lim := 0.5
	reqs, _, _, err := twin.RecordConstraintSet(ctx, mem, p.ID, "Reqs", []twin.Constraint{{Name: "stiff", Metric: "tip_deflection",
		Operator: "<=", Limit: &lim, Unit: "mm", VerificationMethod: "analysis"}}, twin.WriteInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Submit(ctx, runID, flows.Submission{Phase: "requirements", Summary: "recorded", RecordedIDs: []string{reqs.ID},
		SubmittedBy: "test"}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run start --wait: %v\n%s", err, out.String())
		}
	case <-ctx.Done():
		t.Fatalf("run start --wait did not end at the gate:\n%s", out.String())
	}
	want := "run " + runID + " waits at gate "
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "of phase requirements") ||
		!strings.Contains(out.String(), "metaforge run decide "+runID+" --approve") {
		t.Fatalf("run start --wait printed:\n%s\nwant %q and how to decide", out.String(), want)
	}
}

// The run's bar draws phases done of phases, the phase and its state.
func TestRunProgressLine(t *testing.T) {
	st := flows.RunState{PhaseIndex: 1, Phases: []flows.PhaseState{{Name: "requirements"}, {Name: "geometry", Status: flows.PhaseClaimed},
		{Name: "analysis"}}}
	want := "[" + strings.Repeat("#", 10) + strings.Repeat(" ", 20) + "] phase 2/3 geometry: claimed  1.5s"
	if got := runProgressLine(st, 1500*time.Millisecond); got != want {
		t.Errorf("runProgressLine = %q, want %q", got, want)
	}
	if _, done := runWaitEnd(flows.RunState{Status: flows.RunWaitingForClient}); done {
		t.Error("the wait ended while the run waits for a client")
	}
	if said, done := runWaitEnd(flows.RunState{RunID: "r1", Status: flows.RunRejected, Reason: "unsafe"}); !done || said != "run r1 ended: rejected (unsafe)" {
		t.Errorf("a rejected run: %q %v", said, done)
	}
}
