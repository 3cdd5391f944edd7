package ledger_test

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/ledger/pgtest"
)

// A session's narrative on the ledger: events in order, a repeated call
// logged once, one ending, and no event after it however the calls race.
func TestSessionNarrative(t *testing.T) {
	t.Parallel()
	l := open(t, pgtest.URL(t))
	ctx := testContext(t)
	log := func(kind, text, call string, refs ...string) (ledger.SessionEvent, error) {
		return l.LogSessionEvent(ctx, ledger.SessionEvent{SessionID: "s1", ProjectID: "p1", CallID: call, Kind: kind, Text: text, Refs: refs, Actor: "agent:test"})
	}
	first, err := log("thought", "the bracket looks thin", "c1")
	if err != nil || first.ID == 0 {
		t.Fatalf("first event = %+v %v", first, err)
	}
	if _, err := log("action", "evaluated deflection", "c2", "CAD-BRACKET@1"); err != nil {
		t.Fatal(err)
	}
	if again, err := log("thought", "the bracket looks thin", "c1"); err != nil || again.ID != first.ID {
		t.Fatalf("a repeated call = %+v %v, want event %d", again, err, first.ID)
	}
	if _, err := log("decision", "3 mm wall", "c3"); err != nil {
		t.Fatal(err)
	}
	n, err := l.SessionNarrative(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range n.Events {
		kinds = append(kinds, e.Kind)
	}
	if n.Status != "open" || n.End != nil || n.ProjectID != "p1" || !reflect.DeepEqual(kinds, []string{"thought", "action", "decision"}) ||
		!reflect.DeepEqual(n.Events[1].Refs, []string{"CAD-BRACKET@1"}) || !reflect.DeepEqual(n.Events[0].Refs, []string{}) || n.Events[2].Actor != "agent:test" {
		t.Fatalf("narrative = %+v", n)
	}
	if _, err := log("musing", "x", ""); err == nil {
		t.Error("an event of an unknown kind was logged")
	}

	end, err := l.CompleteSession(ctx, ledger.SessionEnd{SessionID: "s1", Status: "completed", Summary: "wall thickened", By: "agent:test", CallID: "c4"})
	if err != nil || end.Status != "completed" || end.Events != 3 || end.Summary != "wall thickened" || end.By != "agent:test" {
		t.Fatalf("complete = %+v %v", end, err)
	}
	if again, err := l.CompleteSession(ctx, ledger.SessionEnd{SessionID: "s1", Status: "completed", Summary: "wall thickened", CallID: "c4"}); err != nil || !again.At.Equal(end.At) {
		t.Errorf("a repeated completion = %+v %v, want the first", again, err)
	}
	var ended *ledger.SessionEndedError
	if _, err := log("observation", "one more", "c5"); !errors.As(err, &ended) || ended.End.Status != "completed" || ended.End.Events != 3 {
		t.Errorf("an event after the end = %v, want SessionEndedError", err)
	}
	if _, err := l.CompleteSession(ctx, ledger.SessionEnd{SessionID: "s1", Status: "failed", Summary: "again", CallID: "c6"}); !errors.As(err, &ended) {
		t.Errorf("a second ending = %v, want SessionEndedError", err)
	}
	if n, _ := l.SessionNarrative(ctx, "s1"); n.Status != "completed" || len(n.Events) != 3 || n.End == nil || n.End.Summary != "wall thickened" {
		t.Errorf("narrative after the end = %+v", n)
	}
	if _, err := l.SessionNarrative(ctx, "never"); !errors.Is(err, ledger.ErrNoSession) {
		t.Errorf("an unknown session = %v", err)
	}
	if sessions, err := l.Sessions(ctx, "p1"); err != nil || len(sessions) != 1 || sessions[0].SessionID != "s1" {
		t.Errorf("sessions of p1 = %+v %v", sessions, err)
	}

	// Events racing the ending: each lands before it or is refused.
	var wg sync.WaitGroup
	var mu sync.Mutex
	logged, refused := 0, 0
	for i := range 12 {
		wg.Go(func() {
			_, err := l.LogSessionEvent(ctx, ledger.SessionEvent{SessionID: "race", Kind: "action", Text: fmt.Sprintf("step %d", i)})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				logged++
			case errors.As(err, new(*ledger.SessionEndedError)):
				refused++
			default:
				t.Errorf("event %d: %v", i, err)
			}
		})
		if i == 5 {
			wg.Go(func() {
				if _, err := l.CompleteSession(ctx, ledger.SessionEnd{SessionID: "race", Status: "abandoned", Summary: "raced"}); err != nil {
					t.Errorf("complete in the race: %v", err)
				}
			})
		}
	}
	wg.Wait()
	rn, err := l.SessionNarrative(ctx, "race")
	if err != nil || rn.Status != "abandoned" || len(rn.Events) != logged || rn.End.Events != int64(logged) || logged+refused != 12 {
		t.Fatalf("race: %d logged, %d refused; narrative %d events, end counts %v (%v)", logged, refused, len(rn.Events), rn.End, err)
	}
}
