package twin

import (
	"context"
	"fmt"
)

// CypherResult is a query's answer: its columns and rows as plain JSON
// values (nodes, relationships and paths become maps).
type CypherResult struct {
	Columns       []string         `json:"columns"`
	Rows          []map[string]any `json:"rows"`
	RowCount      int              `json:"row_count"`
	Truncated     bool             `json:"truncated"`
	StatementType string           `json:"statement_type"`
}

// CypherRunner runs Cypher against the twin's graph. Only the Neo4j store
// has one: the in-memory twin has no query language.
type CypherRunner interface {
	QueryCypher(ctx context.Context, query string, params map[string]any, allowMutations bool, maxRows int) (CypherResult, error)
}

// ErrMutatingQuery is a query Neo4j's own planner says would write.
var ErrMutatingQuery = fmt.Errorf("mutating query")
