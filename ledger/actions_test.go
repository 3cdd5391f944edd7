package ledger_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/ledger/pgtest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fidel is a verified user in Claude Code, who says which model it runs.
var fidel = ledger.Stamp{
	Actor:         "user:fidel",
	ActorVerified: true,
	Client:        &ledger.Client{Name: "claude-code", Version: "2.1.4"},
	Claimed:       &ledger.Claimed{Model: "claude-opus-5"},
}

// scriptedSession is two sessions' calls, oldest first: Fidel's in
// Claude Code on project p1, and an unverified caller's that never said
// which client it is, on p2.
func scriptedSession() []ledger.Action {
	anon := ledger.Stamp{Actor: "remote"}
	emptyClient := ledger.Stamp{Actor: "remote", Client: &ledger.Client{}, Claimed: &ledger.Claimed{}}
	return []ledger.Action{
		{At: t0, CallID: "c1", ToolID: "project.open", AdapterID: "project", SessionID: "s1", ProjectID: "p1",
			Caller: "local", Status: ledger.StatusSuccess, DurationMs: 4.5, Stamp: fidel},
		{At: t0.Add(1 * time.Second), CallID: "c2", ToolID: "twin.commit_geometry", AdapterID: "twin", SessionID: "s1", ProjectID: "p1",
			Caller: "local", Status: ledger.StatusSuccess, DurationMs: 12, Stamp: fidel},
		{At: t0.Add(2 * time.Second), CallID: "c3", ToolID: "calculix.run", AdapterID: "calculix", SessionID: "s1",
			Caller: "local", Status: ledger.StatusError, ErrorType: "TOOL_TIMEOUT", ErrorClass: "timeout", DurationMs: 30000, Stamp: fidel},
		{At: t0.Add(3 * time.Second), CallID: "c4", ToolID: "twin.query", AdapterID: "twin", SessionID: "s2", ProjectID: "p2",
			Caller: "remote", Status: ledger.StatusSuccess, DurationMs: 2, Stamp: anon},
		{At: t0.Add(4 * time.Second), CallID: "c5", ToolID: "twin.query", AdapterID: "twin", SessionID: "s2", ProjectID: "p2",
			Caller: "remote", Status: ledger.StatusSuccess, DurationMs: 3, Stamp: emptyClient},
	}
}

func callIDs(actions []ledger.Action) string {
	var ids []string
	for _, a := range actions {
		ids = append(ids, a.CallID)
	}
	return strings.Join(ids, " ")
}

// Every call of a scripted session is recorded with its stamp, read back
// newest first, and counted in its session.
func TestEveryCallIsRecordedWithItsStamp(t *testing.T) {
	t.Parallel()
	l := open(t, pgtest.URL(t))
	ctx := testContext(t)
	record(t, l, scriptedSession()...)

	for _, c := range []struct {
		filter ledger.ActionFilter
		want   string
	}{
		{ledger.ActionFilter{}, "c5 c4 c3 c2 c1"},
		{ledger.ActionFilter{SessionID: "s1"}, "c3 c2 c1"},
		{ledger.ActionFilter{ProjectID: "p2"}, "c5 c4"},
		{ledger.ActionFilter{ToolID: "twin.query"}, "c5 c4"},
		{ledger.ActionFilter{SessionID: "s1", ToolID: "calculix.run"}, "c3"},
		{ledger.ActionFilter{Limit: 2}, "c5 c4"},
		{ledger.ActionFilter{SessionID: "nobody"}, ""},
	} {
		got, err := l.Actions(ctx, c.filter)
		if err != nil {
			t.Fatal(err)
		}
		if callIDs(got) != c.want {
			t.Errorf("Actions(%+v) = %q, want %q", c.filter, callIDs(got), c.want)
		}
	}

	all, err := l.Actions(ctx, ledger.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	byCall := map[string]ledger.Action{}
	for _, a := range all {
		byCall[a.CallID] = a
	}
	c3 := byCall["c3"]
	if c3.ID == 0 || !c3.At.Equal(t0.Add(2*time.Second)) || c3.Status != "error" || c3.ErrorType != "TOOL_TIMEOUT" ||
		c3.ErrorClass != "timeout" || c3.DurationMs != 30000 || c3.AdapterID != "calculix" || c3.Caller != "local" {
		t.Errorf("c3 read back as %+v", c3)
	}
	if !reflect.DeepEqual(c3.Stamp, fidel) {
		t.Errorf("c3's stamp = %+v, want %+v", c3.Stamp, fidel)
	}

	// On the wire the stamp sits beside tool_id.
	wire := func(a ledger.Action) map[string]any {
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	c2 := wire(byCall["c2"])
	if c2["actor"] != "user:fidel" || c2["actor_verified"] != true ||
		!reflect.DeepEqual(c2["client"], map[string]any{"name": "claude-code", "version": "2.1.4"}) ||
		!reflect.DeepEqual(c2["claimed"], map[string]any{"model": "claude-opus-5"}) {
		t.Errorf("c2 on the wire: %v", c2)
	}
	// A client that never identified itself has no client: absent, not
	// empty. An empty clientInfo is no identification either.
	for _, id := range []string{"c4", "c5"} {
		m := wire(byCall[id])
		if _, ok := m["client"]; ok {
			t.Errorf("%s on the wire has a client: %v", id, m)
		}
		if _, ok := m["claimed"]; ok {
			t.Errorf("%s on the wire has claims: %v", id, m)
		}
		if m["actor"] != "remote" || m["actor_verified"] != false {
			t.Errorf("%s on the wire: %v", id, m)
		}
		if _, ok := m["error_type"]; ok {
			t.Errorf("%s succeeded and has an error_type: %v", id, m)
		}
	}

	sessions, err := l.Sessions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []ledger.Session{
		{SessionID: "s2", ProjectID: "p2", Actor: "remote",
			FirstSeen: t0.Add(3 * time.Second), LastSeen: t0.Add(4 * time.Second), Actions: 2},
		// c3 named no project: the session keeps p1.
		{SessionID: "s1", ProjectID: "p1", AgentCode: "claude-code", ClientVersion: "2.1.4", Actor: "user:fidel",
			FirstSeen: t0, LastSeen: t0.Add(2 * time.Second), Actions: 3},
	}
	if !reflect.DeepEqual(sessions, want) {
		t.Errorf("Sessions = %+v\nwant %+v", sessions, want)
	}
	p1, err := l.Sessions(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	if len(p1) != 1 || p1[0].SessionID != "s1" {
		t.Errorf(`Sessions("p1") = %+v, want s1 alone`, p1)
	}
}

// A retried record of a call (same call id) is not a second action and
// does not count twice in the session.
func TestRetriedRecordIsOneAction(t *testing.T) {
	t.Parallel()
	l := open(t, pgtest.URL(t))
	a := scriptedSession()[0]
	record(t, l, a, a)
	got, err := l.Actions(testContext(t), ledger.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := l.Sessions(testContext(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(sessions) != 1 || sessions[0].Actions != 1 {
		t.Errorf("after recording c1 twice: actions %q, sessions %+v", callIDs(got), sessions)
	}
}

// An action with no time is stamped now; one with no session is recorded
// and counted in no session.
func TestActionWithoutTimeOrSession(t *testing.T) {
	t.Parallel()
	l := open(t, pgtest.URL(t))
	before := time.Now()
	record(t, l, ledger.Action{ToolID: "health.check", Status: ledger.StatusSuccess})
	got, err := l.Actions(testContext(t), ledger.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].At.Before(before.Add(-time.Second)) || time.Since(got[0].At) > time.Minute {
		t.Errorf("actions: %+v", got)
	}
	if sessions, err := l.Sessions(testContext(t), ""); err != nil || len(sessions) != 0 {
		t.Errorf("sessions: %+v, %v", sessions, err)
	}
}

// What cannot be recorded is refused with what is wrong, and a read that
// asks for too much says how much it may ask for.
func TestRefusals(t *testing.T) {
	t.Parallel()
	l := open(t, pgtest.URL(t))
	ctx := testContext(t)
	for _, c := range []struct {
		a    ledger.Action
		want string
	}{
		{ledger.Action{ToolID: "twin.query", Status: "ok"}, `status "ok": want "success" or "error"`},
		{ledger.Action{Status: ledger.StatusSuccess}, "no tool_id"},
	} {
		if err := l.RecordAction(ctx, c.a); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RecordAction(%+v) = %v, want an error saying %q", c.a, err, c.want)
		}
	}
	if err := l.BindSession(ctx, "", "p1"); err == nil || !strings.Contains(err.Error(), "no session id") {
		t.Errorf("BindSession without a session id: %v", err)
	}
	if _, err := l.Actions(ctx, ledger.ActionFilter{Limit: ledger.MaxLimit + 1}); err == nil ||
		!strings.Contains(err.Error(), "from 1 to 1000") {
		t.Errorf("Actions with limit %d: %v", ledger.MaxLimit+1, err)
	}
}

// session.start binds a session to a project before any call is counted;
// a later binding moves it.
func TestBindSession(t *testing.T) {
	t.Parallel()
	l := open(t, pgtest.URL(t))
	ctx := testContext(t)
	if err := l.BindSession(ctx, "s9", "p1"); err != nil {
		t.Fatal(err)
	}
	if err := l.BindSession(ctx, "s9", "p2"); err != nil {
		t.Fatal(err)
	}
	record(t, l, ledger.Action{ToolID: "twin.query", SessionID: "s9", Status: ledger.StatusSuccess, Stamp: fidel})
	got, err := l.Sessions(ctx, "p2")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].SessionID != "s9" || got[0].Actions != 1 || got[0].AgentCode != "claude-code" {
		t.Errorf(`Sessions("p2") = %+v`, got)
	}
	if old, _ := l.Sessions(ctx, "p1"); len(old) != 0 {
		t.Errorf(`Sessions("p1") after rebinding = %+v`, old)
	}
}
