package twin_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// A minimal STEP file: what the blob store keeps is bytes, checked only for
// the ISO-10303-21 header.
func step(comment string) string {
	return base64.StdEncoding.EncodeToString([]byte("ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION(('" + comment + "'),'2;1');\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n"))
}

type client struct {
	t  *testing.T
	cs *mcp.ClientSession
}

// call runs a tool and returns its structured result, failing the test on
// any error.
func (c client) call(name string, args map[string]any) map[string]any {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		c.t.Fatalf("%s failed: %s", name, res.Content[0].(*mcp.TextContent).Text)
	}
	var out map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &out)
	return out
}

func mcpCall(name string, args map[string]any) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: name, Arguments: args}
}

// refused runs a tool that must fail as a tool (isError) and returns its text.
func (c client) refused(name string, args map[string]any) string {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: want a refusal, got a protocol error: %v", name, err)
	}
	if !res.IsError {
		c.t.Fatalf("%s: want a refusal, got %v", name, res.StructuredContent)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// strs turns a JSON array from a result into strings, for comparison.
func strs(v any) []string {
	out := []string{}
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

type backend struct {
	*twinadapter.Backend
	mem *twin.MemoryStore
}

func newBackend(t *testing.T) backend {
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mem := twin.NewMemoryStore()
	return backend{Backend: &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs}, mem: mem}
}

var (
	stackOnce sync.Once
	stack     *mcptest.Stack
	stackBE   backend
)

func theStack(t *testing.T) (*mcptest.Stack, backend) {
	stackOnce.Do(func() {
		stackBE = newBackend(t)
		stack = mcptest.Start(mcptest.Shared{TB: t}, twinadapter.New(stackBE.Backend)...)
	})
	return stack, stackBE
}

// The walk-through: create a project, open it by a substring,
// commit a part twice, pin evidence to revision 1, see it go stale when
// revision 2 lands, and read the item's history.
func TestRevisionsAndStaleEvidenceThroughMCP(t *testing.T) {
	s, _ := theStack(t)
	walkThrough(t, client{t, s.ConnectHTTP(t, nil)})
}

func walkThrough(t *testing.T, c client) {
	created := c.call("project.create", map[string]any{"name": "Bracket Study 7", "description": "a wall bracket"})
	if created["project_scope_bound"] != true {
		t.Fatalf("project.create over HTTP did not bind the session: %v", created)
	}
	opened := c.call("project.open", map[string]any{"ref": "study 7"})
	brief, _ := opened["brief"].(map[string]any)
	if opened["project"].(map[string]any)["project_id"] != created["project_id"] || brief["summary"] != "nothing is recorded in this project yet" {
		t.Fatalf("project.open = %v", opened)
	}

	// No project_id from here on: the session's project is used.
	rev1 := c.call("twin.commit_geometry", map[string]any{"name": "Wall Bracket", "step_base64": step("rev 1"), "material": "6061-T6",
		"properties": map[string]any{"volume_mm3": 12500.0}})
	if rev1["item_key"] != "CAD-WALL-BRACKET" || rev1["revision"] != float64(1) || rev1["item_ref"] != "CAD-WALL-BRACKET@1" {
		t.Fatalf("first commit = %v", rev1)
	}
	blob := rev1["blob"].(map[string]any)
	if !strings.HasPrefix(blob["key"].(string), "sha256:") || blob["bytes"].(float64) < 50 {
		t.Fatalf("blob = %v", blob)
	}
	reqs := c.call("twin.record_constraint_set", map[string]any{"name": "Bracket requirements", "constraints": []any{
		map[string]any{"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"},
		map[string]any{"name": "be light", "limit": 0.2},
	}})
	incomplete, _ := reqs["incomplete"].([]any)
	if len(incomplete) != 1 || incomplete[0].(map[string]any)["name"] != "be light" {
		t.Fatalf("incomplete = %v, want only 'be light'", reqs["incomplete"])
	}
	missing := incomplete[0].(map[string]any)["missing"].([]any)
	if len(missing) != 3 {
		t.Errorf("'be light' missing = %v, want the condition, the unit and the verification method", missing)
	}
	ev := c.call("twin.record_evidence", map[string]any{"name": "FEA tip deflection", "kind": "simulation", "metric": "tip_deflection",
		"value": 0.31, "unit": "mm", "valid_against": []any{"CAD-WALL-BRACKET@1"}, "verifies": []any{reqs["item_ref"]}})
	if ev["stale"] != false || ev["valid_against"].([]any)[0] != "CAD-WALL-BRACKET@1" {
		t.Fatalf("evidence = %v", ev)
	}

	rev2 := c.call("twin.commit_geometry", map[string]any{"name": "Wall Bracket", "step_base64": step("rev 2"), "item_key": "CAD-WALL-BRACKET@1",
		"change_reason": "thicker web"})
	if rev2["item_ref"] != "CAD-WALL-BRACKET@2" {
		t.Fatalf("second commit = %v", rev2)
	}
	node := c.call("twin.get_node", map[string]any{"node_id": ev["node_id"]})
	if node["stale"] != true {
		t.Fatalf("evidence pinned to @1 after @2 landed: %v, want stale", node)
	}
	against := node["stale_against"].([]any)[0].(map[string]any)
	if against["pinned"] != "CAD-WALL-BRACKET@1" || against["head"] != "CAD-WALL-BRACKET@2" {
		t.Errorf("stale_against = %v", against)
	}

	hist := c.call("twin.item_history", map[string]any{"item_key": "CAD-WALL-BRACKET"})
	revs := hist["revisions"].([]any)
	if len(revs) != 2 || hist["item"].(map[string]any)["head_ref"] != "CAD-WALL-BRACKET@2" {
		t.Fatalf("history = %v", hist)
	}
	r1, r2 := revs[0].(map[string]any), revs[1].(map[string]any)
	if r1["revision"] != float64(1) || r1["is_head"] != false || r1["change_reason"] != nil ||
		r2["revision"] != float64(2) || r2["is_head"] != true || r2["change_reason"] != "thicker web" || r2["author"] != "agent:mcptest" {
		t.Errorf("revisions = %v", revs)
	}
	byKey := c.call("twin.get_node", map[string]any{"item_key": "CAD-WALL-BRACKET@1"})
	if byKey["is_head"] != false || byKey["node"].(map[string]any)["properties"].(map[string]any)["material"] != "6061-T6" {
		t.Errorf("get_node by KEY@1 = %v", byKey)
	}
}

// Bad input gets an error naming the problem and writes nothing.
func TestBadInputNamesTheProblemAndWritesNothing(t *testing.T) {
	s, be := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	p := c.call("project.create", map[string]any{"name": "Arm A"})
	pid := p["project_id"].(string)
	c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Link", "step_base64": step("1")})
	c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Link", "step_base64": step("2")})

	if msg := c.refused("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Link", "step_base64": step("3"), "item_key": "CAD-LINK@1"}); !strings.Contains(msg, "CAD-LINK@1 is stale: the head of CAD-LINK is revision 2") {
		t.Errorf("stale KEY@n = %q", msg)
	}
	if msg := c.refused("twin.item_history", map[string]any{"project_id": pid, "item_key": "CAD-NOPE"}); !strings.Contains(msg, "CAD-NOPE names no item") {
		t.Errorf("unknown item = %q", msg)
	}
	if msg := c.refused("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Link"}); !strings.Contains(msg, "Missing: session_id, obj_id, step_base64") {
		t.Errorf("missing geometry = %q", msg)
	}
	if msg := c.refused("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Link", "step_base64": base64.StdEncoding.EncodeToString([]byte("solid cube\nendsolid"))}); !strings.Contains(msg, "not a STEP file") {
		t.Errorf("not STEP = %q", msg)
	}
	if msg := c.refused("twin.record_evidence", map[string]any{"project_id": pid, "name": "x", "kind": "test", "valid_against": []any{"CAD-LINK@9"}}); !strings.Contains(msg, "CAD-LINK has no revision 9") {
		t.Errorf("evidence pinned to a missing revision = %q", msg)
	}
	revs, _ := be.mem.Revisions(context.Background(), pid, "CAD-LINK")
	ev, _ := be.mem.NodesByType(context.Background(), pid, "evidence")
	if len(revs) != 2 || len(ev) != 0 {
		t.Fatalf("refused calls wrote: %d revisions (want 2), %d evidence (want 0)", len(revs), len(ev))
	}
	// A schema violation is a protocol error naming the field.
	_, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "twin.record_constraint_set", Arguments: map[string]any{"project_id": pid, "name": "x", "constraints": []any{map[string]any{"name": "a", "operator": "~"}}}})
	if err == nil || !strings.Contains(err.Error(), "operator") {
		t.Errorf("bad operator = %v, want -32602 naming operator", err)
	}
}

// A call with no project and no session project says how to fix it.
func TestNoProjectSaysHowToPickOne(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	if msg := c.refused("twin.item_history", map[string]any{"item_key": "CAD-X"}); !strings.Contains(msg, "pass project_id, or pick one for this session with project.open or session.start") {
		t.Errorf("no project = %q", msg)
	}
}

// failOnceAfterWriting wraps the twin adapter: the first call of each tool
// does its write and then reports a transient failure, as a worker that
// crashed after the write would. Temporal retries the activity.
type failOnceAfterWriting struct {
	adapters.Adapter
	mu     sync.Mutex
	failed map[string]bool
}

func (f *failOnceAfterWriting) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	res, err := f.Adapter.Call(ctx, toolID, args)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil && !f.failed[toolID] {
		f.failed[toolID] = true
		return nil, protocol.Transient("injected: the worker lost its connection after writing")
	}
	return res, err
}

func TestARetriedWriteLeavesOneRevision(t *testing.T) {
	be := newBackend(t)
	var as []adapters.Adapter
	var wrapped *failOnceAfterWriting
	for _, a := range twinadapter.New(be.Backend) {
		if a.ID() == "twin" {
			wrapped = &failOnceAfterWriting{Adapter: a, failed: map[string]bool{}}
			a = wrapped
		}
		as = append(as, a)
	}
	s := mcptest.Start(t, as...)
	c := client{t, s.ConnectHTTP(t, nil)}
	p := c.call("project.create", map[string]any{"name": "Retry"})
	out := c.call("twin.commit_geometry", map[string]any{"project_id": p["project_id"], "name": "Gusset", "step_base64": step("g")})
	if out["item_ref"] != "CAD-GUSSET@1" || !wrapped.failed["twin.commit_geometry"] {
		t.Fatalf("commit = %v (injected failure happened: %v)", out, wrapped.failed["twin.commit_geometry"])
	}
	revs, err := be.mem.Revisions(context.Background(), p["project_id"].(string), "CAD-GUSSET")
	if err != nil || len(revs) != 1 {
		t.Fatalf("after a retried write: %d revisions %v, want exactly 1", len(revs), err)
	}
	if _, err := be.mem.GetItem(context.Background(), "x", "y"); !errors.Is(err, twin.ErrNotFound) {
		t.Fatal(err)
	}
}

// The stash is authoritative: a commit naming an export by (session_id,
// obj_id) takes the stashed bytes, even over a carried-back copy, and says
// when the copy differed.
func TestCommitTakesTheStashedExport(t *testing.T) {
	s, be := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	p := c.call("project.create", map[string]any{"name": "Stash"})
	pid := p["project_id"].(string)
	pristine := []byte("ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION(('NAMED_UNIT'),'2;1');\nENDSEC;\nEND-ISO-10303-21;\n")
	corrupt := base64.StdEncoding.EncodeToString([]byte("ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION(('NAMED_URIT'),'2;1');\nENDSEC;\nEND-ISO-10303-21;\n"))
	be.Stash.Put("cad-session-1", "obj-7", pristine)

	out := c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Clip", "session_id": "cad-session-1", "obj_id": "obj-7", "step_base64": corrupt})
	if out["blob_diverged_repaired"] != true {
		t.Errorf("a diverging copy was not reported: %v", out)
	}
	blob := out["blob"].(map[string]any)
	got, err := be.Blobs.Get(blob["key"].(string))
	if err != nil || string(got) != string(pristine) {
		t.Fatalf("committed %q (%v), want the stashed bytes", got, err)
	}
	same := c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Clip", "session_id": "cad-session-1", "obj_id": "obj-7"})
	if same["blob_diverged_repaired"] != nil || same["blob"].(map[string]any)["key"] != blob["key"] {
		t.Errorf("a commit by stash alone = %v", same)
	}
	if msg := c.refused("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Clip", "session_id": "cad-session-1"}); !strings.Contains(msg, "Missing: obj_id") {
		t.Errorf("half a stash key = %q", msg)
	}
	if msg := c.refused("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Clip", "session_id": "cad-session-1", "obj_id": "obj-9"}); !strings.Contains(msg, "no export of cad-session-1/obj-9 is stashed") {
		t.Errorf("an unknown export = %q", msg)
	}
}
