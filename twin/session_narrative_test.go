package twin_test

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// A session's narrative in the twin: events in order, a repeated call
// logged once, an ending that refuses every later event, and a race of
// events against the ending that never lets one land after it.
func testSessionNarrative(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Narrative")
	const sid = "http-3f2a"
	ev := func(kind, text, call string, refs ...string) (twin.SessionEvent, error) {
		return twin.LogSessionEvent(bg, s, twin.SessionEvent{SessionID: sid, ProjectID: g.p.ID, Kind: kind, Text: text, Refs: refs,
			Actor: "agent:test", CallID: call})
	}
	first, err := ev("thought", "the bracket looks too thin", "call-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev("action", "evaluated tip deflection", "call-2", "CAD-BRACKET@1", "n-0123"); err != nil {
		t.Fatal(err)
	}
	if again, err := ev("thought", "the bracket looks too thin", "call-1"); err != nil || again.ID != first.ID {
		t.Fatalf("a repeated call = %v %v, want the first event %s", again.ID, err, first.ID)
	}
	if _, err := ev("decision", "thicken the wall to 3 mm", "call-3"); err != nil {
		t.Fatal(err)
	}
	n, err := twin.ReadSessionNarrative(bg, s, g.p.ID, sid)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range n.Events {
		kinds = append(kinds, e.Kind)
	}
	if n.Status != twin.SessionOpen || n.End != nil || !reflect.DeepEqual(kinds, []string{"thought", "action", "decision"}) ||
		!reflect.DeepEqual(n.Events[1].Refs, []string{"CAD-BRACKET@1", "n-0123"}) || n.Events[0].Actor != "agent:test" || n.Events[2].Text != "thicken the wall to 3 mm" {
		t.Fatalf("narrative = %+v", n)
	}

	for _, tc := range []struct {
		e    twin.SessionEvent
		want string
	}{
		{twin.SessionEvent{ProjectID: g.p.ID, Kind: "thought", Text: "x"}, "no session identity"},
		{twin.SessionEvent{SessionID: sid, ProjectID: g.p.ID, Kind: "musing", Text: "x"}, `kind "musing"`},
		{twin.SessionEvent{SessionID: sid, ProjectID: g.p.ID, Kind: "thought", Text: "  "}, "text is blank"},
		{twin.SessionEvent{SessionID: sid, ProjectID: g.p.ID, Kind: "thought", Text: "x", Refs: []string{""}}, "refs[0]"},
		{twin.SessionEvent{SessionID: sid, Kind: "thought", Text: "x"}, "keeps a session's narrative in the project"},
	} {
		if _, err := twin.LogSessionEvent(bg, s, tc.e); !refusal(err, tc.want) {
			t.Errorf("%+v: %v, want a refusal saying %q", tc.e, err, tc.want)
		}
	}
	if _, err := twin.CompleteSession(bg, s, twin.SessionEnd{SessionID: sid, ProjectID: g.p.ID, Status: "done", Summary: "x"}); !refusal(err, `status "done"`) {
		t.Errorf("an unknown status = %v", err)
	}
	if _, err := twin.CompleteSession(bg, s, twin.SessionEnd{SessionID: sid, ProjectID: g.p.ID, Status: "completed"}); !refusal(err, "summary is blank") {
		t.Errorf("no summary = %v", err)
	}

	end, err := twin.CompleteSession(bg, s, twin.SessionEnd{SessionID: sid, ProjectID: g.p.ID, Status: "completed", Summary: "wall thickened", CallID: "call-4"})
	if err != nil || end.Status != "completed" || end.Events != 3 || end.Summary != "wall thickened" {
		t.Fatalf("complete = %+v %v", end, err)
	}
	if again, err := twin.CompleteSession(bg, s, twin.SessionEnd{SessionID: sid, ProjectID: g.p.ID, Status: "completed", Summary: "wall thickened", CallID: "call-4"}); err != nil || !again.At.Equal(end.At) {
		t.Errorf("a repeated completion = %+v %v, want the first", again, err)
	}
	var ended *twin.SessionEndedError
	if _, err := ev("observation", "one more thing", "call-5"); !errors.As(err, &ended) || ended.End.Status != "completed" || !refusal(err, "takes no more events") {
		t.Errorf("an event after the end = %v, want a refusal saying the session ended", err)
	}
	if _, err := twin.CompleteSession(bg, s, twin.SessionEnd{SessionID: sid, ProjectID: g.p.ID, Status: "failed", Summary: "again"}); !refusal(err, "cannot end again") {
		t.Errorf("a second ending = %v", err)
	}
	if n, _ := twin.ReadSessionNarrative(bg, s, g.p.ID, sid); n.Status != "completed" || len(n.Events) != 3 || n.End.Summary != "wall thickened" || n.End.Events != 3 {
		t.Errorf("narrative after the end = %+v", n)
	}

	// A session that logged nothing can still end.
	if end, err := twin.CompleteSession(bg, s, twin.SessionEnd{SessionID: "other", ProjectID: g.p.ID, Status: "abandoned", Summary: "nothing to do"}); err != nil || end.Events != 0 {
		t.Errorf("an empty session's end = %+v %v", end, err)
	}

	// Events racing the ending: each lands before it or is refused.
	const race = "race"
	var wg sync.WaitGroup
	var mu sync.Mutex
	logged, refused := 0, 0
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := twin.LogSessionEvent(bg, s, twin.SessionEvent{SessionID: race, ProjectID: g.p.ID, Kind: "action", Text: fmt.Sprintf("step %d", i)})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				logged++
			case errors.As(err, new(*twin.SessionEndedError)):
				refused++
			default:
				t.Errorf("event %d: %v", i, err)
			}
		}()
		if i == 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := twin.CompleteSession(bg, s, twin.SessionEnd{SessionID: race, ProjectID: g.p.ID, Status: "completed", Summary: "raced"}); err != nil {
					t.Errorf("complete in the race: %v", err)
				}
			}()
		}
	}
	wg.Wait()
	rn, err := twin.ReadSessionNarrative(bg, s, g.p.ID, race)
	if err != nil || rn.Status != "completed" || len(rn.Events) != logged || logged+refused != 12 {
		t.Fatalf("race: %d logged, %d refused, narrative has %d events (%v)", logged, refused, len(rn.Events), err)
	}
	for _, e := range rn.Events {
		if e.At.After(rn.End.At) {
			t.Errorf("event %q landed at %s, after the end at %s", e.Text, e.At, rn.End.At)
		}
	}
}
