package main

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/ledger/pgtest"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/twin"
)

// With a ledger configured, a session's narrative is kept on it, through
// the MCP server, as the runtime wires it: events before the session has
// a project too, one ending, and nothing after it; the twin holds none of
// it.
func TestSessionNarrativeOnTheLedger(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	l, err := ledger.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mem := twin.NewMemoryStore()
	be := &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs, Activity: projectSessions{ledger: l}, Narrative: sessionNarrative{ledger: l}}
	const sid = "stdio-narrative-test"
	s := mcptest.StartConfigured(t, func(o *mcpserver.Options) { o.SessionID = sid }, twinadapter.New(be)...)
	cs := s.Connect(t, nil)
	call := func(tool string, args map[string]any) (map[string]any, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			return nil, text
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			t.Fatal(err)
		}
		return out, ""
	}
	must := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		out, refusal := call(tool, args)
		if refusal != "" {
			t.Fatalf("%s refused: %s", tool, refusal)
		}
		return out
	}

	early := must("session.log_event", map[string]any{"kind": "thought", "text": "no project yet"})
	if early["kept_in"] != "ledger" || early["session_id"] != sid || early["project_id"] != "" {
		t.Fatalf("an event before any project = %v", early)
	}
	pid := must("project.create", map[string]any{"name": "Ledger narrative"})["project_id"].(string)
	must("session.log_event", map[string]any{"kind": "action", "text": "committed the bracket", "refs": []any{"CAD-BRACKET@1"}})
	must("session.log_event", map[string]any{"kind": "error", "text": "the mesh failed", "refs": []any{"call-0123"}})
	end := must("session.complete", map[string]any{"status": "failed", "summary": "meshing never converged"})
	if end["status"] != "failed" || end["events"] != float64(3) || end["kept_in"] != "ledger" {
		t.Fatalf("complete = %v", end)
	}
	if _, refusal := call("session.log_event", map[string]any{"kind": "observation", "text": "after the end"}); !strings.Contains(refusal, "has ended (failed") {
		t.Errorf("an event after the end = %q", refusal)
	}
	if _, refusal := call("session.complete", map[string]any{"status": "completed", "summary": "again"}); !strings.Contains(refusal, "cannot end again") {
		t.Errorf("a second ending = %q", refusal)
	}

	n, err := l.SessionNarrative(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	var kinds, projects []string
	for _, e := range n.Events {
		kinds, projects = append(kinds, e.Kind), append(projects, e.ProjectID)
	}
	if n.Status != "failed" || n.End.Summary != "meshing never converged" || !reflect.DeepEqual(kinds, []string{"thought", "action", "error"}) ||
		!reflect.DeepEqual(projects, []string{"", pid, pid}) || !reflect.DeepEqual(n.Events[2].Refs, []string{"call-0123"}) || n.Events[0].Actor != "agent:mcptest" {
		t.Errorf("the ledger's narrative = %+v", n)
	}
	if evs, _ := mem.NodesByType(ctx, pid, twin.SessionEventType); len(evs) != 0 {
		t.Errorf("the twin holds %d session events; with a ledger it keeps none", len(evs))
	}
}
