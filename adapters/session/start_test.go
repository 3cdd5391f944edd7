package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/twin"
)

// direct calls the project and session tools as the worker does, with
// the call's info (its session) in the context.
type direct struct {
	t  *testing.T
	by map[string]adapters.Adapter // adapter id -> adapter
	n  *int
}

func newDirect(t *testing.T) direct {
	mem := twin.NewMemoryStore()
	d := direct{t: t, by: map[string]adapters.Adapter{}, n: new(int)}
	for _, a := range twinadapter.New(&twinadapter.Backend{Store: mem, Sessions: mem}) {
		d.by[a.ID()] = a
	}
	return d
}

func (d direct) call(session, toolID string, args map[string]any) map[string]any {
	d.t.Helper()
	*d.n++
	raw, _ := json.Marshal(args)
	family, _, _ := strings.Cut(toolID, ".")
	ci := adapters.CallInfo{CallID: fmt.Sprintf("%s-%d", toolID, *d.n), SessionID: session, Caller: "local", Client: "test"}
	res, err := d.by[family].Call(adapters.WithCallInfo(context.Background(), ci), toolID, raw)
	if err != nil {
		d.t.Fatalf("%s: %v", toolID, err)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Data, &out); err != nil {
		d.t.Fatal(err)
	}
	return out
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
