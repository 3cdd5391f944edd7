package project_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/adapters/twin/twintest"
	"github.com/metaforge/metaforge/twin"
)

// direct calls the project, session and twin tools as the worker does,
// each call numbered and in the session it names.
type direct struct {
	twintest.Direct
	n *int
}

func newDirect(t *testing.T) direct {
	mem := twin.NewMemoryStore()
	return direct{twintest.New(t, &twinadapter.Backend{Store: mem, Sessions: mem}), new(int)}
}

func (d direct) info(session, toolID string) adapters.CallInfo {
	*d.n++
	return adapters.CallInfo{CallID: fmt.Sprintf("%s-%d", toolID, *d.n), SessionID: session, Caller: "local", Client: "test"}
}

func (d direct) call(session, toolID string, args map[string]any) map[string]any {
	return d.Call(d.info(session, toolID), toolID, args)
}

func (d direct) refusal(session, toolID string, args map[string]any) string {
	return d.Refusal(d.info(session, toolID), toolID, args)
}

// project.open takes an id, a name or a unique part of one; several
// matches is a refusal naming them, never a guess, and names are unique
// ignoring case.
func TestOpenNamesTheMatchesAndNeverGuesses(t *testing.T) {
	d := newDirect(t)
	a := d.call("s-1", "project.create", map[string]any{"name": "Arm A"})
	d.call("s-1", "project.create", map[string]any{"name": "Arm B"})

	if msg := d.refusal("s-1", "project.open", map[string]any{"ref": "arm"}); !strings.Contains(msg, `"arm" matches 2 projects: Arm A (`) || !strings.Contains(msg, "be more specific or use the id") {
		t.Errorf("ambiguous open = %q", msg)
	}
	if msg := d.refusal("s-1", "project.create", map[string]any{"name": "ARM a"}); !strings.Contains(msg, "already has that name") {
		t.Errorf("duplicate name = %q", msg)
	}
	opened := d.call("s-2", "project.open", map[string]any{"ref": "arm a"})
	brief, _ := opened["brief"].(map[string]any)
	if opened["project_scope_bound"] != true || brief["project_id"] != a["project_id"] || brief["summary"] != "nothing is recorded in this project yet" {
		t.Fatalf("project.open = %v", opened)
	}
	// The session's project is what a call that names none gets.
	if got := d.call("s-2", "project.get", nil); got["project_id"] != a["project_id"] {
		t.Errorf("project.get in the opened session = %v, want %v", got, a["project_id"])
	}
	if msg := d.refusal("", "project.get", nil); !strings.Contains(msg, "pass project_id, or pick one for this session with project.open or session.start") {
		t.Errorf("project.get with no session = %q", msg)
	}
	if msg := d.refusal("s-2", "project.update", map[string]any{}); msg != "nothing to update: pass name or description" {
		t.Errorf("empty update = %q", msg)
	}
}
