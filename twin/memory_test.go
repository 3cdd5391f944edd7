package twin_test

import (
	"testing"

	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/twin/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) twin.Store { return twin.NewMemoryStore() })
}

func TestRulesOnMemoryStore(t *testing.T) {
	runRules(t, func(t *testing.T) twin.Store { return twin.NewMemoryStore() })
}
