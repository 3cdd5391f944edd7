package mcpserver

import (
	"testing"

	"github.com/metaforge/metaforge/adapters"
)

// twin.query_cypher's hint follows the server's mutation flag: a client is
// never told a tool is read-only when this server would let it write.
func TestQueryCypherAnnotationFollowsTheMutationFlag(t *testing.T) {
	m := adapters.Manifest{ToolID: "twin.query_cypher", InputSchema: []byte(`{"type":"object"}`)}
	if a := toolFor(m, false).Annotations; !a.ReadOnlyHint || *a.DestructiveHint {
		t.Errorf("without --allow-twin-mutations: %+v, want read-only", a)
	}
	if a := toolFor(m, true).Annotations; a.ReadOnlyHint || !*a.DestructiveHint || a.IdempotentHint {
		t.Errorf("with --allow-twin-mutations: %+v, want a destructive write", a)
	}
	// Other read-only tools are unaffected by the flag.
	g := adapters.Manifest{ToolID: "twin.get_node", InputSchema: []byte(`{"type":"object"}`)}
	if a := toolFor(g, true).Annotations; !a.ReadOnlyHint {
		t.Errorf("twin.get_node with the flag: %+v, want read-only", a)
	}
}
