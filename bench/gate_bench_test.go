package bench

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/flow"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/workflows"
)

// BenchmarkGateDecisionToClaimable measures how long a person waits between
// approving a gate and the next phase being claimable: the REST route's
// path (runs.Service.Decide: the gate judged again against the twin, then
// the decision Update) and then the workflow moving on, until the run's
// state query shows the next phase waiting for a client. Each op is one
// gate of a run of `phasesPerRun` client phases, on an embedded Temporal
// server with the in-memory twin; claim and submit between gates are not
// timed.
func BenchmarkGateDecisionToClaimable(b *testing.B) {
	ctx := context.Background()
	t, err := worker.ConnectTemporal(ctx, worker.TemporalOptions{Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()
	mem := twin.NewMemoryStore()
	blobs, err := twin.NewBlobStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	backend := &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs}
	reg := adapters.NewRegistry()
	svc := &runs.Service{Client: t.Client, Namespace: t.Namespace, Registry: reg}
	for _, a := range append(twinadapter.New(backend), flow.New(&flow.Service{Engine: svc, Store: mem, Facts: backend, Catalog: reg})...) {
		if err := reg.Register(a); err != nil {
			b.Fatal(err)
		}
	}
	w, err := worker.StartWorkersWith(t.Client, reg, worker.AllQueues(reg), quietLogger(), worker.Deps{Twin: backend})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	p, err := mem.CreateProject(ctx, twin.Project{Name: "bench-gates"}, "bench-gates")
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := mem.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "constraint_set", Name: "reqs",
		IdempotencyKey: "bench-reqs", Properties: map[string]any{"constraints": []any{}}}); err != nil {
		b.Fatal(err)
	}

	const phasesPerRun = 10
	f := flows.Flow{ID: "bench_v1"}
	for i := 0; i < phasesPerRun; i++ {
		f.Phases = append(f.Phases, flows.Phase{Name: fmt.Sprintf("p%d", i), Brief: "record the requirements",
			Deliverables: []string{"constraint_set"},
			Gate:         flows.Gate{Name: fmt.Sprintf("G%d", i), HumanDecision: true, Criteria: []flows.Criterion{{Kind: flows.CriterionDeliverables}}}})
	}

	waitPhase := func(runID string, index int, status string) {
		for {
			st, err := svc.RunState(ctx, runID)
			if err == nil && st.PhaseIndex == index && st.Phases[index].Status == status {
				return
			}
			if err == nil && st.Status == flows.RunRejected {
				b.Fatalf("run %s was rejected: %s", runID, st.Reason)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	var samples, decided []time.Duration
	run, gate := "", phasesPerRun
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if gate >= phasesPerRun-1 {
			run = fmt.Sprintf("%016x", time.Now().UnixNano())
			if err := svc.StartRun(ctx, flows.DesignFlowInput{RunID: run, ProjectID: p.ID, Goal: "bench", Flow: f}); err != nil {
				b.Fatal(err)
			}
			gate = 0
		} else {
			gate++
		}
		waitPhase(run, gate, flows.PhaseWaitingForClient)
		if _, err := svc.Claim(ctx, run, flows.ClaimRequest{ClaimedBy: "bench"}); err != nil {
			b.Fatal(err)
		}
		if _, err := svc.Submit(ctx, run, flows.Submission{Phase: f.Phases[gate].Name, Summary: "done", SubmittedBy: "bench"}); err != nil {
			b.Fatal(err)
		}
		waitPhase(run, gate, flows.PhaseAtGate)
		for {
			st, _ := svc.RunState(ctx, run)
			if st.Phases[gate].Gate.Result != nil {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		b.StartTimer()
		start := time.Now()
		if _, err := svc.Decide(ctx, run, flows.GateDecision{Decision: flows.DecisionApprove, Decider: "bench", Route: workflows.RouteDashboard}); err != nil {
			b.Fatal(err)
		}
		decided = append(decided, time.Since(start))
		if gate+1 < phasesPerRun {
			waitPhase(run, gate+1, flows.PhaseWaitingForClient)
		}
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	pct := func(d []time.Duration, q float64) float64 {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return float64(d[int(q*float64(len(d)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(samples, 0.5), "p50-ms")
	b.ReportMetric(pct(samples, 0.9), "p90-ms")
	b.ReportMetric(pct(samples, 1), "max-ms")
	// The decision's own round trip (judge the gate again, then the
	// decision Update), of which the rest is the workflow moving on.
	b.ReportMetric(pct(decided, 0.5), "decide-p50-ms")
}
