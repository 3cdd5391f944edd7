package worker_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/twin/neo4jtest"
)

// crashTwin is the twin a crash test records its project in before the
// worker it kills works on it: the end-to-end Neo4j server, which outlives
// that worker (shared, so each test writes only into a project of its own
// and nothing is wiped), and its tools called directly as a local caller.
type crashTwin struct {
	t                   *testing.T
	ctx                 context.Context
	store               *twin.Neo4jStore
	backend             *twinadapter.Backend
	tools               *adapters.Registry
	uri, user, password string
}

func newCrashTwin(t *testing.T, ctx context.Context) *crashTwin {
	t.Helper()
	uri, user, password := neo4jtest.URI(t, neo4jtest.PortE2E)
	store, err := twin.OpenNeo4j(ctx, uri, user, password)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close(context.Background()) })
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	backend := &twinadapter.Backend{Store: store, Sessions: store, Blobs: blobs}
	tools := adapters.NewRegistry()
	for _, a := range twinadapter.New(backend) {
		if err := tools.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	return &crashTwin{t: t, ctx: ctx, store: store, backend: backend, tools: tools, uri: uri, user: user, password: password}
}

// call runs one twin tool and returns its data, failing the test on error.
func (c *crashTwin) call(tool string, args map[string]any) map[string]any {
	c.t.Helper()
	raw, _ := json.Marshal(args)
	if err := c.tools.ValidateArguments(tool, raw); err != nil {
		c.t.Fatal(err)
	}
	_, a, ok := c.tools.Tool(tool)
	if !ok {
		c.t.Fatalf("no tool %s", tool)
	}
	res, err := a.Call(adapters.WithCallInfo(c.ctx, adapters.CallInfo{CallID: randomHex(c.t), Caller: "local"}), tool, raw)
	if err != nil {
		c.t.Fatalf("%s: %v", tool, err)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Data, &out); err != nil {
		c.t.Fatalf("%s: %v", tool, err)
	}
	return out
}
