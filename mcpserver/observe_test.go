package mcpserver_test

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/protocol"
)

// callLog keeps every call event it hears, in order.
type callLog struct {
	mu     sync.Mutex
	events []mcpserver.CallEvent
}

func (l *callLog) CallEnded(_ context.Context, e mcpserver.CallEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *callLog) taken() []mcpserver.CallEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.events
	l.events = nil
	return out
}

// The call observer hears each tools/call once, whichever step answered
// it: the profile's refusal, the unknown-tool refusal, the handler's
// refusal of its arguments, or the workflow. A refusal before the handler
// reads no project from the arguments; a connection refused whole records
// nothing but its health.check.
func TestObserverHearsEachRefusalOnce(t *testing.T) {
	st := theProfileStack(t)
	log := &callLog{}
	endpoint := serveHTTP(t, st, "", log)
	ctx := context.Background()

	core := connectTo(t, endpoint+"?profile=core")
	for _, name := range []string{"kicad.run_drc", "made.up_tool", "health.check"} {
		_, _ = core.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"project_id": "p-1"}})
	}
	_, _ = core.CallTool(ctx, &mcp.CallToolParams{Name: "health.check", Arguments: map[string]any{}})
	got := log.taken()
	if len(got) != 4 {
		t.Fatalf("%d events for 4 calls: %+v", len(got), got)
	}
	want := []struct {
		tool      string
		known     bool
		status    string
		code      protocol.Code
		errorType string
	}{
		{"kicad.run_drc", true, "error", protocol.InvalidParams, protocol.InvalidParams.Name()},
		{"made.up_tool", false, "error", protocol.InvalidParams, "TOOL_NOT_FOUND"},
		{"health.check", true, "error", protocol.InvalidParams, protocol.InvalidParams.Name()},
		{"health.check", true, "success", 0, ""},
	}
	for i, w := range want {
		e := got[i]
		if e.ToolID != w.tool || e.Known != w.known || e.Status != w.status || e.ErrorCode != w.code || e.ErrorType != w.errorType {
			t.Errorf("event %d = %s known=%v %s %d %q, want %+v", i, e.ToolID, e.Known, e.Status, e.ErrorCode, e.ErrorType, w)
		}
		if e.ClientName != "profiles-test" || e.Caller != mcpserver.CallerLocal || e.SessionID == "" {
			t.Errorf("event %d party: client %q caller %q session %q", i, e.ClientName, e.Caller, e.SessionID)
		}
	}
	if got[0].ProjectID != "" || got[1].ProjectID != "" {
		t.Errorf("a call refused before its handler names project %q / %q, want none", got[0].ProjectID, got[1].ProjectID)
	}
	if got[2].ProjectID != "p-1" {
		t.Errorf("the handler's refusal of its arguments names project %q, want p-1 from them", got[2].ProjectID)
	}
	if got[3].CallID == "" {
		t.Error("the call that ran has no callId in its event")
	}

	refused := connectTo(t, endpoint+"?profile=mech")
	_, _ = refused.CallTool(ctx, &mcp.CallToolParams{Name: "project.list", Arguments: map[string]any{}})
	_, _ = refused.CallTool(ctx, &mcp.CallToolParams{Name: "health.check", Arguments: map[string]any{}})
	if got := log.taken(); len(got) != 1 || got[0].ToolID != "health.check" {
		t.Errorf("on a refused connection the observer heard %+v, want health.check alone", got)
	}
}
