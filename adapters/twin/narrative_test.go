package twin_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/twin"
)

// Without a ledger, a session's narrative is kept in the twin.
func TestSessionNarrativeInTheTwinThroughMCP(t *testing.T) {
	s, be := theStack(t)
	narrativeInTheTwin(t, s, be.Store)
}

func TestSessionNarrativeInTheTwinThroughMCPOnNeo4j(t *testing.T) {
	b := neo4jBackend(t, false)
	narrativeInTheTwin(t, mcptest.Start(t, twinadapter.New(b)...), b.Store)
}

func narrativeInTheTwin(t *testing.T, s *mcptest.Stack, store twin.Store) {
	c := client{t, s.ConnectHTTP(t, nil)}
	pid := c.call("project.create", map[string]any{"name": "Narrated"})["project_id"].(string)
	first := c.call("session.log_event", map[string]any{"kind": "thought", "text": "the bracket looks thin"})
	sid, _ := first["session_id"].(string)
	if first["kept_in"] != "twin" || first["project_id"] != pid || sid == "" || first["event_id"] == "" {
		t.Fatalf("log_event = %v", first)
	}
	c.call("session.log_event", map[string]any{"kind": "action", "text": "evaluated deflection", "refs": []any{"CAD-BRACKET@1"}})
	c.call("session.log_event", map[string]any{"kind": "decision", "text": "3 mm wall"})

	// Hostile events: refused, nothing written.
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"kind": "musing", "text": "x"}, "kind"},
		{map[string]any{"kind": "thought", "text": ""}, "text"},
		{map[string]any{"kind": "thought", "text": "x", "refs": []any{""}}, "refs"},
		{map[string]any{"kind": "thought", "text": "x", "session_id": "someone-else"}, "session_id"},
		{map[string]any{"kind": "thought", "text": "x", "project_id": "no-such-project"}, "no-such-project"},
	} {
		if msg := refusedOrInvalid(t, c, "session.log_event", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("log_event %v = %q, want it to say %q", tc.args, msg, tc.want)
		}
	}
	n, err := twin.ReadSessionNarrative(context.Background(), store, pid, sid)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range n.Events {
		kinds = append(kinds, e.Kind)
	}
	if n.Status != "open" || !reflect.DeepEqual(kinds, []string{"thought", "action", "decision"}) || !reflect.DeepEqual(n.Events[1].Refs, []string{"CAD-BRACKET@1"}) {
		t.Fatalf("narrative = %+v", n)
	}

	end := c.call("session.complete", map[string]any{"status": "completed", "summary": "wall thickened to 3 mm"})
	if end["status"] != "completed" || end["events"] != float64(3) || end["kept_in"] != "twin" || end["session_id"] != sid {
		t.Fatalf("complete = %v", end)
	}
	if msg := c.refused("session.log_event", map[string]any{"kind": "observation", "text": "one more"}); !strings.Contains(msg, "has ended (completed") {
		t.Errorf("an event after the end = %q", msg)
	}
	if msg := c.refused("session.complete", map[string]any{"status": "failed", "summary": "again"}); !strings.Contains(msg, "cannot end again") {
		t.Errorf("a second ending = %q", msg)
	}
	if n, _ := twin.ReadSessionNarrative(context.Background(), store, pid, sid); n.Status != "completed" || len(n.Events) != 3 || n.End.Summary != "wall thickened to 3 mm" {
		t.Errorf("narrative after the end = %+v", n)
	}

	// Another connection is another session; with no project the twin has
	// nowhere to keep its narrative, and says so.
	other := client{t, s.ConnectHTTP(t, nil)}
	if msg := other.refused("session.log_event", map[string]any{"kind": "thought", "text": "hello"}); !strings.Contains(msg, "pass project_id, or pick one with session.start") {
		t.Errorf("a session with no project = %q", msg)
	}
	if got := other.call("session.log_event", map[string]any{"kind": "thought", "text": "hello", "project_id": pid}); got["session_id"] == sid {
		t.Errorf("a second connection logged into the first session: %v", got)
	}
}

// refusedOrInvalid calls a tool that must fail, by the schema (a protocol
// error) or the rules (isError), and returns what it said.
func refusedOrInvalid(t *testing.T, c client, tool string, args map[string]any) string {
	t.Helper()
	res, err := c.cs.CallTool(context.Background(), mcpCall(tool, args))
	switch {
	case err != nil:
		return err.Error()
	case res.IsError:
		return res.Content[0].(*mcp.TextContent).Text
	}
	t.Fatalf("%s %v: accepted, want a refusal", tool, args)
	return ""
}
