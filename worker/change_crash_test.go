package worker_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/metaforge/metaforge/activities"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

// slowAnalysisEnv, when set, slows the worker process's impact walks by
// analysisPause, so a kill can be made to land while a change is
// ANALYZING.
const slowAnalysisEnv = "METAFORGE_TEST_WORKER_SLOW_ANALYSIS"

// analysisPause is how long the worker process's twin waits before it
// walks a change's impact: the window the kill lands in.
const analysisPause = 2 * time.Second

// slowChangeTwin is the worker process's twin with each impact walk
// slowed by analysisPause.
type slowChangeTwin struct{ activities.Twin }

func (s slowChangeTwin) AnalyzeChange(ctx context.Context, projectID string, patch []twin.PatchOp) (twin.ChangeImpact, error) {
	select {
	case <-ctx.Done():
		return twin.ChangeImpact{}, ctx.Err()
	case <-time.After(analysisPause):
	}
	return s.Twin.AnalyzeChange(ctx, projectID, patch)
}

// changeTwin is the worker process's twin, its impact walks slowed when
// the environment asks.
func changeTwin(tw activities.Twin) activities.Twin {
	if tw == nil || os.Getenv(slowAnalysisEnv) == "" {
		return tw
	}
	return slowChangeTwin{tw}
}

// An engineering change whose only worker is killed (SIGKILL) while the
// change is ANALYZING resumes on another worker and completes: the
// analysis is redone and the change is READY_FOR_REVIEW with it; a second
// person approves, the commit moves the item's head exactly once, and each
// step of the change is recorded in the twin exactly once. The twin is a
// Neo4j server, which outlives the worker.
func TestEngineeringChangeResumesAfterWorkerKill(t *testing.T) {
	began := time.Now()
	mark := func(what string) { t.Logf("%s at %s", what, time.Since(began).Round(time.Millisecond)) }
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// A bracket and a bench test pinned to its first revision, in a
	// project of this test's own: the server is shared, so nothing is
	// wiped.
	tw := newCrashTwin(t, ctx)
	call, store, uri, user, password := tw.call, tw.store, tw.uri, tw.user, tw.password
	project := call("project.create", map[string]any{"name": "change-kill-" + randomHex(t)})["project_id"].(string)
	step := base64.StdEncoding.EncodeToString([]byte("ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n"))
	ref := call("twin.commit_geometry", map[string]any{"project_id": project, "name": "bracket", "step_base64": step,
		"material": "aluminium_6061", "properties": map[string]any{"bounding_box": map[string]any{"size": []float64{300, 40, 20}},
			"wall_thickness_mm": 2}})["item_ref"].(string)
	bench := call("twin.record_evidence", map[string]any{"project_id": project, "name": "bench test of the bracket", "kind": "test",
		"metric": "tip_deflection", "value": 3.1, "unit": "mm", "valid_against": []any{ref}})["node_id"].(string)
	key := strings.Split(ref, "@")[0]

	// Temporal in this process; the workflow and its activities only in
	// the worker process.
	tmp := workertest.StartTemporal(t)
	env := []string{loopTwinURIEnv + "=" + uri, loopTwinUserEnv + "=" + user, loopTwinPasswordEnv + "=" + password, slowAnalysisEnv + "=1"}
	first := startWorkerProcess(t, tmp.Address, env...)
	mark("twin, Temporal and the first worker up")

	// alice proposes a thicker wall, to be analysed at once.
	changes := &runs.Changes{Client: tmp.Client}
	changeID := randomHex(t)
	proc, err := changes.ChangeProcess(twinadapter.ChangeStart{ChangeID: changeID, ProjectID: project, Title: "thicker wall",
		Reason: "the bracket deflects too much", CreatedBy: "alice", AnalyzeNow: true,
		Patch: []twin.PatchOp{{Ref: ref, Set: map[string]any{"wall_thickness_mm": 3.0}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&runs.Service{Client: tmp.Client}).Start(ctx, proc); err != nil {
		t.Fatalf("start the change: %v", err)
	}
	workflowID := workflows.EngineeringChangeWorkflowID(changeID)

	// state is the change as its workflow answers (ok false while no
	// worker answers).
	state := func() (workflows.ChangeState, bool) {
		qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		st, _, err := changes.State(qctx, changeID)
		return st, err == nil
	}
	// analysing is whether the impact walk runs on a worker.
	analysing := func() bool {
		desc, err := tmp.Client.DescribeWorkflowExecution(ctx, workflowID, "")
		if err != nil {
			return false
		}
		for _, a := range desc.GetPendingActivities() {
			if a.GetActivityType().GetName() == workflows.AnalyzeChangeActivity && a.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED {
				return true
			}
		}
		return false
	}

	// The kill: the change is ANALYZING and its walk runs.
	waitUntil(t, ctx, "the change ANALYZING with its walk running", func() bool {
		st, ok := state()
		if ok && st.Status != workflows.ChangeProposed && st.Status != workflows.ChangeAnalyzing {
			t.Fatalf("missed the window: the change is already %s", st.Status)
		}
		return ok && st.Status == workflows.ChangeAnalyzing && analysing()
	})
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	mark("worker killed while the change is ANALYZING")
	startWorkerProcess(t, tmp.Address, env...)

	// The second worker redoes the walk once the killed attempt times
	// out. The change shows READY_FOR_REVIEW while that step's event is
	// being recorded (Busy): a review waits for it to end.
	var st workflows.ChangeState
	waitUntil(t, ctx, "the change READY_FOR_REVIEW", func() bool {
		var ok bool
		st, ok = state()
		return ok && st.Status == workflows.ChangeReadyForReview && st.Busy == ""
	})
	mark("READY_FOR_REVIEW on the second worker")
	a := st.Analysis
	if a == nil || len(a.Patched) != 1 || a.ApprovalLevel == "" || !hasEntry(a.Stale, bench) || !hasEntry(a.ManualReviewNeeded, bench) {
		t.Fatalf("the analysis after the kill: want %s patched, the bench test %s stale and for manual review, an approval level; got %+v",
			ref, bench, a)
	}

	// Its creator cannot approve it; bob, verified, does; the commit.
	if _, err := changes.Step(ctx, changeID, twinadapter.ChangeStep{Name: twinadapter.StepApprove, By: "alice", Verified: true}); err == nil {
		t.Fatal("alice approved her own change")
	}
	if st, err = changes.Step(ctx, changeID, twinadapter.ChangeStep{Name: twinadapter.StepApprove, By: "bob", Verified: true}); err != nil ||
		st.Status != workflows.ChangeApproved {
		t.Fatalf("bob approves: %s %v", st.Status, err)
	}
	if st, err = changes.Step(ctx, changeID, twinadapter.ChangeStep{Name: twinadapter.StepCommit, By: "bob"}); err != nil ||
		st.Status != workflows.ChangeCommitted || st.Commit == nil || len(st.Commit.Revisions) != 1 {
		t.Fatalf("commit: %+v %v", st, err)
	}
	mark("approved by bob and committed")

	// The item's head moved exactly once: one new revision, the patched
	// one, and it is the head.
	revs, err := store.Revisions(ctx, project, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 2 {
		t.Fatalf("%s has %d revisions after the change, want 2 (the first and the change's)", key, len(revs))
	}
	head, err := twin.ResolveRef(ctx, store, project, key)
	if err != nil {
		t.Fatal(err)
	}
	if head.Ref() != st.Commit.Revisions[0].To || head.Ref() == ref || head.Properties["wall_thickness_mm"] != 3.0 {
		t.Fatalf("the head of %s is %s %v; the commit wrote %s from %s with a 3 mm wall", key, head.Ref(), head.Properties,
			st.Commit.Revisions[0].To, ref)
	}

	// Each step recorded once: the twin's events are the workflow's
	// history, seq by seq.
	states := []string{}
	for _, e := range st.History {
		states = append(states, e.State)
	}
	if got := strings.Join(states, " "); got != "PROPOSED ANALYZING READY_FOR_REVIEW APPROVED COMMITTED" {
		t.Fatalf("the change's history: %s", got)
	}
	events, err := twin.ChangeEvents(ctx, store, project, changeID)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != len(st.History) {
		t.Fatalf("the twin holds %d events of the change, its history %d: %+v", len(events), len(st.History), events)
	}
	for i, e := range events {
		seq, _ := twin.NumberOf(e.Properties["seq"])
		if int(seq) != i+1 || e.Properties["state"] != st.History[i].State {
			t.Fatalf("the twin's event %d is seq %v %v; the history's is seq %d %s", i+1, e.Properties["seq"], e.Properties["state"],
				i+1, st.History[i].State)
		}
	}

	// The kill landed inside the walk: it alone took a second attempt.
	if retried := retriedActivities(t, ctx, tmp.Client, workflowID); fmt.Sprint(retried) != fmt.Sprint([]string{"AnalyzeChange (attempt 2)"}) {
		t.Fatalf("activities that took more than one attempt: %v; want the impact walk, on attempt 2", retried)
	}
	mark(fmt.Sprintf("%s moved once to %s; %d events, each recorded once", key, head.Ref(), len(events)))
}

func hasEntry(es []workflows.ChangePlanEntry, id string) bool {
	for _, e := range es {
		if e.EvidenceID == id {
			return true
		}
	}
	return false
}
