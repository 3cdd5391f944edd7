package adapters_test

import (
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
)

// twiceAdapter declares one tool twice, as a tool list assembled from
// areas can by a slip.
type twiceAdapter struct{ briefAdapter }

func (twiceAdapter) Manifests() []adapters.Manifest {
	m := briefAdapter{}.Manifests()
	return append(m, m[0])
}

// A tool declared twice, by one adapter or by two, is refused: the second
// would silently stand in for the first.
func TestRegisterRefusesAToolTwice(t *testing.T) {
	r := adapters.NewRegistry()
	if err := r.Register(twiceAdapter{}); err == nil || !strings.Contains(err.Error(), `tool "brief.read" is registered twice`) {
		t.Errorf("one adapter declaring brief.read twice = %v", err)
	}
	if err := r.Register(briefAdapter{}); err != nil {
		t.Fatalf("the adapter once = %v", err)
	}
	if _, _, ok := r.Tool("brief.read"); !ok {
		t.Error("brief.read is not registered")
	}
}

// A tool the build does not serve is recorded with its reason, and never
// one that is served or one without a reason.
func TestUnservedToolsHaveAReasonAndAreNotServed(t *testing.T) {
	r := adapters.NewRegistry()
	if err := r.Register(briefAdapter{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Unserve(adapters.UnservedTool{ToolID: "brief.read", Reason: "x"}); err == nil || !strings.Contains(err.Error(), "is registered") {
		t.Errorf("unserving a registered tool = %v", err)
	}
	if err := r.Unserve(adapters.UnservedTool{ToolID: "sim.run", Reason: " "}); err == nil || !strings.Contains(err.Error(), "no reason") {
		t.Errorf("unserving without a reason = %v", err)
	}
	if err := r.Unserve(adapters.UnservedTool{ToolID: "sim.run", Reason: "no simulator here"}, adapters.UnservedTool{ToolID: "a.b", Reason: "no GPU"}); err != nil {
		t.Fatal(err)
	}
	if why, ok := r.UnservedReason("sim.run"); !ok || why != "no simulator here" {
		t.Errorf("UnservedReason(sim.run) = %q, %v", why, ok)
	}
	if _, ok := r.UnservedReason("brief.read"); ok {
		t.Error("brief.read, served, reads as unserved")
	}
	if got := r.Unserved(); len(got) != 2 || got[0].ToolID != "a.b" || got[1].ToolID != "sim.run" {
		t.Errorf("Unserved() = %+v, want a.b and sim.run by id", got)
	}
}
