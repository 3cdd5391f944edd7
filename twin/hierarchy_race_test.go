package twin_test

import (
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// A child added to a parent's head while the parent is being revised lands
// on the revision that was head when it was written; the tree still holds
// it. The race is played out in order: the parent is revised, then the
// child's write (made against revision 1) commits.
func testHierarchyKeepsALateChild(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Late child")
	frame := g.position(twin.HierarchyNodeWrite{Name: "Frame", Level: "assembly"})
	g.position(twin.HierarchyNodeWrite{Name: "Rail", Level: "part", Parent: frame.Item.Key, Quantity: ptr(2)})
	revised := g.position(twin.HierarchyNodeWrite{Name: "Frame", Description: "welded, not bolted"})
	if revised.Node.Revision != 2 {
		t.Fatalf("the frame's revision = %d, want 2", revised.Node.Revision)
	}
	// What RecordHierarchyNode writes for a child, against revision 1.
	if _, _, err := s.CommitRevision(bg, twin.RevisionWrite{ProjectID: g.p.ID, ItemType: twin.HierarchyNodeType, Name: "Bracket",
		Properties: map[string]any{"level": "part", "parent_key": frame.Item.Key},
		Incoming:   []twin.Link{{Type: twin.EdgeContains, To: frame.Node.ID, Properties: map[string]any{"quantity": 3}}}}); err != nil {
		t.Fatal(err)
	}
	r := g.rollup(frame.Item.Key)
	got := map[string]int{}
	for _, c := range r.Root.Children {
		got[c.Name] = c.Quantity
	}
	if len(got) != 2 || got["Rail"] != 2 || got["Bracket"] != 3 {
		t.Fatalf("the frame's children = %v, want Rail x2 and Bracket x3", got)
	}
}
