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
