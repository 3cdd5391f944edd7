// Package storetest is the behaviour every twin.Store must have. Each store
// runs it: the in-memory store in its own tests, the Neo4j store against a
// real Neo4j server.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// Run runs the suite. newStore returns an empty store for one test.
func Run(t *testing.T, newStore func(t *testing.T) twin.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s twin.Store)
	}{
		{"Projects", testProjects},
		{"ProjectNamesAreUniqueIgnoringCase", testProjectNamesUnique},
		{"CreateProjectIsIdempotent", testCreateProjectIdempotent},
		{"RevisionsOfOneItem", testRevisions},
		{"StaleRevisionWritesNothing", testStaleRevision},
		{"ItemKeysAndSupersedes", testItemKeys},
		{"CommitIsIdempotent", testCommitIdempotent},
		{"CommitRevisionsIsAllOrNothing", testCommitRevisions},
		{"IncomingEdgesAreWrittenWithTheRevision", testIncoming},
		{"RecordsAndLinks", testRecordsAndLinks},
		{"BadLinkWritesNothing", testBadLink},
		{"DeleteProjectRemovesItsNodes", testDeleteProject},
		{"SessionBindings", testSessionBindings},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

var ctx = context.Background()

func mustProject(t *testing.T, s twin.Store, name string) twin.Project {
	t.Helper()
	p, err := s.CreateProject(ctx, twin.Project{Name: name, Description: "about " + name}, "")
	if err != nil {
		t.Fatalf("create project %q: %v", name, err)
	}
	return p
}

func commit(t *testing.T, s twin.Store, w twin.RevisionWrite) (twin.Node, twin.Item) {
	t.Helper()
	n, it, err := s.CommitRevision(ctx, w)
	if err != nil {
		t.Fatalf("commit %+v: %v", w, err)
	}
	return n, it
}

func testProjects(t *testing.T, s twin.Store) {
	b := mustProject(t, s, "Bracket")
	a := mustProject(t, s, "arm")
	got, err := s.GetProject(ctx, b.ID)
	if err != nil || got.Name != "Bracket" || got.Description != "about Bracket" || got.CreatedAt.IsZero() {
		t.Fatalf("GetProject = %+v %v", got, err)
	}
	list, err := s.ListProjects(ctx)
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("ListProjects = %+v %v, want arm then Bracket", list, err)
	}
	name, desc := "Bracket Mk2", "revised"
	up, err := s.UpdateProject(ctx, b.ID, twin.ProjectUpdate{Name: &name, Description: &desc})
	if err != nil || up.Name != name || up.Description != desc || up.UpdatedAt.Before(up.CreatedAt) {
		t.Fatalf("UpdateProject = %+v %v", up, err)
	}
	if _, err := s.GetProject(ctx, "no-such-project"); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("GetProject(unknown) = %v, want ErrNotFound", err)
	}
	if _, err := s.UpdateProject(ctx, "no-such-project", twin.ProjectUpdate{Name: &name}); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("UpdateProject(unknown) = %v, want ErrNotFound", err)
	}
}

func testProjectNamesUnique(t *testing.T, s twin.Store) {
	p := mustProject(t, s, "Drone Frame")
	_, err := s.CreateProject(ctx, twin.Project{Name: "drone FRAME"}, "")
	if !errors.Is(err, twin.ErrDuplicateName) || !strings.Contains(err.Error(), p.ID) {
		t.Fatalf("duplicate create = %v, want ErrDuplicateName naming %s", err, p.ID)
	}
	other := mustProject(t, s, "Gimbal")
	clash := "DRONE frame"
	if _, err := s.UpdateProject(ctx, other.ID, twin.ProjectUpdate{Name: &clash}); !errors.Is(err, twin.ErrDuplicateName) {
		t.Fatalf("rename onto an existing name = %v, want ErrDuplicateName", err)
	}
	if list, _ := s.ListProjects(ctx); len(list) != 2 {
		t.Fatalf("refused writes changed the projects: %+v", list)
	}
	if _, err := s.CreateProject(ctx, twin.Project{Name: "  "}, ""); !errors.Is(err, twin.ErrInvalid) {
		t.Errorf("blank name = %v, want ErrInvalid", err)
	}
}

func testCreateProjectIdempotent(t *testing.T, s twin.Store) {
	a, err := s.CreateProject(ctx, twin.Project{Name: "Rover"}, "call-1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.CreateProject(ctx, twin.Project{Name: "Rover"}, "call-1")
	if err != nil || b.ID != a.ID {
		t.Fatalf("repeat of call-1 = %+v %v, want project %s again", b, err, a.ID)
	}
	if list, _ := s.ListProjects(ctx); len(list) != 1 {
		t.Fatalf("repeat wrote a second project: %+v", list)
	}
}

func testRevisions(t *testing.T, s twin.Store) {
	p := mustProject(t, s, "Bracket")
	n1, it1 := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Left Bracket", Author: "agent:test",
		Properties: map[string]any{"volume_mm3": 1200.5, "material": "6061-T6"}})
	if it1.Key != "CAD-LEFT-BRACKET" || n1.Revision != 1 || n1.ItemKey != it1.Key || n1.Ref() != "CAD-LEFT-BRACKET@1" || it1.HeadNodeID != n1.ID {
		t.Fatalf("first commit = %+v / %+v", n1, it1)
	}
	n2, it2 := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "left bracket", ChangeReason: "thicker web",
		Properties: map[string]any{"volume_mm3": 1500.0}})
	if it2.Key != it1.Key || n2.Revision != 2 || it2.HeadRevision != 2 || it2.HeadNodeID != n2.ID || n2.ChangeReason != "thicker web" {
		t.Fatalf("second commit of the same name = %+v / %+v, want revision 2 of %s", n2, it2, it1.Key)
	}
	got, err := s.GetNode(ctx, n1.ID)
	if err != nil || got.Properties["material"] != "6061-T6" || got.Properties["volume_mm3"] != 1200.5 || got.Author != "agent:test" {
		t.Fatalf("GetNode(rev 1) = %+v %v", got, err)
	}
	revs, err := s.Revisions(ctx, p.ID, it1.Key)
	if err != nil || len(revs) != 2 || revs[0].ID != n1.ID || revs[1].ID != n2.ID {
		t.Fatalf("Revisions = %+v %v", revs, err)
	}
	out, err := s.Neighbors(ctx, n2.ID, twin.Outgoing, twin.EdgeRevisionOf)
	if err != nil || len(out) != 1 || out[0].Node.ID != n1.ID || out[0].Edge.Properties["change_reason"] != "thicker web" {
		t.Fatalf("REVISION_OF from rev 2 = %+v %v", out, err)
	}
	in, err := s.Neighbors(ctx, n1.ID, twin.Incoming, twin.EdgeRevisionOf)
	if err != nil || len(in) != 1 || in[0].Node.ID != n2.ID {
		t.Fatalf("REVISION_OF into rev 1 = %+v %v", in, err)
	}
	item, err := s.ItemOfNode(ctx, n1.ID)
	if err != nil || item.Key != it1.Key || item.HeadRevision != 2 || item.Name != "left bracket" {
		t.Fatalf("ItemOfNode = %+v %v", item, err)
	}
	// Another type with the same name is another item.
	cs, csItem := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "constraint_set", Name: "Left Bracket"})
	if csItem.Key == it1.Key || cs.Revision != 1 {
		t.Fatalf("constraint set named like the part = %+v, want its own item", csItem)
	}
	items, err := s.Items(ctx, p.ID)
	if err != nil || len(items) != 2 {
		t.Fatalf("Items = %+v %v", items, err)
	}
}

func testStaleRevision(t *testing.T, s twin.Store) {
	p := mustProject(t, s, "Bracket")
	_, it := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Plate"})
	commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Plate", ItemKey: it.Key + "@1"})
	_, _, err := s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Plate", ItemKey: it.Key + "@1", IdempotencyKey: "stale"})
	if !errors.Is(err, twin.ErrStaleRevision) || !strings.Contains(err.Error(), it.Key+"@2") {
		t.Fatalf("stale @1 = %v, want ErrStaleRevision naming %s@2", err, it.Key)
	}
	revs, _ := s.Revisions(ctx, p.ID, it.Key)
	head, _ := s.GetItem(ctx, p.ID, it.Key)
	if len(revs) != 2 || head.HeadRevision != 2 {
		t.Fatalf("a stale write changed the item: %d revisions, head %d", len(revs), head.HeadRevision)
	}
	if _, _, err := s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Plate", ItemKey: "CAD-NOPE@1"}); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("unknown KEY@1 = %v, want ErrNotFound", err)
	}
	if _, _, err := s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Plate", ItemKey: it.Key + "@zero"}); !errors.Is(err, twin.ErrInvalid) {
		t.Errorf("malformed ref = %v, want ErrInvalid", err)
	}
	if _, _, err := s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: "no-such-project", ItemType: "cad_model", Name: "Plate"}); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("unknown project = %v, want ErrNotFound", err)
	}
	if items, _ := s.Items(ctx, p.ID); len(items) != 1 {
		t.Errorf("refused writes made items: %+v", items)
	}
}

func testItemKeys(t *testing.T, s twin.Store) {
	p := mustProject(t, s, "Table")
	n1, it := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Leg", ItemKey: "CAD-LEG"})
	if it.Key != "CAD-LEG" || n1.Revision != 1 {
		t.Fatalf("bare new key = %+v", it)
	}
	// A rename keeps the item when its key is given.
	n2, it2 := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Leg, front left", ItemKey: "CAD-LEG@1", ChangeReason: "renamed"})
	if it2.Key != "CAD-LEG" || n2.Revision != 2 || it2.Name != "Leg, front left" {
		t.Fatalf("rename by key = %+v", it2)
	}
	// supersedes names the item by one of its revisions.
	n3, it3 := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Leg FL", Supersedes: n1.ID})
	if it3.Key != "CAD-LEG" || n3.Revision != 3 {
		t.Fatalf("supersedes = %+v", it3)
	}
	if _, _, err := s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "constraint_set", Name: "x", ItemKey: "CAD-LEG"}); !errors.Is(err, twin.ErrInvalid) {
		t.Errorf("revising a cad_model as a constraint_set = %v, want ErrInvalid", err)
	}
	// Names that slug alike still get distinct keys.
	_, a := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Top plate"})
	_, b := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Top-plate!"})
	if a.Key == b.Key {
		t.Errorf("two items share key %s", a.Key)
	}
	ev, err := s.RecordNode(ctx, twin.RecordWrite{ProjectID: p.ID, Type: "evidence", Name: "fea"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ItemOfNode(ctx, ev.ID); !errors.Is(err, twin.ErrInvalid) {
		t.Errorf("ItemOfNode(record) = %v, want ErrInvalid", err)
	}
	if _, _, err := s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "x", Supersedes: ev.ID}); !errors.Is(err, twin.ErrInvalid) {
		t.Errorf("supersedes a record = %v, want ErrInvalid", err)
	}
}

func testCommitIdempotent(t *testing.T, s twin.Store) {
	p := mustProject(t, s, "Bracket")
	w := twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Gusset", IdempotencyKey: "c0ffee0000000001"}
	a, _ := commit(t, s, w)
	b, it := commit(t, s, w)
	if a.ID != b.ID || it.HeadRevision != 1 {
		t.Fatalf("a repeated write = %s (head %d), want %s and one revision", b.ID, it.HeadRevision, a.ID)
	}
	r := twin.RecordWrite{ProjectID: p.ID, Type: "evidence", Name: "hand calc", IdempotencyKey: "c0ffee0000000002"}
	e1, _ := s.RecordNode(ctx, r)
	e2, _ := s.RecordNode(ctx, r)
	if e1.ID != e2.ID {
		t.Fatalf("a repeated record = %s, want %s", e2.ID, e1.ID)
	}
	if ev, _ := s.NodesByType(ctx, p.ID, "evidence"); len(ev) != 1 {
		t.Fatalf("%d evidence nodes, want 1", len(ev))
	}
	// A key that wrote a record cannot be replayed as a revision.
	if _, _, err := s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "x", IdempotencyKey: r.IdempotencyKey}); !errors.Is(err, twin.ErrInvalid) {
		t.Errorf("a record's key reused for a revision = %v, want ErrInvalid", err)
	}
	// Deleting a project frees its keys: a repeat finds no project.
	if err := s.DeleteProject(ctx, p.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CommitRevision(ctx, w); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("a repeat after the project was deleted = %v, want ErrNotFound", err)
	}
	if _, err := s.RecordNode(ctx, r); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("a repeated record after the project was deleted = %v, want ErrNotFound", err)
	}
}

func testRecordsAndLinks(t *testing.T, s twin.Store) {
	p := mustProject(t, s, "Bracket")
	part, _ := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Bracket"})
	req, _ := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "constraint_set", Name: "Bracket requirements"})
	ev, err := s.RecordNode(ctx, twin.RecordWrite{ProjectID: p.ID, Type: "evidence", Name: "FEA deflection",
		Properties: map[string]any{"value": 0.42, "unit": "mm"},
		Links: []twin.Link{
			{Type: twin.EdgeValidAgainst, To: part.ID, Properties: map[string]any{"ref": part.Ref()}},
			{Type: twin.EdgeVerifies, To: req.ID},
		}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Neighbors(ctx, ev.ID, twin.Outgoing)
	if err != nil || len(out) != 2 || out[0].Edge.Type != twin.EdgeValidAgainst || out[0].Node.ID != part.ID ||
		out[0].Edge.Properties["ref"] != part.Ref() || out[1].Edge.Type != twin.EdgeVerifies {
		t.Fatalf("outgoing from evidence = %+v %v", out, err)
	}
	in, err := s.Neighbors(ctx, req.ID, twin.Incoming, twin.EdgeVerifies)
	if err != nil || len(in) != 1 || in[0].Node.ID != ev.ID || in[0].Node.Properties["unit"] != "mm" {
		t.Fatalf("what verifies the requirement = %+v %v", in, err)
	}
	if none, err := s.Neighbors(ctx, req.ID, twin.Outgoing, twin.EdgeVerifies); err != nil || len(none) != 0 {
		t.Fatalf("outgoing VERIFIES from the requirement = %+v %v, want none", none, err)
	}
	both, _ := s.Neighbors(ctx, part.ID, twin.Both)
	if len(both) != 1 || both[0].Node.ID != ev.ID {
		t.Fatalf("both ways from the part = %+v", both)
	}
	if _, err := s.Neighbors(ctx, "n-missing", twin.Both); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("Neighbors(unknown) = %v, want ErrNotFound", err)
	}
}

func testBadLink(t *testing.T, s twin.Store) {
	p := mustProject(t, s, "Bracket")
	other := mustProject(t, s, "Other")
	foreign, _ := commit(t, s, twin.RevisionWrite{ProjectID: other.ID, ItemType: "cad_model", Name: "Elsewhere"})
	for _, to := range []string{"n-missing", foreign.ID} {
		_, err := s.RecordNode(ctx, twin.RecordWrite{ProjectID: p.ID, Type: "evidence", Name: "x", Links: []twin.Link{{Type: twin.EdgeVerifies, To: to}}})
		if !errors.Is(err, twin.ErrNotFound) {
			t.Errorf("link to %s = %v, want ErrNotFound", to, err)
		}
		_, _, err = s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "decision", Name: "y", Links: []twin.Link{{Type: twin.EdgeDependsOn, To: to}}})
		if !errors.Is(err, twin.ErrNotFound) {
			t.Errorf("revision linking %s = %v, want ErrNotFound", to, err)
		}
	}
	if ev, _ := s.NodesByType(ctx, p.ID, "evidence"); len(ev) != 0 {
		t.Errorf("refused records were written: %+v", ev)
	}
	if items, _ := s.Items(ctx, p.ID); len(items) != 0 {
		t.Errorf("refused revisions were written: %+v", items)
	}
}

func testDeleteProject(t *testing.T, s twin.Store) {
	p := mustProject(t, s, "Doomed")
	keep := mustProject(t, s, "Kept")
	n, _ := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Part"})
	k, _ := commit(t, s, twin.RevisionWrite{ProjectID: keep.ID, ItemType: "cad_model", Name: "Part"})
	if err := s.DeleteProject(ctx, p.ID, "delete-call"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteProject(ctx, p.ID, "delete-call"); err != nil {
		t.Errorf("a retried delete = %v, want success: the first attempt deleted it", err)
	}
	if _, err := s.GetNode(ctx, n.ID); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("a deleted project's node = %v, want ErrNotFound", err)
	}
	if _, err := s.GetNode(ctx, k.ID); err != nil {
		t.Errorf("another project's node went too: %v", err)
	}
	if err := s.DeleteProject(ctx, p.ID, "another-call"); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("deleting again in another call = %v, want ErrNotFound", err)
	}
	if _, err := s.CreateProject(ctx, twin.Project{Name: "doomed"}, ""); err != nil {
		t.Errorf("the name of a deleted project is free again: %v", err)
	}
}

func testSessionBindings(t *testing.T, s twin.Store) {
	sb, ok := s.(twin.SessionBindings)
	if !ok {
		t.Fatalf("%T does not bind sessions to projects", s)
	}
	a := mustProject(t, s, "Alpha")
	b := mustProject(t, s, "Beta")
	if _, err := sb.SessionProject(ctx, "s-1"); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("an unbound session = %v, want ErrNotFound", err)
	}
	if err := sb.BindSession(ctx, "s-1", a.ID); err != nil {
		t.Fatal(err)
	}
	if err := sb.BindSession(ctx, "s-2", b.ID); err != nil {
		t.Fatal(err)
	}
	if err := sb.BindSession(ctx, "s-1", b.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := sb.SessionProject(ctx, "s-1"); err != nil || got != b.ID {
		t.Errorf("s-1 after rebinding = %s %v, want %s", got, err, b.ID)
	}
	if err := sb.BindSession(ctx, "s-3", "no-such-project"); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("binding to an unknown project = %v, want ErrNotFound", err)
	}
	if err := s.DeleteProject(ctx, b.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := sb.SessionProject(ctx, "s-2"); !errors.Is(err, twin.ErrNotFound) || !strings.Contains(err.Error(), "gone") {
		t.Errorf("a session whose project was deleted = %v, want ErrNotFound saying it is gone", err)
	}
}

// snapshot is every item's head and every revision of a project, node by
// node, to show a refused batch changed nothing.
func snapshot(t *testing.T, s twin.Store, projectID string) map[string]string {
	t.Helper()
	items, err := s.Items(ctx, projectID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, it := range items {
		out["head "+it.Key] = it.HeadRef() + " " + it.HeadNodeID + " " + it.Name
		revs, err := s.Revisions(ctx, projectID, it.Key)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range revs {
			nbs, err := s.Neighbors(ctx, n.ID, twin.Both)
			if err != nil {
				t.Fatal(err)
			}
			out["node "+n.ID] = fmt.Sprintf("%s %s %v edges=%d", n.Ref(), n.Name, n.Properties, len(nbs))
		}
	}
	return out
}

func testCommitRevisions(t *testing.T, s twin.Store) {
	p := mustProject(t, s, "Bracket")
	brk, _ := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Bracket", ItemKey: "BRK",
		Properties: map[string]any{"wall_thickness_mm": 2.0}})
	pin, _ := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Pin", ItemKey: "PIN"})
	ws := []twin.RevisionWrite{
		{ProjectID: p.ID, ItemType: "cad_model", Name: "Bracket", ItemKey: "BRK@1", ChangeReason: "ECO-1: thicker wall",
			Properties: map[string]any{"wall_thickness_mm": 3.0}, Links: []twin.Link{{Type: twin.EdgeUses, To: pin.ID}}, IdempotencyKey: "eco-1/BRK@1"},
		{ProjectID: p.ID, ItemType: "cad_model", Name: "Pin, hardened", ItemKey: "PIN@1", ChangeReason: "ECO-1: harder pin",
			IdempotencyKey: "eco-1/PIN@1"},
	}
	out, err := s.CommitRevisions(ctx, ws)
	if err != nil || len(out) != 2 || out[0].Ref() != "BRK@2" || out[1].Ref() != "PIN@2" || out[0].ChangeReason != "ECO-1: thicker wall" ||
		out[0].Properties["wall_thickness_mm"] != 3.0 || out[1].Name != "Pin, hardened" {
		t.Fatalf("CommitRevisions = %+v %v, want BRK@2 and PIN@2", out, err)
	}
	for i, key := range []string{"BRK", "PIN"} {
		it, err := s.GetItem(ctx, p.ID, key)
		if err != nil || it.HeadRevision != 2 || it.HeadNodeID != out[i].ID {
			t.Fatalf("item %s after the batch = %+v %v, want head %s", key, it, err, out[i].ID)
		}
	}
	if nbs, _ := s.Neighbors(ctx, out[0].ID, twin.Outgoing); len(nbs) != 2 || nbs[0].Edge.Type != twin.EdgeRevisionOf ||
		nbs[0].Node.ID != brk.ID || nbs[1].Edge.Type != twin.EdgeUses || nbs[1].Node.ID != pin.ID {
		t.Fatalf("BRK@2's edges = %+v, want REVISION_OF BRK@1 and USES PIN@1", nbs)
	}

	// A repeat returns the first batch and writes nothing, though the
	// heads it asserts have moved (to what it wrote).
	before := snapshot(t, s, p.ID)
	again, err := s.CommitRevisions(ctx, ws)
	if err != nil || len(again) != 2 || again[0].ID != out[0].ID || again[1].ID != out[1].ID {
		t.Fatalf("repeated batch = %+v %v, want %s and %s again", again, err, out[0].ID, out[1].ID)
	}
	if after := snapshot(t, s, p.ID); !reflect.DeepEqual(after, before) {
		t.Fatalf("a repeated batch wrote:\nbefore %v\nafter  %v", before, after)
	}

	// One moved head aborts the whole batch: BRK@2 is the head, PIN@1 is
	// not.
	moved := []twin.RevisionWrite{
		{ProjectID: p.ID, ItemType: "cad_model", Name: "Bracket", ItemKey: "BRK@2", Properties: map[string]any{"wall_thickness_mm": 4.0},
			IdempotencyKey: "eco-2/BRK@2"},
		{ProjectID: p.ID, ItemType: "cad_model", Name: "Pin", ItemKey: "PIN@1", IdempotencyKey: "eco-2/PIN@1"},
	}
	_, err = s.CommitRevisions(ctx, moved)
	if !errors.Is(err, twin.ErrStaleRevision) || !strings.Contains(err.Error(), "PIN@1") || !strings.Contains(err.Error(), "PIN@2") {
		t.Fatalf("batch with a moved head = %v, want ErrStaleRevision naming PIN@1 and its head PIN@2", err)
	}
	if after := snapshot(t, s, p.ID); !reflect.DeepEqual(after, before) {
		t.Fatalf("a refused batch wrote:\nbefore %v\nafter  %v", before, after)
	}
	// Its keys made nothing, so it is not a repeat when retried fixed.
	moved[1].ItemKey = "PIN@2"
	if out, err := s.CommitRevisions(ctx, moved); err != nil || out[0].Ref() != "BRK@3" || out[1].Ref() != "PIN@3" {
		t.Fatalf("the batch on the current heads = %+v %v, want BRK@3 and PIN@3", out, err)
	}

	// Batches a store cannot apply as one.
	if _, err := s.CommitRevisions(ctx, nil); !errors.Is(err, twin.ErrInvalid) {
		t.Errorf("empty batch = %v, want ErrInvalid", err)
	}
	twice := []twin.RevisionWrite{
		{ProjectID: p.ID, ItemType: "cad_model", Name: "Bracket", ItemKey: "BRK@3"},
		{ProjectID: p.ID, ItemType: "cad_model", Name: "Bracket", ItemKey: "BRK@3"},
	}
	if _, err := s.CommitRevisions(ctx, twice); !errors.Is(err, twin.ErrInvalid) || !strings.Contains(err.Error(), "BRK") {
		t.Errorf("two writes to one item = %v, want ErrInvalid naming BRK", err)
	}
	badLink := []twin.RevisionWrite{
		{ProjectID: p.ID, ItemType: "cad_model", Name: "Bracket", ItemKey: "BRK@3"},
		{ProjectID: p.ID, ItemType: "cad_model", Name: "Pin", ItemKey: "PIN@3", Links: []twin.Link{{Type: twin.EdgeUses, To: "n-nosuchnode"}}},
	}
	before = snapshot(t, s, p.ID)
	if _, err := s.CommitRevisions(ctx, badLink); !errors.Is(err, twin.ErrNotFound) {
		t.Errorf("a bad link in the second write = %v, want ErrNotFound", err)
	}
	if after := snapshot(t, s, p.ID); !reflect.DeepEqual(after, before) {
		t.Fatalf("a batch with a bad link wrote:\nbefore %v\nafter  %v", before, after)
	}
}

// testIncoming: a revision's incoming edges (a parent's CONTAINS of a new
// child) are made in its own write: with it, never without it, once.
func testIncoming(t *testing.T, s twin.Store) {
	p := mustProject(t, s, "Arm")
	arm, _ := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "hierarchy_node", Name: "Arm"})
	base, _ := commit(t, s, twin.RevisionWrite{ProjectID: p.ID, ItemType: "hierarchy_node", Name: "Base"})
	contains := func(parent twin.Node, qty int) twin.Link {
		return twin.Link{Type: twin.EdgeContains, To: parent.ID, Properties: map[string]any{"quantity": qty}}
	}
	w := twin.RevisionWrite{ProjectID: p.ID, ItemType: "hierarchy_node", Name: "Wrist", IdempotencyKey: "wrist-1",
		Links: []twin.Link{{Type: twin.EdgeDependsOn, To: base.ID}}, Incoming: []twin.Link{contains(arm, 2)}}
	wrist, _ := commit(t, s, w)
	in, err := s.Neighbors(ctx, wrist.ID, twin.Incoming, twin.EdgeContains)
	if err != nil || len(in) != 1 || in[0].Node.ID != arm.ID || in[0].Edge.From != arm.ID || in[0].Edge.To != wrist.ID ||
		fmt.Sprint(in[0].Edge.Properties["quantity"]) != "2" {
		t.Fatalf("CONTAINS into the wrist = %+v %v, want one from the arm with quantity 2", in, err)
	}
	out, err := s.Neighbors(ctx, arm.ID, twin.Outgoing, twin.EdgeContains)
	if err != nil || len(out) != 1 || out[0].Node.ID != wrist.ID {
		t.Fatalf("what the arm contains = %+v %v, want the wrist", out, err)
	}
	if dep, _ := s.Neighbors(ctx, wrist.ID, twin.Outgoing, twin.EdgeDependsOn); len(dep) != 1 || dep[0].Node.ID != base.ID {
		t.Fatalf("the wrist's own links = %+v, want DEPENDS_ON the base", dep)
	}

	// A repeat writes nothing: still one edge.
	again, _ := commit(t, s, w)
	if again.ID != wrist.ID {
		t.Fatalf("a repeated write = %s, want %s", again.ID, wrist.ID)
	}
	if out, _ := s.Neighbors(ctx, arm.ID, twin.Outgoing, twin.EdgeContains); len(out) != 1 {
		t.Fatalf("a repeated write added edges: %+v", out)
	}

	// An unknown or foreign source writes nothing, in either write.
	other := mustProject(t, s, "Other")
	foreign, _ := commit(t, s, twin.RevisionWrite{ProjectID: other.ID, ItemType: "hierarchy_node", Name: "Elsewhere"})
	before := snapshot(t, s, p.ID)
	for _, from := range []string{"n-missing", foreign.ID} {
		bad := twin.RevisionWrite{ProjectID: p.ID, ItemType: "hierarchy_node", Name: "Hand",
			Incoming: []twin.Link{contains(arm, 1), {Type: twin.EdgeContains, To: from}}}
		if _, _, err := s.CommitRevision(ctx, bad); !errors.Is(err, twin.ErrNotFound) || !strings.Contains(err.Error(), from) {
			t.Errorf("CommitRevision with an edge from %s = %v, want ErrNotFound naming it", from, err)
		}
		batch := []twin.RevisionWrite{{ProjectID: p.ID, ItemType: "hierarchy_node", Name: "Base", ItemKey: "HN-BASE@1"}, bad}
		if _, err := s.CommitRevisions(ctx, batch); !errors.Is(err, twin.ErrNotFound) || !strings.Contains(err.Error(), from) {
			t.Errorf("CommitRevisions with an edge from %s = %v, want ErrNotFound naming it", from, err)
		}
	}
	if after := snapshot(t, s, p.ID); !reflect.DeepEqual(after, before) {
		t.Fatalf("refused writes wrote:\nbefore %v\nafter  %v", before, after)
	}

	// In a batch, each write's incoming edges land with it.
	out2, err := s.CommitRevisions(ctx, []twin.RevisionWrite{
		{ProjectID: p.ID, ItemType: "hierarchy_node", Name: "Hand", Incoming: []twin.Link{contains(wrist, 1)}},
		{ProjectID: p.ID, ItemType: "hierarchy_node", Name: "Base", ItemKey: "HN-BASE@1", Incoming: []twin.Link{contains(arm, 4)}},
	})
	if err != nil || len(out2) != 2 {
		t.Fatalf("batch with incoming edges = %+v %v", out2, err)
	}
	if in, _ := s.Neighbors(ctx, out2[0].ID, twin.Incoming, twin.EdgeContains); len(in) != 1 || in[0].Node.ID != wrist.ID {
		t.Errorf("CONTAINS into the hand = %+v, want one from the wrist", in)
	}
	if in, _ := s.Neighbors(ctx, out2[1].ID, twin.Incoming, twin.EdgeContains); len(in) != 1 || in[0].Node.ID != arm.ID ||
		fmt.Sprint(in[0].Edge.Properties["quantity"]) != "4" {
		t.Errorf("CONTAINS into the base's revision 2 = %+v, want one from the arm with quantity 4", in)
	}
}
