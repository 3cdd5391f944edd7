package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/twin/neo4jtest"
)

// BenchmarkTwin measures twin writes and reads through the durable path,
// with the twin on a real Neo4j 5 server (deploy/start-neo4j.sh, its own
// port): twin.commit_geometry (a revision, a blob, one write transaction)
// and twin.get_node (a node and its neighbours), one call at a time.
func BenchmarkTwin(b *testing.B) {
	uri, user, password := neo4jtest.URI(b, neo4jtest.PortBench)
	neo4jtest.Wipe(b, uri, user, password)
	store, err := twin.OpenNeo4j(context.Background(), uri, user, password)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = store.Close(context.Background()) })
	blobs, err := twin.NewBlobStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	s := mcptest.Start(b, twinadapter.New(&twinadapter.Backend{Store: store, Sessions: store, Blobs: blobs, Cypher: store})...)
	cs := s.ConnectHTTP(b, nil)
	ctx := context.Background()
	call := func(name string, args map[string]any) (map[string]any, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return nil, err
		}
		if res.IsError {
			return nil, fmt.Errorf("%s: %v", name, res.Content[0].(*mcp.TextContent).Text)
		}
		var out map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		return out, json.Unmarshal(raw, &out)
	}
	if _, err := call("project.create", map[string]any{"name": "Bench " + time.Now().Format(time.RFC3339Nano)}); err != nil {
		b.Fatal(err)
	}
	stepFile := func(i int) string {
		return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("ISO-10303-21;\nHEADER;\nFILE_NAME('rev %d');\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n", i)))
	}
	var lastNode string
	var lastRevision float64
	for i := range warmupCalls { // warm Temporal and Neo4j's query caches
		out, err := call("twin.commit_geometry", map[string]any{"name": "Warm-up part", "step_base64": stepFile(i)})
		if err != nil {
			b.Fatal(err)
		}
		lastNode = out["node_id"].(string)
	}

	b.Run("commit_geometry-c1", func(b *testing.B) {
		lastRevision = 0
		durations := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			t0 := time.Now()
			out, err := call("twin.commit_geometry", map[string]any{"name": "Bracket", "step_base64": stepFile(i)})
			durations = append(durations, time.Since(t0))
			if err != nil {
				b.Fatal(err)
			}
			if rev := out["revision"].(float64); lastRevision > 0 && rev != lastRevision+1 {
				b.Fatalf("commit %d made revision %v after %v", i, rev, lastRevision)
			}
			lastNode, lastRevision = out["node_id"].(string), out["revision"].(float64)
		}
		reportLatency(b, percentiles(durations))
	})
	b.Run("get_node-c1", func(b *testing.B) {
		durations := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for range b.N {
			t0 := time.Now()
			out, err := call("twin.get_node", map[string]any{"node_id": lastNode})
			durations = append(durations, time.Since(t0))
			if err != nil {
				b.Fatal(err)
			}
			if out["node"].(map[string]any)["node_id"] != lastNode {
				b.Fatalf("get_node answered %v", out["node"])
			}
		}
		reportLatency(b, percentiles(durations))
	})
}
