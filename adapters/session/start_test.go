package session_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/adapters/twin/twintest"
	"github.com/metaforge/metaforge/twin"
)

// direct calls the project and session tools as the worker does, each
// call numbered and in the session it names.
type direct struct {
	twintest.Direct
	n *int
}

func newDirect(t *testing.T) direct {
	mem := twin.NewMemoryStore()
	return direct{twintest.New(t, &twinadapter.Backend{Store: mem, Sessions: mem}), new(int)}
}

func (d direct) call(session, toolID string, args map[string]any) map[string]any {
	*d.n++
	return d.Call(adapters.CallInfo{CallID: fmt.Sprintf("%s-%d", toolID, *d.n), SessionID: session, Caller: "local", Client: "test"}, toolID, args)
}

// session.start binds the session to the project it names; a call with
// no session identity cannot be bound, and says to keep passing
// project_id.
func TestSessionStartBindsOnlyAnIdentifiedSession(t *testing.T) {
	d := newDirect(t)
	pid := d.call("", "project.create", map[string]any{"name": "Scoped"})["project_id"].(string)
	if got := d.call("s-9", "session.start", map[string]any{"project_id": pid}); got["project_scope_bound"] != true || got["name"] != "Scoped" {
		t.Fatalf("session.start = %v", got)
	}
	if got := d.call("s-9", "project.get", nil); got["project_id"] != pid {
		t.Errorf("project.get after session.start = %v", got)
	}
	unbound := d.call("", "session.start", map[string]any{"project_id": pid})
	if unbound["project_scope_bound"] != false || !strings.Contains(unbound["detail"].(string), "keep passing project_id") {
		t.Errorf("session.start with no session = %v", unbound)
	}
}
