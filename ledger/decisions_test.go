package ledger_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/ledger/pgtest"
)

// Decisions are recorded once however often the record is retried, and
// read by approval, call and project.
func TestDecisions(t *testing.T) {
	t.Parallel()
	l := open(t, pgtest.URL(t))
	ctx := testContext(t)
	approved := ledger.Decision{At: t0, ApprovalID: "run_a1", CallID: "c1", ToolID: "twin.commit_geometry",
		SessionID: "s1", ProjectID: "p1", Outcome: "approved", By: "Fidel", Route: "dashboard", Comment: "looks right"}
	rejected := ledger.Decision{At: t0.Add(time.Minute), ApprovalID: "run_a2", CallID: "c2", ToolID: "twin.commit_geometry",
		SessionID: "s1", ProjectID: "p1", Outcome: "rejected", By: "user:fidel", ByVerified: true, Route: "elicitation"}
	timedOut := ledger.Decision{At: t0.Add(2 * time.Minute), ApprovalID: "run_a3", CallID: "c3", ProjectID: "p2",
		Outcome: "timed_out", Route: "timeout"}
	retried := approved
	retried.At = t0.Add(time.Hour) // the retry runs later; the decision is the same
	for _, d := range []ledger.Decision{approved, rejected, retried, timedOut, approved} {
		if err := l.RecordDecision(ctx, d); err != nil {
			t.Fatal(err)
		}
	}

	read := func(f ledger.DecisionFilter) []ledger.Decision {
		t.Helper()
		got, err := l.Decisions(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i].ID == 0 {
				t.Errorf("decision %+v has no id", got[i])
			}
			got[i].ID = 0
		}
		return got
	}
	if got := read(ledger.DecisionFilter{ApprovalID: "run_a1"}); !reflect.DeepEqual(got, []ledger.Decision{approved}) {
		t.Errorf("by approval run_a1: %+v", got)
	}
	if got := read(ledger.DecisionFilter{CallID: "c2"}); !reflect.DeepEqual(got, []ledger.Decision{rejected}) {
		t.Errorf("by call c2: %+v", got)
	}
	if got := read(ledger.DecisionFilter{ProjectID: "p1"}); !reflect.DeepEqual(got, []ledger.Decision{rejected, approved}) {
		t.Errorf("by project p1 (newest first): %+v", got)
	}
	if got := read(ledger.DecisionFilter{Limit: 1}); !reflect.DeepEqual(got, []ledger.Decision{timedOut}) {
		t.Errorf("newest: %+v", got)
	}

	if err := l.RecordDecision(ctx, ledger.Decision{Outcome: "approved"}); err == nil {
		t.Error("a decision on no approval was recorded")
	}
	if err := l.RecordDecision(ctx, ledger.Decision{ApprovalID: "run_a4"}); err == nil {
		t.Error("a decision with no outcome was recorded")
	}
}
