package twin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

// QueryCypher runs a query. Unless allowMutations, a query is run only if
// Neo4j's own EXPLAIN says it is read-only ("r"), and then in a read
// session, which the server enforces as well: the planner's word, not a
// keyword list, decides what writes.
func (s *Neo4jStore) QueryCypher(ctx context.Context, query string, params map[string]any, allowMutations bool, maxRows int) (CypherResult, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return CypherResult{}, fmt.Errorf("%w: the query is empty", ErrInvalid)
	}
	kind, err := s.explain(ctx, query, params)
	if err != nil {
		return CypherResult{}, err
	}
	mode := neo4j.AccessModeRead
	if kind != neo4j.StatementTypeReadOnly {
		if !allowMutations {
			return CypherResult{}, fmt.Errorf("%w: Neo4j plans this query as %s (%q), and twin.query_cypher runs read-only queries only; "+
				"use the twin.* write tools, which keep revisions and evidence consistent", ErrMutatingQuery, describeStatementType(kind), kind.String())
		}
		mode = neo4j.AccessModeWrite
	}
	session := s.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: mode})
	defer session.Close(ctx)
	run := func(tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, query, params)
		if err != nil {
			return nil, err
		}
		keys, err := res.Keys()
		if err != nil {
			return nil, err
		}
		out := CypherResult{Columns: keys, Rows: []map[string]any{}, StatementType: kind.String()}
		for res.Next(ctx) {
			if len(out.Rows) >= maxRows {
				out.Truncated = true
				break
			}
			rec := res.Record()
			row := make(map[string]any, len(keys))
			for i, k := range keys {
				row[k] = plainValue(rec.Values[i])
			}
			out.Rows = append(out.Rows, row)
		}
		if err := res.Err(); err != nil {
			return nil, err
		}
		out.RowCount = len(out.Rows)
		return out, nil
	}
	var v any
	if mode == neo4j.AccessModeRead {
		v, err = session.ExecuteRead(ctx, run)
	} else {
		v, err = session.ExecuteWrite(ctx, run)
	}
	if err != nil {
		return CypherResult{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return v.(CypherResult), nil
}

// explain asks the planner what the query would do, without running it.
func (s *Neo4jStore) explain(ctx context.Context, query string, params map[string]any) (neo4j.StatementType, error) {
	session := s.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead})
	defer session.Close(ctx)
	res, err := session.Run(ctx, "EXPLAIN "+query, params)
	if err != nil {
		return neo4j.StatementTypeUnknown, fmt.Errorf("%w: the query does not compile: %v", ErrInvalid, err)
	}
	sum, err := res.Consume(ctx)
	if err != nil {
		return neo4j.StatementTypeUnknown, fmt.Errorf("%w: the query does not compile: %v", ErrInvalid, err)
	}
	return sum.StatementType(), nil
}

func describeStatementType(t neo4j.StatementType) string {
	switch t {
	case neo4j.StatementTypeReadWrite:
		return "reading and writing"
	case neo4j.StatementTypeWriteOnly:
		return "writing"
	case neo4j.StatementTypeSchemaWrite:
		return "a schema or administrative change"
	}
	return "of unknown effect"
}

// plainValue turns driver values into JSON-friendly ones.
func plainValue(v any) any {
	switch x := v.(type) {
	case dbtype.Node:
		return map[string]any{"element_id": x.ElementId, "labels": x.Labels, "properties": plainMap(x.Props)}
	case dbtype.Relationship:
		return map[string]any{"element_id": x.ElementId, "type": x.Type, "start": x.StartElementId, "end": x.EndElementId, "properties": plainMap(x.Props)}
	case dbtype.Path:
		nodes := make([]any, len(x.Nodes))
		for i, n := range x.Nodes {
			nodes[i] = plainValue(n)
		}
		rels := make([]any, len(x.Relationships))
		for i, r := range x.Relationships {
			rels[i] = plainValue(r)
		}
		return map[string]any{"nodes": nodes, "relationships": rels}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainValue(e)
		}
		return out
	case map[string]any:
		return plainMap(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case dbtype.Date, dbtype.LocalTime, dbtype.LocalDateTime, dbtype.Time, dbtype.Duration:
		return fmt.Sprint(x)
	}
	return v
}

func plainMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = plainValue(v)
	}
	return out
}
