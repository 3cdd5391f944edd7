package twin_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/twin/neo4jtest"
	"github.com/metaforge/metaforge/twin/storetest"
)

// openNeo4j wipes the test server and opens a store on it, closed when the
// test ends.
func openNeo4j(t *testing.T) *twin.Neo4jStore {
	t.Helper()
	uri, user, password := neo4jtest.URI(t, neo4jtest.PortTwin)
	neo4jtest.Wipe(t, uri, user, password)
	s, err := twin.OpenNeo4j(context.Background(), uri, user, password)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

func TestNeo4jStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) twin.Store { return openNeo4j(t) })
}

func TestRulesOnNeo4jStore(t *testing.T) {
	runRules(t, func(t *testing.T) twin.Store { return openNeo4j(t) })
}

func schemaNames(t *testing.T, s *twin.Neo4jStore, show string) map[string]bool {
	t.Helper()
	res, err := neo4j.ExecuteQuery(context.Background(), s.Driver(), show+" YIELD name RETURN name", nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("%s: %v", show, err)
	}
	names := map[string]bool{}
	for _, r := range res.Records {
		name, _ := r.Values[0].(string)
		names[name] = true
	}
	return names
}

func TestNeo4jSchema(t *testing.T) {
	s := openNeo4j(t)
	constraints := schemaNames(t, s, "SHOW CONSTRAINTS")
	for _, want := range []string{"twin_project_id", "twin_project_name", "twin_project_call", "twin_lock_name", "twin_node_id", "twin_node_call", "twin_item_key"} {
		if !constraints[want] {
			t.Errorf("constraint %s missing after OpenNeo4j; have %v", want, constraints)
		}
	}
	indexes := schemaNames(t, s, "SHOW INDEXES")
	for _, want := range []string{"twin_item_project", "twin_node_project", "twin_node_project_item", "twin_node_project_type"} {
		if !indexes[want] {
			t.Errorf("index %s missing after OpenNeo4j; have %v", want, indexes)
		}
	}

	// Opening again finds the schema there and changes nothing.
	uri, user, password := neo4jtest.URI(t, neo4jtest.PortTwin)
	again, err := twin.OpenNeo4j(context.Background(), uri, user, password)
	if err != nil {
		t.Fatalf("second OpenNeo4j: %v", err)
	}
	defer again.Close(context.Background())
	if got := schemaNames(t, again, "SHOW CONSTRAINTS"); !reflect.DeepEqual(got, constraints) {
		t.Errorf("constraints after a second open = %v, want %v", got, constraints)
	}
	if got := schemaNames(t, again, "SHOW INDEXES"); !reflect.DeepEqual(got, indexes) {
		t.Errorf("indexes after a second open = %v, want %v", got, indexes)
	}

	// What one store writes, another connection reads.
	p, err := s.CreateProject(context.Background(), twin.Project{Name: "Shared"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := again.GetProject(context.Background(), p.ID); err != nil || got != p {
		t.Errorf("project through a second store = %+v %v, want %+v", got, err, p)
	}
}

func TestNeo4jWrongURIFailsFast(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "bolt://" + l.Addr().String()
	l.Close()
	for _, uri := range []string{closed, "http://127.0.0.1:7474"} {
		t0 := time.Now()
		s, err := twin.OpenNeo4j(context.Background(), uri, "neo4j", "secret")
		if err == nil {
			s.Close(context.Background())
			t.Fatalf("OpenNeo4j(%s) succeeded", uri)
		}
		if !strings.Contains(err.Error(), uri) {
			t.Errorf("OpenNeo4j(%s) = %v, want an error naming the URI", uri, err)
		}
		if d := time.Since(t0); d > 10*time.Second {
			t.Errorf("OpenNeo4j(%s) took %s to fail", uri, d)
		}
		t.Logf("%s: %v", uri, err)
	}
}

func TestNeo4jDescribe(t *testing.T) {
	s := openNeo4j(t)
	uri, _, _ := neo4jtest.URI(t, neo4jtest.PortTwin)
	st := s.Describe(context.Background())
	if st.Backend != "neo4j" || st.Address != uri || !st.Reachable || !st.Durable || st.Error != "" {
		t.Fatalf("Describe = %+v, want a reachable, durable neo4j store at %s", st, uri)
	}
	if !strings.HasPrefix(st.Detail, "Neo4j/") {
		t.Errorf("Describe detail = %q, want the server agent", st.Detail)
	}
}

// Properties keep nested values; times are UTC microseconds.
func TestNeo4jRoundTrip(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	p, err := s.CreateProject(ctx, twin.Project{Name: "Round trip"}, "")
	if err != nil {
		t.Fatal(err)
	}
	props := map[string]any{
		"dims":   []any{10.0, 20.5, "mm"},
		"nested": map[string]any{"ok": true, "none": nil, "deep": map[string]any{"n": 3.0}},
		"note":   "ünïcødé \"quoted\"",
	}
	n, _, err := s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Part", Properties: props})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetNode(ctx, n.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, n) {
		t.Errorf("GetNode = %+v, want what CommitRevision returned, %+v", got, n)
	}
	if !reflect.DeepEqual(got.Properties, props) {
		t.Errorf("properties = %#v, want %#v", got.Properties, props)
	}
	if got.CreatedAt.Location() != time.UTC || got.CreatedAt.Nanosecond()%1000 != 0 {
		t.Errorf("created_at = %v, want UTC truncated to the microsecond", got.CreatedAt)
	}
	gp, _ := s.GetProject(ctx, p.ID)
	if gp != p {
		t.Errorf("GetProject = %+v, want %+v", gp, p)
	}
	if _, err := s.RecordNode(ctx, twin.RecordWrite{ProjectID: p.ID, Type: "evidence", Name: "x",
		Links: []twin.Link{{To: n.ID}}}); !errors.Is(err, twin.ErrInvalid) {
		t.Errorf("a link without a type = %v, want ErrInvalid", err)
	}
	if _, err := s.RecordNode(ctx, twin.RecordWrite{ProjectID: p.ID, Type: "evidence", Name: "x",
		Properties: map[string]any{"bad": func() {}}}); !errors.Is(err, twin.ErrInvalid) {
		t.Errorf("a property that is no JSON value = %v, want ErrInvalid", err)
	}
}

// Ten writers revising one item at once end with revisions 1..10, each
// once, chained by REVISION_OF; ten repeats of one call make one node.
func TestNeo4jConcurrentRevisions(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	p, err := s.CreateProject(ctx, twin.Project{Name: "Busy"}, "")
	if err != nil {
		t.Fatal(err)
	}
	const writers = 10
	var wg sync.WaitGroup
	nodes := make([]twin.Node, writers)
	errs := make([]error, writers)
	t0 := time.Now()
	for i := range writers {
		wg.Go(func() {
			nodes[i], _, errs[i] = s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model",
				Name: "Hub", ChangeReason: fmt.Sprintf("writer %d", i)})
		})
	}
	wg.Wait()
	t.Logf("%d concurrent commits in %s", writers, time.Since(t0).Round(time.Millisecond))
	var revs []int
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
		revs = append(revs, nodes[i].Revision)
	}
	sort.Ints(revs)
	for i, r := range revs {
		if r != i+1 {
			t.Fatalf("revisions = %v, want 1..%d once each", revs, writers)
		}
	}
	items, _ := s.Items(ctx, p.ID)
	if len(items) != 1 || items[0].HeadRevision != writers {
		t.Fatalf("items = %+v, want one at revision %d", items, writers)
	}
	history, err := s.Revisions(ctx, p.ID, items[0].Key)
	if err != nil || len(history) != writers {
		t.Fatalf("Revisions = %d %v", len(history), err)
	}
	for i := 1; i < writers; i++ {
		prev, err := s.Neighbors(ctx, history[i].ID, twin.Outgoing, twin.EdgeRevisionOf)
		if err != nil || len(prev) != 1 || prev[0].Node.ID != history[i-1].ID {
			t.Fatalf("revision %d REVISION_OF = %+v %v, want revision %d", i+1, prev, err, i)
		}
	}

	// One call repeated concurrently writes once.
	ids := make([]string, writers)
	for i := range writers {
		wg.Go(func() {
			n, _, err := s.CommitRevision(ctx, twin.RevisionWrite{ProjectID: p.ID, ItemType: "cad_model", Name: "Hub",
				IdempotencyKey: "call-repeated"})
			ids[i], errs[i] = n.ID, err
		})
	}
	wg.Wait()
	for i := range writers {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("repeat %d = %s %v, want %s", i, ids[i], errs[i], ids[0])
		}
	}
	if it, _ := s.GetItem(ctx, p.ID, items[0].Key); it.HeadRevision != writers+1 {
		t.Fatalf("head after the repeated call = %d, want %d", it.HeadRevision, writers+1)
	}
}

// Racing creates of one name make one project; racing repeats of one call
// return one project.
func TestNeo4jConcurrentProjects(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	const writers = 10
	var wg sync.WaitGroup
	ids := make([]string, writers)
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			p, err := s.CreateProject(ctx, twin.Project{Name: fmt.Sprintf("Race %c", "aA"[i%2])}, "")
			ids[i], errs[i] = p.ID, err
		})
	}
	wg.Wait()
	made := 0
	for i, err := range errs {
		switch {
		case err == nil:
			made++
		case !errors.Is(err, twin.ErrDuplicateName):
			t.Errorf("writer %d: %v, want success or ErrDuplicateName", i, err)
		}
	}
	if list, _ := s.ListProjects(ctx); made != 1 || len(list) != 1 {
		t.Fatalf("%d creates succeeded, %d projects exist; want 1 and 1", made, len(list))
	}

	for i := range writers {
		wg.Go(func() {
			p, err := s.CreateProject(ctx, twin.Project{Name: "Once"}, "call-once")
			ids[i], errs[i] = p.ID, err
		})
	}
	wg.Wait()
	for i := range writers {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("repeat %d = %s %v, want project %s", i, ids[i], errs[i], ids[0])
		}
	}
}
