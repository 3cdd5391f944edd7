package main

import (
	"context"
	"encoding/json"
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

// project.open's brief lists who has worked in the project, from the
// ledger; a ledger that cannot be read says so and the open still works.
func TestProjectBriefListsTheLedgersSessions(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
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
	be := &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs, Activity: projectSessions{ledger: l}}
	s := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.Observers = []mcpserver.CallObserver{ledger.Recorder{Ledger: l}}
		o.SessionID = "stdio-brief-test"
	}, twinadapter.New(be)...)
	cs := s.Connect(t, nil)
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", tool, err, res)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}

	created := call("project.create", map[string]any{"name": "Ledger Bracket"})
	project, _ := created["project_id"].(string)
	opened := call("project.open", map[string]any{"ref": project})["brief"].(map[string]any)
	sessions, _ := opened["sessions"].([]any)
	if len(sessions) != 1 {
		t.Fatalf("brief sessions = %v, want the one session that created the project", opened["sessions"])
	}
	first := sessions[0].(map[string]any)
	if first["session_id"] != "stdio-brief-test" || first["agent_code"] != "mcptest" || first["actions"].(float64) < 1 {
		t.Errorf("brief session %v, want stdio-brief-test by mcptest with its actions", first)
	}

	l.Close() // the ledger goes away: the brief says so, the open works
	again := call("project.open", map[string]any{"ref": project})["brief"].(map[string]any)
	if _, listed := again["sessions"]; listed || !strings.Contains(again["sessions_unavailable"].(string), "ledger") {
		t.Errorf("brief without a readable ledger = %v, want sessions_unavailable and no sessions", again)
	}
}
