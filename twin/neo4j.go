package twin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
)

// Neo4jStore keeps the twin in a Neo4j 5 server (5.26 or later):
//
//	(:Project  {id, name, name_lower, description, created_at, updated_at, call_id})
//	(:Item     {project_id, key, item_type, name, head_revision, head_node_id, created_at, updated_at})
//	(:TwinNode {id, project_id, node_type, name, properties_json, item_key, revision,
//	            change_reason, author, call_id, created_at})
//	(:TwinNode)-[:EDGE_TYPE {properties_json, ordinal}]->(:TwinNode)
//
// Every edge type is its own relationship type (VERIFIES, REVISION_OF...),
// so Cypher reads naturally. Properties are JSON strings, so nested values
// round-trip exactly (numbers come back as float64, as encoding/json gives
// them). Times are Neo4j datetimes in UTC, truncated to the microsecond.
// Absent optional fields (call_id, item_key, ...) are absent properties, so
// the uniqueness constraints on call_id ignore them.
//
// Every write is one transaction that takes a write lock on its project's
// node before it reads anything it decides on, so writes to one project are
// serialized: revision numbers and item keys cannot collide, and a refused
// write has written nothing. Project creates and renames also lock one
// (:TwinLock {name: 'project_names'}) node, so names stay unique.
type Neo4jStore struct {
	driver neo4j.DriverWithContext
	uri    string
	agent  string // server agent, e.g. "Neo4j/5.26.30"
}

var _ Store = (*Neo4jStore)(nil)

const (
	neo4jConnectTimeout = 5 * time.Second
	// neo4jVerifyTimeout bounds OpenNeo4j's and Describe's connectivity
	// check when the caller's context has no deadline.
	neo4jVerifyTimeout = 10 * time.Second
	codeConstraintFail = "Neo.ClientError.Schema.ConstraintValidationFailed"
)

// neo4jSchema is created at start-up. Every statement is idempotent.
var neo4jSchema = []string{
	"CREATE CONSTRAINT twin_project_id IF NOT EXISTS FOR (p:Project) REQUIRE p.id IS UNIQUE",
	// Backstops for the checks the writes make, should two race.
	"CREATE CONSTRAINT twin_project_name IF NOT EXISTS FOR (p:Project) REQUIRE p.name_lower IS UNIQUE",
	"CREATE CONSTRAINT twin_project_call IF NOT EXISTS FOR (p:Project) REQUIRE p.call_id IS UNIQUE",
	// The lock node project creates and renames take; MERGE on a unique
	// key makes exactly one.
	"CREATE CONSTRAINT twin_lock_name IF NOT EXISTS FOR (l:TwinLock) REQUIRE l.name IS UNIQUE",
	"CREATE CONSTRAINT twin_node_id IF NOT EXISTS FOR (n:TwinNode) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT twin_node_call IF NOT EXISTS FOR (n:TwinNode) REQUIRE n.call_id IS UNIQUE",
	// A session is bound to one project at a time (session.start).
	"CREATE CONSTRAINT twin_session_id IF NOT EXISTS FOR (s:Session) REQUIRE s.id IS UNIQUE",
	// A deleted project leaves a tombstone per delete call, so a retried
	// delete knows it already ran.
	"CREATE CONSTRAINT twin_deleted_call IF NOT EXISTS FOR (d:DeletedProject) REQUIRE d.call_id IS UNIQUE",
	// A composite property uniqueness constraint (Community edition; a
	// node key would be Enterprise-only). Its index serves item look-ups.
	"CREATE CONSTRAINT twin_item_key IF NOT EXISTS FOR (i:Item) REQUIRE (i.project_id, i.key) IS UNIQUE",
	"CREATE INDEX twin_item_project IF NOT EXISTS FOR (i:Item) ON (i.project_id)",
	"CREATE INDEX twin_node_project IF NOT EXISTS FOR (n:TwinNode) ON (n.project_id)",
	"CREATE INDEX twin_node_project_item IF NOT EXISTS FOR (n:TwinNode) ON (n.project_id, n.item_key)",
	"CREATE INDEX twin_node_project_type IF NOT EXISTS FOR (n:TwinNode) ON (n.project_id, n.node_type)",
}

// OpenNeo4j connects to the Neo4j server at uri (bolt://host:7687 or
// neo4j://host:7687), checks that it answers, and creates the twin's
// constraints and indexes if they are missing. An empty user and password
// connect without authentication.
func OpenNeo4j(ctx context.Context, uri, user, password string) (*Neo4jStore, error) {
	auth := neo4j.NoAuth()
	if user != "" || password != "" {
		auth = neo4j.BasicAuth(user, password, "")
	}
	driver, err := neo4j.NewDriverWithContext(uri, auth, func(c *config.Config) {
		c.SocketConnectTimeout = neo4jConnectTimeout
	})
	if err != nil {
		return nil, fmt.Errorf("twin: bad Neo4j URI %q (want bolt://host:7687 or neo4j://host:7687): %w", redactURI(uri), err)
	}
	s := &Neo4jStore{driver: driver, uri: redactURI(uri)}
	fail := func(err error) (*Neo4jStore, error) {
		_ = driver.Close(context.WithoutCancel(ctx))
		return nil, err
	}

	vctx, cancel := withDefaultTimeout(ctx, neo4jVerifyTimeout)
	info, err := driver.GetServerInfo(vctx)
	cancel()
	if err != nil {
		return fail(fmt.Errorf("twin: cannot reach Neo4j at %s: %w; check that a Neo4j 5 server is running and "+
			"listening there, and that NEO4J_URI, NEO4J_USER and NEO4J_PASSWORD are right "+
			"(deploy/start-neo4j.sh starts a local test server)", s.uri, err))
	}
	s.agent = info.Agent()
	if major, minor, ok := neo4jVersion(s.agent); ok && (major < 5 || major == 5 && minor < 26) {
		return fail(fmt.Errorf("twin: the Neo4j server at %s is %s; the twin needs Neo4j 5.26 or later", s.uri, s.agent))
	}
	if err := s.ensureSchema(ctx); err != nil {
		return fail(fmt.Errorf("twin: creating the twin's constraints and indexes in Neo4j at %s: %w", s.uri, err))
	}
	return s, nil
}

func (s *Neo4jStore) ensureSchema(ctx context.Context) error {
	for _, stmt := range neo4jSchema {
		var err error
		// Two processes starting at once may race on a constraint; the
		// second attempt sees it exists.
		for attempt := 0; attempt < 3; attempt++ {
			if _, err = neo4j.ExecuteQuery(ctx, s.driver, stmt, nil, neo4j.EagerResultTransformer); err == nil {
				break
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	_, err := neo4j.ExecuteQuery(ctx, s.driver, "CALL db.awaitIndexes(60)", nil, neo4j.EagerResultTransformer)
	return err
}

var neo4jAgentVersion = regexp.MustCompile(`^Neo4j/(\d+)\.(\d+)`)

func neo4jVersion(agent string) (major, minor int, ok bool) {
	m := neo4jAgentVersion.FindStringSubmatch(agent)
	if m == nil {
		return 0, 0, false
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor, true
}

// redactURI drops a password written into the URI.
func redactURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.User == nil {
		return uri
	}
	return u.Redacted()
}

func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// Driver is the store's Neo4j driver, for read-only Cypher.
func (s *Neo4jStore) Driver() neo4j.DriverWithContext { return s.driver }

// Describe implements Store.
func (s *Neo4jStore) Describe(ctx context.Context) StoreStatus {
	st := StoreStatus{Backend: "neo4j", Address: s.uri, Durable: true}
	vctx, cancel := withDefaultTimeout(ctx, neo4jVerifyTimeout)
	defer cancel()
	if err := s.driver.VerifyConnectivity(vctx); err != nil {
		st.Error = err.Error()
		st.Detail = "Neo4j does not answer; check that the server is running"
		return st
	}
	st.Reachable = true
	st.Detail = s.agent
	return st
}

// Close implements Store.
func (s *Neo4jStore) Close(ctx context.Context) error { return s.driver.Close(ctx) }

// writeTx runs work in one write transaction. The driver retries transient
// failures (deadlocks, lost connections). A uniqueness constraint failing
// means another transaction committed what this one's checks looked for
// (a project name, an idempotency key) after they read; the work then runs
// again, and its checks see it.
func writeTx[T any](ctx context.Context, s *Neo4jStore, work func(tx neo4j.ManagedTransaction) (T, error)) (T, error) {
	session := s.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeWrite})
	defer session.Close(context.WithoutCancel(ctx))
	for attempt := 0; ; attempt++ {
		v, err := neo4j.ExecuteWrite(ctx, session, work)
		if err != nil && attempt < 2 && isConstraintFailure(err) {
			continue
		}
		return v, storeErr(err)
	}
}

// readTx runs work in one read transaction.
func readTx[T any](ctx context.Context, s *Neo4jStore, work func(tx neo4j.ManagedTransaction) (T, error)) (T, error) {
	session := s.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead})
	defer session.Close(context.WithoutCancel(ctx))
	v, err := neo4j.ExecuteRead(ctx, session, work)
	return v, storeErr(err)
}

func isConstraintFailure(err error) bool {
	var ne *neo4j.Neo4jError
	return errors.As(err, &ne) && ne.Code == codeConstraintFail
}

// storeErr passes the twin's own errors through and labels the driver's.
func storeErr(err error) error {
	if err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalid) ||
		errors.Is(err, ErrDuplicateName) || errors.Is(err, ErrStaleRevision) {
		return err
	}
	return fmt.Errorf("twin: neo4j: %w", err)
}

// query runs one statement in tx and collects its records. Driver errors
// are returned as they are, so the driver can tell which to retry.
func query(ctx context.Context, tx neo4j.ManagedTransaction, cypher string, params map[string]any) ([]*neo4j.Record, error) {
	res, err := tx.Run(ctx, cypher, params)
	if err != nil {
		return nil, err
	}
	return res.Collect(ctx)
}

// queryMaps runs a statement returning one map column and returns the maps.
func queryMaps(ctx context.Context, tx neo4j.ManagedTransaction, cypher string, params map[string]any) ([]map[string]any, error) {
	recs, err := query(ctx, tx, cypher, params)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		m, _ := r.Values[0].(map[string]any)
		if m != nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// lockProject takes the write lock on a project's node, which every write
// to the project takes first; false if there is no such project.
func lockProject(ctx context.Context, tx neo4j.ManagedTransaction, id string) (bool, error) {
	recs, err := query(ctx, tx, "MATCH (p:Project {id: $id}) SET p._lock = true REMOVE p._lock RETURN p.id", map[string]any{"id": id})
	return len(recs) > 0, err
}

// lockProjectNames takes the write lock that project creates and renames
// take first, so the names and idempotency keys they check cannot change
// until they commit. (Without it, reading committed data, a create could
// miss a racing repeat's idempotency key and then see its name.)
func lockProjectNames(ctx context.Context, tx neo4j.ManagedTransaction) error {
	_, err := query(ctx, tx, "MERGE (l:TwinLock {name: 'project_names'}) SET l._lock = true REMOVE l._lock", nil)
	return err
}

// Decoding of stored properties.

func mapStr(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func mapInt(m map[string]any, k string) int {
	n, _ := m[k].(int64)
	return int(n)
}

func mapTime(m map[string]any, k string) time.Time {
	switch t := m[k].(type) {
	case time.Time:
		return t.UTC()
	case neo4j.LocalDateTime:
		return t.Time().UTC()
	}
	return time.Time{}
}

func mapJSON(m map[string]any, k string) (map[string]any, error) {
	s, ok := m[k].(string)
	if !ok || s == "" {
		return nil, nil
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("twin: neo4j: stored %s is not a JSON object: %w", k, err)
	}
	return out, nil
}

// encodeProps turns properties into the JSON string stored for them; nil
// when there are none.
func encodeProps(what string, props map[string]any) (any, error) {
	if len(props) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(props)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: properties must be JSON values: %v", ErrInvalid, what, err)
	}
	return string(b), nil
}

func projectFromMap(m map[string]any) Project {
	return Project{
		ID: mapStr(m, "id"), Name: mapStr(m, "name"), Description: mapStr(m, "description"),
		CreatedAt: mapTime(m, "created_at"), UpdatedAt: mapTime(m, "updated_at"),
	}
}

func itemFromMap(m map[string]any) Item {
	return Item{
		Key: mapStr(m, "key"), ProjectID: mapStr(m, "project_id"), ItemType: mapStr(m, "item_type"), Name: mapStr(m, "name"),
		HeadRevision: mapInt(m, "head_revision"), HeadNodeID: mapStr(m, "head_node_id"),
		CreatedAt: mapTime(m, "created_at"), UpdatedAt: mapTime(m, "updated_at"),
	}
}

func nodeFromMap(m map[string]any) (Node, error) {
	props, err := mapJSON(m, "properties_json")
	if err != nil {
		return Node{}, err
	}
	return Node{
		ID: mapStr(m, "id"), ProjectID: mapStr(m, "project_id"), Type: mapStr(m, "node_type"), Name: mapStr(m, "name"),
		Properties: props, ItemKey: mapStr(m, "item_key"), Revision: mapInt(m, "revision"),
		ChangeReason: mapStr(m, "change_reason"), Author: mapStr(m, "author"), CallID: mapStr(m, "call_id"),
		CreatedAt: mapTime(m, "created_at"),
	}, nil
}

func nodesFromMaps(ms []map[string]any) ([]Node, error) {
	var out []Node
	for _, m := range ms {
		n, err := nodeFromMap(m)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// putIfSet adds optional string properties that are not empty: an absent
// property, not "", so the uniqueness constraints on call_id ignore it.
func putIfSet(m map[string]any, kv ...string) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			m[kv[i]] = kv[i+1]
		}
	}
	return m
}
