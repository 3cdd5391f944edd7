package twin_test

import (
	"context"
	"strings"
	"testing"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/twin/neo4jtest"
)

// neo4jBackend is the twin on this package's own Neo4j test server,
// emptied first.
func neo4jBackend(t *testing.T, allowMutations bool) *twinadapter.Backend {
	uri, user, password := neo4jtest.URI(t, neo4jtest.PortDigitalTwin)
	neo4jtest.Wipe(t, uri, user, password)
	store, err := twin.OpenNeo4j(context.Background(), uri, user, password)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close(context.Background()) })
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &twinadapter.Backend{Store: store, Sessions: store, Blobs: blobs, Cypher: store, AllowMutations: allowMutations}
}

// The walk-through again, with the twin on a real Neo4j server.
func TestRevisionsAndStaleEvidenceOnNeo4j(t *testing.T) {
	s := mcptest.Start(t, twinadapter.New(neo4jBackend(t, false))...)
	walkThrough(t, client{t, s.ConnectHTTP(t, nil)})
}

func TestQueryCypherIsReadOnlyByNeo4jsOwnPlan(t *testing.T) {
	s := mcptest.Start(t, twinadapter.New(neo4jBackend(t, false))...)
	c := client{t, s.ConnectHTTP(t, nil)}
	p := c.call("project.create", map[string]any{"name": "Cypher"})
	c.call("twin.commit_geometry", map[string]any{"name": "Plate", "step_base64": step("p1")})
	c.call("twin.commit_geometry", map[string]any{"name": "Plate", "step_base64": step("p2")})

	out := c.call("twin.query_cypher", map[string]any{"query": "MATCH (n:TwinNode) WHERE n.project_id = $project_id RETURN n.item_key AS key, n.revision AS rev ORDER BY rev"})
	rows := out["rows"].([]any)
	if out["statement_type"] != "r" || len(rows) != 2 || rows[1].(map[string]any)["rev"] != float64(2) || rows[0].(map[string]any)["key"] != "CAD-PLATE" {
		t.Fatalf("read query = %v", out)
	}
	if out["project_id"] != p["project_id"] {
		t.Errorf("the query was not scoped to the session's project: %v", out["project_id"])
	}
	if msg := c.refused("twin.query_cypher", map[string]any{"query": "MATCH (n:TwinNode) RETURN count(n)"}); !strings.Contains(msg, "does not use $project_id") {
		t.Errorf("unscoped query = %q", msg)
	}
	for _, q := range []string{
		"MATCH (n:TwinNode) WHERE n.project_id = $project_id DETACH DELETE n",
		"CREATE (x:TwinNode {project_id: $project_id, id: 'n-evil'}) RETURN x",
		"MATCH (n:TwinNode) WHERE n.project_id = $project_id SET n.name = 'renamed'",
	} {
		if msg := c.refused("twin.query_cypher", map[string]any{"query": q}); !strings.Contains(msg, "runs read-only queries only") {
			t.Errorf("mutating query %q = %q", q, msg)
		}
	}
	if msg := c.refused("twin.query_cypher", map[string]any{"query": "MATCH (n WHERE $project_id RETURN"}); !strings.Contains(msg, "does not compile") {
		t.Errorf("broken query = %q", msg)
	}
	after := c.call("twin.query_cypher", map[string]any{"query": "MATCH (n:TwinNode) WHERE n.project_id = $project_id RETURN count(n) AS n, collect(n.name) AS names"})
	row := after["rows"].([]any)[0].(map[string]any)
	if row["n"] != float64(2) || strings.Contains(strings.Join(toStrings(row["names"]), ","), "renamed") {
		t.Fatalf("refused queries changed the graph: %v", row)
	}
}

func TestQueryCypherMayWriteWhenMutationsAreAllowed(t *testing.T) {
	s := mcptest.Start(t, twinadapter.New(neo4jBackend(t, true))...)
	c := client{t, s.ConnectHTTP(t, nil)}
	c.call("project.create", map[string]any{"name": "Mutable"})
	out := c.call("twin.query_cypher", map[string]any{"query": "CREATE (m:Marker {project_id: $project_id}) RETURN m.project_id AS p"})
	if out["statement_type"] != "rw" || out["row_count"] != float64(1) {
		t.Fatalf("allowed mutation = %v", out)
	}
}

func TestQueryCypherNeedsNeo4j(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	res, err := c.cs.CallTool(context.Background(), mcpCall("twin.query_cypher", map[string]any{"query": "RETURN 1"}))
	if err == nil || !strings.Contains(err.Error(), "needs the Neo4j twin") {
		t.Fatalf("query_cypher on the in-memory twin = %v %v, want TOOL_UNAVAILABLE saying it needs Neo4j", res, err)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
