package twin

import (
	"context"
	"errors"
	"regexp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

func queryTools() []tool {
	return []tool{adapters.Declare(adapters.Manifest{ToolID: "twin.query_cypher", Name: "Query the twin in Cypher", Capability: "twin_read",
		Description: "Run a read-only Cypher query against the twin's Neo4j graph (labels Project, Item, TwinNode; twin nodes keep " +
			"project_id, node_type, name, item_key, revision and properties_json). A query runs only if Neo4j's own planner says it is " +
			"read-only. In a project (project_id, or the session's), the query must filter on $project_id, which is passed for you.",
		Idempotent: true, TimeoutSeconds: 60}, queryCypher,
		adapters.At("query", adapters.MinLength(1), adapters.MaxLength(20000)),
		adapters.At("params", anyObject),
		adapters.At("max_rows", adapters.Minimum(1), adapters.Maximum(1000), adapters.Default(200)))}
}

type queryCypherArgs struct {
	project.Scope
	Query   string         `json:"query"`
	Params  map[string]any `json:"params,omitempty" jsonschema:"query parameters ($name); project_id is set for you"`
	MaxRows int            `json:"max_rows,omitempty"`
}

var usesProjectParam = regexp.MustCompile(`\$project_id\b`)

func queryCypher(ctx context.Context, b *Backend, a queryCypherArgs) (any, error) {
	if b.Cypher == nil {
		return nil, protocol.Unavailable("twin.query_cypher needs the Neo4j twin: set NEO4J_URI (NEO4J_USER, NEO4J_PASSWORD); the in-memory twin has no query language")
	}
	if a.MaxRows == 0 {
		a.MaxRows = 200
	}
	params := map[string]any{}
	for k, v := range a.Params {
		params[k] = v
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	scoped := err == nil
	if err != nil && a.ProjectID != "" {
		return nil, err
	}
	if scoped {
		if !usesProjectParam.MatchString(a.Query) {
			return nil, protocol.Refusal("twin.query_cypher: the call is scoped to project %s but the query does not use $project_id; "+
				"add WHERE n.project_id = $project_id (it is passed for you)", p.ID)
		}
		params["project_id"] = p.ID
	}
	res, err := b.Cypher.QueryCypher(ctx, a.Query, params, b.AllowMutations, a.MaxRows)
	if errors.Is(err, twin.ErrMutatingQuery) {
		return nil, protocol.Refusal("%s", err.Error())
	}
	if err != nil {
		return nil, err
	}
	out := map[string]any{"columns": res.Columns, "rows": res.Rows, "row_count": res.RowCount, "truncated": res.Truncated, "statement_type": res.StatementType}
	if scoped {
		out["project_id"] = p.ID
	}
	return out, nil
}
